#!/usr/bin/env bats
# The mem_bandwidth probe and specs/ram_bandwidth.yaml.

load ../helpers
load mem_helpers

@test "mem_bandwidth: probe-help lists the ops, size and threads" {
	run "$RUNNER" probe-help mem_bandwidth
	[ "$status" -eq 0 ]
	for w in op size threads write_nt memcpy GB/s imbalance; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w' in: $output"; return 1; }
	done
}

@test "mem_bandwidth: every op moves bytes, checked by sanity" {
	mem_run specs/ram_bandwidth.yaml --set ram_bandwidth.params.size=32MiB \
		--set ram_bandwidth.params.threads=1 \
		--set 'ram_bandwidth.params.op=[read, write, write_nt, copy]' \
		--filter ram_bandwidth
	mem_check ram_bandwidth GB/s '
assert d["probe"]["bigger_is_better"] is True, d["probe"]
assert len(pts) == 4, sorted(pts)
for k, p in pts.items():
    assert p["cycles"] is None, k                 # GB/s is not a time
    assert p["stats"]["max"] >= p["stats"]["mean"] > 0, k
copy = [k for k in pts if "op=copy" in k][0]
assert est(copy) > 0, est(copy)
'
	mem_run specs/ram_bandwidth.yaml --set ram_bandwidth.params.size=32MiB \
		--set ram_bandwidth.params.threads=1 \
		--set 'ram_bandwidth.params.op=[memset, memcpy]'
	mem_check ram_bandwidth GB/s 'assert len(pts) == 2, sorted(pts)'
}

@test "mem_bandwidth: a buffer in cache reads faster than one in DRAM" {
	skip_if_emulated
	mem_run specs/ram_bandwidth.yaml --set ram_bandwidth.params.op=read \
		--set ram_bandwidth.params.threads=1 \
		--set 'ram_bandwidth.params.size=[64KiB, 256MiB]'
	mem_check ram_bandwidth GB/s '
small = [k for k in pts if "size=64KiB" in k][0]
big = [k for k in pts if "size=256MiB" in k][0]
assert est(small) > 1.5 * est(big), (est(small), est(big))
'
}

@test "mem_bandwidth: threads run on their own CPUs, more threads than CPUs is skipped" {
	n=$(getconf _NPROCESSORS_ONLN)
	[ "$n" -ge 2 ] || skip "one CPU"
	mem_run specs/ram_bandwidth.yaml --set ram_bandwidth.params.op=read \
		--set ram_bandwidth.params.size=64MiB --set "ram_bandwidth.params.threads=[1, 2]"
	mem_check ram_bandwidth GB/s '
for k, p in pts.items():
    imb = extra(k, "imbalance")
    assert imb is not None and imb >= 0, (k, imb)
'
	run "$RUNNER" --quick --no-report -o "$BATS_TEST_TMPDIR/out2" --run-id t \
		specs/ram_bandwidth.yaml --set ram_bandwidth.params.op=read \
		--set ram_bandwidth.params.size=1MiB --set "ram_bandwidth.params.threads=$((n + 1))"
	f="$BATS_TEST_TMPDIR/out2/t/results/ram_bandwidth.json"
	[ "$(json "$f" 'd["points"][0]["status"]')" = skipped ]
	r=$(json "$f" 'd["points"][0]["reason"]')
	[[ "$r" == *"online cpus"* ]] || { echo "reason: $r"; return 1; }
}

@test "mem_bandwidth: no plausible LLC (a Zen 5 guest with no sysfs caches, a socket's L3 by CPUID): 512 MiB, recorded, scaling checked" {
	M="$BATS_TEST_DIRNAME/../fixtures/machine/amd-zen5-guest"
	SYSMETER_MACHINE_ROOT="$M/root" SYSMETER_CPUID_FILE="$M/cpuid.txt" \
		mem_run specs/ram_bandwidth.yaml --set 'ram_bandwidth.params.op=[read, memset]' \
		--set "ram_bandwidth.params.threads=[1, 2]"
	m="$BATS_TEST_TMPDIR/out/t$MEM_RUNS/manifest.json"
	# the machine the run saw: the L3 from CPUID, and judged implausible
	[ "$(json "$m" 'd["machine"]["llc"]["plausible"]')" = false ]
	python3 - "$RESULTS/ram_bandwidth.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	est = {}
	for p in d["points"]:
	    t = p["params_text"]
	    sizes = {s["extra"]["buffer_bytes"] for s in p["samples"]}
	    # the size actually used, in every sample: the large default, split
	    assert sizes == {512 * 1024 * 1024}, (t, sizes)
	    est[(t["op"], t["threads"])] = (p["estimate"], [f["flag"] for f in p["sanity"]])
	# never a 2-thread figure above 2 x the 1-thread one without its flag
	for op in ("read", "memset"):
	    one, two = est[(op, "1")][0], est[(op, "2")]
	    assert two[0] <= 2 * one or "superlinear_scaling" in two[1], (op, one, two)
	PY
}
