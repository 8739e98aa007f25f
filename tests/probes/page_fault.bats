#!/usr/bin/env bats
# The page_fault probe and specs/page_fault.yaml.

load ../helpers
load mem_helpers

@test "page_fault: probe-help lists kind, size, stride and the metrics" {
	run "$RUNNER" probe-help page_fault
	[ "$status" -eq 0 ]
	for w in kind major minor file size stride ns_per_byte faults_counted pages_per_fault; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w' in: $output"; return 1; }
	done
}

@test "page_fault: a major fault costs more than a minor one, and both really fault" {
	mem_run specs/page_fault.yaml --set page_fault.params.size=16MiB \
		--set 'page_fault.params.kind=[major, minor]'
	mem_check page_fault us '
major = [k for k in pts if "kind=major" in k][0]
minor = [k for k in pts if "kind=minor" in k][0]
# A read from the device against zeroing a page in memory.
assert est(major) > 2 * est(minor), (est(major), est(minor))
for k, p in pts.items():
    kept = [s for s in p["samples"] if not s["warmup"] and s["valid"]]
    for s in kept:
        # getrusage saw (at least half) the faults the probe caused
        assert s["extra"]["faults_counted"] >= p["iterations"] / 2, (k, s["extra"], p["iterations"])
    # ns per byte is the fault cost over a 4 KiB page
    nspb = extra(k, "ns_per_byte")
    assert abs(nspb - p["stats"]["median"] * 1000 / 4096) <= 0.01 * nspb, (k, nspb)
# the file really left the page cache before each sample
assert extra(major, "cached_share") < 0.1, extra(major, "cached_share")
assert extra(major, "drop_caches") in (0, 1), extra(major, "drop_caches")
'
}

@test "page_fault: a stride that is not a page multiple fails the point with a reason" {
	run "$RUNNER" --quick --no-report -o "$BATS_TEST_TMPDIR/out" --run-id t \
		specs/page_fault.yaml --set page_fault.params.kind=minor \
		--set page_fault.params.stride=6KiB
	[ "$status" -eq 1 ]
	r=$(json "$BATS_TEST_TMPDIR/out/t/results/page_fault.json" 'd["points"][0]["reason"]')
	[[ "$r" == *"not a multiple of the page size"* ]] || { echo "reason: $r"; return 1; }
}

@test "page_fault: a file-backed minor fault is timed per fault really taken, with the pages per fault" {
	mem_run specs/page_fault.yaml --set page_fault.params.kind=file \
		--set page_fault.params.size=16MiB
	mem_check page_fault us '
assert len(pts) == 1, list(pts)
k, p = list(pts.items())[0]
assert "kind=file" in k, k
kept = [s for s in p["samples"] if not s["warmup"] and s["valid"]]
assert kept, "no valid sample"
for s in kept:
    x = s["extra"]
    # the file was all in the page cache: minor faults only
    assert x["cached_share"] == 1, (k, x)
    assert x["faults_counted"] >= 1, (k, x)
    # pages touched per fault getrusage counted: fault-around maps >= 1
    assert x["pages_per_fault"] >= 1, (k, x)
    assert abs(x["pages_per_fault"] * x["faults_counted"] - p["iterations"]) <= 1e-6 * p["iterations"], \
        (k, x, p["iterations"])
    assert s["value"] > 0, (k, s["value"])
assert extra(k, "pages_per_fault") >= 1, extra(k, "pages_per_fault")
'
}
