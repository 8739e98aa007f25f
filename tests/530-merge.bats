#!/usr/bin/env bats
# runner merge: one report from several runs, the newest result of each experiment.

load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	SPECS="$BATS_TEST_TMPDIR/specs"
	mkdir -p "$SPECS"
	cp tests/fixtures/specs/resume/a_one.yaml tests/fixtures/specs/resume/b_three.yaml "$SPECS/"
	cp tests/fixtures/specs/stats/fixed.yaml "$SPECS/"
}

# set_time RUN ISO: the run's finished time (runs in one test share a second)
set_time() {
	python3 - "$1/manifest.json" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["finished"] = sys.argv[2]
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
}

@test "a merged report from two partial runs: each experiment from its newest run, labelled" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id old --seed 1 "$SPECS/a_one.yaml" "$SPECS/b_three.yaml"
	[ "$status" -eq 0 ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id new --seed 2 "$SPECS/b_three.yaml" "$SPECS/fixed.yaml"
	[ "$status" -eq 0 ]
	set_time "$OUT/old" 2026-01-01T10:00:00Z
	set_time "$OUT/new" 2026-01-02T10:00:00Z
	# the newer run first and last on the command line: the same choice
	for order in "new old" "old new"; do
		set -- $order
		run "$RUNNER" merge -q -o "$OUT" --run-id "m-$1" "$OUT/$1" "$OUT/$2"
		[ "$status" -eq 0 ]
		[ "${lines[${#lines[@]}-1]}" = "$OUT/m-$1" ]
		m="$OUT/m-$1/manifest.json"
		[ "$(json "$m" '{e["name"]: e["source"]["run_id"] for e in d["experiments"]}')" = \
		  '{"b_three": "new", "fixed": "new", "a_one": "old"}' ] ||
		[ "$(json "$m" 'sorted((e["name"], e["source"]["run_id"]) for e in d["experiments"])')" = \
		  '[["a_one", "old"], ["b_three", "new"], ["fixed", "new"]]' ]
		[ "$(json "$m" '[e["source"]["time"] for e in d["experiments"] if e["name"] == "a_one"][0]')" = 2026-01-01T10:00:00Z ]
		[ "$(json "$m" 'sorted(r["run_id"] for r in d["merge"]["runs"])')" = '["new", "old"]' ]
		# the results are the sources' files, byte for byte; the specs come along
		cmp "$OUT/new/results/b_three.json" "$OUT/m-$1/results/b_three.json"
		cmp "$OUT/old/results/a_one.json" "$OUT/m-$1/results/a_one.json"
		cmp "$OUT/old/specs/a_one.yaml" "$OUT/m-$1/specs/a_one.yaml"
		[ "$(grep -c '^b_three,' "$OUT/m-$1/results.csv")" = 2 ]
		[ "$(readlink "$OUT/latest")" = "m-$1" ]
	done
	# the report labels every experiment with its run and time
	grep -q 'Merged report' "$OUT/m-new/report.md"
	grep -q '^\*From run old, 2026-01-01 10:00:00 UTC' "$OUT/m-new/report.md"
	[ "$(grep -c '^\*From run new, 2026-01-02 10:00:00 UTC' "$OUT/m-new/report.md")" = 2 ]
	grep -q 'From run old, 2026-01-01 10:00:00 UTC' "$OUT/m-new/report.tex"
	# the newer run wins even when it is older by argument order and id
	set_time "$OUT/old" 2026-01-03T10:00:00Z
	run "$RUNNER" merge --no-report -q -o "$OUT" --run-id m3 "$OUT/new" "$OUT/old"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/m3/manifest.json" '[e["source"]["run_id"] for e in d["experiments"] if e["name"] == "b_three"][0]')" = old ]
	# a merged folder is not rerun or resumed: it says what to do instead
	run "$RUNNER" rerun --no-report -o "$OUT" "$OUT/m3"
	[ "$status" -eq 2 ]
	[[ "$output" == *"merged report"* ]]
	run "$RUNNER" resume "$OUT/m3"
	[ "$status" -eq 2 ]
}

@test "merge warns when the runs come from different machines, and records it" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 1 "$SPECS/a_one.yaml" "$SPECS/fixed.yaml"
	[ "$status" -eq 0 ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id b --seed 2 "$SPECS/fixed.yaml"
	[ "$status" -eq 0 ]
	python3 - "$OUT/b/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["machine"]["kernel"] = "9.9.9-other"; m["finished"] = "2030-01-01T00:00:00Z"
json.dump(m, open(sys.argv[1], "w"))
PY
	run "$RUNNER" merge --no-report -o "$OUT" --run-id m "$OUT/a" "$OUT/b"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning:"*"machine: kernel changed"* ]]
	[[ "$(json "$OUT/m/manifest.json" 'd["merge"]["changes"][0]')" == *"kernel changed"* ]]
}

@test "merge: bad input is exit 2 and leaves nothing behind" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 1 "$SPECS/fixed.yaml"
	[ "$status" -eq 0 ]
	mkdir -p "$BATS_TEST_TMPDIR/notrun" "$OUT/empty/results"
	run "$RUNNER" merge -o "$OUT" --run-id m "$OUT/a" "$BATS_TEST_TMPDIR/notrun"
	[ "$status" -eq 2 ]
	[[ "$output" == *"notrun: not a run folder"* ]]
	# a run with no result file
	python3 - "$OUT/a/manifest.json" "$OUT/empty/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["run_id"] = "empty"
json.dump(m, open(sys.argv[2], "w"))
PY
	run "$RUNNER" merge -o "$OUT" --run-id m "$OUT/a" "$OUT/empty"
	[ "$status" -eq 2 ]
	[[ "$output" == *"empty: the run has no results"* ]]
	run "$RUNNER" merge -o "$OUT" "$OUT/a"
	[ "$status" -eq 2 ]
	run "$RUNNER" merge -o "$OUT" --run-id a "$OUT/a" "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"already exists"* ]]
	[ ! -e "$OUT/m" ]
	[ -z "$(ls -A "$OUT" | grep '^\.merge')" ]
	[ "$(readlink "$OUT/latest")" = a ]
}
