#!/usr/bin/env bats
# The proc_call probe and specs/procedure_call.yaml.

load ../helpers
load cpu_helpers

@test "proc_call: probe-help lists the args parameter and raw_ns" {
	run "$RUNNER" probe-help proc_call
	[ "$status" -eq 0 ]
	[[ "$output" == *args* ]]
	[[ "$output" == *raw_ns* ]]
}

@test "proc_call: more than seven arguments is a spec error" {
	run "$RUNNER" check --set procedure_call.params.args=8 specs/procedure_call.yaml
	[ "$status" -eq 2 ]
}

@test "proc_call: procedure_call sweeps args, subtracts the loop, keeps raw_ns" {
	cpu_run specs/procedure_call.yaml
	cpu_check procedure_call '
args = sorted(int(p["params"]["args"]) for p in d["points"])
assert args[0] == 0 and args[-1] == 7 and len(args) >= 2, args
for k, p in pts.items():
    assert [s["experiment"] for s in p["subtracted"]] == ["loop_overhead"], p["subtracted"]
    assert p["estimate"] is not None and p["estimate"] < p["estimate_raw"], k
    rn = p["extra"]["raw_ns"]["median"]
    assert abs(rn - p["stats"]["median"]) <= 1e-9 * max(1.0, rn), (k, rn, p["stats"]["median"])
# Seven arguments (one on the stack) are not much cheaper than none (wide:
# the host can halve the speed of the core between two points).
assert lo("args=7") > lo("args=0") * 0.25, (lo("args=0"), lo("args=7"))
'
}

@test "proc_call: at -O2 every arity still calls its function" {
	command -v objdump >/dev/null || skip "objdump is not installed"
	so="${BUILD:-build}/probes/proc_call.so"
	[ -f "$so" ] || skip "$so is not built"
	run sh -c "objdump -d '$so' | grep -Eo 'call +[0-9a-f]+ <pc_f[0-7]>' | sed 's/.*<//' | sort -u | tr -d '>' | tr '\n' ' '"
	[ "$status" -eq 0 ]
	[ "$output" = "pc_f0 pc_f1 pc_f2 pc_f3 pc_f4 pc_f5 pc_f6 pc_f7 " ]
}
