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

# --- issue 33: the password in every spelling libpq reads; a held lock ---

# pids this file's tests start in the background, stopped if a test fails
teardown() {
	local p
	for p in ${BG_PIDS:-}; do kill "$p" 2>/dev/null || true; done
	[ -z "${HOLDER:-}" ] || release_lock || true
}

# The gate fixture holds its point in setup while the file $1 exists.
gate_spec() {
	cat >"$BATS_TEST_TMPDIR/gate.yaml" <<-EOF2
	title: Held at the gate
	probe: gate
	params: {hold: "$1"}
	repetitions: 3
	warmup: 0
	iterations: 10
	rounds: 1
	timeout: 60s
	EOF2
}

@test "postgres: a hostile URL's password is in no file of the run, its report nor the command line" {
	PW=Zq7Secret
	ENC=%5Aq7Secret		# the same, its first letter percent-encoded
	# given twice (user:pw@ and ?password=), its keyword percent-encoded
	# (libpq decodes keywords), sslpassword=: every one a password to libpq;
	# the second --store wins, its scheme in capitals, its password encoded
	first="postgresql://sysmeter:$PW@/$DBNAME?host=$PGDIR&port=5432&pass%77ord=$PW&sslpassword=$PW"
	second="POSTGRESQL://sysmeter:$ENC@/$DBNAME?host=$PGDIR&port=5432&%70assword=$PW&ssl%70assword=$ENC"
	hold="$BATS_TEST_TMPDIR/hold"
	gate_spec "$hold"
	touch "$hold"
	"$RUNNER" -o "$OUT" --run-id a --store "$first" "--store=$second" "$BATS_TEST_TMPDIR/gate.yaml" \
		>"$BATS_TEST_TMPDIR/log" 2>&1 &
	pid=$!
	BG_PIDS=$pid
	wait_until 60 test -e "$hold.reached"
	# the whole run long, ps shows the command line without it, nor any
	# process's (the point's process is a fork of the runner)
	cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline")
	[[ "$cmdline" == *"--store postgresql://sysmeter@/$DBNAME?host=$PGDIR&port=5432"* ]]
	[[ "$cmdline" != *"$PW"* && "$cmdline" != *"$ENC"* && "$cmdline" != *q7Secret* ]]
	[ -z "$(grep -l -a -s q7Secret /proc/[0-9]*/cmdline)" ]
	rm "$hold"
	rc=0
	wait "$pid" || rc=$?
	BG_PIDS=
	[ "$rc" -eq 0 ]
	! grep q7Secret "$BATS_TEST_TMPDIR/log" || false
	# recorded, under the URL without it
	[ "$(psql_q "SELECT id, status FROM runs")" = "a|complete" ]
	[ "$(json "$OUT/a/manifest.json" 'd["store"]["where"]')" = "$URL" ]
	[ "$(json "$OUT/a/manifest.json" 'd["command_line"][6]')" = "$URL" ]
	[ "$(json "$OUT/a/manifest.json" 'd["command_line"][7]')" = "--store=$URL" ]
	# nowhere in the folder: manifest, results, report.md/.tex/.html/.log
	[ -e "$OUT/a/report.md" ] && [ -e "$OUT/a/report.tex" ]
	! grep -r -l -a q7Secret "$OUT" || false
	if [ -e "$OUT/a/report.pdf" ]; then
		pdftotext "$OUT/a/report.pdf" "$BATS_TEST_TMPDIR/report.txt"
		grep -q "$DBNAME" "$BATS_TEST_TMPDIR/report.txt"	# the store's URL is in it
		! grep q7Secret "$BATS_TEST_TMPDIR/report.txt" || false
	fi
	! psql_q "SELECT * FROM runs" | grep q7Secret || false
}

@test "postgres: a URL libpq refuses, or not PostgreSQL's, is said without its password" {
	PW=Zq7Secret
	for bad in "postgresql://sysmeter:$PW@/$DBNAME?host=$PGDIR&passwrd=$PW" \
		"POSTGRESQL://sysmeter:$PW@/$DBNAME?host=$PGDIR&$PW" \
		"postgresql://sysmeter:p@$PW@localhost:1/$DBNAME" \
		"mysql://sysmeter:$PW@localhost/$DBNAME"; do
		rm -rf "$OUT"
		run "$RUNNER" --no-report -q -o "$OUT" --run-id a --store "$bad" "$S/null.yaml"
		[ "$status" -eq 1 ]
		[[ "$output" == *"runner: the store: "*"://"* ]]
		[[ "$output" != *q7Secret* ]]
		[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = complete ]
		[ "$(json "$OUT/a/manifest.json" 'd["store"]["error"] is not None')" = true ]
		! grep -r -a -o ".\{80\}q7Secret" "$OUT" || false
		# never a SQLite file named after it
		[ -z "$(find . "$OUT" -maxdepth 2 -name "*q7Secret*" 2>/dev/null)" ]
	done
	run "$RUNNER" --no-report -q -o "$OUT" --run-id b --store "postgresql://sysmeter:$PW@/$DBNAME?host=$PGDIR&passwrd=$PW" "$S/null.yaml"
	[[ "$output" == *"libpq cannot read the URL: invalid URI query parameter: \"...\""* ]]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id c --store "mysql://sysmeter:$PW@localhost/$DBNAME" "$S/null.yaml"
	[[ "$output" == *"mysql://...: not a PostgreSQL URL"* ]]
	# an '@' of the password not encoded: libpq would take the rest for the host
	run "$RUNNER" --no-report -q -o "$OUT" --run-id d --store "postgresql://sysmeter:p@$PW@localhost:1/$DBNAME" "$S/null.yaml"
	[[ "$output" == *"postgresql://sysmeter@localhost:1/$DBNAME: the URL's host holds an '@'"* ]]
}

# hold_lock: a psql session holding the store's writers' lock for a minute,
# its pid in HOLDER (and BG_PIDS); returns once the lock is granted
hold_lock() {
	"$PGBIN/psql" "$URL" -X -q -c "BEGIN; SELECT pg_advisory_xact_lock(1937334637); SELECT pg_sleep(120)" \
		>/dev/null 2>&1 &
	HOLDER=$!
	BG_PIDS="$BG_PIDS $HOLDER"
	wait_until 30 lock_granted
}
lock_granted() {
	[ "$(psql_q "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 1937334637 AND granted")" -eq 1 ]
}
# release_lock: the holder's session ended (a psql killed leaves its
# server process in pg_sleep, the lock held)
release_lock() {
	kill "$HOLDER" 2>/dev/null || true
	psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$DBNAME' AND query LIKE '%pg_sleep(120)%' AND pid <> pg_backend_pid()" >/dev/null
	wait_until 30 lock_free
	HOLDER=
}
lock_free() { ! lock_granted; }

@test "postgres: a store held by another session past the busy timeout: said, the folder complete, exit 1" {
	hold_lock
	SYSMETER_STORE_BUSY_MS=300 run "$RUNNER" --no-report -q -o "$OUT" --run-id a --store "$URL" "$S/null.yaml"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: the store: $URL: the store was held by another session for longer than the busy timeout of 300 ms"* ]]
	[[ "$output" == *"record it later with: runner store import"* ]]
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = complete ]
	[[ "$(json "$OUT/a/manifest.json" 'd["store"]["error"]')" == *"held by another session"* ]]
	# nothing written, not even the schema (its creation waits for the lock too)
	[ "$(psql_q "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'runs'")" -eq 0 ]
	# once the session is gone, the folder is recorded as it is
	release_lock
	run "$RUNNER" store import -q --store "$URL" "$OUT/a"
	[ "$status" -eq 0 ]
	[ "$(psql_q "SELECT id FROM runs")" = a ]
}

@test "postgres: Ctrl-C or SIGTERM ends the wait for a held store at once" {
	hold_lock
	for sig in INT TERM; do
		# its sessions named, so that no other's (the runner before, gone
		# or going) is taken for its
		SYSMETER_STORE_BUSY_MS=600000 "$RUNNER" --no-report -q -o "$OUT" --run-id "$sig" \
			--store "$URL&application_name=sysmeter-$sig" "$S/null.yaml" \
			>"$BATS_TEST_TMPDIR/$sig.log" 2>&1 &
		pid=$!
		BG_PIDS="$BG_PIDS $pid"
		# waiting: its session's last statement is a try of the lock (a
		# runner that waits inside the lock's call shows that call)
		wait_until 60 waiting_for_lock "sysmeter-$sig"
		kill -"$sig" "$pid"
		# long before the busy timeout, or the holder's minute
		wait_until 20 exited "$pid"
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq 1 ]
		grep -q "interrupted while waiting for the store, held by another session" "$BATS_TEST_TMPDIR/$sig.log"
		[ "$(json "$OUT/$sig/manifest.json" 'd["status"]')" = complete ]
		[[ "$(json "$OUT/$sig/manifest.json" 'd["store"]["error"]')" == *interrupted* ]]
	done
	[ "$(psql_q "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'runs'")" -eq 0 ]
}
# waiting_for_lock NAME: a session named NAME last ran a (try of the) lock
waiting_for_lock() {
	[ "$(psql_q "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '$DBNAME' AND application_name = '$1' AND query LIKE '%advisory_xact_lock(1937334637)%'")" -ge 1 ]
}
