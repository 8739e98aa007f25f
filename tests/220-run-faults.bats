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

@test "SIGTERM in the first milliseconds: exit 130, and nothing or a manifest that says interrupted" {
	for delay in 0 0.005 0.01 0.02 0.03 0.05 0.08 0.12; do
		rm -rf "$OUT"
		"$RUNNER" --no-report -q -o "$OUT" --run-id t "$SPEC" >/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -TERM "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
		echo "delay $delay: exit $rc"
		# the run may have finished before the signal: then it is whole
		if [ "$rc" -eq 0 ]; then
			[ "$(json "$OUT/t/manifest.json" 'd["status"]')" = complete ]
			continue
		fi
		# or not yet be the runner (the shell's fork before exec): no folder
		if [ "$rc" -eq 143 ]; then
			[ ! -e "$OUT/t" ]
			continue
		fi
		[ "$rc" -eq 130 ]
		if [ -e "$OUT/t" ]; then
			[ "$(json "$OUT/t/manifest.json" 'd["status"]')" = interrupted ]
			[ "$(json "$OUT/t/manifest.json" 'd["exit_code"]')" = 130 ]
		fi
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
