#!/usr/bin/env bats
# The runner's layout (docs/architecture.md): a stage includes only earlier
# stages' public headers and lib/, and neither headers (by their includes)
# nor source files (by their calls) form a cycle, inside a folder or across.  The checker
# is also run on broken copies of runner/, so that it is known to fail.
# And the tests' own layout: no '!' command that cannot fail its test
# (tests/lint-bang.awk), shown failing on broken copies too.

load helpers

CHECK="$BATS_TEST_DIRNAME/../tools/check-layout.sh"
LINT="$BATS_TEST_DIRNAME/lint-bang.awk"

setup() {
	TREE="$BATS_TEST_TMPDIR/runner"
	cp -R "$BATS_TEST_DIRNAME/../runner" "$TREE"
}

@test "runner/ follows the include rule" {
	run sh "$CHECK"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "an include of a later stage fails, naming file, line and stages" {
	printf '#include "report/report.h"\n' >> "$TREE/spec/spec.c"
	run sh "$CHECK" "$TREE"
	[ "$status" -eq 1 ]
	[[ "$output" == *'spec/spec.c:'*'includes "report/report.h": report is a later stage than spec'* ]]
}

@test "an include of another folder's private header fails" {
	printf '#include "report/chart.h"\n' >> "$TREE/cli/rerun.c"
	run sh "$CHECK" "$TREE"
	[ "$status" -eq 1 ]
	[[ "$output" == *'cli/rerun.c:'*'"report/chart.h": private to report/ (its public header is report/report.h)'* ]]
}

@test "the report including a spec, plan or exec header fails (it reads results only)" {
	printf '#include "spec/spec.h"\n' >> "$TREE/report/report_points.c"
	run sh "$CHECK" "$TREE"
	[ "$status" -eq 1 ]
	[[ "$output" == *'report/report_points.c:'*'includes "spec/spec.h": report may include only results (and lib)'* ]]
}

@test "headers that include each other fail" {
	printf '#include "spec/spec_keys.h"\n' >> "$TREE/spec/spec.h"
	run sh "$CHECK" "$TREE"
	[ "$status" -eq 1 ]
	[[ "$output" == *"headers include each other in a cycle"* ]]
}

@test "source files of one folder that call each other fail, naming them" {
	# merge.c calling back into cli.c, which calls merge_main: the kind of
	# circle run.c, resume.c and rerun.c once made
	printf 'static const void *x(void) { return cli_command_find("x"); }\n' >> "$TREE/cli/merge.c"
	run sh "$CHECK" "$TREE"
	[ "$status" -eq 1 ]
	[[ "$output" == *"source files call each other in a cycle"* ]]
	[[ "$output" == *"cli/cli.c"* ]]
	[[ "$output" == *"cli/merge.c"* ]]
}

@test "a name only in a comment or a string is no call" {
	printf '/* cli_command_find */\nstatic const char *y = "cli_command_find";\n' >> "$TREE/cli/merge.c"
	run sh "$CHECK" "$TREE"
	[ "$status" -eq 0 ]
}

@test "a file outside the stages, or an include without its folder, fails" {
	mkdir "$TREE/misc"
	printf '#include "lib/strf.h"\n' > "$TREE/misc/x.c"
	printf '#include "units.h"\n' >> "$TREE/lib/strf.c"
	run sh "$CHECK" "$TREE"
	[ "$status" -eq 1 ]
	[[ "$output" == *'misc/x.c: is in "misc", which is not a stage'* ]]
	[[ "$output" == *'lib/strf.c:'*'includes "units.h": name the folder ("lib/units.h")'* ]]
}

@test "no bats test or helper has a '!' command that cannot fail it" {
	run awk -f "$LINT" "$BATS_TEST_DIRNAME"/*.bats "$BATS_TEST_DIRNAME"/probes/*.bats \
		"$BATS_TEST_DIRNAME"/*.bash "$BATS_TEST_DIRNAME"/probes/*.bash
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "a bare '!' before the end of a test or of a helper function fails the lint, naming file and line" {
	# undo a mend in a copy of a test: "left behind" is a bare '!' again
	cp "$BATS_TEST_DIRNAME/210-strays.bats" "$BATS_TEST_TMPDIR/strays.bats"
	sed -i 's/^\t! is_gone "\$pid" || false\t/\t! is_gone "$pid"\t/' "$BATS_TEST_TMPDIR/strays.bats"
	n=$(grep -n '^	! is_gone "\$pid"	' "$BATS_TEST_TMPDIR/strays.bats" | cut -d: -f1)
	[ -n "$n" ]
	# and a helper that starts with one
	cp "$BATS_TEST_DIRNAME/helpers.bash" "$BATS_TEST_TMPDIR/helpers.bash"
	sed -i 's/^proc_stat() {$/&\n\t! test -d \/proc/' "$BATS_TEST_TMPDIR/helpers.bash"
	m=$(grep -n '^	! test -d /proc$' "$BATS_TEST_TMPDIR/helpers.bash" | cut -d: -f1)
	[ -n "$m" ]
	run awk -f "$LINT" "$BATS_TEST_TMPDIR/strays.bats" "$BATS_TEST_TMPDIR/helpers.bash"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "$BATS_TEST_TMPDIR/strays.bats:$n: a '!' command before the end of its test or function cannot fail it (end it with || false): ! is_gone \"\$pid\""* ]]
	[ "${lines[1]}" = "$BATS_TEST_TMPDIR/helpers.bash:$m: a '!' command before the end of its test or function cannot fail it (end it with || false): ! test -d /proc" ]
}

@test "the lint reports exactly the '!' commands that cannot fail (tests/fixtures/lint/bang-cases.bash)" {
	# the cases: a '!' last in a test, after run, in a condition, ending in
	# || false; in strings, comments, here-documents; multi-line commands,
	# loops, groups, helpers; each line that must be reported says BAD
	f="$BATS_TEST_DIRNAME/fixtures/lint/bang-cases.bash"
	run awk -f "$LINT" "$f"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cut -d: -f2 <<<"$output" | tr '\n' ' ')" = "$(grep -n '# BAD' "$f" | cut -d: -f1 | tr '\n' ' ')" ]
	[ "$(grep -c '# BAD' "$f")" -ge 15 ]
}

@test "the lint says so when it cannot follow a file, instead of passing it" {
	printf 'f() {\n\techo "not closed\n}\n' >"$BATS_TEST_TMPDIR/quote.bash"
	printf '@test "t" {\n\tcat <<EOF\n\t! x\n}\n' >"$BATS_TEST_TMPDIR/heredoc.bats"
	run awk -f "$LINT" "$BATS_TEST_TMPDIR/quote.bash" "$BATS_TEST_TMPDIR/heredoc.bats"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "$BATS_TEST_TMPDIR/quote.bash:3: lint-bang.awk lost track of the shell syntax: a quote, \${, \$( or \` not closed at the end of the file" ]
	[ "${lines[1]}" = "$BATS_TEST_TMPDIR/heredoc.bats:4: lint-bang.awk lost track of the shell syntax: here-document not ended (EOF)" ]
}
