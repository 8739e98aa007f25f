#!/usr/bin/env bats
# A CPU that other tasks keep taking (issue 33 item 9, "a busy laptop fails
# points"): samples a probe flags invalid as spoiled by other tasks (a note
# that begins "off the cpu" and the metric off_cpu_share) never fail a
# point: a point left without enough valid samples by them is skipped,
# saying how much of the CPU was taken, and one that has enough keeps its
# estimate; the run's lines and the report's summary name those points.
# Samples invalid for any other reason still fail.  On the busy_cpu
# fixture probe, whose samples and shares are scripted: no load, no clock.

load helpers

setup() { OUT="$BATS_TEST_TMPDIR/out"; D="$BATS_TEST_TMPDIR"; }

r() { echo "$OUT/$1/results/$2.json"; }

# spec NAME LINES...: a spec file in $D
spec() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$D/$name.yaml"
}

@test "a point whose every sample other tasks spoiled is skipped with the shares they took, not failed: exit 0" {
	# one round of five samples: shares 3, 12, 38, 12, 5 %
	spec busy 'probe: busy_cpu' 'params: {mode: cpu}' 'rounds: 1' 'repetitions: 5' \
		'warmup: 0' 'iterations: 1'
	run "$RUNNER" --no-report --no-store -o "$OUT" --run-id b "$D/busy.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	f=$(r b busy)
	[ "$(json "$f" 'd["points"][0]["status"]')" = skipped ]
	[ "$(json "$f" 'd["status"]')" = skipped ]
	[ "$(json "$f" 'd["points"][0]["estimate"]')" = null ]
	[ "$(json "$f" 'd["points"][0]["n_invalid"]')" = 5 ]
	why=$(json "$f" 'd["points"][0]["reason"]')
	[ "$why" = "the CPUs were never quiet: in 5 of 5 samples a thread was off its CPU for 3.0-38 % of its run (median 12 %), beyond the 2 % a valid sample allows; close other programs (or keep them off this point's CPUs) and rerun it" ]
	# the flag word, with the same figures
	[ "$(json "$f" '[x["flag"] for x in d["points"][0]["sanity"] if x["flag"] in ("cpu_taken", "invalid_samples")]')" = '["cpu_taken"]' ]
	[[ "$(json "$f" '[x["message"] for x in d["points"][0]["sanity"] if x["flag"] == "cpu_taken"][0]')" == "in 5 of 5 samples a thread was off its CPU for 3.0-38 % of its run (median 12 %)"*": no sample left for an estimate" ]]
	# the terminal: the reason on the experiment's line, then how to rerun it
	[[ "$output" == *"busy "*"skipped "*"the CPUs were never quiet: in 5 of 5 samples"* ]]
	[[ "$output" == *"rerun it with this run's options once the CPUs are quiet: runner --filter busy $D/busy.yaml"* ]]
	# the report's summary says what was spoiled, by how much, what to do
	run "$RUNNER" report "$OUT/b" --format md
	[ "$status" -eq 0 ]
	row=$(sed -n '/^## Summary/,$p' "$OUT/b/report.md" | grep '^| busy')
	[[ "$row" == "| busy: not measured, spoiled by other tasks: the CPUs were never quiet: in 5 of 5 samples"*"(median 12 %)"*"close other programs"*"rerun it with --filter busy | – | skipped |"* ]]
	# one row for it, not a second "skipped" row for the experiment
	[ "$(sed -n '/^## Summary/,$p' "$OUT/b/report.md" | grep -c '^| busy')" = 1 ]
}

@test "a point with enough valid samples keeps its estimate however many other tasks spoiled" {
	# three rounds of ten: every third sample valid, 21 of 30 spoiled (70 %,
	# over the 50 % of invalid samples that fails a point)
	spec some 'probe: busy_cpu' 'params: {mode: cpu, valid_every: 3}' 'rounds: 3' \
		'repetitions: 30' 'warmup: 0' 'iterations: 1'
	run "$RUNNER" --no-report --no-store -o "$OUT" --run-id s "$D/some.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	f=$(r s some)
	[ "$(json "$f" 'd["points"][0]["status"]')" = ok ]
	[ "$(json "$f" 'd["points"][0]["reason"]')" = null ]
	[ "$(json "$f" 'd["points"][0]["n"]')" = 9 ]
	[ "$(json "$f" 'd["points"][0]["n_invalid"]')" = 21 ]
	# the valid samples are those of index 2, 5, 8: 10.2, 10.0, 10.3 ns
	[ "$(json "$f" 'round(d["points"][0]["estimate"], 6)')" = 10.2 ]
	[ "$(json "$f" '[x["message"] for x in d["points"][0]["sanity"] if x["flag"] == "cpu_taken"]')" = '["in 21 of 30 samples a thread was off its CPU for 3.0-38 % of its run (median 12 %), beyond the 2 % a valid sample allows: those samples were left out"]' ]
	[ "$(json "$f" '"invalid_samples" in [x["flag"] for x in d["points"][0]["sanity"]]')" = false ]
	[[ "$output" == *"1 point kept its estimate without the samples other tasks spoiled (flag cpu_taken)"* ]]
	# the report's discussion says what the flag means
	run "$RUNNER" report "$OUT/s" --format md
	[ "$status" -eq 0 ]
	grep -q 'cpu\\_taken at 1 of 1 point: other tasks took the CPU during some samples, which were left out' "$OUT/s/report.md"
}

@test "samples invalid for another reason still fail their point, whatever off_cpu_share they carry: exit 1" {
	spec other 'probe: busy_cpu' 'params: {mode: other}' 'rounds: 1' 'repetitions: 5' \
		'warmup: 0' 'iterations: 1'
	spec most 'probe: busy_cpu' 'params: {mode: other, valid_every: 3}' 'rounds: 3' \
		'repetitions: 30' 'warmup: 0' 'iterations: 1'
	run "$RUNNER" --no-report --no-store -o "$OUT" --run-id o "$D/other.yaml" "$D/most.yaml"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(json "$(r o other)" 'd["points"][0]["status"]')" = failed ]
	[[ "$(json "$(r o other)" 'd["points"][0]["reason"]')" == "too few valid samples for an estimate and a CI: 0 kept"* ]]
	[ "$(json "$(r o most)" 'd["points"][0]["status"]')" = failed ]
	[ "$(json "$(r o most)" 'd["points"][0]["reason"]')" = "21 of 30 samples invalid (more than 50 %)" ]
	for x in other most; do
		[ "$(json "$(r o $x)" '"cpu_taken" in [f["flag"] for f in d["points"][0]["sanity"]]')" = false ]
	done
	[[ "$output" != *"spoiled"* ]]
}

@test "an experiment with a spoiled point and a measured one: ok, exit 0, the spoiled point named on its own line" {
	spec mix 'probe: busy_cpu' 'params: {mode: cpu, valid_every: [0, 2]}' 'rounds: 1' \
		'repetitions: 6' 'warmup: 0' 'iterations: 1'
	run "$RUNNER" --no-report --no-store -o "$OUT" --run-id m "$D/mix.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	f=$(r m mix)
	[ "$(json "$f" 'd["status"]')" = ok ]
	[ "$(json "$f" '[p["status"] for p in d["points"]]')" = '["skipped", "ok"]' ]
	[[ "$output" == *"mix "*"ok "*"1/2 points ok, 1 skipped (1 spoiled by other tasks)"* ]]
	[[ "$output" == *"  spoiled by other tasks, skipped: valid_every=0: the CPUs were never quiet: in 6 of 6 samples"* ]]
	[[ "$output" == *"runner --filter mix $D/mix.yaml"* ]]
	# a point of the same kind under a name a shell would split is quoted
	spec 'a b' 'probe: busy_cpu' 'params: {mode: cpu}' 'rounds: 1' 'repetitions: 3' \
		'warmup: 0' 'iterations: 1' 'name: ab'
	run "$RUNNER" --no-report --no-store -o "$OUT" --run-id q "$D/a b.yaml"
	[ "$status" -eq 0 ]
	[[ "$output" == *"runner --filter ab '$D/a b.yaml'"* ]]
}
