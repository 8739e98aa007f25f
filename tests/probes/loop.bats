#!/usr/bin/env bats
# The loop probe and specs/loop_overhead.yaml.

load ../helpers
load cpu_helpers

@test "loop: probe-help describes the probe" {
	run "$RUNNER" probe-help loop
	[ "$status" -eq 0 ]
	[[ "$output" == *loop* ]]
	[[ "$output" == *ns* ]]
}

@test "loop: loop_overhead gives one positive per-iteration cost" {
	cpu_run specs/loop_overhead.yaml
	cpu_check loop_overhead '
assert list(pts) == [""], list(pts)
assert pts[""]["iterations"] > 1000, pts[""]["iterations"]   # calibrated, not one
assert est("") == raw(""), (est(""), raw(""))                # nothing subtracted
'
}

@test "loop: an empty loop iteration is far cheaper than a system call" {
	cpu_run specs/loop_overhead.yaml specs/syscall.yaml
	cpu_check loop_overhead
	loop_ns=$(json "$RESULTS/loop_overhead.json" 'd["points"][0]["stats"]["min"]')
	cpu_check syscall "
loop_ns = $loop_ns
assert loop_ns * 5 < lo('call=getpid'), (loop_ns, lo('call=getpid'))
"
}
