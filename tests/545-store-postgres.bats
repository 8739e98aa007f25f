#!/usr/bin/env bats
# The results store on PostgreSQL (--store postgresql://...): the same
# commands as 540-store.bats against a server this file starts for itself:
# Debian's postgresql package, initdb and pg_ctl in a temporary folder, as
# an unprivileged user (nobody, when the tests run as root), listening only
# on a Unix socket in that folder; stopped and removed at the end.  Each
# test has a database of its own.

load helpers

S=tests/fixtures/specs/cli

pg_bin() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	return 1
}

# as_pg CMD...: CMD as the server's owner
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

setup_file() {
	export PGBIN PGDIR PGSKIP=""
	if ! PGBIN=$(pg_bin); then
		PGSKIP="Debian's postgresql package is not installed (no /usr/lib/postgresql/*/bin/initdb): tools/deps.sh --test-only installs it"
		return 0
	fi
	# not under bats' own temporary folder: its parents are closed to nobody, and
	# a socket path must stay under 108 bytes
	PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-pg.XXXXXX")
	chmod 755 "$PGDIR"
	mkdir "$PGDIR/data"
	[ "$(id -u)" -eq 0 ] && chown nobody "$PGDIR" "$PGDIR/data"
	if ! as_pg "$PGBIN/initdb" -D "$PGDIR/data" -U sysmeter --auth=trust -E UTF8 --no-sync \
		>"$PGDIR/initdb.log" 2>&1; then
		PGSKIP="initdb could not make a cluster: $(tail -1 "$PGDIR/initdb.log")"
		return 0
	fi
	if ! as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 \
		-o "-k $PGDIR -c listen_addresses= -p 5432 -c fsync=off" start >/dev/null 2>&1; then
		PGSKIP="the PostgreSQL server did not start: $(tail -1 "$PGDIR/server.log")"
	fi
}

teardown_file() {
	if [ -n "${PGDIR:-}" ] && [ -d "$PGDIR/data" ]; then
		as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1 || true
		rm -rf "$PGDIR"
	fi
}

setup() {
	[ -z "$PGSKIP" ] || skip "$PGSKIP"
	OUT="$BATS_TEST_TMPDIR/out"
	DBNAME="t$BATS_TEST_NUMBER"
	"$PGBIN/createdb" -h "$PGDIR" -p 5432 -U sysmeter "$DBNAME"
	URL="postgresql://sysmeter@/$DBNAME?host=$PGDIR&port=5432"
}

# psql_q 'SELECT ...': rows, columns separated by '|'
psql_q() { "$PGBIN/psql" "$URL" -X -At -c "$1"; }

points() {
	python3 -c 'import glob,json,sys; print(sum(len(json.load(open(f))["points"]) for f in glob.glob(sys.argv[1] + "/results/*.json")))' "$1"
}

@test "postgres: a run records itself in the server's store" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 5 --store "$URL" "$S/params.yaml"
	[ "$status" -eq 0 ]
	[ ! -e "$OUT/sysmeter.db" ]
	[ "$(psql_q "SELECT id, status, seed FROM runs")" = "a|complete|5" ]
	[ "$(psql_q "SELECT COUNT(*) FROM points WHERE run_id = 'a'")" -eq "$(points "$OUT/a")" ]
	[ "$(psql_q "SELECT COUNT(*) FROM round_estimates WHERE run_id = 'a'")" -ge 2 ]
	[ "$(psql_q "SELECT params_key FROM points WHERE idx = 0")" = "count=1,flag=false,mode=a,ratio=0.5,size=4096,wait=0.001" ]
	[ "$(psql_q "SELECT MAX(version) FROM schema_version")" -eq 4 ]
	[ "$(json "$OUT/a/manifest.json" 'd["store"]["where"]')" = "$URL" ]
}

@test "postgres: import twice adds nothing; check finds the store whole, then what differs" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --no-store "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b --no-store "$S/null.yaml"
	run "$RUNNER" store import --store "$URL" "$OUT/a" "$OUT/b"
	[ "$status" -eq 0 ]
	count="SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM points), (SELECT COUNT(*) FROM round_estimates), (SELECT COUNT(*) FROM experiments)"
	before=$(psql_q "$count")
	[ "${before%%|*}" -eq 2 ]
	run "$RUNNER" store import --store "$URL" "$OUT/a" "$OUT/b"
	[ "$status" -eq 0 ]
	[ "$(psql_q "$count")" = "$before" ]
	run "$RUNNER" store check --store "$URL"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 runs checked, 0 differ"* ]]
	rm -rf "$OUT/b"
	run "$RUNNER" store check --store "$URL"
	[ "$status" -eq 1 ]
	[[ "$output" == *"b: $(realpath "$OUT")/b: the run folder is missing"* ]]
}

@test "postgres: two runners and two imports writing at once lose nothing" {
	for r in i1 i2 i3; do
		"$RUNNER" --no-report -q -o "$OUT" --run-id "$r" --no-store "$S/params.yaml"
	done
	"$RUNNER" --no-report -q -o "$OUT" --run-id r1 --store "$URL" "$S/params.yaml" >/dev/null 2>&1 & p1=$!
	"$RUNNER" --no-report -q -o "$OUT" --run-id r2 --store "$URL" "$S/params.yaml" >/dev/null 2>&1 & p2=$!
	"$RUNNER" store import -q --store "$URL" "$OUT/i1" "$OUT/i2" "$OUT/i3" & p3=$!
	"$RUNNER" store import -q --store "$URL" "$OUT/i3" "$OUT/i2" "$OUT/i1" & p4=$!
	rc=0
	for p in $p1 $p2 $p3 $p4; do wait "$p" || rc=$?; done
	[ "$rc" -eq 0 ]
	[ "$(psql_q "SELECT id FROM runs ORDER BY id" | tr '\n' ' ')" = "i1 i2 i3 r1 r2 " ]
	for r in i1 i2 i3 r1 r2; do
		[ "$(psql_q "SELECT COUNT(*) FROM points WHERE run_id = '$r'")" -eq "$(points "$OUT/$r")" ]
	done
}

@test "postgres: a store of the previous schema is migrated, its rows kept" {
	"$PGBIN/psql" "$URL" -X -q -v ON_ERROR_STOP=1 -f tests/fixtures/store/schema-v1.sql
	[ "$(psql_q "SELECT version FROM schema_version")" -eq 1 ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --store "$URL" "$S/null.yaml"
	[ "$status" -eq 0 ]
	[ "$(psql_q "SELECT version FROM schema_version")" -eq 4 ]
	[ "$(psql_q "SELECT estimate, ci_level FROM points WHERE run_id = '20260101T000000Z-old001'")" = "12.5|" ]
	[ "$(psql_q "SELECT canary_ns IS NULL AND wake_us IS NULL FROM runs WHERE id = '20260101T000000Z-old001'")" = t ]
	[ "$(psql_q "SELECT canary_ns > 0 FROM runs WHERE id = 'a'")" = t ]
	[ "$(psql_q "SELECT COUNT(*) FROM round_estimates WHERE run_id = 'a'")" -ge 1 ]
}

@test "postgres: the URL's password is neither printed nor recorded" {
	# a trust server takes any password: the run is recorded, the password nowhere
	secret_url="postgresql://sysmeter:s3cr3t@/$DBNAME?host=$PGDIR&port=5432&password=s3cr3t"
	run "$RUNNER" --no-report -o "$OUT" --run-id a --store "$secret_url" "$S/null.yaml"
	[ "$status" -eq 0 ]
	[[ "$output" != *s3cr3t* ]]
	! grep -r s3cr3t "$OUT/a" || false
	[ "$(json "$OUT/a/manifest.json" 'd["store"]["where"]')" = "$URL" ]
	[[ "$(json "$OUT/a/manifest.json" '" ".join(d["command_line"])')" == *"--store $URL"* ]]
	! psql_q "SELECT * FROM runs" | grep s3cr3t
}

@test "postgres: compare --baseline-store takes the newest earlier run" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --store "$URL" "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b --store "$URL" "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id c --store "$URL" "$S/params.yaml"
	run "$RUNNER" compare --baseline-store --store "$URL" "$OUT/c"
	[[ "$output" == *"baseline b ($(realpath "$OUT")/b)"* ]]
}
