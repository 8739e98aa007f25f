#!/usr/bin/env bats
# The command line: usage, exit codes, the run folder and its files.

load helpers

setup() { OUT="$BATS_TEST_TMPDIR/out"; }

@test "--help prints usage and exits 0" {
	run "$RUNNER" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: runner"* ]]
}

@test "an unknown option is bad usage (exit 2): named, with the command's usage" {
	run "$RUNNER" --no-such-option specs/
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: run: unknown option '--no-such-option'"* ]]
	[[ "$output" == *"usage: runner [OPTIONS] SPEC_OR_DIR..."* ]]
}

@test "options belong to commands: another command's option is refused with who takes it" {
	run "$RUNNER" list --threshold 5
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: list: unknown option '--threshold' (it is an option of 'runner compare')"* ]]
	[[ "$output" == *"usage: runner list [OPTIONS]"* ]]
	[[ "$output" != *"mem_latency"* ]]	# nothing listed
	run "$RUNNER" report --force "$BATS_TEST_DIRNAME/fixtures/runs/basic"
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: report: unknown option '--force' (it is an option of 'runner rerun')"* ]]
	[[ "$output" == *"usage: runner report [OPTIONS] RUN"* ]]
}

@test "a misspelt option gets the command's closest option" {
	run "$RUNNER" compare --thresold 3% a b
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: compare: unknown option '--thresold' (did you mean '--threshold'?)"* ]]
	run "$RUNNER" --quik specs/
	[ "$status" -eq 2 ]
	[[ "$output" == *"(did you mean '--quick'?)"* ]]
}

@test "a command's options stand before or after its name; --opt=value, -qv and -- work" {
	run "$RUNNER" --probe-dir "$BATS_TEST_TMPDIR" list
	[ "$status" -eq 0 ]
	[[ "$output" == *"mem_latency"* ]]
	run "$RUNNER" -q list	# list has no -q: refused as after the name
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: list: unknown option '-q'"* ]]
	run "$RUNNER" check --set=syscall.repetitions=5 -qv -- specs/syscall.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"syscall.yaml: ok"* ]]
	run "$RUNNER" check --quick=yes specs/syscall.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: check: option '--quick' takes no argument"* ]]
	run "$RUNNER" check --set
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: check: option '--set' needs an argument (EXP.KEY=VALUE)"* ]]
}

@test "COMMAND --help lists that command's options only" {
	run "$RUNNER" compare --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: runner compare [OPTIONS] RUN_A RUN_B"* ]]
	[[ "$output" == *"--fail-on"* ]]
	[[ "$output" != *"--quick"* ]]
}

@test "no spec given is bad usage (exit 2)" {
	run "$RUNNER"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no spec or directory given"* ]]
}

@test "runner check accepts the shipped specs" {
	run "$RUNNER" check specs/
	[ "$status" -eq 0 ]
	[[ "$output" == *"syscall.yaml: ok"* ]]
}

@test "runner list shows the probes with their parameters" {
	run "$RUNNER" list
	[ "$status" -eq 0 ]
	echo "$output"
	# one line per probe (name, summary, [unit]), its parameters indented below
	syscall=$(printf '%s\n' "${lines[@]}" | grep -n '^syscall ' | cut -d: -f1)
	[ -n "$syscall" ]
	[[ "${lines[syscall - 1]}" =~ ^syscall\ +minimal\ system\ call.*\[ns\]$ ]]
	[[ "${lines[syscall]}" =~ ^\ +call\ +string\ +default\ getpid\ .*getpid\|gettid ]]
	# null takes no parameter: the next line is the next probe
	null=$(printf '%s\n' "${lines[@]}" | grep -n '^null ' | cut -d: -f1)
	[[ "${lines[null - 1]}" == *"[ns]" ]]
	[[ "${lines[null]}" =~ ^[a-z] ]]
	# sorted by name; a broken probe is listed as such, with its reason
	[ "$(printf '%s\n' "${lines[@]}" | grep -v '^ ' | cut -d' ' -f1)" = \
	  "$(printf '%s\n' "${lines[@]}" | grep -v '^ ' | cut -d' ' -f1 | LC_ALL=C sort)" ]
	printf '%s\n' "${lines[@]}" | grep -q "^bad_abi  *(broken: probe 'bad_abi': "
}

@test "runner probe-help prints the parameter table" {
	run "$RUNNER" probe-help syscall
	[ "$status" -eq 0 ]
	[[ "$output" == *"call"* ]]
	[[ "$output" == *"getpid"* ]]
	run "$RUNNER" probe-help nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"probe 'nosuch': not found in"* ]]
}

@test "a run writes manifest, results, csv and out/latest atomically" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id r1 --seed 42 tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	[ "$output" = "$OUT/r1" ]
	[ -f "$OUT/r1/manifest.json" ]
	[ -f "$OUT/r1/results/null.json" ]
	[ -f "$OUT/r1/results.csv" ]
	[ -f "$OUT/r1/specs/null.yaml" ]
	[ "$(readlink "$OUT/latest")" = r1 ]
	[ -z "$(find "$OUT" -name '*.tmp.*')" ]
	[ "$(json "$OUT/r1/manifest.json" 'd["schema"]')" = "sysmeter.manifest/1" ]
	[ "$(json "$OUT/r1/manifest.json" 'd["seed"]')" = 42 ]
	[ "$(json "$OUT/r1/manifest.json" 'd["status"]')" = complete ]
	[ "$(json "$OUT/r1/manifest.json" 'd["machine"]["tsc_hz"] > 1e6')" = true ]
	sha=$(sha256sum tests/fixtures/specs/cli/null.yaml | cut -d' ' -f1)
	[ "$(json "$OUT/r1/manifest.json" 'd["experiments"][0]["spec_sha256"]')" = "$sha" ]
	[ "$(json "$OUT/r1/results/null.json" 'd["schema"]')" = "sysmeter.result/1" ]
	[ "$(json "$OUT/r1/results/null.json" 'd["status"]')" = ok ]
	# 1 warmup + 5 kept samples, warmups marked
	[ "$(json "$OUT/r1/results/null.json" 'len(d["points"][0]["samples"])')" = 6 ]
	[ "$(json "$OUT/r1/results/null.json" 'd["points"][0]["samples"][0]["warmup"]')" = true ]
	head -1 "$OUT/r1/results.csv" | grep -q '^experiment,point,status,'
}

@test "the manifest records the kernel command line, clocksource, SMT and CPU vulnerabilities; the report shows them" {
	run "$RUNNER" -q -o "$OUT" --run-id mach tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	m="$OUT/mach/manifest.json"
	[ "$(json "$m" 'd["machine"]["cmdline"]')" = "$(tr -d '\n' </proc/cmdline)" ]
	cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
	if [ -r "$cs" ]; then [ "$(json "$m" 'd["machine"]["clocksource"]')" = "$(cat "$cs")" ]; fi
	vd=/sys/devices/system/cpu/vulnerabilities
	if [ -d "$vd" ]; then
		for f in "$vd"/*; do
			[ "$(json "$m" "d['machine']['vulnerabilities']['$(basename "$f")']")" = "$(cat "$f")" ]
		done
		grep -q '^| CPU vulnerabilities | ' "$OUT/mach/report.md"
	fi
	if [ -r /sys/devices/system/cpu/smt/control ]; then
		[ "$(json "$m" 'd["machine"]["smt"]["control"]')" = "$(cat /sys/devices/system/cpu/smt/control)" ]
	fi
	grep -q '^| Kernel command line | ' "$OUT/mach/report.md"
	grep -q '^| Clocksource | ' "$OUT/mach/report.md"
}

@test "an existing run id is refused and nothing is overwritten" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id same tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	before=$(sha256sum "$OUT/same/manifest.json")
	run "$RUNNER" --no-report -q -o "$OUT" --run-id same tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"run folder already exists"* ]]
	[ "$(sha256sum "$OUT/same/manifest.json")" = "$before" ]
}

@test "two runners given the same --run-id at once: exactly one gets the folder" {
	# Each runner is held at its mkdir of the run folder until both have
	# reached it (an LD_PRELOAD barrier, tests/fixtures/preload/mkdir_barrier.c),
	# so whatever either checks first, it checks before the other makes the
	# folder: a check-then-create lets both in every time (left to chance it
	# did in 2 tries of 12), mkdir as the claim lets in exactly one.
	${CC:-cc} -shared -fPIC -O2 -o "$BATS_TEST_TMPDIR/barrier.so" \
		"$BATS_TEST_DIRNAME/fixtures/preload/mkdir_barrier.c"
	mkdir "$BATS_TEST_TMPDIR/barrier"
	export SYSMETER_TEST_BARRIER_PATH="$OUT/same" SYSMETER_TEST_BARRIER_N=2 \
		SYSMETER_TEST_BARRIER_DIR="$BATS_TEST_TMPDIR/barrier"
	# a sanitizer build's runtime must otherwise come first
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	held() {
		LD_PRELOAD="$BATS_TEST_TMPDIR/barrier.so" "$RUNNER" --no-report -q -o "$OUT" \
			--run-id same tests/fixtures/specs/cli/null.yaml >/dev/null 2>"$BATS_TEST_TMPDIR/$1"
	}
	held a & pa=$!
	held b & pb=$!
	ra=0; rb=0
	wait "$pa" || ra=$?
	wait "$pb" || rb=$?
	echo "exits $ra $rb"
	cat "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	ls "$BATS_TEST_TMPDIR/barrier"
	# both reached the barrier, neither gave up waiting there
	[ "$(ls "$BATS_TEST_TMPDIR/barrier")" = "arrived.1
arrived.2" ]
	# one ran, the other was refused, saying why
	[ "$(printf '%s\n' "$ra" "$rb" | sort | tr '\n' ' ')" = "0 2 " ]
	[ "$(cat "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b")" = "runner: $OUT/same: run folder already exists" ]
	[ "$(json "$OUT/same/results/null.json" 'd["points"][0]["status"]')" = ok ]
}

@test "--set overrides a spec key and is recorded" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id s --set null.repetitions=4 --set null.warmup=0 \
		tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/s/results/null.json" 'len(d["points"][0]["samples"])')" = 4 ]
	[ "$(json "$OUT/s/manifest.json" 'd["options"]["set"]')" = '["null.repetitions=4", "null.warmup=0"]' ]
}

@test "--set naming a missing experiment or a bad key is bad usage" {
	run "$RUNNER" --no-report -o "$OUT" --set nosuch.repetitions=4 tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"no experiment 'nosuch' in this run"* ]]
	run "$RUNNER" --no-report -o "$OUT" --set null.repetitons=4 tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"did you mean 'repetitions'"* ]]
	[ ! -e "$OUT" ]
}

@test "--filter keeps matching experiments and their dependencies" {
	run "$RUNNER" --no-report -q --quick -o "$OUT" --run-id f --filter 'sys*' specs/
	[ "$status" -eq 0 ]
	[ -f "$OUT/f/results/syscall.json" ]
	[ -f "$OUT/f/results/loop_overhead.json" ]
	[ ! -f "$OUT/f/results/timer_overhead.json" ]
}

@test "a hung probe is killed at the timeout and the run goes on (exit 1)" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id h tests/fixtures/specs/cli/hang.yaml \
		tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 1 ]
	[ "$(json "$OUT/h/results/hang.json" 'd["points"][0]["status"]')" = timeout ]
	[ "$(json "$OUT/h/results/hang.json" 'd["points"][0]["reason"]')" = "timed out after 1s" ]
	[ "$(json "$OUT/h/results/null.json" 'd["status"]')" = ok ]
}

@test "Ctrl-C keeps finished experiments and marks the run interrupted (exit 130)" {
	cat > "$BATS_TEST_TMPDIR/slow.yaml" <<-YAML
	probe: hang
	repetitions: 1
	iterations: 1
	timeout: 60s
	YAML
	cp tests/fixtures/specs/cli/null.yaml "$BATS_TEST_TMPDIR/a_null.yaml"
	"$RUNNER" --no-report -q -o "$OUT" --run-id c "$BATS_TEST_TMPDIR/a_null.yaml" \
		"$BATS_TEST_TMPDIR/slow.yaml" &
	pid=$!
	# wait until the hang point runs: a child of the runner that leads its
	# own process group, asleep in the probe's pause()
	hang_point_asleep() {
		local c st
		for c in $(pgrep -P "$pid"); do
			st=$(proc_stat "$c") || continue
			[ "$st" = "S $pid $c" ] && { pg=$c; return 0; }
		done
		return 1
	}
	pg=
	wait_until 20 hang_point_asleep || { kill -KILL "$pid"; false; }
	kill -INT "$pid"
	wait_until 10 exited "$pid" || { kill -KILL "$pid" "-$pg"; false; }
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	[ "$(json "$OUT/c/manifest.json" 'd["status"]')" = interrupted ]
	[ "$(json "$OUT/c/results/a_null.json" 'd["status"]')" = ok ]
	[ "$(json "$OUT/c/results/slow.json" 'd["status"]')" = interrupted ]
	[ "$(json "$OUT/c/results/slow.json" 'd["points"][0]["reason"]')" = interrupted ]
	# the probe's process group is gone
	! kill -0 -- "-$pg" 2>/dev/null || false
}

@test "-q is quiet on stderr; -v says what it does" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id q tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	[ "$output" = "$OUT/q" ]
	run "$RUNNER" --no-report -v -o "$OUT" --run-id v tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"point 1/1"* ]]
}

@test "make install puts a runner that works from any directory" {
	dest="$BATS_TEST_TMPDIR/inst"
	run make -s install DESTDIR="$dest" PREFIX=/opt/sm BUILD="$BUILD"
	[ "$status" -eq 0 ]
	[ -x "$dest/opt/sm/bin/runner" ]
	[ -f "$dest/opt/sm/lib/sysmeter/probes/syscall.so" ]
	[ -f "$dest/opt/sm/share/sysmeter/specs/syscall.yaml" ]
	cd "$BATS_TEST_TMPDIR"
	SYSMETER_PROBE_DIR="$dest/opt/sm/lib/sysmeter/probes" run "$dest/opt/sm/bin/runner" \
		--no-report -q --quick -o "$BATS_TEST_TMPDIR/o2" --run-id i "$dest/opt/sm/share/sysmeter/specs/syscall.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$BATS_TEST_TMPDIR/o2/i/results/syscall.json" 'd["status"]')" = ok ]
}

@test "the end-of-run line of a sweep gives its headline numbers: the smallest and largest, with their points" {
	printf '%s\n' 'probe: ok_fixed' 'params: {base: [10, 40], noise: 0}' 'repetitions: 3' 'iterations: 100' >"$BATS_TEST_TMPDIR/sw.yaml"
	run "$RUNNER" --no-report -o "$OUT" --run-id hl "$BATS_TEST_TMPDIR/sw.yaml"
	[ "$status" -eq 0 ]
	[[ "$output" == *"sw                   ok          2/2 points ok; 10.0 ns (base=10) to 40.0 ns (base=40)"* ]] || { echo "$output"; return 1; }
}

@test "progress on a terminal names the point's swept values and gives an ETA" {
	command -v script >/dev/null || skip "script(1) is not installed (bsdutils)"
	printf '%s\n' 'probe: ok_fixed' 'params: {base: [10, 40], noise: 0}' 'repetitions: 6' 'iterations: 100' >"$BATS_TEST_TMPDIR/pr.yaml"
	out=$(script -qec "$(printf '%q ' "$RUNNER" --no-report -o "$OUT" --run-id pr "$BATS_TEST_TMPDIR/pr.yaml")" /dev/null)
	[[ "$out" == *"point 2/2 base=40"*"ETA "* ]] || { printf '%s\n' "$out" | tr '\r' '\n' | head -20; return 1; }
}
