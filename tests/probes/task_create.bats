#!/usr/bin/env bats
# task_create: the spec runs, its results are well formed, the orderings
# physics guarantees hold (with wide margins, never absolute times), and no
# child survives a point: not after a normal run, not after a killed one.
# The minimal parent (bin/fork_parent) is smaller than the runner's point
# process, and dies with its parent.

load ../helpers
load watch

SPEC=specs/task_create.yaml

setup() { OUT="$BATS_TEST_TMPDIR/out"; RES="$OUT/t/results/task_create.json"; }

# no_helper_left: no fork_parent whose parent was one of the watched
# points (its first argument is that point's pid, the group's id) runs.
no_helper_left() {
	local left
	left=$(pgrep -a -x fork_parent | awk 'NR == FNR { g[$1]; next } ($3 in g)' \
		"$BATS_TEST_TMPDIR/groups" -)
	if [ -n "$left" ]; then
		echo "fork_parent left running:"; echo "$left"
		return 1
	fi
}

# est METHOD: the estimate of the point whose method is METHOD.
est() {
	json "$RES" "[p['estimate'] for p in d['points'] if p['params']['method'] == '$1'][0]"
}

# check_points: every point ok, finite positive estimate and CI, samples
# with child_done in [0, 1] and the creating process's size (mappings, RSS)
# positive, unit us, no probe sanity flag (a process left after the point).
check_points() {
	python3 - "$RES" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "sysmeter.result/1", d["schema"]
assert d["status"] == "ok", d["status"]
assert d["probe"]["unit"] == "us"
assert [m["name"] for m in d["probe"]["metrics"]] == \
    ["child_done", "parent_mappings", "parent_rss_bytes", "parent_faults", "child_faults"]
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
        assert s["extra"]["parent_mappings"] > 0, (m, s["extra"])
        assert s["extra"]["parent_rss_bytes"] > 0, (m, s["extra"])
    for f in p["sanity"]:
        assert f["flag"] != "probe_sanity", (m, f["message"])
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
	# --quick keeps every value of a choice: all six methods, fork and
	# fork_wait from both parents
	[ "$(json "$RES" 'len(d["points"])')" -eq 8 ]
	no_strays
	[ "$(max_zombies)" -le 1 ]
	# no minimal parent (bin/fork_parent) of these points is left
	no_helper_left
}

@test "task_create: process creation costs more than thread creation, waiting more than not" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'task_create.params.method=[fork, fork_wait, pthread, pthread_join]' \
		--set task_create.params.parent=minimal "$SPEC"
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
		--set 'task_create.params.method=[vfork, posix_spawn]' \
		--set task_create.params.parent=minimal "$SPEC"
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
		--set 'task_create.params.method=[posix_spawn]' \
		--set task_create.params.parent=minimal "$SPEC"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(json "$RES" 'd["points"][0]["status"]')" = failed ]
	[[ "$(json "$RES" 'd["points"][0]["reason"]')" == *"helper 'spawn_true' not found"* ]]
	run "$RUNNER" --probe-dir "$pd" --quick --no-report -q -o "$OUT" --run-id t2 \
		--set 'task_create.params.method=[fork]' --set task_create.params.parent=minimal "$SPEC"
	echo "$output"
	[ "$status" -eq 1 ]
	res="$OUT/t2/results/task_create.json"
	[ "$(json "$res" 'd["points"][0]["status"]')" = failed ]
	[[ "$(json "$res" 'd["points"][0]["reason"]')" == *"helper 'fork_parent' not found"* ]]
}

@test "task_create: the faults of creation are counted: an exec'd program's loading faults, vfork's child none of its own" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'task_create.params.method=[vfork, posix_spawn, fork_wait]' \
		--set task_create.params.parent=minimal "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	run python3 - "$RES" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
x = {p["params"]["method"]: p["extra"] for p in d["points"]}
print({m: (e["parent_faults"]["median"], e["child_faults"]["median"]) for m, e in x.items()})
# a counted, physical order: an exec'd dynamic program maps and faults in its
# loader and libc; vfork's child only calls _exit in the parent's memory
assert x["posix_spawn"]["child_faults"]["min"] >= 5, x["posix_spawn"]["child_faults"]
assert x["vfork"]["child_faults"]["max"] < x["posix_spawn"]["child_faults"]["min"], x
# fork_wait's child writes at least its own stack: a copy-on-write fault
assert x["fork_wait"]["child_faults"]["min"] >= 1, x["fork_wait"]["child_faults"]
PY
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "task_create: the minimal parent is smaller than the runner's point process (mappings, RSS)" {
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t \
		--set 'task_create.params.method=[fork, fork, pthread]' \
		--set 'task_create.params.parent=[minimal, runner, minimal]' "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	run check_points
	echo "$output"
	[ "$status" -eq 0 ]
	# an order, never a speed: the recorded sizes of the forking process
	run python3 - "$RES" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
x = {(p["params"]["method"], p["params"]["parent"]): p["extra"] for p in d["points"]}
mm, rm = x["fork", "minimal"]["parent_mappings"], x["fork", "runner"]["parent_mappings"]
mr, rr = x["fork", "minimal"]["parent_rss_bytes"], x["fork", "runner"]["parent_rss_bytes"]
print("mappings", mm["median"], rm["median"], "rss", mr["median"], rr["median"])
assert 0 < mm["max"] < rm["min"], (mm, rm)
assert 0 < mr["max"] < rr["min"], (mr, rr)
# a thread is created by the point's own process, whatever parent says
pt = x["pthread", "minimal"]["parent_mappings"]
assert pt["min"] > mm["max"], (pt, mm)
PY
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "task_create: fork_parent dies with its parent, even with its requests still open" {
	helper="$BUILD/probes/bin/fork_parent"
	[ -x "$helper" ]
	req="$BATS_TEST_TMPDIR/req" rep="$BATS_TEST_TMPDIR/rep" pidf="$BATS_TEST_TMPDIR/pid"
	mkfifo "$req" "$rep"
	# the request pipe's writer outlives the parent: only the death signal
	# can end the helper, not the end of its requests
	sleep 120 >"$req" &
	writer=$!
	# the parent starts the helper, waits for its ready reply, and exits
	run bash -c '"$1" $$ 3<"$2" 4>"$3" >/dev/null 2>&1 & echo $! >"$4"; head -c 1 "$3" >/dev/null' \
		_ "$helper" "$req" "$rep" "$pidf"
	echo "$output"
	[ "$status" -eq 0 ]
	pid=$(cat "$pidf")
	run wait_until 10 exited "$pid"
	kill "$writer" 2>/dev/null || true
	[ "$status" -eq 0 ]
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
	no_helper_left
}
