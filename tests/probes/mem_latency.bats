#!/usr/bin/env bats
# The mem_latency probe and specs/ram_access.yaml.

load ../helpers
load mem_helpers

@test "mem_latency: probe-help lists size, stride, pattern and hugepages" {
	run "$RUNNER" probe-help mem_latency
	[ "$status" -eq 0 ]
	for w in size stride pattern hugepages sequential hugepage_share; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w' in: $output"; return 1; }
	done
}

@test "mem_latency: latency at 64 MiB is well above latency at 16 KiB" {
	mem_run specs/ram_access.yaml --set 'ram_access.params.size=[16KiB, 64MiB]' \
		--set ram_access.params.stride=64
	mem_check ram_access ns '
assert len(pts) == 2, sorted(pts)
small = [k for k in pts if "size=16KiB" in k][0]
big = [k for k in pts if "size=64MiB" in k][0]
# 16 KiB is an L1 hit; 64 MiB of random lines is L3 at best, DRAM here.
assert est(big) > 2 * est(small), (est(big), est(small))
for k, p in pts.items():
    assert p["cycles"] is not None and p["cycles"]["estimate"] > 0, k
    assert p["iterations"] >= 16, (k, p["iterations"])
    share = extra(k, "hugepage_share")
    assert share is None or share < 0.5, (k, share)      # hugepages: false
assert "knees" in d["findings"], d["findings"]
'
}

@test "mem_latency: a random chain defeats the prefetchers that a sequential one feeds" {
	mem_run specs/ram_access.yaml --set ram_access.params.size=64MiB \
		--set ram_access.params.stride=64 \
		--set 'ram_access.params.pattern=[random, sequential, stride]'
	mem_check ram_access ns '
r = [k for k in pts if "pattern=random" in k][0]
s = [k for k in pts if "pattern=sequential" in k][0]
b = [k for k in pts if "pattern=stride" in k][0]
assert est(r) > 2 * est(s), (est(r), est(s))
assert est(r) > 2 * est(b), (est(r), est(b))
'
}

@test "mem_latency: hugepages is either granted or flagged, never silent" {
	mem_run specs/ram_access.yaml --set ram_access.params.size=4MiB \
		--set ram_access.params.stride=64 --set ram_access.params.hugepages=true
	python3 - "$RESULTS/ram_access.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
(p,) = d["points"]
assert p["status"] in ("ok", "skipped"), (p["status"], p["reason"])
if p["status"] == "ok":
    share = p["samples"][0]["extra"]["hugepage_share"]
    flagged = [f for f in p["sanity"] if f["flag"] == "probe_sanity"]
    assert (share is not None and share >= 0.5) != bool(flagged), (share, flagged)
PY
}

@test "mem_latency: a stride that cannot hold a pointer fails the point with a reason" {
	run "$RUNNER" --quick --no-report -o "$BATS_TEST_TMPDIR/out" --run-id t \
		specs/ram_access.yaml --set ram_access.params.size=16KiB \
		--set ram_access.params.stride=12
	[ "$status" -eq 1 ]
	r=$(json "$BATS_TEST_TMPDIR/out/t/results/ram_access.json" 'd["points"][0]["reason"]')
	[[ "$r" == *"stride 12 is not a multiple of 8"* ]] || { echo "reason: $r"; return 1; }
}

@test "mem_latency: a page stride's steps are named as the TLBs' reach, never as cache levels" {
	mem_run specs/ram_access.yaml --set 'ram_access.params.size=[4KiB, 16KiB, 64KiB, 256KiB, 1MiB, 4MiB]' \
		--set 'ram_access.params.stride=[64, 4096]'
	mem_check ram_access ns '
series = d["findings"]["knees"]["series"]
page = [k for k in series if "stride=4096" in k][0]
line = [k for k in series if "stride=64" in k and "4096" not in k][0]
names = [l["name"] for l in series[page]["levels"]]
print(page, names)
assert names and not any(n.startswith("L") for n in names), names
assert all(n.startswith("TLB step") or n.startswith("Memory") for n in names), names
# the line stride keeps its cache levels
assert any(l["name"].startswith("L") for l in series[line]["levels"]), series[line]
'
}
