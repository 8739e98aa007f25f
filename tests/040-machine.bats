#!/usr/bin/env bats
# The machine a run records (manifest.json's machine, the report's machine
# table): on this host, the caches, the CPU's family, model and stepping,
# the measured core clock; and a fake machine (SYSMETER_MACHINE_ROOT,
# SYSMETER_CPUID_FILE, tests/fixtures/machine/) carried through to the
# manifest and the report.  The decoding itself is tests/unit/test_machine.c.

load helpers

FIX="$BATS_TEST_DIRNAME/fixtures/machine"

setup() { OUT="$BATS_TEST_TMPDIR/out"; }

# The value of "KEY : value" in the first processor of /proc/cpuinfo.
cpuinfo() {
	awk -F': *' -v k="$1" '$1 ~ "^"k"[ \t]*$" { print $2; exit }' /proc/cpuinfo
}

@test "machine: a real run records caches, family, model, stepping and the core clock on this host" {
	run "$RUNNER" -q -o "$OUT" --run-id real tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/real/manifest.json"
	# caches: sysfs's when it has them, else CPUID's, each saying which
	[ "$(json "$m" 'len(d["machine"]["caches"]) > 0')" = true ]
	[ "$(json "$m" 'all(c["source"] in ("sysfs", "cpuid leaf 4", "cpuid 0x8000001d", "cpuid 0x80000005/6") and c["size_bytes"] > 0 for c in d["machine"]["caches"])')" = true ]
	idx=/sys/devices/system/cpu/cpu0/cache/index0
	if [ -r "$idx/size" ]; then
		[ "$(json "$m" 'd["machine"]["caches"][0]["source"]')" = sysfs ]
		[ "$(json "$m" 'd["machine"]["caches"][0]["size_bytes"] // 1024')K" = "$(cat "$idx/size")" ]
	fi
	[ "$(json "$m" 'd["machine"]["llc"]["size_bytes"] == max(c["size_bytes"] for c in d["machine"]["caches"] if c["level"] == d["machine"]["llc"]["level"] and c["type"] != "Instruction")')" = true ]
	[ "$(json "$m" 'type(d["machine"]["llc"]["plausible"]).__name__')" = bool ]
	case $(uname -m) in
	x86_64)
		# family, model, stepping: CPUID's, which the kernel decodes the same way
		[ "$(json "$m" 'd["machine"]["cpu"]["family"]')" = "$(cpuinfo 'cpu family')" ]
		[ "$(json "$m" 'd["machine"]["cpu"]["model"]')" = "$(cpuinfo model)" ]
		[ "$(json "$m" 'd["machine"]["cpu"]["stepping"]')" = "$(cpuinfo stepping)" ]
		[ "$(json "$m" 'd["machine"]["cpu"]["vendor"]')" = "$(cpuinfo vendor_id)" ]
		[ -n "$(json "$m" 'd["machine"]["cpu"]["microarchitecture"]')" ]
		# the core clock, in a plausible range, with its spread and the TSC ratio
		[ "$(json "$m" '2e8 < d["machine"]["core_clock"]["hz"] < 1e10')" = true ]
		[ "$(json "$m" '0 <= d["machine"]["core_clock"]["spread"] < 1')" = true ]
		[ "$(json "$m" 'abs(d["machine"]["core_clock"]["tsc_ratio"] * d["machine"]["tsc_hz"] / d["machine"]["core_clock"]["hz"] - 1) < 0.1')" = true ]
		[ "$(json "$m" 'd["machine"]["core_clock"]["check"]["hz"] > 0')" = true ]
		# PCID as the kernel lists it
		if grep -qw pcid /proc/cpuinfo; then want=true; else want=false; fi
		[ "$(json "$m" 'd["machine"]["pcid"]["kernel"]')" = "$want" ]
		;;
	*)
		[ "$(json "$m" 'd["machine"]["core_clock"]["hz"]')" = None ]
		[ -n "$(json "$m" 'd["machine"]["core_clock"]["why_not"]')" ]
		;;
	esac
	[ "$(json "$m" '"given" in d["machine"]')" = false ]
	md="$OUT/real/report.md"
	for row in 'CPU family, model, stepping' 'Core clock' 'Caches' 'Clocksource' 'PTI, PCID'; do
		grep -q "^| $row | " "$md" || { echo "no row '$row'"; false; }
	done
	grep -q '^| Caches | .*(from ' "$md"
}

@test "machine: a fake AMD Zen 5 guest (no cache files, legacy leaves) reaches the manifest and the report" {
	SYSMETER_MACHINE_ROOT="$FIX/amd-zen5-guest/root" SYSMETER_CPUID_FILE="$FIX/amd-zen5-guest/cpuid.txt" \
		run "$RUNNER" -q -o "$OUT" --run-id z5 tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/z5/manifest.json"
	[ "$(json "$m" 'd["machine"]["given"]["root"]')" = "$FIX/amd-zen5-guest/root" ]
	[ "$(json "$m" '[c["size_bytes"] for c in d["machine"]["caches"]]')" = "[49152, 32768, 1048576, 532676608]" ]
	[ "$(json "$m" 'd["machine"]["caches"][0]["source"]')" = "cpuid 0x80000005/6" ]
	[ "$(json "$m" 'd["machine"]["llc"]["plausible"]')" = false ]
	[ "$(json "$m" 'd["machine"]["cpu"]["microarchitecture"]')" = "Zen 5" ]
	[ "$(json "$m" 'd["machine"]["pti"]["state"]')" = on ]
	[ "$(json "$m" 'd["machine"]["tsc_trust"]["verdict"]')" = "not trusted" ]
	md="$OUT/z5/report.md"
	grep -q '^| CPU family, model, stepping | 0x1a (26), 0x02 (2), 1: Zen 5; AuthenticAMD' "$md"
	grep -q '^| Caches | L1d 48 KiB 12-way, L1i 32 KiB 8-way, L2 1 MiB 16-way, L3 508 MiB; 64-byte lines (from cpuid 0x80000005/6); L3 implausible here: ' "$md"
	grep -q '^| Clocksource | kvm-clock (available: kvm-clock); TSC not trusted: .*; kernel options: clocksource=kvm-clock tsc=reliable tsc=unstable |$' "$md"
	grep -q '^| PTI, PCID | PTI on (/proc/cpuinfo flag pti; vulnerabilities/meltdown: Not affected); PCID: CPU no, kernel no; INVPCID: CPU no, kernel no |$' "$md"
}
