#!/usr/bin/env bats
# command: time whole programs.  Commands with known behaviour give figures
# of the right order (never a tight wall-clock bound), a failing command or
# hook fails its point with its status and output, every process a command
# starts dies with it, and argv values are passed literally, never through
# a shell.

load ../helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	SPEC="$BATS_TEST_TMPDIR/c.yaml"
	RES="$OUT/t/results/c.json"
}

# spec BODY: a small spec (probe command, 1 round, few runs, not pinned)
# followed by BODY (the command: key and whatever else).
spec() {
	{
		printf 'probe: command\nrounds: 1\nwarmup: 0\ncpu: none\n'
		[[ "$1" == *repetitions:* ]] || printf 'repetitions: 3\n'
		printf '%s\n' "$1"
	} >"$SPEC"
}

run_spec() {
	rm -rf "$OUT"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t "$@" "$SPEC"
	echo "$output"
}

# pt EXPR: a python expression over p (the first point) and kept (its
# kept samples' extra values, a list of dicts).
pt() {
	json "$RES" "(lambda p: (lambda kept: $1)([dict(s['extra'], wall=s['value']) for s in p['samples'] if not s['warmup']]))(d['points'][0])"
}

@test "command: the example specs validate" {
	run "$RUNNER" check specs/threads_vs_processes.yaml specs/time_vs_sysmeter.yaml
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "command: spec errors name file:line:column and exit 2" {
	spec 'command: ["{bin}/spin", "{thread}"]'
	run "$RUNNER" check "$SPEC"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"c.yaml:6:25: command: placeholder '{thread}' names no parameter of probe 'command' (did you mean '{threads}'?"* ]]
	spec 'command: {argv: "sleep 1"}'
	run "$RUNNER" check "$SPEC"
	[ "$status" -eq 2 ]
	[[ "$output" == *"c.yaml:6:17: command.argv: expected a list like"*"only with shell: true"* ]]
	spec 'command: {argv: [sleep, "1"], ok_exit: [0, 300]}'
	run "$RUNNER" check "$SPEC"
	[ "$status" -eq 2 ]
	[[ "$output" == *"c.yaml:6:44: command.ok_exit: expected an exit status from 0 to 255, got '300'"* ]]
	printf 'probe: null\ncommand: [true]\n' >"$SPEC"
	run "$RUNNER" check "$SPEC"
	[ "$status" -eq 2 ]
	[[ "$output" == *"c.yaml:2:1: command: only the 'command' probe runs a command"* ]]
	printf 'probe: command\n' >"$SPEC"
	run "$RUNNER" check "$SPEC"
	[ "$status" -eq 2 ]
	[[ "$output" == *"c.yaml:1:8: probe 'command' needs a 'command:' key"* ]]
}

@test "command: sleep 0.05 takes about 50 ms of wall time and almost no CPU" {
	spec 'command: [sleep, "0.05"]'
	run_spec
	[ "$status" -eq 0 ]
	[ "$(pt 'p["status"]')" = ok ]
	# sleep cannot return early; a second is far beyond any scheduling delay
	pt 'all(50 <= k["wall"] < 1000 for k in kept) or kept'
	[ "$(pt 'all(50 <= k["wall"] < 1000 for k in kept)')" = true ]
	# CPU: starting the program, not sleeping (well under half the wall)
	[ "$(pt 'all(k["user_ms"] + k["sys_ms"] < 25 for k in kept)')" = true ]
	[ "$(pt 'all(k["exit_status"] == 0 and k["shell_ms"] == 0 for k in kept)')" = true ]
}

@test "command: a CPU-bound loop spends about its wall time in user space" {
	spec 'command: ["{bin}/spin", "0.2"]'
	run_spec
	[ "$status" -eq 0 ]
	pt '[(k["wall"], k["user_ms"], k["sys_ms"]) for k in kept]'
	# one thread cannot use more CPU than wall time; other load may take
	# some of it, but most of a busy loop's time is its own
	[ "$(pt 'all(0.4 * k["wall"] <= k["user_ms"] <= 1.05 * k["wall"] + 5 for k in kept)')" = true ]
	[ "$(pt 'all(k["sys_ms"] < 0.2 * k["wall"] for k in kept)')" = true ]
}

@test "command: a program that writes 200 MiB has a peak of at least 200 MiB" {
	spec 'command: ["{bin}/alloc_touch", "{size}"]
params: {size: 200MiB}'
	run_spec
	[ "$status" -eq 0 ]
	pt '[(k["peak_mib"], k["maxrss_mib"]) for k in kept]'
	[ "$(pt 'all(200 <= k["peak_mib"] < 1024 for k in kept)')" = true ]
	[ "$(pt 'all(k["minor_faults"] >= 200 * 256 for k in kept)')" = true ]
}

@test "command: a failing command fails its point with its exit status, unless ok_exit lists it" {
	spec 'command: ["sh", "-c", "exit 3"]'
	run_spec
	[ "$status" -eq 1 ]
	[ "$(pt 'p["status"]')" = failed ]
	[ "$(pt 'p["reason"]')" = "sample: 'sh' exited with status 3 (not in command.ok_exit)" ]
	spec 'command: {argv: ["sh", "-c", "exit 3"], ok_exit: [0, 3]}'
	run_spec
	[ "$status" -eq 0 ]
	[ "$(pt 'all(k["exit_status"] == 3 for k in kept)')" = true ]
}

@test "command: a failing hook fails the point with its output" {
	spec 'command:
  argv: [true]
  prepare: [sh, -c, "echo the cache would not drop >&2; exit 4"]'
	run_spec
	[ "$status" -eq 1 ]
	[ "$(pt 'p["reason"]')" = "sample: prepare hook 'sh' exited with status 4: the cache would not drop" ]
	spec 'command:
  argv: [true]
  setup: [sh, -c, "echo no setup today; exit 5"]'
	run_spec
	[ "$status" -eq 1 ]
	[ "$(pt 'p["reason"]')" = "setup: setup hook 'sh' exited with status 5: no setup today" ]
}

@test "command: a child that outlives the command (setsid) is killed, nothing is left" {
	pidfile="$BATS_TEST_TMPDIR/child.pid"
	spec "command: [\"{bin}/outlive\", \"$pidfile\", \"60\"]
repetitions: 2"
	run_spec
	[ "$status" -eq 0 ]
	[ -s "$pidfile" ]
	child=$(cat "$pidfile")
	# it was alive when the command ended (it waited for the pid file);
	# now it is gone: not running, not a zombie
	run proc_stat "$child"
	echo "left: $output"
	[ "$status" -ne 0 ]
	# no run cgroup is left behind either
	own=$(sed -n 's/^[0-9]*:[^:]*memory[^:]*://p' /proc/self/cgroup)
	[ -z "$own" ] || ! ls -d /sys/fs/cgroup/memory"$own"/sysmeter-* 2>/dev/null
}

@test "command: Ctrl-C during a run kills the program and leaves no run cgroup" {
	own=$(sed -n 's/^[0-9]*:[^:]*memory[^:]*://p' /proc/self/cgroup)
	[ -n "$own" ] && [ "$(id -u)" -eq 0 ] || skip "no v1 memory cgroup of our own (the runs' cgroups are in the point's)"
	[ "$own" = / ] && own=
	spec "command: [sh, -c, 'echo \$\$ > $BATS_TEST_TMPDIR/prog.pid; exec sleep 60']
repetitions: 1
timeout: 120s"
	"$RUNNER" --no-report -q -o "$OUT" --run-id t "$SPEC" >/dev/null 2>&1 &
	runner=$!
	wait_until 20 test -s "$BATS_TEST_TMPDIR/prog.pid"
	prog=$(cat "$BATS_TEST_TMPDIR/prog.pid")
	ls -d /sys/fs/cgroup/memory"$own"/sysmeter-*-run-* 	# the run is in its cgroup
	kill -INT "$runner"
	wait "$runner" || :
	run proc_stat "$prog"
	[ "$status" -ne 0 ] || { echo "the program runs on: $output"; return 1; }
	run ls -d /sys/fs/cgroup/memory"$own"/sysmeter-*
	[ "$status" -ne 0 ] || { echo "left: $output"; return 1; }
}

@test "command: hostile strings in argv are passed literally, never to a shell" {
	canary="$BATS_TEST_TMPDIR/pwned"
	spec "command: {argv: [printf, '%s|', '{variant}', '{input}'], keep_output: true}
params:
  variant: ['; touch $canary', '\$(touch $canary)']
  input: '\`touch $canary\` && rm -rf $BATS_TEST_TMPDIR/keep'
repetitions: 2"
	mkdir "$BATS_TEST_TMPDIR/keep"
	run_spec
	[ "$status" -eq 0 ]
	[ ! -e "$canary" ]
	[ -d "$BATS_TEST_TMPDIR/keep" ]
	# the program saw each value as one argument, unchanged
	[ "$(cat "$OUT"/t/output/c/point-0-round-0-run-0.stdout)" = "; touch $canary|\`touch $canary\` && rm -rf $BATS_TEST_TMPDIR/keep|" ]
	[ "$(cat "$OUT"/t/output/c/point-1-round-0-run-0.stdout)" = "\$(touch $canary)|\`touch $canary\` && rm -rf $BATS_TEST_TMPDIR/keep|" ]
	# with shell: true the value goes into the script single-quoted: still one word
	spec "command: {argv: 'printf \"%s|\" {variant}', shell: true, keep_output: true}
params:
  variant: [\"it's; touch $canary\", '\$(touch $canary)']
repetitions: 2"
	rm -rf "$OUT"
	run_spec
	[ "$status" -eq 0 ]
	[ ! -e "$canary" ]
	[ "$(cat "$OUT"/t/output/c/point-0-round-0-run-0.stdout)" = "it's; touch $canary|" ]
	[ "$(pt 'all(k["shell_ms"] > 0 for k in kept)')" = true ]
}

@test "command: parameters of the spec's own ({jobs}, {blk}, {mode}) are swept, typed and passed as written" {
	spec "command: {argv: [printf, '%s|', '-j{jobs}', '{blk}', '{mode}', '{{jobs}}'], keep_output: true}
params:
  jobs: {from: 1, to: 4, factor: 2}
  blk: [4KiB, 1MiB]
  mode: '; touch $BATS_TEST_TMPDIR/pwned'
repetitions: 2"
	run_spec
	[ "$status" -eq 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/pwned" ]
	# 3 x 2 points; each run saw its own values, as the spec wrote them
	json "$RES" '[p["params_text"]["jobs"] + " " + p["params_text"]["blk"] for p in d["points"]]'
	[ "$(json "$RES" 'len(d["points"])')" = 6 ]
	for i in 0 1 2 3 4 5; do
		want=$(json "$RES" "(lambda t: '-j%s|%s|%s|{jobs}|' % (t['jobs'], t['blk'], t['mode']))(d['points'][$i]['params_text'])")
		[ "$(cat "$OUT/t/output/c/point-$i-round-0-run-0.stdout")" = "$want" ]
	done
	[ "$(json "$RES" 'sorted(set(p["params"]["jobs"] for p in d["points"]))')" = "[1, 2, 4]" ]
	[ "$(json "$RES" 'sorted(set(p["params"]["blk"] for p in d["points"]))')" = "[4096, 1048576]" ]
	# recorded as the spec's own, with the type their values have
	[ "$(json "$RES" '[(q["name"], q["type"]) for q in d["probe"]["params"] if "variable of this spec" in q["help"]]')" = \
	  '[["jobs", "int"], ["blk", "size"], ["mode", "string"]]' ]
	# --set reaches them like any parameter
	run_spec --set c.params.jobs=8 --set c.params.blk=2KiB
	[ "$status" -eq 0 ]
	[ "$(cat "$OUT/t/output/c/point-0-round-0-run-0.stdout")" = "-j8|2KiB|; touch $BATS_TEST_TMPDIR/pwned|{jobs}|" ]
	# probe-help says so
	run "$RUNNER" probe-help command
	[[ "$output" == *"(any other name)    a parameter of the spec's own, for {name} in the command"* ]]
	# a parameter the command does not use is still a typo, with a hint
	spec "command: [echo, '{jobs}']
params:
  jobs: [1, 2]
  jbos: 3"
	run "$RUNNER" check "$SPEC"
	[ "$status" -eq 2 ]
	[[ "$output" == *"c.yaml:9:3: params: unknown parameter 'jbos' for probe 'command' (did you mean 'jobs'?; a parameter of your own must appear as {jbos} in command:)"* ]]
	spec "command: [echo, '{jobz}']"
	run "$RUNNER" check "$SPEC"
	[ "$status" -eq 2 ]
	[[ "$output" == *"command: placeholder '{jobz}' names no parameter (give it values under params:"* ]]
}

@test "command: a run over its timeout is killed and fails the point" {
	spec 'command: {argv: [sleep, "30"], timeout: 200ms}
repetitions: 1'
	SECONDS=0
	run_spec
	[ "$status" -eq 1 ]
	[ "$SECONDS" -lt 20 ]
	[ "$(pt 'p["reason"]')" = "sample: 'sleep' timed out after 0.2 s (command.timeout)" ]
}

@test "command: stdin comes from the spec's file, short runs are flagged" {
	printf 'hello from stdin\n' >"$BATS_TEST_TMPDIR/in.txt"
	spec "command: {argv: [cat], stdin: '$BATS_TEST_TMPDIR/in.txt', keep_output: true}
repetitions: 4"
	run_spec
	[ "$status" -eq 0 ]
	for f in "$OUT"/t/output/c/point-0-round-0-run-*.stdout; do
		[ "$(cat "$f")" = "hello from stdin" ]
	done
	[ "$(ls "$OUT"/t/output/c/*.stdout | wc -l)" -eq 4 ]
	# runs whose median is under 5 ms are flagged short, and only those:
	# cat is that short on a quiet machine, not always beside other work
	# (a CI root's suite once ran it at over 5 ms beside another suite)
	pt '[f["message"] for f in p["sanity"]]'
	short=$(pt '__import__("statistics").median([k["wall"] for k in kept]) < 5')
	[ "$(pt 'any(f["flag"] == "probe_sanity" and "short runs" in f["message"] for f in p["sanity"])')" = "$short" ]
}

@test "command: the report speaks of runs: no cycles, one run per sample, only the parameters the command uses" {
	spec 'params: {n: [1, 2]}
command: [sleep, "0.0{n}"]'
	rm -rf "$OUT"
	run "$RUNNER" -q -o "$OUT" --run-id t "$SPEC"
	echo "$output"
	[ "$status" -eq 0 ]
	md="$OUT/t/report.md"
	grep -q "each sample is one operation" "$md"
	! grep -q "enough operations to last" "$md" || false
	! grep -q "| cycles |" "$md" || false
	grep -q '^\*\*Parameters.\*\* n = 1, 2 (swept, 2 values)\.$' "$md"
	! grep -q "threads = \|input = \|size = " "$md"
}
