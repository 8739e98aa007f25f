#!/usr/bin/env bats
# Reruns of saved runs (compare: 510-compare.bats).

load helpers

setup() { OUT="$BATS_TEST_TMPDIR/out"; }

@test "rerun re-executes with the same seed and options into a new folder naming its origin" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 7 --set null.repetitions=3 \
		tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	run "$RUNNER" rerun --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/b/manifest.json" 'd["seed"]')" = 7 ]
	[ "$(json "$OUT/b/manifest.json" 'd["origin"]["run_id"]')" = a ]
	[ "$(json "$OUT/b/manifest.json" 'd["options"]["set"]')" = '["null.repetitions=3"]' ]
	[ "$(json "$OUT/b/results/null.json" 'len(d["points"][0]["samples"])')" = 4 ]
	[ "$(json "$OUT/a/manifest.json" 'd["experiments"][0]["spec_sha256"]')" = \
	  "$(json "$OUT/b/manifest.json" 'd["experiments"][0]["spec_sha256"]')" ]
}

@test "rerun refuses a changed probe unless --force, and says what changed" {
	pd="$BATS_TEST_TMPDIR/probes"
	mkdir -p "$pd"
	cp "$BUILD/probes/null.so" "$pd/"
	run "$RUNNER" --probe-dir "$pd" --no-report -q -o "$OUT" --run-id a tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	printf 'x' >> "$pd/null.so"     # still loads, different sha256
	run "$RUNNER" rerun --probe-dir "$pd" --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"probe 'null' changed: sha256"* ]]
	[ ! -e "$OUT/b" ]
	run "$RUNNER" rerun --force --probe-dir "$pd" --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 0 ]
	[[ "$(json "$OUT/b/manifest.json" 'd["origin"]["changes"][0]')" == *"probe 'null' changed"* ]]
}

@test "rerun of a folder without a manifest is bad usage" {
	run "$RUNNER" rerun "$BATS_TEST_TMPDIR/nothing"
	[ "$status" -eq 2 ]
	[[ "$output" == *"manifest.json"* ]]
}

# compare's tests are in 510-compare.bats.

@test "rerun loads a probe from outside the probe directories only with --probe-dir (a run folder is untrusted)" {
	run env -u SYSMETER_PROBE_DIR "$RUNNER" --probe-dir "$FIXTURE_DIR" --no-report -q -o "$OUT" \
		--run-id a tests/fixtures/specs/stats/fixed.yaml
	[ "$status" -eq 0 ]
	path=$(json "$OUT/a/manifest.json" 'd["experiments"][0]["probe"]["path"]')
	[ "$path" = "$(realpath "$FIXTURE_DIR")/ok_fixed.so" ]
	cd "$BATS_TEST_TMPDIR"		# and from another directory
	# the manifest alone does not make its folder trusted
	run env -u SYSMETER_PROBE_DIR "$RUNNER" rerun --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"the run loaded probe $path from $(realpath "$FIXTURE_DIR"), which is not a probe directory here: give --probe-dir"* ]]
	[ ! -e "$OUT/b" ]
	run env -u SYSMETER_PROBE_DIR "$RUNNER" rerun --probe-dir "$FIXTURE_DIR" --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/b/manifest.json" 'd["experiments"][0]["probe"]["path"]')" = "$path" ]
	[ "$(json "$OUT/b/results/fixed.json" 'd["status"]')" = ok ]
}
