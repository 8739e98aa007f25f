#!/usr/bin/env bats
# The loader and the point executor end to end, through the runner: every
# deliberately broken fixture probe (tests/fixtures/probes) run beside a good
# one.  A broken probe fails its own experiment with an exact message; the
# good experiment still runs and is ok; the run exits 1 (0 when the only
# trouble is a skip, 2 when a probe does not exist at all: that is a spec
# error, found before anything runs).

load helpers

SPECS="$BATS_TEST_DIRNAME/fixtures/specs/loader"

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	RES="$OUT/t/results"
}

# The path the loader resolves for probe NAME: the first directory of
# $SYSMETER_PROBE_DIR holding NAME.so.
probe_path() {
	local IFS=: d
	for d in $SYSMETER_PROBE_DIR; do
		[ -n "$d" ] && [ -f "$d/$1.so" ] && { echo "$d/$1.so"; return; }
	done
	echo "NOT-FOUND/$1.so"
}

# Run the good spec and the spec for fixture $1, extra runner options after.
run_with_good() {
	local name=$1
	shift
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t "$@" \
		"$SPECS/good.yaml" "$SPECS/$name.yaml"
}

# The good experiment ran and is ok, whatever its neighbour did.
good_is_ok() {
	[ "$(json "$RES/good.json" 'd["status"]')" = ok ]
	[ "$(json "$RES/good.json" 'd["points"][0]["status"]')" = ok ]
	[ "$(json "$RES/good.json" 'd["points"][0]["n"]')" = 3 ]
}

# Experiment $1 has the point status $2 and the exact reason $3.
point_is() {
	[ "$(json "$RES/$1.json" 'd["points"][0]["status"]')" = "$2" ]
	[ "$(json "$RES/$1.json" 'd["points"][0]["reason"]')" = "$3" ]
}

# A probe that cannot be loaded: experiment failed with the loader's message.
load_fails() {
	local name=$1 msg=$2
	run_with_good "$name"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: $msg"* ]]
	[ "$(json "$RES/$name.json" 'd["status"]')" = failed ]
	point_is "$name" failed "$msg"
	good_is_ok
	[ "$(json "$OUT/t/manifest.json" 'd["status"]')" = complete ]
	[ "$(json "$OUT/t/manifest.json" 'd["exit_code"]')" = 1 ]
}

@test "bad_abi: the ABI version is checked first" {
	load_fails bad_abi "probe 'bad_abi': ABI version 999, runner expects 5"
}

@test "no_symbol: a probe must export the one symbol 'sysmeter_probe'" {
	load_fails no_symbol \
		"probe 'no_symbol': $(probe_path no_symbol) does not export the symbol 'sysmeter_probe'"
}

@test "name_mismatch: the declared name must be the file stem" {
	msg="probe 'name_mismatch': declares name 'other', expected 'name_mismatch'"
	load_fails name_mismatch "$msg (the file stem)"
}

@test "bad_text: a probe whose texts are not UTF-8 is refused, not half-recorded" {
	load_fails bad_text "probe 'bad_text': its summary is not printable UTF-8"
}

@test "no_sample: a missing required hook is refused" {
	load_fails no_sample "probe 'no_sample': required hook 'sample' missing"
}

@test "unresolved: a probe that does not dlopen is refused with dlerror()'s text" {
	p=$(probe_path unresolved)
	load_fails unresolved \
		"probe 'unresolved': cannot load $p: $p: undefined symbol: sysmeter_fixture_missing"
}

@test "runner check finds every loader error before running (exit 2, file:line:col)" {
	for name in bad_abi no_symbol name_mismatch no_sample unresolved; do
		run "$RUNNER" check "$SPECS/$name.yaml"
		echo "$name: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"runner: $SPECS/$name.yaml:"[0-9]*:[0-9]*": probe '$name': "* ]]
	done
	run "$RUNNER" check "$SPECS/good.yaml"
	[ "$status" -eq 0 ]
}

@test "a probe found nowhere is a spec error: exit 2, nothing runs" {
	run_with_good missing
	echo "$output"
	[ "$status" -eq 2 ]
	where="runner: $SPECS/missing.yaml:"
	[[ "$output" == *"$where"[0-9]*:[0-9]*": unknown probe 'no_such_probe'"* ]]
	[ ! -e "$RES/good.json" ]
}

@test "garbled: a message of invalid UTF-8 and ESC is kept, escaped, not lost" {
	run_with_good garbled
	echo "$output"
	[ "$status" -eq 1 ]
	point_is garbled failed 'setup: bad bytes \xff\xfe and \x1b[31mred'
	[[ "$output" != *$'\033'* ]]
	good_is_ok
}

@test "setup_fail: the point fails with the probe's own message" {
	run_with_good setup_fail
	echo "$output"
	[ "$status" -eq 1 ]
	point_is setup_fail failed "setup: cannot open /nonexistent: No such file or directory"
	[ "$(json "$RES/setup_fail.json" 'd["status"]')" = failed ]
	[ "$(json "$RES/setup_fail.json" 'len(d["points"][0]["samples"])')" = 0 ]
	good_is_ok
}

@test "crash: SIGSEGV in sample fails the point, the run goes on" {
	run_with_good crash
	echo "$output"
	[ "$status" -eq 1 ]
	point_is crash failed "killed by signal 11 (Segmentation fault)"
	[ "$(json "$RES/crash.json" 'd["status"]')" = failed ]
	good_is_ok
}

@test "exits: a probe that exits fails the point" {
	run_with_good exits
	echo "$output"
	[ "$status" -eq 1 ]
	point_is exits failed "probe exited with status 3 before finishing"
	good_is_ok
}

@test "hang: the point is killed at its timeout" {
	SECONDS=0
	run_with_good hang
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$SECONDS" -lt 30 ]
	point_is hang timeout "timed out after 1s"
	[ "$(json "$RES/hang.json" 'd["status"]')" = failed ]
	good_is_ok
}

@test "skip: a probe that cannot run here is skipped with its reason (exit 0)" {
	run_with_good skip
	echo "$output"
	[ "$status" -eq 0 ]
	point_is skip skipped "needs a peer: none given"
	[ "$(json "$RES/skip.json" 'd["status"]')" = skipped ]
	[ "$(json "$RES/skip.json" 'len(d["points"][0]["samples"])')" = 0 ]
	good_is_ok
}

@test "flaky: invalid samples are recorded with their note, never used" {
	run_with_good flaky
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(json "$RES/flaky.json" 'd["status"]')" = ok ]
	[ "$(json "$RES/flaky.json" 'len(d["points"][0]["samples"])')" = 7 ]
	[ "$(json "$RES/flaky.json" 'd["points"][0]["n_invalid"]')" = 2 ]
	[ "$(json "$RES/flaky.json" '[s["valid"] for s in d["points"][0]["samples"]]')" = \
		"[true, true, false, true, true, false, true]" ]
	[ "$(json "$RES/flaky.json" 'd["points"][0]["samples"][2]["note"]')" = \
		"fixture: every third sample is invalid" ]
	[ "$(json "$RES/flaky.json" 'd["points"][0]["n"]')" = 4 ]
	good_is_ok
}

# PGID PID1 PID2 written by the spawner fixture: none may be left, not even
# as a zombie (kill -0 succeeds on a zombie).
no_strays() {
	local pgid k1 k2 k
	read -r pgid k1 k2 <"$1"
	[ "$pgid" -gt 1 ]
	[ "$k1" -gt 1 ]
	[ "$k2" -gt 1 ]
	for k in "$k1" "$k2"; do
		if kill -0 "$k" 2>/dev/null; then
			echo "stray: $(ps -o pid=,ppid=,pgid=,stat=,comm= -p "$k")"
			return 1
		fi
	done
	if ps -eo pgid= | grep -qx " *$pgid"; then
		echo "stray in group $pgid: $(ps -eo pid=,pgid=,stat=,comm= | grep " $pgid ")"
		return 1
	fi
}

@test "spawner: a timeout kills the whole process group, no stray survives" {
	pids="$BATS_TEST_TMPDIR/pids"
	run_with_good spawner --set "spawner.params.pidfile=$pids"
	echo "$output"
	[ "$status" -eq 1 ]
	point_is spawner timeout "timed out after 1s"
	good_is_ok
	[ -s "$pids" ]
	no_strays "$pids"
}

@test "SIGTERM during a point: group killed, finished work saved, exit 130" {
	pids="$BATS_TEST_TMPDIR/pids"
	"$RUNNER" --no-report -q -o "$OUT" --run-id t --set "spawner.timeout=60s" \
		--set "spawner.params.pidfile=$pids" "$SPECS/good.yaml" "$SPECS/spawner.yaml" \
		>"$BATS_TEST_TMPDIR/log" 2>&1 &
	runner=$!
	for _ in $(seq 100); do
		[ -s "$pids" ] && break
		sleep 0.1
	done
	[ -s "$pids" ]
	# SIGTERM rather than SIGINT: a background job of a non-interactive
	# shell starts with SIGINT ignored.
	kill -TERM "$runner"
	rc=0
	wait "$runner" || rc=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$rc" -eq 130 ]
	[ "$(json "$OUT/t/manifest.json" 'd["status"]')" = interrupted ]
	[ "$(json "$RES/spawner.json" 'd["points"][0]["status"]')" = interrupted ]
	good_is_ok
	no_strays "$pids"
}

# --- probes that are broken before the runner sees their struct ----------
# Their metadata is read in a child: a crash, an exit() or an endless loop
# in a constructor (or a bad symbol) is a message, never the runner's death.

# A spec for fixture $1 beside a copy of good.yaml, in $SPECS (a temp dir).
tmp_spec() {
	local name=$1
	mkdir -p "$BATS_TEST_TMPDIR/specs"
	cp "$BATS_TEST_DIRNAME/fixtures/specs/loader/good.yaml" "$BATS_TEST_TMPDIR/specs/"
	printf 'title: Loader fixture %s\ngroup: fixtures\nprobe: %s\nrepetitions: 3\nwarmup: 1\ntimeout: 10s\n' \
		"$name" "$name" >"$BATS_TEST_TMPDIR/specs/$name.yaml"
	SPECS="$BATS_TEST_TMPDIR/specs"
}

# probe-help NAME fails with exactly "runner: MSG" and exit 2, not a signal.
help_fails() {
	run "$RUNNER" probe-help "$1"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: $2" ]
}

@test "getpid: a probe named like a libc function without its export is refused, not read" {
	p=$(probe_path getpid)
	help_fails "$p" "probe 'getpid': $p does not export the symbol 'sysmeter_probe'"
	help_fails getpid "probe 'getpid': $p does not export the symbol 'sysmeter_probe'"
}

@test "abs_symbol: dladdr() must place the symbol in the probe's own file" {
	p=$(probe_path abs_symbol)
	help_fails abs_symbol "probe 'abs_symbol': the symbol 'sysmeter_probe' does not lie in $p"
}

@test "bad_config: a parameter field outside config_size is refused at load time" {
	help_fails bad_config \
		"probe 'bad_config': parameter 'size' lies outside config_size (64 + 8 > 8)"
}

@test "ctor_crash: a constructor's SIGSEGV is reported, the runner lives" {
	help_fails ctor_crash \
		"probe 'ctor_crash': killed by signal 11 (Segmentation fault) while loading"
}

@test "ctor_exit: a constructor's exit(0) is reported, the runner goes on" {
	help_fails ctor_exit "probe 'ctor_exit': exited with status 0 while loading"
}

@test "ctor_hang: a constructor that never returns is killed after the load timeout" {
	export SYSMETER_FIXTURE_HANG=1 SYSMETER_LOAD_TIMEOUT=1
	SECONDS=0
	help_fails ctor_hang "probe 'ctor_hang': still loading after 1s, killed"
	[ "$SECONDS" -lt 10 ]
}

@test "runner list: broken probes listed with their reason, every other probe still listed" {
	export SYSMETER_FIXTURE_HANG=1 SYSMETER_LOAD_TIMEOUT=1
	run "$RUNNER" list
	echo "$output"
	[ "$status" -eq 0 ]
	for line in \
		"ctor_crash       (broken: probe 'ctor_crash': killed by signal 11 (Segmentation fault) while loading)" \
		"ctor_exit        (broken: probe 'ctor_exit': exited with status 0 while loading)" \
		"ctor_hang        (broken: probe 'ctor_hang': still loading after 1s, killed)" \
		"getpid           (broken: probe 'getpid': $(probe_path getpid) does not export the symbol 'sysmeter_probe')" \
		"null             empty timed region (pt_start/pt_stop pair): harness and timing overhead [ns]" \
		"ok_fixed         fixture: deterministic values from the seed [ns]" \
		"    noise        number default 0.01       relative spread of the values [0, 1]"; do
		grep -qxF -- "$line" <<<"$output" || { echo "missing: $line"; return 1; }
	done
	# nothing after the broken ones is lost: the last probe in the list is there
	[[ "$output" == *"unresolved       (broken: "* ]]
}

@test "runner check: a crashing, exiting or hanging constructor is a spec error (exit 2)" {
	export SYSMETER_FIXTURE_HANG=1 SYSMETER_LOAD_TIMEOUT=1
	for name in ctor_crash ctor_exit ctor_hang getpid; do
		tmp_spec "$name"
		run "$RUNNER" check "$SPECS/$name.yaml"
		echo "$name: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == "runner: $SPECS/$name.yaml:3:8: probe '$name': "* ]]
	done
}

@test "a run: an experiment whose probe crashes while loading fails, the others run" {
	export SYSMETER_FIXTURE_HANG=1 SYSMETER_LOAD_TIMEOUT=1
	tmp_spec ctor_crash
	load_fails ctor_crash \
		"probe 'ctor_crash': killed by signal 11 (Segmentation fault) while loading"
	tmp_spec ctor_hang
	rm -rf "$OUT"
	load_fails ctor_hang "probe 'ctor_hang': still loading after 1s, killed"
	tmp_spec ctor_exit
	rm -rf "$OUT"
	load_fails ctor_exit "probe 'ctor_exit': exited with status 0 while loading"
}

# --- ABI versions: major.minor ----------------------------------------------
# A probe built for an older minor of the runner's major loads (the loader
# reads its structs only as far as that minor had them); a newer minor or
# another major is refused before any other field is read.

# A spec for fixture $1 with the YAML lines $2 (params and the like), in
# $BATS_TEST_TMPDIR/specs/$1.yaml.
abi_spec() {
	mkdir -p "$BATS_TEST_TMPDIR/specs"
	{
		printf 'title: ABI fixture %s\ngroup: fixtures\nprobe: %s\n' "$1" "$1"
		printf 'repetitions: 3\nwarmup: 1\ntimeout: 10s\nrounds: 1\n%s\n' "$2"
	} >"$BATS_TEST_TMPDIR/specs/$1.yaml"
}

# "mode value host_abi_major" of every point of experiment $1, by mode;
# every sample of a point must have the same value.
abi_points() {
	json "$RES/$1.json" '"; ".join("%s %g %g" % (p["params"]["mode"], p["samples"][0]["value"],
		p["samples"][0]["extra"]["host_abi_major"]) for p in sorted(d["points"],
		key=lambda p: p["params"]["mode"]) if len({s["value"] for s in p["samples"]}) == 1)'
}

@test "abi_5_0: a probe built against the frozen ABI 5.0 header loads, binds and runs" {
	run "$RUNNER" probe-help abi_5_0
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qxF "    mode         string default b          one of three (one of a|b|c)" <<<"$output"
	grep -qxF "    count        int    default 3          added to the value [0, 1000]" <<<"$output"
	grep -qxF "    host_abi_major            the major of the ABI of the host sample() got" \
		<<<"$output"
	# 5.0's choice text becomes rows whose values are the indices (a 0, b 1, c 2)
	abi_spec abi_5_0 $'params:\n  mode: [a, b, c]\n  count: 7'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t "$BATS_TEST_TMPDIR/specs/abi_5_0.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(json "$RES/abi_5_0.json" 'd["status"]')" = ok ]
	[ "$(abi_points abi_5_0)" = "a 7 5; b 107 5; c 207 5" ]
	[ "$(json "$RES/abi_5_0.json" 'd["probe"]["abi"]')" = 5 ]
	# the defaults, and a value that is not one of its choices
	abi_spec abi_5_0 ''
	rm -rf "$OUT"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t "$BATS_TEST_TMPDIR/specs/abi_5_0.yaml"
	[ "$status" -eq 0 ]
	[ "$(abi_points abi_5_0)" = "b 103 5" ]
	abi_spec abi_5_0 $'params:\n  mode: d'
	run "$RUNNER" check "$BATS_TEST_TMPDIR/specs/abi_5_0.yaml"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"params.mode: 'd' is not one of a|b|c"* ]]
}

@test "choice_values: a choice's field receives its row's value (ABI 5.1), not its index" {
	abi_spec choice_values $'params:\n  mode: [a, b, c]\n  count: 7'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t \
		"$BATS_TEST_TMPDIR/specs/choice_values.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(abi_points choice_values)" = "a 307 5; b 107 5; c 207 5" ]
}

@test "abi_newer, abi_major: a newer minor or another major is refused with the exact message" {
	tmp_spec abi_newer
	load_fails abi_newer "probe 'abi_newer': ABI version 5.3, runner expects 5.0 to 5.2"
	rm -rf "$OUT"
	tmp_spec abi_major
	load_fails abi_major "probe 'abi_major': ABI version 6.0, runner expects 5"
	help_fails abi_newer "probe 'abi_newer': ABI version 5.3, runner expects 5.0 to 5.2"
}

@test "bad_choice: choice rows that break a rule are refused at load time, each with its message" {
	pre="probe 'bad_choice': parameter"
	help_fails bad_choice "$pre 'pattern': choice 'random' listed twice"
	while IFS='|' read -r how msg; do
		SYSMETER_FIXTURE_CHOICE=$how help_fails bad_choice "$pre $msg"
	done <<'CASES'
same_value|'pattern': choices 'sequential' and 'stride' have the same value 1
empty_name|'pattern': choice '' is empty
bar_name|'pattern': choice 'a|b' contains '|'
none|'pattern': no choices
bad_default|'pattern': default 'stride' is not one of random|sequential
not_string|'n': choices on a parameter that is not a string
text|'pattern': choices_text is ABI 5.0's; since 5.1 choices are rows (PROBE_PARAM_CHOICE)
CASES
	SYSMETER_FIXTURE_CHOICE=good run "$RUNNER" probe-help bad_choice
	[ "$status" -eq 0 ]
	[[ "$output" == *"(one of random|sequential)"* ]]
}
