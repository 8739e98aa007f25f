#!/usr/bin/env bats
# Stray processes (issue 15): every task a point starts dies with the point,
# whatever it does to its session or process group (a cgroup per point), and
# a runner killed by SIGKILL leaves nothing the next run does not find and
# clean.  The escaper fixture's setup() leaves a grandchild in its own
# session that ignores SIGTERM/SIGINT/SIGHUP: killing the point's process
# group misses it.

bats_require_minimum_version 1.5.0
load helpers

SPECS="$BATS_TEST_DIRNAME/fixtures/specs/loader"

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

# Skip where no cgroup can be made (not root, no cgroupfs): the runner then
# says so in the manifest, which the first test checks where it can.
need_cgroup() {
	"$RUNNER" --no-report -q -o "$BATS_TEST_TMPDIR/probe" --run-id p "$SPECS/good.yaml" >/dev/null 2>&1 || true
	[ "$(json "$BATS_TEST_TMPDIR/probe/p/manifest.json" 'd["point_cgroup"]["available"]')" = true ] ||
		skip "no cgroup per point here: $(json "$BATS_TEST_TMPDIR/probe/p/manifest.json" 'd["point_cgroup"].get("why_not")')"
}

# The process is gone (a zombie counts as gone: it runs nothing).
is_gone() {
	local st
	st=$(proc_stat "$1") || return 0
	[ "${st%% *}" = Z ]
}

@test "a grandchild in its own session dies with its point, and the point says it leaked" {
	need_cgroup
	run -0 "$RUNNER" --no-report -q -o "$OUT" --run-id t \
		--set "escaper.params.pidfile=$BATS_TEST_TMPDIR/pid" "$SPECS/escaper.yaml"
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	[ "$pid" -gt 1 ]
	is_gone "$pid" || { echo "stray: $(ps -o pid=,ppid=,sid=,stat=,comm= -p "$pid")"; false; }
	[ "$(json "$OUT/t/results/escaper.json" 'd["points"][0]["status"]')" = ok ]
	json "$OUT/t/results/escaper.json" 'd["points"][0]["sanity"]' | grep -q "left 1 process running after the point"
}

@test "after a SIGKILLed runner the next run kills what its point left and removes its scratch" {
	need_cgroup
	"$RUNNER" --no-report -q -o "$OUT" --run-id killed --set escaper.params.hang=true \
		--set escaper.timeout=60s --set "escaper.params.pidfile=$BATS_TEST_TMPDIR/pid" \
		"$SPECS/escaper.yaml" >/dev/null 2>&1 &
	runner=$!
	wait_until 20 test -s "$BATS_TEST_TMPDIR/pid"
	kill -KILL "$runner"
	wait "$runner" || true
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	! is_gone "$pid" || false	# left behind, as the issue found
	ls -d "$TMPDIR"/sysmeter.*		# and the scratch folder
	run -0 "$RUNNER" --no-report -o "$OUT" --run-id next "$SPECS/good.yaml"
	echo "$output"
	[[ "$output" == *"killed 1 process left in "*" by runner $runner, which is gone"* ]]
	[[ "$output" == *"removed $TMPDIR/sysmeter."*", left by runner $runner, which is gone"* ]]
	wait_until 5 is_gone "$pid"
	! ls -d "$TMPDIR"/sysmeter.* 2>/dev/null || false
	json "$OUT/next/manifest.json" 'd["cleaned_up"]' | grep -q "killed 1 process"
}

@test "a running runner's point cgroup and scratch are not another run's to clean" {
	need_cgroup
	"$RUNNER" --no-report -q -o "$OUT" --run-id busy --set escaper.params.hang=true \
		--set escaper.timeout=60s --set "escaper.params.pidfile=$BATS_TEST_TMPDIR/pid" \
		"$SPECS/escaper.yaml" >/dev/null 2>&1 &
	runner=$!
	wait_until 20 test -s "$BATS_TEST_TMPDIR/pid"
	run -0 "$RUNNER" --no-report -o "$OUT" --run-id other "$SPECS/good.yaml"
	! is_gone "$(cat "$BATS_TEST_TMPDIR/pid")" || false
	[[ "$output" != *"killed"* && "$output" != *"removed"* ]]
	kill -TERM "$runner"
	wait "$runner" || true
	wait_until 5 is_gone "$(cat "$BATS_TEST_TMPDIR/pid")"
}

# Cgroups of a runner's points (and anything below them) left in any of the
# hierarchies the runner may use.
point_cgroups_of() {
	ls -d /sys/fs/cgroup/sysmeter/"$1"-* /sys/fs/cgroup/unified/sysmeter/"$1"-* \
		/sys/fs/cgroup/pids/sysmeter/"$1"-* 2>/dev/null
}

@test "a task a probe moved into a cgroup of its own below the point's dies with the point, on Ctrl-C too, and both cgroups go" {
	need_cgroup
	# the point ends by itself: the grandchild is killed, the point says it leaked
	run -0 "$RUNNER" --no-report -q -o "$OUT" --run-id t --set escaper.params.subcgroup=true \
		--set "escaper.params.pidfile=$BATS_TEST_TMPDIR/pid" "$SPECS/escaper.yaml"
	is_gone "$(cat "$BATS_TEST_TMPDIR/pid")"
	json "$OUT/t/results/escaper.json" 'd["points"][0]["sanity"]' | grep -q "left 1 process running after the point"
	# interrupted while its sample hangs
	rm -f "$BATS_TEST_TMPDIR/pid"
	"$RUNNER" --no-report -q -o "$OUT" --run-id i --set escaper.params.hang=true \
		--set escaper.params.subcgroup=true --set escaper.timeout=60s \
		--set "escaper.params.pidfile=$BATS_TEST_TMPDIR/pid" "$SPECS/escaper.yaml" >/dev/null 2>&1 &
	runner=$!
	wait_until 20 test -s "$BATS_TEST_TMPDIR/pid"
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	grep -q '/escaper-own$' "/proc/$pid/cgroup"	# it did move below the point's cgroup
	[ -n "$(point_cgroups_of "$runner")" ]
	kill -INT "$runner"
	wait "$runner" || true
	is_gone "$pid" || { echo "stray: $(ps -o pid=,stat=,comm= -p "$pid")"; false; }
	run point_cgroups_of "$runner"
	[ -z "$output" ] || { echo "left: $output"; false; }
}
