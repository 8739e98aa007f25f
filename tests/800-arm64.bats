#!/usr/bin/env bats
# The aarch64 port, as far as it can be tested without ARM hardware
# (docs/arm64.md): a fake Graviton2 and Raspberry Pi 4 decoded on any host,
# and, for an aarch64 build run under qemu-user (`make test-arm64`), the
# counter the probes time with, and whole runs of the shipped specs: they
# parse, every probe loads and writes its JSON, the report renders, compare
# and rerun work.  Timing is not judged here.

load helpers

FIX="$BATS_TEST_DIRNAME/fixtures/machine"
NULL_SPEC=tests/fixtures/specs/cli/null.yaml

setup() { OUT="$BATS_TEST_TMPDIR/out"; }

# the ELF header's e_machine (offset 18) is EM_AARCH64 (0xb7)
is_arm64_build() { [ "$(od -An -tx1 -j18 -N2 "$RUNNER" | tr -d ' \n')" = b700 ]; }

@test "arm64: a fake Graviton2 (MIDR in sysfs) reaches the manifest and the report as a Neoverse N1" {
	SYSMETER_MACHINE_ROOT="$FIX/arm-graviton2/root" \
		run "$RUNNER" -q -o "$OUT" --run-id g2 "$NULL_SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/g2/manifest.json"
	[ "$(json "$m" 'd["machine"]["cpu"]["microarchitecture"]')" = "Neoverse N1" ]
	[ "$(json "$m" 'd["machine"]["cpu"]["signature"]')" = 0x413fd0c1 ]
	[ "$(json "$m" 'd["machine"]["cpu_model"]')" = "ARM Neoverse N1" ]
	[ "$(json "$m" 'd["machine"]["llc"]["size_bytes"]')" = 33554432 ]
	grep -q 'Neoverse N1' "$OUT/g2/report.md"
}

@test "arm64: a fake Raspberry Pi 4 (cpuinfo only, no cache folders): a Cortex-A72, caches n/a with the reason" {
	SYSMETER_MACHINE_ROOT="$FIX/arm-rpi4/root" \
		run "$RUNNER" -q -o "$OUT" --run-id pi --no-report "$NULL_SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/pi/manifest.json"
	[ "$(json "$m" 'd["machine"]["cpu"]["microarchitecture"]')" = Cortex-A72 ]
	[ "$(json "$m" 'd["machine"]["caches"]')" = "[]" ]
	[[ "$(json "$m" 'd["machine"]["caches_why_not"]')" == *"CCSIDR_EL1"* ]]
}

@test "arm64: the manifest names the counter, its rate and one tick; SYSMETER_COUNTER=clock_gettime falls back" {
	run "$RUNNER" -q -o "$OUT" --run-id c --no-report "$NULL_SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/c/manifest.json"
	name=$(json "$m" 'd["machine"]["counter"]["name"]')
	if is_arm64_build; then
		[ "$name" = cntvct_el0 ]
		# the architected rate is the rate, and one tick is its inverse
		json "$m" 'd["machine"]["counter"]' | python3 -c '
import json,sys; c=json.load(sys.stdin)
assert c["architected_hz"] and c["hz"] == c["architected_hz"], c
assert abs(c["tick_ns"] * c["hz"] - 1e9) < 1e-3, c
assert c["rate_from"].startswith("cntfrq_el0"), c'
	else
		[ "$name" = tsc ]
	fi
	SYSMETER_COUNTER=clock_gettime run "$RUNNER" -q -o "$OUT" --run-id f --no-report "$NULL_SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/f/manifest.json"
	if is_arm64_build; then
		[ "$(json "$m" 'd["machine"]["counter"]["name"]')" = CLOCK_MONOTONIC_RAW ]
		[ "$(json "$m" 'd["machine"]["counter"]["hz"]')" = 1000000000.0 ]
		[[ "$(json "$m" 'd["machine"]["counter"]["why"]')" == *SYSMETER_COUNTER* ]]
		# the null probe's samples came from the same clock: ns, positive
		json "$OUT/f/results/null.json" 'd["points"][0]["estimate"]' | python3 -c '
import sys; v=float(sys.stdin.read()); assert v > 0, v'
	else
		# x86 keeps the TSC: the variable is aarch64's fallback only
		[ "$(json "$m" 'd["machine"]["counter"]["name"]')" = tsc ]
	fi
}

@test "arm64: every shipped spec parses" {
	run "$RUNNER" check specs/
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "arm64: --quick of every spec: every probe loads and writes valid JSON, the report renders, compare reads it" {
	[ -n "${SYSMETER_EMULATED:-}" ] || skip "the whole --quick run is the aarch64 build's test (make test-arm64); x86 runs it in make run"
	run "$RUNNER" -q --quick -o "$OUT" --run-id q specs/
	echo "$output"
	# 0, or 1 when some points failed: only timing's own verdicts may
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	m="$OUT/q/manifest.json"
	python3 - "$OUT/q" <<'PY'
import json, os, sys
run = sys.argv[1]
m = json.load(open(os.path.join(run, "manifest.json")))
names = [e["name"] for e in m["experiments"]]
assert len(names) >= 20, names
for n in names:
    r = json.load(open(os.path.join(run, "results", n + ".json")))
    pts = r["points"]
    assert pts, n
    for p in pts:
        # measured, or skipped with a reason; failed only where the samples
        # were judged by timing (another task took the CPU during them: the
        # validity rules, which are physics, not function)
        st, why = p.get("status"), p.get("reason") or ""
        assert st in ("ok", "skipped", "failed"), (n, st, why)
        if st == "skipped":
            assert why, (n, p["params"])
        if st == "failed":
            assert why.startswith("too few valid samples"), (n, p["params"], why)
# what has no meaning on aarch64 is skipped, saying why
def pts_of(n, k, v):
    r = json.load(open(os.path.join(run, "results", n + ".json")))
    return [p for p in r["points"] if p["params"].get(k) == v]
nt = pts_of("ram_bandwidth", "op", "write_nt")
assert nt and all(p["status"] == "skipped" and "non-temporal" in p["reason"] for p in nt), nt
tp = pts_of("timer_overhead", "clock", "rdtscp")
assert tp and all(p["status"] == "skipped" and "x86-64 only" in p["reason"] for p in tp), tp
PY
	[ -s "$OUT/q/report.md" ]
	[ -s "$OUT/q/report.pdf" ] || [ -s "$OUT/q/report.tex" ]
	run "$RUNNER" compare "$OUT/q" "$OUT/q"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"ram_access"* ]]
}

@test "arm64: rerun of a run re-executes it into a new folder naming its origin, and compare reads both" {
	run "$RUNNER" -q -o "$OUT" --run-id a --seed 7 --no-report "$NULL_SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$RUNNER" rerun -q -o "$OUT" --run-id b --no-report "$OUT/a"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(json "$OUT/b/manifest.json" 'd["seed"]')" = "$(json "$OUT/a/manifest.json" 'd["seed"]')" ]
	[ "$(json "$OUT/b/manifest.json" 'd["origin"]["run_id"]')" = a ]
	run "$RUNNER" compare "$OUT/a" "$OUT/b"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *null* ]]
}
