#!/usr/bin/env bats
# Faults around a run (issue 15): a write that fails stops the run with
# exit 3, keeps what was written and leaves out/latest alone; a signal at
# any moment (the first milliseconds, the report) ends the run with 130 and
# a manifest that says so, killing the report's tools; the manifest's exit
# code is always the runner's.  Fake latexmk programs on PATH stand in for a
# slow or failing report tool.

bats_require_minimum_version 1.5.0
load helpers

SPEC="$BATS_TEST_DIRNAME/fixtures/specs/cli/null.yaml"

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
}

teardown() {
	if mountpoint -q "$BATS_TEST_TMPDIR/small" 2>/dev/null; then
		umount "$BATS_TEST_TMPDIR/small"
	fi
}

# fake_latexmk BODY: a latexmk on PATH (first) that runs BODY (sh)
fake_latexmk() {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\n%s\n' "$1" >"$BATS_TEST_TMPDIR/bin/latexmk"
	chmod +x "$BATS_TEST_TMPDIR/bin/latexmk"
	export PATH="$BATS_TEST_TMPDIR/bin:$PATH"
}

@test "a full output file system: exit 3 naming the file, what was written kept, latest not moved" {
	mkdir -p "$BATS_TEST_TMPDIR/small"
	mount -t tmpfs -o size=100k tmpfs "$BATS_TEST_TMPDIR/small" 2>/dev/null || skip "cannot mount a tmpfs here"
	mkdir -p "$BATS_TEST_TMPDIR/small/out"
	ln -s earlier "$BATS_TEST_TMPDIR/small/out/latest"
	# enough points that the results outgrow 100 KB
	run "$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/small/out" --run-id a \
		--set 'params.params.count=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40]' \
		"$BATS_TEST_DIRNAME/fixtures/specs/cli/params.yaml"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"runner: cannot write $BATS_TEST_TMPDIR/small/out/a/"*": No space left on device: the run stops here"* ]]
	[ "$(grep -c 'cannot write' <<<"$output")" -eq 1 ]	# said once, then stopped
	[ "$(readlink "$BATS_TEST_TMPDIR/small/out/latest")" = earlier ]
	[ -s "$BATS_TEST_TMPDIR/small/out/a/manifest.json" ]	# the first manifest stays
	[ "$(json "$BATS_TEST_TMPDIR/small/out/a/manifest.json" 'd["status"]')" != complete ]
}

# sigterm_at DELAY: a run of the null spec sent SIGTERM after DELAY seconds,
# then the one rule every outcome obeys: the exit status is the manifest's.
# 143 (killed by the signal) only before the handler is up, so with no
# folder; 130 with no folder when nothing was measured yet.
sigterm_at() {
	rm -rf "$OUT"
	"$RUNNER" --no-report -q -o "$OUT" --run-id t "$SPEC" >/dev/null 2>&1 &
	pid=$!
	sleep "$1"
	kill -TERM "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" || rc=$?
	echo "delay $1: exit $rc"
	if [ ! -e "$OUT/t/manifest.json" ]; then
		[ ! -e "$OUT/t" ]
		[ "$rc" -eq 143 ] || [ "$rc" -eq 130 ]
		return
	fi
	[ "$(json "$OUT/t/manifest.json" 'd["exit_code"]')" = "$rc" ]
	case $rc in
	0) [ "$(json "$OUT/t/manifest.json" 'd["status"]')" = complete ] ;;
	130) [ "$(json "$OUT/t/manifest.json" 'd["status"]')" = interrupted ] ;;
	*) false ;;
	esac
}

@test "SIGTERM at any moment of a run: the exit status is the manifest's" {
	# the delays span the whole run on this host, at this build's speed
	start=$(date +%s%N)
	"$RUNNER" --no-report -q -o "$BATS_TEST_TMPDIR/timed" "$SPEC" >/dev/null 2>&1
	span=$(( ($(date +%s%N) - start) / 1000 ))	# µs
	echo "an unsignalled run took $span µs"
	for f in 0 2 5 10 20 30 40 50 60 70 80 90 95 100 110 130; do
		sigterm_at "$(awk -v s="$span" -v f="$f" 'BEGIN { printf "%.6f", s * f / 100 / 1e6 }')"
	done
}

# the exit status of a run that got SIGTERM somewhere, against its folder
status_is_manifests() {
	if [ ! -e "$OUT/t/manifest.json" ]; then
		[ ! -e "$OUT/t" ]
		[ "$1" -eq 143 ] || [ "$1" -eq 130 ]
		return
	fi
	[ "$(json "$OUT/t/manifest.json" 'd["exit_code"]')" = "$1" ]
}

@test "SIGTERM in the runner's last system calls: the exit status is still the manifest's" {
	# strace delivers the signal on entry to the Kth call of one kind: the
	# last and the one before, of the calls a run's teardown makes (closing
	# files, unmapping memory, signal actions), so the moment is the same on
	# any host at any speed
	command -v strace >/dev/null || skip "strace is not installed"
	# LeakSanitizer cannot run under ptrace (an ASan build would exit 1 at
	# its leak check); the leak check is not what is tested here
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	for sc in rt_sigaction close munmap; do
		rm -rf "$OUT"
		rc=0
		strace -qq -o "$BATS_TEST_TMPDIR/trace" -e trace=$sc \
			"$RUNNER" --no-report -q -o "$OUT" --run-id t "$SPEC" >/dev/null 2>&1 || rc=$?
		k=$(grep -c "^$sc(" "$BATS_TEST_TMPDIR/trace") || true
		echo "unsignalled, traced: exit $rc, $k calls of $sc"
		status_is_manifests "$rc"
		[ "$k" -ge 1 ]	# strace saw the runner: the moments below exist
		for when in $k $((k - 1)); do
			[ "$when" -ge 1 ] || continue
			rm -rf "$OUT"
			rc=0
			strace -qq -o /dev/null -e trace=$sc -e inject=$sc:signal=SIGTERM:when=$when \
				"$RUNNER" --no-report -q -o "$OUT" --run-id t "$SPEC" >/dev/null 2>&1 || rc=$?
			echo "SIGTERM at $sc call $when of $k: exit $rc"
			status_is_manifests "$rc"
		done
	done
}

@test "SIGTERM while the report renders: the tool is killed, exit 130, the manifest says interrupted" {
	fake_latexmk "echo \$\$ >\"$BATS_TEST_TMPDIR/latexmk.pid\"; exec sleep 60"
	"$RUNNER" -q -o "$OUT" --run-id t "$SPEC" >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_until 30 test -s "$BATS_TEST_TMPDIR/latexmk.pid"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 130 ]
	tool=$(cat "$BATS_TEST_TMPDIR/latexmk.pid")
	wait_until 5 exited "$tool"
	[ "$(json "$OUT/t/manifest.json" 'd["status"]')" = interrupted ]
	[ "$(json "$OUT/t/manifest.json" 'd["exit_code"]')" = 130 ]
	grep -q "interrupted while latexmk ran" "$BATS_TEST_TMPDIR/err"
}

@test "a report that fails: the manifest's exit code is the runner's" {
	fake_latexmk "exit 12"
	run "$RUNNER" -q -o "$OUT" --run-id t "$SPEC"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(json "$OUT/t/manifest.json" 'd["exit_code"]')" = 1 ]
	[[ "$(json "$OUT/t/manifest.json" 'd["report_error"]')" == *"latexmk exited with status 12"* ]]
}

@test "runner report: SIGTERM while the tool runs kills it and exits 130" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id t "$SPEC" >/dev/null
	fake_latexmk "echo \$\$ >\"$BATS_TEST_TMPDIR/latexmk.pid\"; exec sleep 60"
	"$RUNNER" report "$OUT/t" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_until 30 test -s "$BATS_TEST_TMPDIR/latexmk.pid"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 130 ]
	wait_until 5 exited "$(cat "$BATS_TEST_TMPDIR/latexmk.pid")"
}

@test "a host that slows down during a run: the drift check says so, flags the rounds, the report tells" {
	command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"
	# The gate fixture waits in its first round's setup while $HOLD exists:
	# the canary before that pass has been taken on a calm CPU 0; the busy
	# loop starts there and then, so every later timing shares CPU 0 (where
	# the canary and the points run) with it.  No race with the clock: a
	# fast host once finished all six rounds of a null probe before a test
	# polling for round 2 had started its busy loop.
	HOLD="$BATS_TEST_TMPDIR/hold"
	SLOW="$BATS_TEST_TMPDIR/slow_rounds.yaml"
	cat >"$SLOW" <<-YAML
	title: A host that slows down
	group: cpu
	probe: gate
	params:
	  hold: "$HOLD"
	repetitions: 20
	rounds: 6
	timeout: 60s
	YAML
	: >"$HOLD"
	"$RUNNER" -o "$OUT" --run-id d "$SLOW" >"$BATS_TEST_TMPDIR/stdout" 2>/dev/null &
	pid=$!
	wait_until 60 test -e "$HOLD.reached"
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	rm -f "$HOLD"
	rc=0
	wait "$pid" || rc=$?
	kill "$hog"
	cat "$BATS_TEST_TMPDIR/stdout"
	[ "$rc" -eq 0 ]
	m="$OUT/d/manifest.json"
	[ "$(json "$m" 'd["drift"]["verdict"]')" = drifted ]
	# the passes named are those beside a timing off the run's median (the
	# phase that is the minority: the hog's or the calm one's, whichever ran
	# fewer passes)
	python3 - "$m" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))["drift"]
	want = set()
	for t in d["timings"]:
	    if t["off"]:
	        b = 6 if t["before_round"] is None else t["before_round"]
	        want |= {r for r in (b - 1, b) if 0 <= r < 6}
	assert want and set(d["drifted_rounds"]) == want, (d["drifted_rounds"], want)
	# the core clock, measured beside each timing (null where the thread
	# kept losing its CPU to the hog), summed up for the run
	hz = [t["core_hz"] for t in d["timings"]]
	cc = d["core_clock"]
	assert cc["takes"] == sum(h is not None for h in hz), (cc, hz)
	if cc["takes"] >= 2:
	    got = [h for h in hz if h is not None]
	    assert cc["min_hz"] == min(got) and cc["max_hz"] == max(got), (cc, got)
	    assert abs(cc["spread"] - (cc["max_hz"] - cc["min_hz"]) / cc["median_hz"]) < 1e-9, cc
	    assert cc["steady"] == (cc["iqr"] <= 0.05), cc
	import platform
	if platform.machine() == "x86_64":	# the calm timing before the hog
	    assert hz[0] is not None and 0.2e9 < hz[0] < 10e9, hz
	# the first timing, the only calm one, is off the median of the rest
	assert d["timings"][0]["off"] and 0 in d["drifted_rounds"], d
	PY
	[ "$(json "$m" 'd["drift"]["flagged_points"]')" -ge 1 ]
	[ "$(json "$OUT/d/results/slow_rounds.json" 'any(f["flag"] == "host_drift" for f in d["points"][0]["sanity"])')" = true ]
	grep -q '^(host) *drifted *the host changed speed' "$BATS_TEST_TMPDIR/stdout"
	grep -q '^\*\*Host drift\.\*\* The host changed speed during this run' "$OUT/d/report.md"
}
