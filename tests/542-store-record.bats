#!/usr/bin/env bats
# Recording a run in the store honestly, and the store checked against the
# folders (docs/cli.md "runner store", docs/results-format.md "The results
# store"): the manifest says recorded only once the store has committed (a
# kill at each moment of the write, SYSMETER_TEST_KILL_AT), store check
# names every run folder the store lacks, a run id is one run (another
# folder or machine is refused), a damaged SQLite store is found whole
# (quick_check), and a FIFO or a symbolic link in a folder is refused, not
# waited on or followed.

load helpers
load store-sql

S=tests/fixtures/specs/cli

setup() { OUT="$BATS_TEST_TMPDIR/out"; DB="$OUT/sysmeter.db"; }


recorded() { json "$1/manifest.json" 'd["store"]["recorded"]'; }

@test "a run says recorded once the store has it, and the store keeps its final manifest's sha256" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/null.yaml"
	[ "$status" -eq 0 ]
	[ "$(recorded "$OUT/a")" = true ]
	[ "$(json "$OUT/a/manifest.json" 'd["store"]["error"]')" = null ]
	[ "$(sql "$DB" "SELECT manifest_sha256 FROM runs WHERE id = 'a'")" = "$(sha256sum <"$OUT/a/manifest.json" | cut -d' ' -f1)" ]
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 run checked, 0 differ from their folders; 0 run folders under $OUT not in the store"* ]]
}

@test "a kill before, inside or after the store's transaction: recorded false until the commit; store check names the folder" {
	for at in before_begin before_commit after_commit; do
		SYSMETER_TEST_KILL_AT=$at run "$RUNNER" --no-report -q -o "$OUT" --run-id "$at" "$S/null.yaml"
		[ "$status" -eq 137 ]
		# the rest of the folder is whole; only the record is in doubt
		[ "$(json "$OUT/$at/manifest.json" 'd["status"]')" = complete ]
		[ "$(recorded "$OUT/$at")" = false ]
	done
	[ "$(sql "$DB" "SELECT id FROM runs ORDER BY id" | tr '\n' ' ')" = "after_commit " ]
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$OUT/before_begin: not in the store; its manifest says so (store.recorded false) (record it with: runner store import $OUT/before_begin)"* ]]
	[[ "$output" == *"$OUT/before_commit: not in the store"* ]]
	[[ "$output" == *"after_commit: $(realpath "$OUT")/after_commit: its manifest says the run is not recorded (store.recorded false), yet the store has it"* ]]
	[[ "$output" == *"1 run checked, 1 differs from its folder; 2 run folders under $OUT not in the store"* ]]
	# importing them completes each record: the manifests say so, the check passes
	run "$RUNNER" store import "$OUT/before_begin" "$OUT/before_commit" "$OUT/after_commit"
	[ "$status" -eq 0 ]
	for at in before_begin before_commit after_commit; do
		[ "$(recorded "$OUT/$at")" = true ]
	done
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 runs checked, 0 differ"* ]]
}

@test "store check lists the run folders under -o the store lacks (a --no-store run); not out/latest nor other folders" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/null.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b --no-store "$S/null.yaml"
	mkdir "$OUT/notes"
	[ "$(readlink "$OUT/latest")" = b ]
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$OUT/b: not in the store (record it with: runner store import $OUT/b)"* ]]
	[[ "$output" != *"latest"* ]]
	[[ "$output" != *"notes"* ]]
	[[ "$output" == *"1 run checked, 0 differ from their folders; 1 run folder under $OUT not in the store"* ]]
	# with --store: the import it says names that store
	run "$RUNNER" store check --store "$DB" -o "$OUT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner store import --store $DB $OUT/b)"* ]]
	# --store without -o: a store named elsewhere is checked alone, not
	# against the out/ of wherever the command happens to run (a fresh
	# clone's out/ held make run's run, which a shared store lacks)
	cp "$DB" "$BATS_TEST_TMPDIR/shared.db"
	cd "$OUT/.."
	[ -d out/b ]
	run "$RUNNER" store check --store "$BATS_TEST_TMPDIR/shared.db"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 run checked, 0 differ"* ]]
	[[ "$output" != *"not in the store"* ]]
	# ... and the default store with its own out/: the folder is named
	run "$RUNNER" store check
	[ "$status" -eq 1 ]
	[[ "$output" == *"out/b: not in the store"* ]]
}

@test "a run id another folder or machine holds is refused, both named, nothing written; the same folder re-records; a moved one is followed" {
	shared="$BATS_TEST_TMPDIR/shared.db"
	"$RUNNER" --no-report -q -o "$BATS_TEST_TMPDIR/o1" --run-id x --store "$shared" "$S/params.yaml"
	before=$(sql "$shared" "SELECT run_dir, manifest_sha256, (SELECT COUNT(*) FROM points) FROM runs")
	one=$(realpath "$BATS_TEST_TMPDIR/o1/x")
	# a run in another folder under the same id: its record refused
	run "$RUNNER" --no-report -q -o "$BATS_TEST_TMPDIR/o2" --run-id x --store "$shared" "$S/null.yaml"
	[ "$status" -eq 1 ]
	two=$(realpath "$BATS_TEST_TMPDIR/o2/x")
	[[ "$output" == *"run id 'x' is another run's: the store has it from $one"*"this one is $two"* ]]
	[[ "$output" != *"record it later"* ]]
	[ "$(recorded "$BATS_TEST_TMPDIR/o2/x")" = false ]
	[[ "$(json "$BATS_TEST_TMPDIR/o2/x/manifest.json" 'd["store"]["error"]')" == *"another run's"* ]]
	[ "$(sql "$shared" "SELECT run_dir, manifest_sha256, (SELECT COUNT(*) FROM points) FROM runs")" = "$before" ]
	# and its import
	run "$RUNNER" store import --store "$shared" "$BATS_TEST_TMPDIR/o2/x"
	[ "$status" -eq 1 ]
	[[ "$output" == *"from $one"*"this one is $two"* ]]
	[ "$(sql "$shared" "SELECT run_dir, manifest_sha256, (SELECT COUNT(*) FROM points) FROM runs")" = "$before" ]
	# the same folder again: re-recorded, as ever
	run "$RUNNER" store import --store "$shared" "$BATS_TEST_TMPDIR/o1/x"
	[ "$status" -eq 0 ]
	[ "$(sql "$shared" "SELECT run_dir, manifest_sha256, (SELECT COUNT(*) FROM points) FROM runs")" = "$before" ]
	# moved: the same manifest on the same machine elsewhere is the same run
	mv "$BATS_TEST_TMPDIR/o1/x" "$BATS_TEST_TMPDIR/o1/moved"
	run "$RUNNER" store import --store "$shared" "$BATS_TEST_TMPDIR/o1/moved"
	[ "$status" -eq 0 ]
	[ "$(sql "$shared" "SELECT run_dir FROM runs WHERE id = 'x'")" = "$(realpath "$BATS_TEST_TMPDIR/o1/moved")" ]
	# another machine's run of that id, even in that folder: refused
	python3 - "$BATS_TEST_TMPDIR/o1/moved/manifest.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1])); d["machine"]["hostname"] = "colleague"
	json.dump(d, open(sys.argv[1], "w"), indent=2)
	PY
	run "$RUNNER" store import --store "$shared" "$BATS_TEST_TMPDIR/o1/moved"
	[ "$status" -eq 1 ]
	[[ "$output" == *"is another run's"*"(machine "*"(machine "* ]]
	[ "$(sql "$shared" "SELECT COUNT(*) FROM runs")" -eq 1 ]
}

@test "store check reads a SQLite store whole: a damaged page no other read touches is found" {
	for r in a b c; do
		"$RUNNER" --no-report -q -o "$OUT" --run-id "$r" "$S/params.yaml"
	done
	# the pages of round_estimates, which nothing else of the check reads
	pages=$(sql "$DB" "SELECT pageno FROM dbstat WHERE name = 'round_estimates' AND pageno > 1")
	psize=$(sql "$DB" "PRAGMA page_size")
	[ -n "$pages" ]
	[ ! -s "$DB-wal" ]	# all in the file: the last writer checkpointed
	for p in $pages; do
		dd if=/dev/urandom of="$DB" bs="$psize" seek=$((p - 1)) count=1 conv=notrunc status=none
	done
	run "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$DB: the store is damaged: "* ]]
	[[ "$output" == *"move it away, and \`runner store import\` the run folders into a new one"* ]]
	[[ "$output" == *"; the store is damaged"* ]]
}

@test "a FIFO or a symbolic link in a run folder: refused with a message under store check, never waited on nor followed" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a "$S/params.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id b "$S/null.yaml"
	# a result file become a FIFO (nobody writes it: opening it would wait)
	rm "$OUT/a/results/params.json"
	mkfifo "$OUT/a/results/params.json"
	# a result file become a link to the same bytes elsewhere
	mv "$OUT/b/results/null.json" "$BATS_TEST_TMPDIR/null.json"
	ln -s "$BATS_TEST_TMPDIR/null.json" "$OUT/b/results/null.json"
	# a folder whose manifest is a FIFO
	mkdir "$OUT/c"
	mkfifo "$OUT/c/manifest.json"
	run timeout 60 "$RUNNER" store check -o "$OUT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"a: $(realpath "$OUT")/a/results/params.json: not a regular file"* ]]
	[[ "$output" == *"b: $(realpath "$OUT")/b/results/null.json: a symbolic link (not followed)"* ]]
	[[ "$output" == *"$OUT/c: a run folder the store cannot take: $OUT/c/manifest.json: not a regular file"* ]]
	[[ "$output" == *"2 runs checked, 2 differ from their folders; 1 run folder under $OUT not in the store"* ]]
}
