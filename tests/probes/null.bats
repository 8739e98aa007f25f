#!/usr/bin/env bats
# The null probe: an empty timed region; harness overhead and pipeline.

load ../helpers
load cpu_helpers

setup() {
	SPEC="$BATS_TEST_TMPDIR/null_overhead.yaml"
	cat >"$SPEC" <<'YAML'
title: Null probe
group: cpu
probe: null
description: an empty timed region per sample
repetitions: 10
warmup: 1
cpu: 0
timeout: 60s
YAML
}

@test "null: probe-help describes the probe and its empty parameter table" {
	run "$RUNNER" probe-help null
	[ "$status" -eq 0 ]
	[[ "$output" == *null* ]]
	[[ "$output" == *ns* ]]
}

@test "null: a run goes through the whole pipeline with one iteration per sample" {
	cpu_run "$SPEC"
	cpu_check null_overhead '
assert list(pts) == [""], list(pts)
p = pts[""]
assert p["iterations"] == 1, p["iterations"]          # fixed_iterations
kept = [s for s in p["samples"] if not s["warmup"]]
assert len([s for s in p["samples"] if s["warmup"]]) == 1
assert len(kept) == 3, len(kept)                      # --quick: 3 repetitions
for s in kept:
    assert s["value"] is not None and s["value"] > 0, s
'
}
