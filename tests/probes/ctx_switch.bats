#!/usr/bin/env bats
# ctx_switch: the context_switch and cross_cpu_handoff specs run, their
# results are well formed (switch, round trip and single-task overhead, the
# CPUs of both tasks), the placement is what was asked, and the partner task
# never survives a point, even a killed one.

load ../helpers
load watch

SPEC=specs/context_switch.yaml
CROSS=specs/cross_cpu_handoff.yaml
CONDVAR=specs/condvar_switch.yaml

setup() { OUT="$BATS_TEST_TMPDIR/out"; }

# check_points FILE PLACEMENT: every point ok, finite positive estimate,
# every sample valid with the metrics of its mechanism and the CPUs asked.
check_points() {
	python3 - "$1" "$2" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
placement = sys.argv[2]
fin = lambda x: isinstance(x, (int, float)) and math.isfinite(x)
assert d["schema"] == "sysmeter.result/1", d["schema"]
assert d["status"] == "ok", d["status"]
assert d["probe"]["unit"] == "ns"
names = [m["name"] for m in d["probe"]["metrics"]]
for m in ("round_trip_ns", "pipe_ns", "futex_ns", "cpu_a", "cpu_b"):
    assert m in names, m
assert len(d["points"]) == 4, len(d["points"])
for p in d["points"]:
    k, mech = p["params"]["kind"], p["params"]["mechanism"]
    assert p["params"]["placement"] == placement
    assert p["status"] == "ok", (k, mech, p["status"], p["reason"])
    e = p["estimate"]
    assert fin(e) and e > 0, (k, mech, e)
    assert p["n"] >= 2 and p["n_invalid"] == 0, (k, mech, p["n"], p["n_invalid"])
    own = "pipe_ns" if mech == "pipe" else "futex_ns"
    other = "futex_ns" if mech == "pipe" else "pipe_ns"
    for s in p["samples"]:
        x = s["extra"]
        assert s["valid"], (k, mech, s["note"])
        assert fin(x["round_trip_ns"]) and fin(x[own]) and x[own] > 0, (k, mech, x)
        assert x[other] is None, (k, mech, other, x[other])   # NaN -> null
        # a round trip holds two sends and two receives, and more
        assert x["round_trip_ns"] > 2 * x[own], (k, mech, x)
        a, b = x["cpu_a"], x["cpu_b"]
        if placement == "same":
            assert a == b, (k, mech, a, b)
            if p["placement"]["pinned"]:
                assert a == p["placement"]["cpu_requested"], (k, mech, a, p["placement"])
        else:
            assert a != b, (k, mech, a, b)
    for m in ("round_trip_ns", own):
        assert fin(p["extra"][m]["median"]), (k, mech, m)
print("ok")
PY
}

@test "ctx_switch: the specs validate" {
	run "$RUNNER" check "$SPEC" "$CROSS" "$CONDVAR"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "ctx_switch: same CPU: switch, round trip and overhead per point, both tasks on the pinned CPU, no stray" {
	run_watched --quick --no-report -q -o "$OUT" --run-id t "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	run check_points "$OUT/t/results/context_switch.json" same
	echo "$output"
	[ "$status" -eq 0 ]
	no_strays
}

@test "ctx_switch: the switch is the round trip less the overhead, halved" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'context_switch.params.mechanism=pipe' --set 'context_switch.params.kind=thread' "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	python3 - "$OUT/t/results/context_switch.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["points"][0]["samples"]:
    x = s["extra"]
    want = (x["round_trip_ns"] - 2 * x["pipe_ns"]) / 2
    assert abs(s["value"] - want) <= 1e-6 * abs(want) + 1e-9, (s["value"], want)
PY
}

@test "ctx_switch: cross placement puts the tasks on two CPUs (skipped with one)" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t "$CROSS"
	echo "$output"
	res="$OUT/t/results/cross_cpu_handoff.json"
	if [ "$(json "$res" 'd["status"]')" = skipped ]; then
		# only where a second CPU is really missing, and for that reason
		[[ "$(json "$res" 'd["points"][0]["reason"]')" == *"needs a second CPU"* ]]
		[ "$(nproc)" -lt 2 ] || { echo "skipped with $(nproc) usable CPUs"; false; }
		skip "one usable CPU: the hand-off needs two (the points are recorded as skipped)"
	fi
	[ "$status" -eq 0 ]
	run check_points "$res" cross
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "ctx_switch: a killed point takes its partner process with it" {
	spec="$BATS_TEST_TMPDIR/cs_kill.yaml"
	cat >"$spec" <<-'YAML'
	name: cs_kill
	probe: ctx_switch
	params:
	  kind: process
	  mechanism: [pipe, futex]
	repetitions: 1
	warmup: 0
	iterations: 1000000000
	cpu: 0
	timeout: 1s
	YAML
	run_watched --no-report -q -o "$OUT" --run-id t "$spec"
	echo "$output"
	[ "$status" -eq 1 ]
	res="$OUT/t/results/cs_kill.json"
	[ "$(json "$res" '[p["status"] for p in d["points"]]')" = '["timeout", "timeout"]' ]
	# the partners were seen alive in the points' groups ...
	[ "$(awk '$1 != $3' "$BATS_TEST_TMPDIR/seen" | wc -l)" -ge 1 ]
	# ... and nothing of those groups is left
	no_strays
}

# check_condvar FILE: the condvar_switch points (kind x placement): every
# point ok with only the condvar overhead, the CPUs asked for, a round trip
# longer than two single-task overheads, and on one CPU at least one block
# per round trip between the two tasks (one of them must leave the CPU).
check_condvar() {
	python3 - "$1" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
fin = lambda x: isinstance(x, (int, float)) and math.isfinite(x)
names = [m["name"] for m in d["probe"]["metrics"]]
for m in ("condvar_ns", "vcsw_a", "vcsw_b", "cpu_a", "cpu_b"):
    assert m in names, m
assert d["probe"]["version"] == "1.1", d["probe"]["version"]
seen = set()
for p in d["points"]:
    k, pl = p["params"]["kind"], p["params"]["placement"]
    seen.add((k, pl))
    assert p["params"]["mechanism"] == "condvar"
    if p["status"] == "skipped":
        assert pl == "cross" and "needs a second CPU" in p["reason"], (k, pl, p["reason"])
        continue
    assert p["status"] == "ok", (k, pl, p["status"], p["reason"])
    assert fin(p["estimate"]) and p["estimate"] > 0, (k, pl, p["estimate"])
    assert p["n_invalid"] == 0, (k, pl, p["n_invalid"])
    for s in p["samples"]:
        x = s["extra"]
        assert s["valid"], (k, pl, s["note"])
        assert x["pipe_ns"] is None and x["futex_ns"] is None, (k, pl, x)
        assert fin(x["condvar_ns"]) and x["condvar_ns"] > 0, (k, pl, x)
        assert x["round_trip_ns"] > 2 * x["condvar_ns"], (k, pl, x)
        a, b = x["cpu_a"], x["cpu_b"]
        if pl == "same":
            assert a == b == p["placement"]["cpu_requested"], (k, pl, a, b, p["placement"])
            assert x["vcsw_a"] + x["vcsw_b"] >= 0.8, (k, pl, x["vcsw_a"], x["vcsw_b"])
        else:
            assert a != b, (k, pl, a, b)
print(sorted(seen))
PY
}

@test "ctx_switch: condvar hand-off, threads and processes, same and cross CPU, where the tasks ran recorded" {
	run_watched --quick --no-report -q -o "$OUT" --run-id t \
		--set 'condvar_switch.params.kind=[thread, process]' "$CONDVAR"
	echo "$output"
	[ "$status" -eq 0 ]
	run check_condvar "$OUT/t/results/condvar_switch.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "[('process', 'cross'), ('process', 'same'), ('thread', 'cross'), ('thread', 'same')]" ]
	no_strays
}

@test "ctx_switch: a condvar switch costs more than a futex switch on one CPU (it blocks more per round trip)" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'context_switch.params.kind=thread' --set 'context_switch.params.mechanism=futex' \
		--set 'condvar_switch.params.placement=same' "$SPEC" "$CONDVAR"
	echo "$output"
	[ "$status" -eq 0 ]
	python3 - "$OUT/t/results/context_switch.json" "$OUT/t/results/condvar_switch.json" <<'PY'
import json, sys
fx = json.load(open(sys.argv[1]))["points"][0]
cv = json.load(open(sys.argv[2]))["points"][0]
blocks = lambda p: p["extra"]["vcsw_a"]["median"] + p["extra"]["vcsw_b"]["median"]
print("futex", fx["estimate"], blocks(fx), "condvar", cv["estimate"], blocks(cv))
# the mutex taken around every signal and wait: more blocks, never fewer,
# and a hand-off at least as dear (wide margins: order, not speed)
assert blocks(cv) > blocks(fx), (blocks(cv), blocks(fx))
assert cv["estimate"] > 0.8 * fx["estimate"], (cv["estimate"], fx["estimate"])
PY
}
