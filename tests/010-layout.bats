#!/usr/bin/env bats
# The runner's layout (docs/architecture.md): a stage includes only earlier
# stages' public headers and lib/, and neither headers (by their includes)
# nor source files (by their calls) form a cycle, inside a folder or across.  The checker
# is also run on broken copies of runner/, so that it is known to fail.

load helpers

CHECK="$BATS_TEST_DIRNAME/../tools/check-layout.sh"

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
