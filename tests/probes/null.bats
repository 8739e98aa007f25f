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

@test "null: measurement_overhead reports the start+stop pair in ns and TSC cycles, with its prediction and no flag" {
	run -0 "$RUNNER" check specs/measurement_overhead.yaml
	cpu_run specs/measurement_overhead.yaml specs/timer_overhead.yaml
	tsc=$(json "$BATS_TEST_TMPDIR/out/t/manifest.json" 'd["machine"]["tsc_hz"]')
	cpu_check measurement_overhead '
tsc = float("'"$tsc"'")
p = pts[""]
assert p["iterations"] == 100000, p["iterations"]     # the spec, not fixed_iterations
e = p["estimate"]
# a serialised pair of counter reads: more than a nanosecond, far less than
# a system call (wide margins: order, not speed)
assert 1 < e < 2000, e
c = p["cycles"]
assert c["clock"] == "tsc", c
assert abs(c["estimate"] - e * tsc / 1e9) <= 0.01 * c["estimate"], (c["estimate"], e, tsc)
assert "below_timer_resolution" not in [f["flag"] for f in p["sanity"]], p["sanity"]   # 100,000 pairs a sample
assert p["prediction"]["value"] > 0 and p["prediction"]["why"], p["prediction"]
t = json.load(open(sys.argv[1].replace("measurement_overhead", "timer_overhead")))
rdtscp = [q for q in t["points"] if q["params"]["clock"] == "rdtscp"][0]["estimate"]
# the pair holds one rdtscp and waits for it: never cheaper than half of
# an unserialised rdtscp read (which overlaps its neighbours)
assert e > 0.5 * rdtscp, (e, rdtscp)
'
}
