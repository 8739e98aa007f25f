#!/usr/bin/env bats
# Bounded inputs (issue 15): a spec is a regular file of at most 1 MiB,
# nested at most 64 levels; an override's value expands to at most 10,000
# YAML nodes; a duration is at most 7 days; a value given to --set is one
# value; a sweep too large is named where it is written; a relative probe
# path is relative to its spec; a --machine file's aliases expand to at most
# 10,000 values and 256 KiB of text (issue 33).  Each is a clear error with
# exit 2, never a hang or a memory blow-up.  `timeout` below guards against
# a hang only.

bats_require_minimum_version 1.5.0
cd "$BATS_TEST_DIRNAME/.." || exit 1
load helpers

# bounded_memory: ulimit -v 400 MB, except under ASan (its shadow memory
# reserves terabytes of address space; LeakSanitizer still sees the rest)
bounded_memory() {
	case "${BUILD:-}" in
	*san*) ;;
	*) ulimit -v 400000 ;;
	esac
}

# bad_check SPEC WANT...: `runner check SPEC` exits 2 (not killed by the
# hang guard) and its stderr contains every WANT.
bad_check() {
	local spec="$1" rc=0
	shift
	timeout 60 "$RUNNER" check "$spec" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 2 ] || { echo "exit $rc, want 2"; return 1; }
	for w in "$@"; do
		grep -qF -- "$w" "$BATS_TEST_TMPDIR/err" || { echo "missing: $w"; return 1; }
	done
}

@test "a FIFO is refused at once, not waited on" {
	mkfifo "$BATS_TEST_TMPDIR/x.yaml"
	bad_check "$BATS_TEST_TMPDIR/x.yaml" "x.yaml: not a regular file"
}

@test "/dev/zero is refused, not read until memory runs out" {
	bad_check /dev/zero "/dev/zero: not a regular file"
}

@test "a spec over 1 MiB is refused with its size" {
	head -c 1100000 /dev/zero | tr '\0' '#' >"$BATS_TEST_TMPDIR/big.yaml"
	bad_check "$BATS_TEST_TMPDIR/big.yaml" "big.yaml: 1100000 bytes: larger than a spec can be"
}

@test "50,000 nested brackets: 'nested more than 64 levels' where the 65th level opens" {
	python3 -c "print('title: x\nprobe: null\nparams: ' + '[' * 50000)" >"$BATS_TEST_TMPDIR/deep.yaml"
	bad_check "$BATS_TEST_TMPDIR/deep.yaml" "deep.yaml:3:72: nested more than 64 levels deep"
}

@test "billion laughs in quick: is refused by size, in bounded memory" {
	cat >"$BATS_TEST_TMPDIR/laughs.yaml" <<'EOF'
title: laughs
probe: params
quick:
  params.count: [&a [1,1,1,1,1,1,1,1,1], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b], &d [*c,*c,*c,*c,*c,*c,*c,*c,*c], &e [*d,*d,*d,*d,*d,*d,*d,*d,*d], &f [*e,*e,*e,*e,*e,*e,*e,*e,*e], &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]]
EOF
	# 9^7 = 4.8 million nodes once expanded: a few GB unbounded
	(bounded_memory; bad_check "$BATS_TEST_TMPDIR/laughs.yaml" \
		"laughs.yaml:4:3: quick: value of 'params.count' is too large: more than 10000 values")
}

@test "billion laughs through --set is refused by size too" {
	local v='[&a [1,1,1,1,1,1,1,1,1], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b], &d [*c,*c,*c,*c,*c,*c,*c,*c,*c], &e [*d,*d,*d,*d,*d,*d,*d,*d,*d], &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]]'
	run -2 bash -c 'case "${BUILD:-}" in *san*) ;; *) ulimit -v 400000 ;; esac
		"$RUNNER" check --set "every_key.params.count=$1" tests/fixtures/specs/good/full.yaml' _ "$v"
	echo "$output"
	[[ "$output" == *"is too large: more than 10000 values once its aliases are expanded"* ]]
}

@test "text after a --set value is an error, not ignored" {
	run -2 "$RUNNER" check --set 'every_key.params.mode=[a]]]]' tests/fixtures/specs/good/full.yaml
	echo "$output"
	[[ "$output" == *"--set every_key.params.mode=[a]]]]: text after the value: ']]]'"* ]]
}

@test "a cross sweep of a million points is named at file:line:col" {
	cat >"$BATS_TEST_TMPDIR/sweep.yaml" <<'EOF'
title: sweep
probe: params
params:
  count: {from: 1, to: 1000, step: 1}
  size: {from: 1, to: 10000, step: 1}
EOF
	bad_check "$BATS_TEST_TMPDIR/sweep.yaml" \
		"sweep.yaml:5:3: params: a cross sweep of 1000 x 10000 values expands to more than 1000000 points"
}

@test "timeout: 1e300s is refused by check, not failed at every point" {
	printf 'title: t\nprobe: null\ntimeout: 1e300s\n' >"$BATS_TEST_TMPDIR/t.yaml"
	bad_check "$BATS_TEST_TMPDIR/t.yaml" "t.yaml:3:10: timeout: at most 604800s (7 days), got '1e300s'"
}

@test "a relative probe path is relative to its spec, not to the working directory" {
	mkdir -p "$BATS_TEST_TMPDIR/specs/lib"
	cp "$(dirname "$RUNNER")/probes/null.so" "$BATS_TEST_TMPDIR/specs/lib/null.so"
	printf 'title: rel\nprobe: lib/null.so\nrepetitions: 3\n' >"$BATS_TEST_TMPDIR/specs/rel.yaml"
	run -0 "$RUNNER" check "$BATS_TEST_TMPDIR/specs/rel.yaml"
	run -0 "$RUNNER" -q --no-report -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/specs/rel.yaml"
	[ "$(json "$BATS_TEST_TMPDIR"/out/latest/results/rel.json 'd["status"]')" = ok ]
}

@test "a spec file name that is not UTF-8, with ESC in it, is refused and shown escaped" {
	mkdir -p "$BATS_TEST_TMPDIR/specs"
	printf 'title: t\nprobe: null\nrepetitions: 3\n' >"$BATS_TEST_TMPDIR/specs/bad$(printf '\377\033')[31mname.yaml"
	run -2 "$RUNNER" check "$BATS_TEST_TMPDIR/specs"
	echo "$output"
	[[ "$output" == *'bad\xff\x1b[31mname.yaml: a spec'"'"'s path must be printable UTF-8'* ]]
	[[ "$output" != *$'\033'* ]]
	# and a run refuses it too, instead of dropping the experiment with exit 0
	run -2 "$RUNNER" -q --no-report -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/specs"
	[ ! -e "$BATS_TEST_TMPDIR/out/latest" ]
}

@test "a file stem that cannot name an experiment needs name:" {
	mkdir -p "$BATS_TEST_TMPDIR/specs"
	printf 'title: t\nprobe: null\nrepetitions: 3\n' >"$BATS_TEST_TMPDIR/specs/a b.yaml"
	run -2 "$RUNNER" check "$BATS_TEST_TMPDIR/specs"
	echo "$output"
	[[ "$output" == *"a b.yaml: the file name 'a b' cannot name an experiment"* ]]
	printf 'name: a_b\ntitle: t\nprobe: null\nrepetitions: 3\n' >"$BATS_TEST_TMPDIR/specs/a b.yaml"
	run -0 "$RUNNER" check "$BATS_TEST_TMPDIR/specs"
}

@test "an alias inside its own anchor is named as such, not as too deep" {
	run -2 "$RUNNER" check --set 'every_key.estimate=&a [1, *a]' tests/fixtures/specs/good/full.yaml
	echo "$output"
	[[ "$output" == *"value of 'estimate' contains itself (an alias inside its own anchor)"* ]]
	# a repeated (not nested) alias is fine
	run -0 "$RUNNER" check --set 'every_key.params.mode=[&m a, *m]' tests/fixtures/specs/good/full.yaml
}

@test "an --set naming no experiment, with ESC in it, is echoed escaped" {
	run -2 "$RUNNER" check --set "$(printf 'x\033[2J.a=1')" tests/fixtures/specs/good/full.yaml
	echo "$output"
	[[ "$output" == *'--set x\x1b[2J.a=1: no experiment'* ]]
	[[ "$output" != *$'\033'* ]]
}

# bad_facts FILE WANT...: `runner check --machine FILE` exits 2 (not killed
# by the hang guard) and its stderr contains every WANT.
bad_facts() {
	local f="$1" rc=0
	shift
	timeout 60 "$RUNNER" check --machine "$f" tests/fixtures/specs/cli/null.yaml \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 2 ] || { echo "exit $rc, want 2"; return 1; }
	for w in "$@"; do
		grep -qF -- "$w" "$BATS_TEST_TMPDIR/err" || { echo "missing: $w"; return 1; }
	done
}

@test "--machine: aliases expanding past 10000 values are refused where the fact starts (issue 33)" {
	# 228 KB of '*m' over one anchored cache made a 25 MB manifest
	python3 -c "
cpus = ','.join(str(i) for i in range(90))[:250]
print('cpu_model: x')
print('caches: [&m {level: 3, type: Unified, size_bytes: 32MiB, line_bytes: 64, ways: 16, '
      'shared_cpu_list: \"%s\"}' % cpus + ', *m' * 57000 + ']')" >"$BATS_TEST_TMPDIR/laughs.yaml"
	(bounded_memory; bad_facts "$BATS_TEST_TMPDIR/laughs.yaml" \
		"laughs.yaml:2:1: caches: more than 10000 values once its aliases are expanded (machine facts: at most 10000 values and 256 KiB of text)")
}

@test "--machine: aliases expanding past 256 KiB of text are refused too (issue 33)" {
	python3 -c "
cpus = ','.join(str(i) for i in range(90))[:250]
print('caches: [&m {level: 3, type: Unified, size_bytes: 32MiB, shared_cpu_list: \"%s\"}' % cpus
      + ', *m' * 2000 + ']')" >"$BATS_TEST_TMPDIR/text.yaml"
	bad_facts "$BATS_TEST_TMPDIR/text.yaml" \
		"text.yaml:1:1: caches: more than 256 KiB of text once its aliases are expanded"
	# a few aliases, as a hand-written file has them, are fine
	printf 'caches:\n  - &l1 {level: 1, type: Data, size_bytes: 32KiB}\n  - *l1\n' >"$BATS_TEST_TMPDIR/ok.yaml"
	run -0 "$RUNNER" check --machine "$BATS_TEST_TMPDIR/ok.yaml" tests/fixtures/specs/cli/null.yaml
}
