#!/usr/bin/env bats
# The loop probe and specs/loop_overhead.yaml.

load ../helpers
load cpu_helpers

@test "loop: probe-help describes the probe" {
	run "$RUNNER" probe-help loop
	[ "$status" -eq 0 ]
	echo "$output"
	# what it measures, in ns, from which file, and that it takes no parameter
	re='^loop [0-9][^ ]* - .*empty loop iteration'
	[[ "${lines[0]}" =~ $re ]]
	[ "${lines[1]}" = "unit: ns" ]
	want=$(IFS=:; for d in $SYSMETER_PROBE_DIR; do [ -f "$d/loop.so" ] && { echo "$d/loop.so"; break; }; done)
	[ "${lines[2]}" = "file: $want" ]
	[ "${lines[3]}" = "sha256: $(sha256sum "$want" | cut -d' ' -f1)" ]
	[ "${lines[4]}" = "parameters:" ]
	[ "$(printf '%s\n' "${lines[@]:5}" | sed 's/^ *//')" = "(none)" ]
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
