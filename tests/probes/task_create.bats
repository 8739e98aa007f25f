#!/usr/bin/env bats
# task_create: the spec runs, its results are well formed, the orderings
# physics guarantees hold (with wide margins, never absolute times), and no
# child survives a point: not after a normal run, not after a killed one.

load ../helpers
load watch

SPEC=specs/task_create.yaml

setup() { OUT="$BATS_TEST_TMPDIR/out"; RES="$OUT/t/results/task_create.json"; }

# est METHOD: the estimate of the point whose method is METHOD.
est() {
	json "$RES" "[p['estimate'] for p in d['points'] if p['params']['method'] == '$1'][0]"
}

# check_points: every point ok, finite positive estimate and CI, samples
# with child_done in [0, 1], unit us.
check_points() {
	python3 - "$RES" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "sysmeter.result/1", d["schema"]
assert d["status"] == "ok", d["status"]
assert d["probe"]["unit"] == "us"
assert [m["name"] for m in d["probe"]["metrics"]] == ["child_done"]
for p in d["points"]:
    m = p["params"]["method"]
    assert p["status"] == "ok", (m, p["status"], p["reason"])
    e = p["estimate"]
    assert isinstance(e, (int, float)) and math.isfinite(e) and e > 0, (m, e)
    lo, hi = p["ci"]
    assert lo is not None and hi is not None and 0 < lo <= e <= hi, (m, lo, e, hi)
    assert p["n"] >= 2 and p["iterations"] >= 1, (m, p["n"], p["iterations"])
    kept = [s for s in p["samples"] if not s["warmup"]]
    assert len(kept) >= 3
    for s in p["samples"]:
        assert s["valid"], (m, s["note"])
        cd = s["extra"]["child_done"]
        assert 0 <= cd <= 1, (m, cd)
        if m in ("fork_wait", "posix_spawn", "pthread_join"):
            assert cd == 1, (m, cd)
print("ok")
PY
}

@test "task_create: the spec validates" {
	run "$RUNNER" check "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "task_create: a quick run gives finite positive estimates, and leaves no child" {
	run_watched --quick --no-report -q -o "$OUT" --run-id t "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	run check_points
	echo "$output"
	[ "$status" -eq 0 ]
	# --quick keeps every value of a choice: all six methods
	[ "$(json "$RES" 'len(d["points"])')" -eq 6 ]
	no_strays
	[ "$(max_zombies)" -le 1 ]
}

@test "task_create: process creation costs more than thread creation, waiting more than not" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'task_create.params.method=[fork, fork_wait, pthread, pthread_join]' "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	run check_points
	echo "$output"
	[ "$status" -eq 0 ]
	fork=$(est fork); fork_wait=$(est fork_wait)
	pthread=$(est pthread); pthread_join=$(est pthread_join)
	echo "fork $fork fork_wait $fork_wait pthread $pthread pthread_join $pthread_join"
	python3 -c "import sys; f, fw, p, pj = map(float, sys.argv[1:]); \
assert fw > f, 'fork_wait <= fork'; assert fw > pj, 'fork_wait <= pthread_join'; \
assert f > p, 'fork <= pthread'; assert pj > p, 'pthread_join <= pthread'" \
		"$fork" "$fork_wait" "$pthread" "$pthread_join"
}

@test "task_create: posix_spawn (a clone, an exec and a program run) costs more than vfork" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'task_create.params.method=[vfork, posix_spawn]' "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	run check_points
	echo "$output"
	[ "$status" -eq 0 ]
	python3 -c "import sys; v, s = map(float, sys.argv[1:]); assert s > v, 'posix_spawn <= vfork'" \
		"$(est vfork)" "$(est posix_spawn)"
}

@test "task_create: a missing helper program is a clear error, not a number" {
	pd="$BATS_TEST_TMPDIR/probes"
	mkdir -p "$pd"
	cp "$BUILD/probes/task_create.so" "$pd/"
	run "$RUNNER" --probe-dir "$pd" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'task_create.params.method=[posix_spawn]' "$SPEC"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(json "$RES" 'd["points"][0]["status"]')" = failed ]
	[[ "$(json "$RES" 'd["points"][0]["reason"]')" == *"helper 'spawn_true' not found"* ]]
}

@test "task_create: a point killed by its timeout leaves no zombie and no stray" {
	spec="$BATS_TEST_TMPDIR/tc_kill.yaml"
	cat >"$spec" <<-'YAML'
	name: tc_kill
	probe: task_create
	params:
	  method: [fork_wait, posix_spawn]
	repetitions: 1
	warmup: 0
	iterations: 100000000
	cpu: 0
	timeout: 1s
	YAML
	run_watched --no-report -q -o "$OUT" --run-id t "$spec"
	echo "$output"
	[ "$status" -eq 1 ]
	res="$OUT/t/results/tc_kill.json"
	[ "$(json "$res" '[p["status"] for p in d["points"]]')" = '["timeout", "timeout"]' ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/groups")" -ge 2 ]
	no_strays
}
