#!/usr/bin/env bats
# The timer probe and specs/timer_overhead.yaml.

load ../helpers
load cpu_helpers

@test "timer: probe-help lists the clock parameter and its choices" {
	run "$RUNNER" probe-help timer
	[ "$status" -eq 0 ]
	[[ "$output" == *clock* ]]
	[[ "$output" == *rdtscp* ]]
	[[ "$output" == *clock_gettime_raw* ]]
	[[ "$output" == *resolution_ns* ]]
}

@test "timer: an unknown clock is a spec error" {
	run "$RUNNER" check --set timer_overhead.params.clock=hpet specs/timer_overhead.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *hpet* ]]
}

@test "timer: timer_overhead measures all four clocks, in a plausible order" {
	cpu_run specs/timer_overhead.yaml
	cpu_check timer_overhead '
assert sorted(pts) == ["clock=clock_gettime", "clock=clock_gettime_raw", "clock=rdtsc", "clock=rdtscp"], sorted(pts)
# A bare rdtsc is not slower than a vDSO clock_gettime, which reads the TSC itself.
assert lo("clock=rdtsc") < lo("clock=clock_gettime") * 10, (lo("clock=rdtsc"), lo("clock=clock_gettime"))
assert lo("clock=rdtsc") < lo("clock=clock_gettime_raw") * 10, (lo("clock=rdtsc"), lo("clock=clock_gettime_raw"))
for k, p in pts.items():
    res = p["extra"]["resolution_ns"]["median"]
    step = p["extra"]["step_median_ns"]["median"]
    assert res is not None and res > 0, (k, res)
    assert step is not None and step >= res, (k, res, step)
    assert p["subtracted"] == [], p["subtracted"]
'
}
