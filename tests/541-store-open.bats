#!/usr/bin/env bats
# How the results store is opened (docs/cli.md "runner store", issue 33):
# readers (history, store check, compare --baseline-store) open it read-only
# and never create it; a store path is a regular file; a store refused is
# left byte for byte as it was; SQLite's errors carry the OS's cause;
# writers that start a new store together all record their runs.  SQLite
# here; the fixture probes measure nothing.

load helpers
load store-sql

S=tests/fixtures/specs/cli

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	DB="$OUT/sysmeter.db"
}

teardown() {
	if [ -n "${MNT:-}" ]; then
		umount "$MNT" 2>/dev/null || true
	fi
	if [ -n "${SHARED:-}" ]; then
		chmod -R u+w "$SHARED" 2>/dev/null || true
		rm -rf "$SHARED"
	fi
}


# state DB: the file's sha256 and its journal mode, read without changing it
state() {
	python3 - "$1" <<-'PY'
	import hashlib, sqlite3, sys
	h = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
	c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro&immutable=1", uri=True)
	print(h, c.execute("PRAGMA journal_mode").fetchone()[0])
	PY
}

# as_nobody CMD...: CMD as user nobody (root reads and writes any file
# whatever its mode, so a read-only store is tried as another user)
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# reads_from PID FILE: the process has FILE open as its standard input
reads_from() {
	[ "$(readlink "/proc/$1/fd/0")" = "$2" ]
}

# A folder every user can reach (the test's own is root's alone), removed
# in teardown: SHARED.
shared_dir() {
	SHARED=$(mktemp -d /tmp/sysmeter-541.XXXXXX)
	chmod 755 "$SHARED"
}

@test "history, store check and compare read a store they cannot write, as another user, and change nothing" {
	command -v setpriv >/dev/null || skip "no setpriv"
	[ "$(id -u)" -eq 0 ] || skip "needs root to act as another user"
	shared_dir
	# the build may sit where nobody cannot reach it (a clone in /root): the
	# readers need the runner alone, copied where every user can run it
	mkdir "$SHARED/bin"
	cp "$RUNNER" "$SHARED/bin/runner"
	R="$SHARED/bin/runner"
	as_nobody test -x "$R"
	out="$SHARED/out"
	"$RUNNER" --no-report -q -o "$out" --run-id a "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$out" --run-id b "$S/params.yaml"
	chmod -R a-w "$out"
	before=$(state "$out/sysmeter.db")
	run as_nobody "$R" history params -o "$out"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"(2 runs,"* ]]
	run as_nobody "$R" store check -o "$out"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"2 runs checked, 0 differ"* ]]
	run as_nobody "$R" compare --baseline-store "$out/b"
	[[ "$output" == *"baseline a ("* ]] || { echo "$output"; false; }
	[ "$(state "$out/sysmeter.db")" = "$before" ]
	[ -z "$(ls "$out" | grep sysmeter.db-)" ]
	# a store of an older schema is read as it is, not migrated
	old="$SHARED/old"
	mkdir "$old"
	python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).executescript(open(sys.argv[2]).read())' "$old/sysmeter.db" tests/fixtures/store/schema-v1.sql
	chmod -R a-w "$old"
	before=$(state "$old/sysmeter.db")
	run as_nobody "$R" history null -o "$old"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"20260101T000000Z-old001"*"12.5"* ]]
	[ "$(state "$old/sysmeter.db")" = "$before" ]
	[ "$(sql "$old/sysmeter.db" "SELECT version FROM schema_version")" -eq 1 ]
}

@test "a store of the previous schema is read without being migrated, also where it could be" {
	mkdir -p "$OUT"
	python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).executescript(open(sys.argv[2]).read())' "$DB" tests/fixtures/store/schema-v1.sql
	before=$(state "$DB")
	run "$RUNNER" history null -o "$OUT"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"20260101T000000Z-old001"* ]]
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 1 ]	# its run folder is gone, as the fixture says
	[[ "$output" == *"1 run checked, 1 differs"* ]]
	[ "$(state "$DB")" = "$before" ]
	[ "$(sql "$DB" "SELECT version FROM schema_version")" -eq 1 ]
}

@test "readers refuse a store that does not exist and create nothing" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --no-store "$S/params.yaml"
	run "$RUNNER" history params --store "$BATS_TEST_TMPDIR/typo.db"
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: history: no store at $BATS_TEST_TMPDIR/typo.db: No such file or directory (runs record themselves into"* ]]
	run "$RUNNER" history params -o "$OUT"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no store at $OUT/sysmeter.db"* ]]
	run "$RUNNER" compare --baseline-store "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: compare: no store at $(realpath "$OUT")/sysmeter.db"* ]]
	run "$RUNNER" compare --baseline-store --store "$BATS_TEST_TMPDIR/typo.db" "$OUT/a"
	[ "$status" -eq 2 ]
	run "$RUNNER" store check --store "$BATS_TEST_TMPDIR/typo.db"
	[ "$status" -eq 2 ]
	[ ! -e "$BATS_TEST_TMPDIR/typo.db" ]
	[ -z "$(ls "$OUT" | grep sysmeter)" ]
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep typo)" ]
	# an empty file is no store either, and stays empty
	: >"$BATS_TEST_TMPDIR/empty.db"
	run "$RUNNER" history params --store "$BATS_TEST_TMPDIR/empty.db"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no store at $BATS_TEST_TMPDIR/empty.db: nothing was ever recorded in it"* ]]
	[ ! -s "$BATS_TEST_TMPDIR/empty.db" ]
	# the first run into a new folder still compares its level with none
	run "$RUNNER" --no-report -q -o "$OUT" --run-id b "$S/null.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/b/manifest.json" 'd["drift"]["history"]["verdict"]')" = "too few runs" ]
}

@test "a store of a newer schema is refused by writers and readers, left byte for byte as it was" {
	mkdir -p "$OUT"
	python3 -c 'import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); c.executescript(open(sys.argv[2]).read()); c.execute("UPDATE schema_version SET version = 99"); c.commit()' "$DB" tests/fixtures/store/schema-v1.sql
	before=$(state "$DB")
	[ "${before##* }" = delete ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/null.yaml"
	[ "$status" -eq 1 ]
	[[ "$output" == *"schema version 99 is newer than this runner's (4)"* ]]
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = complete ]
	[ "$(state "$DB")" = "$before" ]
	run "$RUNNER" store import "$OUT/a"
	[ "$status" -eq 1 ]
	[[ "$output" == *"schema version 99 is newer"* ]]
	[ "$(state "$DB")" = "$before" ]
	run "$RUNNER" history null -o "$OUT"
	[ "$status" -eq 2 ]
	[[ "$output" == *"schema version 99 is newer"* ]]
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 2 ]
	[ "$(state "$DB")" = "$before" ]
}

@test "history: a store damaged past its header exits 2 with what it means" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b "$S/params.yaml"
	# the points table's first page overwritten: the header and the schema
	# still read, the points do not
	python3 - "$DB" <<-'PY'
	import sqlite3, sys
	c = sqlite3.connect(sys.argv[1])
	c.execute("PRAGMA journal_mode=DELETE")
	size = c.execute("PRAGMA page_size").fetchone()[0]
	root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'points'").fetchone()[0]
	c.close()
	with open(sys.argv[1], "r+b") as f:
	    f.seek((root - 1) * size)
	    f.write(b"\xa5" * size)
	PY
	run "$RUNNER" history params -o "$OUT"
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: history: $DB: database disk image is malformed (the store is damaged"* ]]
}

@test "a store path that is not a regular file is refused before SQLite opens it: /dev/null, a FIFO, a folder" {
	mkdir -p "$OUT"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	mkdir "$BATS_TEST_TMPDIR/folder.db"
	journal_before=$(ls /dev | grep -c '^null-' || true)
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --no-store "$S/null.yaml"
	for where in /dev/null "$BATS_TEST_TMPDIR/fifo" "$BATS_TEST_TMPDIR/folder.db"; do
		case $where in
		/dev/null) kind="a character device" ;;
		*fifo) kind="a FIFO" ;;
		*) kind="a folder" ;;
		esac
		run timeout 60 "$RUNNER" --no-report -q -o "$OUT" --run-id "r$RANDOM" --store "$where" "$S/null.yaml"
		[ "$status" -eq 1 ] || { echo "$where: $output"; false; }
		[[ "$output" == *"runner: the store: $where: $kind, not a store: a SQLite store is a regular file"* ]]
		run timeout 60 "$RUNNER" store import --store "$where" "$OUT/a"
		[ "$status" -eq 1 ]
		[[ "$output" == *"$where: $kind, not a store"* ]]
		run timeout 60 "$RUNNER" history null --store "$where"
		[ "$status" -eq 2 ]
		[[ "$output" == *"$where: $kind, not a store"* ]]
		run timeout 60 "$RUNNER" store check --store "$where"
		[ "$status" -eq 2 ]
	done
	[ "$(ls /dev | grep -c '^null-' || true)" = "$journal_before" ]
	[ -p "$BATS_TEST_TMPDIR/fifo" ]
	[ -z "$(ls "$BATS_TEST_TMPDIR/folder.db")" ]
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep -- '-journal\|-wal\|-shm')" ]
}

@test "a full disk is said with the OS's cause; the run folder is whole, exit 1" {
	[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
	MNT="$BATS_TEST_TMPDIR/small"
	mkdir -p "$MNT"
	mount -t tmpfs -o size=512k tmpfs "$MNT" 2>/dev/null || { MNT=; skip "cannot mount a tmpfs here"; }
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --no-store "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b --no-store "$S/params.yaml"
	run "$RUNNER" store import --store "$MNT/sysmeter.db" "$OUT/a"
	[ "$status" -eq 0 ]
	# fill what is left of the file system
	dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null || true
	run "$RUNNER" store import --store "$MNT/sysmeter.db" "$OUT/b"
	[ "$status" -eq 1 ]
	[[ "$output" == *"(No space left on device)"* ]] || { echo "$output"; false; }
	run "$RUNNER" --no-report -q -o "$OUT" --run-id c --store "$MNT/sysmeter.db" "$S/params.yaml"
	[ "$status" -eq 1 ]
	[[ "$output" == *"(No space left on device)"* ]]
	[[ "$output" == *"runner store import $OUT/c"* ]]
	[ "$(json "$OUT/c/manifest.json" 'd["status"]')" = complete ]
	[ -e "$OUT/c/results.csv" ]
	# room again: the store takes the run, and what it held is whole
	rm -f "$MNT/fill"
	run "$RUNNER" store import --store "$MNT/sysmeter.db" "$OUT/b" "$OUT/c"
	[ "$status" -eq 0 ]
	[ "$(sql "$MNT/sysmeter.db" "SELECT id FROM runs ORDER BY id" | tr '\n' ' ')" = "a b c " ]
}

@test "four writers that start a new store at once all record their runs, 50 times in a row" {
	for r in i1 i2 i3 i4; do
		"$RUNNER" --no-report -q -o "$OUT" --run-id "$r" --no-store "$S/null.yaml"
	done
	go="$BATS_TEST_TMPDIR/go"
	for try in $(seq 1 50); do
		rm -f "$DB" "$DB"-* "$go"
		mkfifo "$go"
		# the four start together: each waits for the end of a FIFO that
		# this shell holds open, and is released when it is closed
		exec {hold}<>"$go"
		pids=()
		for r in i1 i2 i3 i4; do
			(exec {hold}>&-; read -r _ <"$go" || true; exec "$RUNNER" store import -q "$OUT/$r") \
				2>>"$BATS_TEST_TMPDIR/err" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do
			wait_until 30 reads_from "$p" "$go"
		done
		exec {hold}>&-
		failed=0
		for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
		[ "$failed" -eq 0 ] || { echo "try $try: $failed failed"; cat "$BATS_TEST_TMPDIR/err"; false; }
		[ "$(sql "$DB" "SELECT id FROM runs ORDER BY id" | tr '\n' ' ')" = "i1 i2 i3 i4 " ]
	done
	[ "$(sql "$DB" "PRAGMA journal_mode")" = wal ]
}

@test "history: parameter values equal in their first 600 bytes are two points" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --no-store "$S/null.yaml"
	"$RUNNER" store import -q "$OUT/a"
	# one run, two points whose only parameter differs at its 601st byte
	python3 - "$DB" <<-'PY'
	import json, sqlite3, sys
	c = sqlite3.connect(sys.argv[1])
	c.execute("INSERT INTO runs (id, started, finished, fingerprint, hostname, status, run_dir, recorded) "
	          "VALUES ('long', 1767225600, 1767225660, 'ff', 'h', 'complete', '/nonexistent/long', 1767225700)")
	for i, tail in enumerate("ab"):
	    p = {"name": "x" * 600 + tail}
	    c.execute("INSERT INTO points (run_id, experiment, idx, params_json, params_key, status, estimate, "
	              "ci_lo, ci_hi, ci_level, unit, n, rounds, flags) VALUES ('long', 'wide', ?, ?, ?, 'ok', ?, "
	              "?, ?, 0.95, 'ns', 5, 1, '')", (i, json.dumps(p), "name=" + p["name"], 10.0 + i, 9.0 + i, 11.0 + i))
	c.commit()
	PY
	run "$RUNNER" history wide -o "$OUT"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"wide: 2 points"* ]]
	[ "$(grep -c '(1 run, ns)' <<<"$output")" -eq 2 ]
}
