#!/usr/bin/env bats
# The null probe: an empty timed region; harness overhead and pipeline.

bats_require_minimum_version 1.5.0
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

@test "null: probe-help and list describe the probe, its unit and its empty parameter table" {
	run -0 "$RUNNER" probe-help null
	so=$(sed -n 's/^file: //p' <<<"$output")
	[ "${so##*/}" = null.so ]
	[ -f "$so" ]
	diff -u - <(printf '%s\n' "$output") <<-EOF
	null 1.0 - empty timed region (pt_start/pt_stop pair): harness and timing overhead
	unit: ns
	file: $so
	sha256: $(sha256sum "$so" | cut -d' ' -f1)
	parameters:
	    (none)
	EOF
	# list: the same summary and unit on one line, and no parameter lines
	# (indented) under it
	run -0 "$RUNNER" list
	grep -A1 '^null ' <<<"$output" >"$BATS_TEST_TMPDIR/list"
	[ "$(head -1 "$BATS_TEST_TMPDIR/list")" = 'null             empty timed region (pt_start/pt_stop pair): harness and timing overhead [ns]' ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/list")" -eq 1 ] || [[ "$(sed -n 2p "$BATS_TEST_TMPDIR/list")" != " "* ]]
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
