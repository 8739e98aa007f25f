#!/usr/bin/env bats
# The results store (docs/cli.md "runner store", docs/results-format.md
# "The results store"): every run recorded as it ends, import and check,
# two writers at once, a damaged or locked store, the migration from the
# previous schema, compare's baseline from the store.  SQLite here;
# 545-store-postgres.bats runs the same commands against a PostgreSQL
# server of its own.  The fixture probes measure nothing worth a lock.

load helpers
load store-sql

S=tests/fixtures/specs/cli

setup() { OUT="$BATS_TEST_TMPDIR/out"; DB="$OUT/sysmeter.db"; }


# points RUN: how many points the run's result files hold
points() {
	python3 -c 'import glob,json,sys; print(sum(len(json.load(open(f))["points"]) for f in glob.glob(sys.argv[1] + "/results/*.json")))' "$1"
}

@test "a run records itself in out/sysmeter.db as it ends: run, machine, experiment, points, rounds" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 5 "$S/params.yaml"
	[ "$status" -eq 0 ]
	[ "$(sql "$DB" "SELECT id, status, seed, run_dir FROM runs")" = "a|complete|5|$(realpath "$OUT/a")" ]
	[ "$(sql "$DB" "SELECT COUNT(*) FROM points WHERE run_id = 'a'")" -eq "$(points "$OUT/a")" ]
	[ "$(sql "$DB" "SELECT COUNT(*) FROM round_estimates WHERE run_id = 'a'")" -ge 2 ]
	# the stable key: sorted by name, the same for the same values
	[ "$(sql "$DB" "SELECT params_key FROM points WHERE idx = 0")" = "count=1,flag=false,mode=a,ratio=0.5,size=4096,wait=0.001" ]
	# the estimate and interval as the result file has them
	want=$(json "$OUT/a/results/params.json" '"%.6g|%.6g|%.6g|%s" % (d["points"][0]["estimate"], d["points"][0]["ci"][0], d["points"][0]["ci"][1], d["points"][0]["ci_level"])')
	got=$(python3 -c 'import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute("SELECT estimate, ci_lo, ci_hi, ci_level FROM points WHERE idx = 0").fetchone(); print("%.6g|%.6g|%.6g|%s" % r)' "$DB")
	[ "$got" = "$want" ]
	fp=$(sql "$DB" "SELECT fingerprint FROM runs")
	[ "$(sql "$DB" "SELECT COUNT(*) FROM machines WHERE fingerprint = '$fp'")" -eq 1 ]
	[ "$(sql "$DB" "SELECT spec_sha256 FROM experiments")" = "$(json "$OUT/a/manifest.json" 'd["experiments"][0]["spec_sha256"]')" ]
	[ "$(json "$OUT/a/manifest.json" 'd["store"]["where"]')" = "$OUT/sysmeter.db" ]
	[ "$(sql "$DB" "SELECT MAX(version) FROM schema_version")" -eq 4 ]
}

@test "--no-store records nothing; --store PATH records elsewhere" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --no-store "$S/null.yaml"
	[ "$status" -eq 0 ]
	[ ! -e "$DB" ]
	[ "$(json "$OUT/a/manifest.json" 'd["store"]')" = "null" ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id b --store "$BATS_TEST_TMPDIR/other.db" "$S/null.yaml"
	[ "$status" -eq 0 ]
	[ ! -e "$DB" ]
	[ "$(sql "$BATS_TEST_TMPDIR/other.db" "SELECT id FROM runs")" = "b" ]
}

@test "an interrupted run is recorded with its status; its resume replaces it with the whole run" {
	hold="$BATS_TEST_TMPDIR/hold"
	sed "s|HOLD|$hold|g" tests/fixtures/specs/resume/c_gate.yaml.in >"$BATS_TEST_TMPDIR/c_gate.yaml"
	touch "$hold"
	"$RUNNER" --no-report -q -o "$OUT" --run-id a "$BATS_TEST_TMPDIR/c_gate.yaml" >/dev/null 2>&1 &
	pid=$!
	wait_until 60 test -e "$hold.reached"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	[ "$(sql "$DB" "SELECT status, exit_code FROM runs WHERE id = 'a'")" = "interrupted|130" ]
	[ "$(sql "$DB" "SELECT COUNT(*) FROM points WHERE run_id = 'a'")" -eq "$(points "$OUT/a")" ]
	interrupted_rounds=$(sql "$DB" "SELECT COUNT(*) FROM round_estimates WHERE run_id = 'a'")
	rm -f "$hold"
	run "$RUNNER" resume --no-report -q "$OUT/a"
	[ "$status" -eq 0 ]
	[ "$(sql "$DB" "SELECT COUNT(*), MIN(status), MIN(exit_code) FROM runs")" = "1|complete|0" ]
	[ "$(sql "$DB" "SELECT COUNT(*) FROM points WHERE run_id = 'a'")" -eq "$(points "$OUT/a")" ]
	# every point's three rounds, once
	[ "$(sql "$DB" "SELECT COUNT(*) FROM round_estimates WHERE run_id = 'a'")" -eq $(( 3 * $(points "$OUT/a") )) ]
	[ "$(sql "$DB" "SELECT COUNT(*) FROM round_estimates WHERE run_id = 'a'")" -gt "$interrupted_rounds" ]
}

@test "store import backfills old folders, twice adds nothing; store check finds them whole" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --no-store "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b --no-store "$S/null.yaml"
	[ ! -e "$DB" ]
	run "$RUNNER" store import "$OUT/a" "$OUT/b"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$OUT/a: 2 points in $DB"* ]]
	before=$(sql "$DB" "SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM points), (SELECT COUNT(*) FROM round_estimates), (SELECT COUNT(*) FROM run_experiments), (SELECT COUNT(*) FROM experiments), (SELECT COUNT(*) FROM machines)")
	[ "${before%%|*}" -eq 2 ]
	run "$RUNNER" store import "$OUT/a" "$OUT/b"
	[ "$status" -eq 0 ]
	[ "$(sql "$DB" "SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM points), (SELECT COUNT(*) FROM round_estimates), (SELECT COUNT(*) FROM run_experiments), (SELECT COUNT(*) FROM experiments), (SELECT COUNT(*) FROM machines)")" = "$before" ]
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 runs checked, 0 differ"* ]]
}

@test "store check says what differs: a folder gone, a result changed, a point fewer; exit 1" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b "$S/null.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id c "$S/null.yaml"
	rm -rf "$OUT/b"
	python3 - "$OUT/a/results/params.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1])); d["points"].pop(); json.dump(d, open(sys.argv[1], "w"))
	PY
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"b: $(realpath "$OUT")/b: the run folder is missing"* ]]
	[[ "$output" == *"a: $(realpath "$OUT")/a/results/params.json: changed since it was recorded"* ]]
	[[ "$output" == *"a: params: 1 points in the file, 2 recorded"* ]]
	[[ "$output" == *"3 runs checked, 2 differ"* ]]
	[[ "$output" != *"c:"* ]]
	# no store there: said, exit 2 (and none is made)
	run "$RUNNER" store check --store "$BATS_TEST_TMPDIR/none.db"
	[ "$status" -eq 2 ]
	[[ "$output" == *"none.db: No such file or directory"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/none.db" ]
}

@test "a damaged store: said clearly, the run folder complete all the same, exit 1" {
	mkdir -p "$OUT"
	head -c 8192 /dev/urandom >"$DB"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/null.yaml"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$DB: file is not a database (the store is damaged"* ]]
	[[ "$output" == *"runner store import $OUT/a"* ]]
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = complete ]
	[ "$(json "$OUT/a/manifest.json" 'd["exit_code"]')" = 1 ]
	[[ "$(json "$OUT/a/manifest.json" 'd["store"]["error"]')" == *"not a database"* ]]
	[ "$(json "$OUT/a/results/null.json" 'd["status"]')" = ok ]
	[ -e "$OUT/a/results.csv" ]
	[ "$(readlink "$OUT/latest")" = a ]
	# the folder can be recorded later into a good store
	run "$RUNNER" store import --store "$BATS_TEST_TMPDIR/good.db" "$OUT/a"
	[ "$status" -eq 0 ]
}

@test "a store locked past the busy timeout: said, the folder complete, exit 1" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id first "$S/null.yaml"
	ready="$BATS_TEST_TMPDIR/locked" done="$BATS_TEST_TMPDIR/done"
	python3 - "$DB" "$ready" "$done" <<-'PY' &
	import os, sqlite3, sys, time
	c = sqlite3.connect(sys.argv[1], isolation_level=None)
	c.execute("BEGIN EXCLUSIVE")
	open(sys.argv[2], "w").close()
	while not os.path.exists(sys.argv[3]):
	    time.sleep(0.05)
	c.execute("ROLLBACK")
	PY
	holder=$!
	wait_until 30 test -e "$ready"
	SYSMETER_STORE_BUSY_MS=100 run "$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/null.yaml"
	touch "$done"
	wait "$holder"
	[ "$status" -eq 1 ]
	[[ "$output" == *"database is locked (another process held the store for longer than the busy timeout of 100 ms)"* ]]
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = complete ]
	[ "$(json "$OUT/a/results/null.json" 'd["status"]')" = ok ]
	[ "$(sql "$DB" "SELECT COUNT(*) FROM runs WHERE id = 'a'")" -eq 0 ]
}

@test "two runners and two imports writing at once lose nothing" {
	for r in i1 i2 i3 i4; do
		"$RUNNER" --no-report -q -o "$OUT" --run-id "$r" --no-store "$S/params.yaml"
	done
	"$RUNNER" --no-report -q -o "$OUT" --run-id r1 "$S/params.yaml" >/dev/null 2>&1 & p1=$!
	"$RUNNER" --no-report -q -o "$OUT" --run-id r2 "$S/params.yaml" >/dev/null 2>&1 & p2=$!
	"$RUNNER" store import -q "$OUT/i1" "$OUT/i2" "$OUT/i3" "$OUT/i4" & p3=$!
	"$RUNNER" store import -q "$OUT/i4" "$OUT/i3" "$OUT/i2" "$OUT/i1" & p4=$!
	for p in $p1 $p2 $p3 $p4; do wait "$p"; done
	[ "$(sql "$DB" "SELECT id FROM runs ORDER BY id" | tr '\n' ' ')" = "i1 i2 i3 i4 r1 r2 " ]
	for r in i1 i2 i3 i4 r1 r2; do
		[ "$(sql "$DB" "SELECT COUNT(*) FROM points WHERE run_id = '$r'")" -eq "$(points "$OUT/$r")" ]
		[ "$(sql "$DB" "SELECT COUNT(*) FROM round_estimates WHERE run_id = '$r'")" -ge 2 ]
	done
	[ "$(sql "$DB" "PRAGMA journal_mode")" = wal ]
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 0 ]
}

@test "a store of the previous schema opens and is migrated, its rows kept" {
	mkdir -p "$OUT"
	python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).executescript(open(sys.argv[2]).read())' "$DB" tests/fixtures/store/schema-v1.sql
	[ "$(sql "$DB" "SELECT version FROM schema_version")" -eq 1 ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/null.yaml"
	[ "$status" -eq 0 ]
	[ "$(sql "$DB" "SELECT version FROM schema_version")" -eq 4 ]
	# the old run is still there, with no level it never recorded
	[ "$(sql "$DB" "SELECT estimate, ci_level FROM points WHERE run_id = '20260101T000000Z-old001'")" = "12.5|" ]
	[ "$(sql "$DB" "SELECT canary_ns IS NULL, core_hz IS NULL, wake_us IS NULL FROM runs WHERE id = '20260101T000000Z-old001'")" = "1|1|1" ]
	# the new one has its cross-CPU wake-up (version 4), as its manifest says, where it has two CPUs
	[ "$(python3 -c 'import sqlite3, sys, json; m = json.load(open(sys.argv[2])); w = sqlite3.connect(sys.argv[1]).execute("SELECT wake_us FROM runs WHERE id = ?", ("a",)).fetchone()[0]; print(w == m["drift"]["wake"]["median_us"])' "$DB" "$OUT/a/manifest.json")" = True ]
	# the new one has its speed (version 3): the canary per link, as its manifest says
	[ "$(python3 -c 'import sqlite3, sys, json; m = json.load(open(sys.argv[2])); c = sqlite3.connect(sys.argv[1]).execute("SELECT canary_ns FROM runs WHERE id = ?", ("a",)).fetchone()[0]; print(abs(c - m["drift"]["reference_ms"] * 1e6 / m["drift"]["canary"]["iterations"]) < 1e-9 * c)' "$DB" "$OUT/a/manifest.json")" = True ]
	# the new one has what version 2 adds
	[ "$(sql "$DB" "SELECT COUNT(*) FROM round_estimates WHERE run_id = 'a'")" -ge 1 ]
	[ -n "$(sql "$DB" "SELECT ci_level FROM points WHERE run_id = 'a'")" ]
	# a store newer than this runner is refused, untouched
	python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE schema_version SET version = 99"); c.commit()' "$DB"
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 2 ]
	[[ "$output" == *"schema version 99 is newer than this runner's (4)"* ]]
}

@test "a store URL's password is never printed nor written to the manifest" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --store "postgresql://alice:s3cr3t@127.0.0.1:1/db?password=s3cr3t&connect_timeout=2" "$S/null.yaml"
	[ "$status" -eq 1 ]
	[[ "$output" == *"postgresql://alice@127.0.0.1:1/db?connect_timeout=2"* ]]
	[[ "$output" != *s3cr3t* ]]
	! grep -r s3cr3t "$OUT/a" || false
	[ "$(json "$OUT/a/manifest.json" 'd["store"]["where"]')" = "postgresql://alice@127.0.0.1:1/db?connect_timeout=2" ]
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = complete ]
}

@test "compare --baseline-store: the newest earlier run of this machine is the baseline" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b "$S/null.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id c "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id d "$S/params.yaml"
	run "$RUNNER" compare --baseline-store "$OUT/d"
	[[ "$output" == *"baseline c ($(realpath "$OUT")/c)"* ]]
	# the same table as comparing the two folders
	"$RUNNER" compare "$OUT/c" "$OUT/d" --json "$BATS_TEST_TMPDIR/direct.json" >/dev/null || true
	"$RUNNER" compare --baseline-store "$OUT/d" --json "$BATS_TEST_TMPDIR/store.json" >/dev/null 2>&1 || true
	cmp "$BATS_TEST_TMPDIR/direct.json" "$BATS_TEST_TMPDIR/store.json"
	# the first run of an experiment has none
	run "$RUNNER" compare --baseline-store "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no earlier run of its experiments on this machine"* ]]
}
