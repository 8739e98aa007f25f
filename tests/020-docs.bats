#!/usr/bin/env bats
# The man pages (runner(1), sysmeter-spec(5)) render without a warning and
# cover what the runner has; the bash completion offers the expected words.
# Needs groff-base (groff) and, for the man(1) check, man-db.

load helpers

MAN1=docs/man/runner.1
MAN5=docs/man/sysmeter-spec.5
COMP=tools/completion/runner.bash

setup() { OUT="$BATS_TEST_TMPDIR/out"; }

# render PAGE: the page as plain text; fails on any groff warning
render() {
	local err="$BATS_TEST_TMPDIR/groff.err"
	LC_ALL=C.UTF-8 groff -man -rCHECKSTYLE=3 -ww -Tutf8 -P-cbou "$1" 2>"$err"
	[ ! -s "$err" ] || { echo "groff warnings for $1:"; cat "$err"; return 1; }
}

@test "docs: the man pages render with groff and man without a warning" {
	command -v groff >/dev/null || skip "groff not installed (groff-base)"
	for p in "$MAN1" "$MAN5"; do
		run render "$p"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		[ "${#lines[@]}" -gt 50 ]
	done
	command -v man >/dev/null || skip "man not installed (man-db)"
	for p in "$MAN1" "$MAN5"; do
		MANWIDTH=80 man --warnings=w -l "$p" >/dev/null 2>"$BATS_TEST_TMPDIR/man.err"
		[ ! -s "$BATS_TEST_TMPDIR/man.err" ] || { cat "$BATS_TEST_TMPDIR/man.err"; false; }
	done
}

@test "docs: runner(1) names every command and every option of every command's --help" {
	command -v groff >/dev/null || skip "groff not installed (groff-base)"
	page=$(render "$MAN1")
	run "$RUNNER" --help
	[ "$status" -eq 0 ]
	help=$output
	cmds=$(grep -o '^ *runner [a-z-]*' <<<"$help" | awk '{ print $2 }' | grep -v '^$' | grep -v '^-')
	# options belong to commands: every command's --help, and the run's
	opts=$(for c in run $cmds; do "$RUNNER" "$c" --help; done | grep -o -- '--[a-z-]*' | sort -u)
	[ "$(wc -l <<<"$cmds")" -ge 6 ]
	[ "$(wc -l <<<"$opts")" -ge 12 ]
	for c in $cmds; do
		grep -q "^ *runner $c" <<<"$page" || { echo "no synopsis for 'runner $c'"; false; }
	done
	for o in $opts; do
		grep -q -- "^ *$o\b\|^ *-[a-z], $o\b" <<<"$page" || { echo "option $o not described"; false; }
	done
	# exit codes, the environment and the run folder
	for w in '^EXIT STATUS' '^ *130 ' '^ *SYSMETER_PROBE_DIR' 'out/run-id/results/experiment.json'; do
		grep -q "$w" <<<"$page" || { echo "missing: $w"; false; }
	done
}

@test "docs: sysmeter-spec(5) describes every key of the spec format, and its example is a valid spec" {
	command -v groff >/dev/null || skip "groff not installed (groff-base)"
	page=$(render "$MAN5")
	# the top-level keys of docs/spec-format.md's annotated example
	keys=$(sed -n '/^```yaml/,/^```/p' docs/spec-format.md | grep -o '^[a-z_]*:' | tr -d : | sort -u)
	[ "$(wc -l <<<"$keys")" -ge 20 ]
	section=$(sed -n '/^KEYS/,/^UNITS/p' <<<"$page")
	for k in $keys; do
		grep -q "^       $k: " <<<"$section" || { echo "key $k not described"; false; }
	done
	# the EXAMPLE section, as a file, passes runner check
	sed -n '/^EXAMPLE/,/^SEE ALSO/p' <<<"$page" | sed '1d;$d' | sed 's/^       //' >"$BATS_TEST_TMPDIR/ram_access.yaml"
	grep -q '^probe: mem_latency$' "$BATS_TEST_TMPDIR/ram_access.yaml"
	run "$RUNNER" check "$BATS_TEST_TMPDIR/ram_access.yaml"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"ram_access.yaml: ok (ram_access, probe 'mem_latency', 36 points)"* ]]
}

# comp CWORD WORD...: the completion's words for word CWORD of the line
# "WORD...", sorted, one per line (bash, the completion sourced).
comp() {
	bash -c 'source "$1"; shift; COMP_CWORD=$1; shift; COMP_WORDS=("$@"); COMP_LINE="$*"
		_runner; printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort' _ "$COMP" "$@"
}

@test "completion: commands, options, spec files" {
	run comp 1 runner ''
	[ "$status" -eq 0 ]
	for c in run check list probe-help report rerun compare models specs; do
		grep -qx "$c" <<<"$output" || { echo "no '$c' in: $output"; false; }
	done
	[ "$(comp 1 runner --qu)" = "--quick
--quiet" ]
	[ "$(comp 3 runner report out --f)" = "--format" ]
	[ "$(comp 1 runner --fo)" = "" ]    # --format belongs to report
	[ "$(comp 4 runner report x --format md,t)" = "md,tex
md,tex,pdf
md,tex,pdf,html" ]
	[ "$(comp 2 runner check specs/sysc)" = "specs/syscall.yaml" ]
	# once a command is given, only spec files and folders
	! grep -qx list <<<"$(comp 2 runner check '')" || false
}

@test "completion: probe names come from runner list, broken probes left out" {
	run comp 2 "$RUNNER" probe-help ''
	[ "$status" -eq 0 ]
	for p in null syscall ok_fixed loop; do
		grep -qx "$p" <<<"$output" || { echo "no '$p' in: $output"; false; }
	done
	! grep -qx bad_abi <<<"$output" || false
	[ "$(comp 2 "$RUNNER" probe-help sysc)" = syscall ]
}

@test "completion: --set keys and --filter names from the specs on the line, else specs/" {
	d="$BATS_TEST_TMPDIR/sp"
	mkdir -p "$d"
	cat >"$d/first.yaml" <<-'YAML'
	# a comment
	name: renamed   # not the stem
	probe: params
	params:
	  count: [1, 2]
	  size: {from: 1KiB, to: 4KiB, factor: 2}   # nested: not a key
	  # a comment
	  mode: a
	repetitions: 3
	YAML
	printf 'probe: ok_fixed\nparams: {base: 100, noise: [0, 0.01]}\n' >"$d/flow.yaml"
	# experiment names: name: or the file stem
	[ "$(comp 2 runner --filter '' "$d")" = "flow
renamed" ]
	# parameters, block and flow style, nothing nested
	[ "$(comp 2 runner --set renamed.params. "$d")" = "renamed.params.count=
renamed.params.mode=
renamed.params.size=" ]
	[ "$(comp 3 runner "$d/flow.yaml" --set flow.params.)" = "flow.params.base=
flow.params.noise=" ]
	# top-level keys
	run comp 2 runner --set renamed.re "$d"
	[ "$output" = "renamed.reference=
renamed.repetitions=" ]
	run comp 2 runner --set renamed. "$d"
	[ "$(grep -c '^renamed\.[a-z_]*=$' <<<"$output")" -eq 24 ]
	! grep -q '^renamed\.quick=' <<<"$output" || false    # --set refuses quick
	# without a spec on the line: specs/
	run comp 2 runner --set syscall.params.
	[ "$output" = "syscall.params.call=" ]
	[[ "$(comp 2 runner --filter ram_)" == "ram_access
ram_bandwidth" ]]
}
