#!/usr/bin/env bats
# The syscall probe and specs/syscall.yaml.

load ../helpers
load cpu_helpers

@test "syscall: probe-help lists the call parameter and its choices" {
	run "$RUNNER" probe-help syscall
	[ "$status" -eq 0 ]
	[[ "$output" == *call* ]]
	[[ "$output" == *gettid* ]]
	[[ "$output" == *clock_gettime_vdso* ]]
}

@test "syscall: a kernel entry costs more than a vDSO call" {
	cpu_run specs/syscall.yaml
	cpu_check syscall '
assert sorted(pts) == ["call=clock_gettime_vdso", "call=getpid", "call=gettid"], sorted(pts)
for k, p in pts.items():
    assert [s["experiment"] for s in p["subtracted"]] == ["loop_overhead"], p["subtracted"]
    assert p["estimate"] is not None and 0 < p["estimate"] < p["estimate_raw"], k
# getpid enters the kernel; clock_gettime stays in the vDSO, as long as
# the clocksource can be read from user space.
try:
    cs = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
except OSError:
    cs = ""
if cs in ("tsc", "kvm-clock", "arch_sys_counter"):
    assert lo("call=getpid") > lo("call=clock_gettime_vdso"), (lo("call=getpid"), lo("call=clock_gettime_vdso"))
# getpid and gettid take the same entry path.
ratio = lo("call=gettid") / lo("call=getpid")
assert 1 / 5 < ratio < 5, ratio
'
}
