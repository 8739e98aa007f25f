#!/usr/bin/env bats
# Spec errors: every malformed spec under tests/fixtures/specs/bad/ is
# rejected with exit 2 and exactly the one stderr line in its .expected
# (compared with diff -u), by `runner check` and by a run, which must write
# nothing.  Good specs pass `runner check`.  Paths in the messages are
# relative, so everything runs from the project root.

bats_require_minimum_version 1.5.0
cd "$BATS_TEST_DIRNAME/.." || exit 1
load helpers

BAD=tests/fixtures/specs/bad
GOOD=tests/fixtures/specs/good

# check_bad NAME: `runner check` and a run of $BAD/NAME.yaml both exit 2
# with stderr == $BAD/NAME.expected, and the run creates nothing.
check_bad() {
	local spec="$BAD/$1.yaml" want="$BAD/$1.expected" out="$BATS_TEST_TMPDIR/out"
	local err="$BATS_TEST_TMPDIR/stderr" rc=0
	[ -f "$spec" ] && [ -f "$want" ] || { echo "missing $spec or $want"; return 1; }

	"$RUNNER" check "$spec" >"$BATS_TEST_TMPDIR/stdout" 2>"$err" || rc=$?
	[ "$rc" -eq 2 ] || { echo "runner check exited $rc, want 2"; cat "$err"; return 1; }
	diff -u "$want" "$err"

	rc=0
	"$RUNNER" -q --no-report -o "$out" "$spec" >"$BATS_TEST_TMPDIR/stdout" 2>"$err" || rc=$?
	[ "$rc" -eq 2 ] || { echo "run exited $rc, want 2"; cat "$err"; return 1; }
	diff -u "$want" "$err"
	if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
		echo "a rejected spec left files behind:"; find "$out"; return 1
	fi
}

@test "bad spec bad_bool: flag is a boolean" {
	check_bad bad_bool
}

@test "bad spec bad_choice: mode is a|b|c" {
	check_bad bad_choice
}

@test "bad spec bad_estimator: a misspelt estimator" {
	check_bad bad_estimator
}

@test "bad spec bad_int: count is an integer" {
	check_bad bad_int
}

@test "bad spec bad_outlier_rule: a misspelt outlier rule" {
	check_bad bad_outlier_rule
}

@test "bad spec bad_size_unit: not a size unit" {
	check_bad bad_size_unit
}

@test "bad spec bad_time_unit: not a time unit" {
	check_bad bad_time_unit
}

@test "bad spec chart_unknown_key: a typo inside chart" {
	check_bad chart_unknown_key
}

@test "bad spec chart_unknown_param: the chart x axis is a parameter" {
	check_bad chart_unknown_param
}

@test "bad spec cpu_not_number: cpu is a number or none" {
	check_bad cpu_not_number
}

@test "bad spec duplicate_key: warmup given twice" {
	check_bad duplicate_key
}

@test "bad spec empty_file: an empty file" {
	check_bad empty_file
}

@test "bad spec empty_list: a swept parameter with no values" {
	check_bad empty_list
}

@test "bad spec empty_range: from above to" {
	check_bad empty_range
}

@test "bad spec findings_unknown: knees or ratios" {
	check_bad findings_unknown
}

@test "bad spec beside_no_experiment, beside_where_list, beside_unknown_key" {
	check_bad beside_no_experiment
	check_bad beside_where_list
	check_bad beside_unknown_key
}

@test "a CPU this machine does not have is refused by check, with the CPUs it has" {
	printf '%s\n' '# cpu must be a CPU of this machine' 'probe: params' 'cpu: 4096' >"$BATS_TEST_TMPDIR/far.yaml"
	run "$RUNNER" check "$BATS_TEST_TMPDIR/far.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == "runner: $BATS_TEST_TMPDIR/far.yaml:3:6: cpu: 4096 is not a CPU this machine lets the runner use ("*"), or 'none'" ]]
	last=$(($(nproc) - 1))
	printf '%s\n' 'probe: params' "cpu: $last" >"$BATS_TEST_TMPDIR/ok.yaml"
	run "$RUNNER" check "$BATS_TEST_TMPDIR/ok.yaml"
	[ "$status" -eq 0 ]
	printf '%s\n' 'probe: params' "cpu: $((last + 1))" >"$BATS_TEST_TMPDIR/bad.yaml"
	run "$RUNNER" check "$BATS_TEST_TMPDIR/bad.yaml"
	[ "$status" -eq 2 ]
}

@test "bad spec iterations_bad: auto or a count" {
	check_bad iterations_bad
}

@test "bad spec list_item_mapping: list items are single values" {
	check_bad list_item_mapping
}

@test "bad spec missing_probe: every spec names its probe" {
	check_bad missing_probe
}

@test "bad spec name_bad: names become file names" {
	check_bad name_bad
}

@test "bad spec negative_warmup: warmup counts samples" {
	check_bad negative_warmup
}

@test "bad spec out_of_range: count is 1..1000" {
	check_bad out_of_range
}

@test "bad spec outliers_k_for_trim: trim takes lo/hi, not k" {
	check_bad outliers_k_for_trim
}

@test "bad spec outliers_unknown_key: a typo inside outliers" {
	check_bad outliers_unknown_key
}

@test "bad spec params_not_mapping: params is a mapping" {
	check_bad params_not_mapping
}

@test "bad spec predict_bad_unit: a prediction in the wrong unit family (the probe reports ns)" {
	check_bad predict_bad_unit
}

@test "bad spec predict_unknown_key: a typo inside a prediction" {
	check_bad predict_unknown_key
}

@test "bad spec priority_range: nice values are -20..19" {
	check_bad priority_range
}

@test "bad spec range_factor: a geometric range must grow" {
	check_bad range_factor
}

@test "bad spec range_factor_and_step: factor or step, not both" {
	check_bad range_factor_and_step
}

@test "bad spec range_missing_to: a range needs both ends" {
	check_bad range_missing_to
}

@test "bad spec range_on_string: strings cannot be ranges" {
	check_bad range_on_string
}

@test "bad spec range_too_long: 100001 values" {
	check_bad range_too_long
}

@test "bad spec reference_tolerance: tolerance is [low, high] around the value" {
	check_bad reference_tolerance
}

@test "bad spec repetitions_min: adaptive repetitions need at least 2 samples" {
	check_bad repetitions_min
}

@test "bad spec repetitions_order: max below min" {
	check_bad repetitions_order
}

@test "bad spec repetitions_type: repetitions must be a count or an adaptive mapping" {
	check_bad repetitions_type
}

@test "bad spec repetitions_unknown_key: a typo inside the repetitions mapping" {
	check_bad repetitions_unknown_key
}

@test "bad spec rounds_min: adaptive rounds need at least 2 (the interval is between them)" {
	check_bad rounds_min
}

@test "bad spec rounds_order: rounds max below min" {
	check_bad rounds_order
}

@test "bad spec rounds_target_zero: rounds.target 0" {
	check_bad rounds_target_zero
}

@test "bad spec rounds_target_one: rounds.target 100 %" {
	check_bad rounds_target_one
}

@test "bad spec rounds_unknown_key: a typo inside the rounds mapping" {
	check_bad rounds_unknown_key
}

@test "bad spec rounds_budget: rounds.budget must be a time above 0" {
	check_bad rounds_budget
}

@test "bad spec rounds_type: rounds is a count or a mapping" {
	check_bad rounds_type
}

@test "rounds: {min, max, target} takes target as a percentage or a fraction; defaults fill the rest" {
	d=$BATS_TEST_TMPDIR
	printf '%s\n' 'probe: params' 'rounds: {min: 3, max: 6, target: 5%}' >"$d/pct.yaml"
	printf '%s\n' 'probe: params' 'rounds: {min: 3, max: 6, target: 0.05}' >"$d/frac.yaml"
	printf '%s\n' 'probe: params' 'rounds: {max: 4}' >"$d/dflt.yaml"
	printf '%s\n' 'probe: params' 'rounds: 4' >"$d/fixed.yaml"
	for s in pct frac dflt fixed; do
		run "$RUNNER" check "$d/$s.yaml"
		[ "$status" -eq 0 ]
	done
	run "$RUNNER" check --set 'fixed.rounds={min: 3, max: 2}' "$d/fixed.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"rounds: max (2) is below min (3)"* ]]
}

@test "bad spec second_document: one spec per file" {
	check_bad second_document
}

@test "bad spec subtract_not_names: subtract lists experiment names" {
	check_bad subtract_not_names
}

@test "bad spec sweep_bad: cross or zip" {
	check_bad sweep_bad
}

@test "bad spec tab_indent: a tab where spaces belong" {
	check_bad tab_indent
}

@test "bad spec timeout_zero: a timeout must be positive" {
	check_bad timeout_zero
}

@test "bad spec top_level_list: the top level must be a mapping" {
	check_bad top_level_list
}

@test "bad spec trimmed_p: trimmed_mean cuts less than half from each end" {
	check_bad trimmed_p
}

@test "bad spec unknown_key: a misspelt top-level key" {
	check_bad unknown_key
}

@test "bad spec unknown_param: a misspelt parameter" {
	check_bad unknown_param
}

@test "bad spec unknown_probe: no such probe anywhere" {
	check_bad unknown_probe
}

@test "bad spec where_unknown_param: where names a parameter" {
	check_bad where_unknown_param
}

@test "bad spec yaml_syntax: an unclosed flow list" {
	check_bad yaml_syntax
}

@test "bad spec zip_unequal: zip pairs values up: lengths must match" {
	check_bad zip_unequal
}

@test "bad spec quick_unknown_param: the quick profile is checked against the probe" {
	check_bad quick_unknown_param
}

@test "bad spec quick_block_value: a quick value must fit on one line" {
	check_bad quick_block_value
}

@test "every bad fixture has an .expected and a test above" {
	for f in "$BAD"/*.yaml; do
		n=$(basename "$f" .yaml)
		[ -f "$BAD/$n.expected" ] || { echo "no $BAD/$n.expected"; return 1; }
		grep -q "^	check_bad $n\$" "$BATS_TEST_FILENAME" || { echo "no test for $n"; return 1; }
		[ "$(wc -l <"$BAD/$n.expected")" -eq 1 ] || { echo "$n.expected is not one line"; return 1; }
	done
	[ "$(ls "$BAD"/*.yaml | wc -l)" -ge 30 ]
}

@test "a directory without specs is bad usage" {
	mkdir "$BATS_TEST_TMPDIR/empty"
	run --separate-stderr "$RUNNER" check "$BATS_TEST_TMPDIR/empty"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: $BATS_TEST_TMPDIR/empty: no specs (*.yaml) found" ]
}

@test "an unreadable spec in a directory says why" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	ln -s "$BATS_TEST_TMPDIR/nowhere.yaml" "$BATS_TEST_TMPDIR/dir/x.yaml"
	run --separate-stderr "$RUNNER" check "$BATS_TEST_TMPDIR/dir"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: $BATS_TEST_TMPDIR/dir/x.yaml: cannot read: No such file or directory" ]
	run --separate-stderr "$RUNNER" -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/dir"
	[ "$status" -eq 2 ]
	[ ! -e "$BATS_TEST_TMPDIR/out" ] || [ -z "$(ls -A "$BATS_TEST_TMPDIR/out")" ]
}

@test "a missing spec file says why" {
	run --separate-stderr "$RUNNER" check "$BATS_TEST_TMPDIR/none.yaml"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: $BATS_TEST_TMPDIR/none.yaml: cannot read: No such file or directory" ]
}

@test "good specs pass runner check" {
	for f in "$GOOD"/*.yaml; do
		run --separate-stderr "$RUNNER" check "$f"
		[ "$status" -eq 0 ] || { echo "$f: exit $status: $stderr"; return 1; }
		[ -z "$stderr" ] || { echo "$f: $stderr"; return 1; }
	done
	run "$RUNNER" check "$GOOD"
	[ "$status" -eq 0 ]
}

@test "the full good spec expands its ranges and lists" {
	run --separate-stderr "$RUNNER" check "$GOOD/full.yaml"
	[ "$status" -eq 0 ]
	# size 4KiB..1MiB x4 (5) * count 3 * wait 1..3ms (3) = 45 points
	[[ "$output" == *"45 points"* ]]
	run --separate-stderr "$RUNNER" check "$GOOD/zip.yaml"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 points"* ]]
}

@test "--set goes through the same checks as the file" {
	run --separate-stderr "$RUNNER" check --set 'minimal.params.count=[1, 2]' --set minimal.cpu=none "$GOOD/minimal.yaml"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 points"* ]]
	run --separate-stderr "$RUNNER" check --set minimal.repetitons=5 "$GOOD/minimal.yaml"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: --set minimal.repetitons=5: unknown key 'repetitons' (did you mean 'repetitions'?)" ]
	run --separate-stderr "$RUNNER" check --set minimal.warmup=-1 "$GOOD/minimal.yaml"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: --set minimal.warmup=-1: warmup: expected an integer >= 0, got '-1'" ]
	run --separate-stderr "$RUNNER" check --set minimal.params.cont=5 "$GOOD/minimal.yaml"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: --set minimal.params.cont=5: params: unknown parameter 'cont' for probe 'params' (did you mean 'count'?)" ]
	run --separate-stderr "$RUNNER" check --set 'minimal.params.count=[1, 0]' "$GOOD/minimal.yaml"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: --set minimal.params.count=[1, 0]: params.count: 0 is out of range [1, 1000]" ]
	run --separate-stderr "$RUNNER" check --set 'zip.params.count=[1, 2]' "$GOOD/zip.yaml"
	[ "$status" -eq 2 ]
	[ "$stderr" = "runner: --set zip.params.count=[1, 2]: sweep: zip needs lists of equal length (size has 3, count has 2)" ]
}

@test "check reports every error of every spec (parse, binding, probe) and warns of a prediction that matches no point" {
	d="$BATS_TEST_TMPDIR/many"
	mkdir -p "$d"
	printf '%s\n' 'probe: ok_fixed' 'repetitions: x' >"$d/a.yaml"
	printf '%s\n' 'probe: ok_fixed' 'params: {nope: 1}' >"$d/b.yaml"
	printf '%s\n' 'probe: ok_fixed' 'bogus: 1' >"$d/c.yaml"
	printf '%s\n' 'probe: ok_fixed' 'params: {base: [1, 2]}' 'predict:' '  - {where: {base: 3}, value: 1ns}' >"$d/d.yaml"
	printf '%s\n' 'probe: nosuch' >"$d/e.yaml"
	run "$RUNNER" check "$d"
	[ "$status" -eq 2 ]
	[[ "$output" == *"a.yaml:2:14: repetitions: expected"* ]]
	[[ "$output" == *"c.yaml:2:1: unknown key 'bogus'"* ]]
	[[ "$output" == *"b.yaml:2:10: params: unknown parameter 'nope'"* ]]
	[[ "$output" == *"e.yaml:1:8: unknown probe 'nosuch'"* ]]
	[[ "$output" == *"d.yaml:4:5: warning: this prediction matches no point"* ]]
	[ "$(grep -c '^runner: ' <<<"$output")" -eq 5 ]
	# the warning alone does not fail check; --set can make a prediction match again
	run "$RUNNER" check "$d/d.yaml"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: this prediction matches no point"* ]]
	run "$RUNNER" check "$d/d.yaml" --set 'd.params.base=[3]'
	[ "$status" -eq 0 ]
	[[ "$output" != *warning* ]]
}

@test "check asks the probe about every point: a stride no machine can use is an error now, once per message" {
	run "$RUNNER" check specs/ram_access.yaml --set 'ram_access.params.stride=[64, 100]' --set 'ram_access.params.size=[4KiB, 8KiB]'
	[ "$status" -eq 2 ]
	[[ "$output" == *"specs/ram_access.yaml:"*": point size=4KiB,stride=100 (and 1 more point): stride 100 is not a multiple of 8"* ]] || { echo "$output"; return 1; }
	[ "$(grep -c 'not a multiple' <<<"$output")" -eq 1 ]
	run "$RUNNER" check specs/ram_access.yaml --set 'ram_access.params.stride=[64, 128]'
	[ "$status" -eq 0 ]
	run "$RUNNER" check specs/file_read.yaml --set 'file_read.params.block=1028'
	[ "$status" -eq 2 ]
	[[ "$output" == *"block 1028 must be a multiple of 8"* ]]
}

@test "bad spec predict_formula_typo: a formula's syntax error at its column" {
	check_bad predict_formula_typo
}

@test "bad spec predict_formula_unknown: an unknown name in a formula, with the right one" {
	check_bad predict_formula_unknown
}

@test "bad spec predict_own_result: a prediction never uses its own experiment's result" {
	check_bad predict_own_result
}
