#!/usr/bin/env bats
# `beside:` in the report: each point beside the other experiment's point
# with the same parameter values, the ratio, and the prediction from the
# smallest round trip among the rtt experiment's points that fit rtt_where.
# Fixture probes with exact values (noise 0): series at 1.5 x base, ok_fixed
# at base.

load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	D="$BATS_TEST_TMPDIR/specs"
	mkdir -p "$D"
	printf '%s\n' 'probe: series' 'params: {shape: shift, step: 0.5, at: 100000, noise: 0, base: [100, 200]}' \
		'rounds: 2' 'repetitions: 4' 'iterations: 1' 'warmup: 1' 'cpu: none' \
		'beside: {experiment: local, rtt: rtt, rtt_where: {base: 20}}' >"$D/remote.yaml"
	printf '%s\n' 'probe: ok_fixed' 'params: {noise: 0, base: [100, 200]}' 'rounds: 2' \
		'repetitions: 4' 'iterations: 1000' 'warmup: 1' 'cpu: none' >"$D/local.yaml"
	printf '%s\n' 'probe: ok_fixed' 'params: {noise: 0, base: [10, 20]}' 'rounds: 2' \
		'repetitions: 4' 'iterations: 1000' 'warmup: 1' 'cpu: none' >"$D/rtt.yaml"
}

@test "beside: rows with the other experiment's figure, the ratio and the prediction" {
	run "$RUNNER" -q -o "$OUT" --run-id b "$D/remote.yaml" "$D/local.yaml" "$D/rtt.yaml"
	[ "$status" -eq 0 ]
	md="$OUT/b/report.md"
	grep -q '^\*\*Beside local\*\*' "$md"
	# base | local | this | ratio | predicted (local + the rtt point base=20) | measured/predicted
	grep -q '^| 100 | 100 | 150 | 1.50 | 120 | 1.25 |$' "$md" || { grep -A6 'Beside' "$md"; return 1; }
	grep -q '^| 200 | 200 | 300 | 1.50 | 220 | 1.36 |$' "$md"
	grep -q 'takes 1.5 times as long as local' "$md"
	grep -q 'smallest round trip rtt measured (0.02 us, base=20' "$md"
	[ "$(json "$OUT/b/results/remote.json" 'd["spec"]["beside"] == {"experiment": "local", "rtt": "rtt", "rtt_where": {"base": "20"}}')" = true ]
	# `runner report` draws it again from the result files
	rm "$md"
	"$RUNNER" report "$OUT/b" --format md
	grep -q '^| 100 | 100 | 150 | 1.50 | 120 | 1.25 |$' "$md"
}

@test "beside: the other experiment not in the run is said, not hidden" {
	run "$RUNNER" -q -o "$OUT" --run-id a "$D/remote.yaml"
	[ "$status" -eq 0 ]
	grep -q 'local has no results in this run' "$OUT/a/report.md"
}
