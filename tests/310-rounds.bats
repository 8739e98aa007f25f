#!/usr/bin/env bats
# Rounds (issue 9): a point's estimate and CI come from independent rounds,
# fresh processes interleaved over the points and experiments of the run;
# subtraction pairs the rounds; warmup: auto; points with mostly invalid
# samples fail.  On the `series` and `ok_fixed` fixture probes, whose values
# are scripted from the sample index and the seed.  No wall-clock asserts.

load helpers

setup() { OUT="$BATS_TEST_TMPDIR/out"; D="$BATS_TEST_TMPDIR"; }

r() { echo "$OUT/$1/results/$2.json"; }

# spec NAME PROBE-AND-PARAMS-LINES...: a spec file in $D
spec() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$D/$name.yaml"
}

@test "every point has its rounds, each sample its round; with 3 rounds their median and their range at 75 %" {
	spec st 'probe: series' 'params: {shape: stationary, noise: 0.05}' 'rounds: 3' \
		'repetitions: 30' 'iterations: 1' 'warmup: 1'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 5 "$D/st.yaml"
	[ "$status" -eq 0 ]
	f=$(r a st)
	[ "$(json "$f" '[x["round"] for x in d["points"][0]["rounds"]]')" = "[0, 1, 2]" ]
	[ "$(json "$f" '[x["n"] for x in d["points"][0]["rounds"]]')" = "[10, 10, 10]" ]
	[ "$(json "$f" 'sorted(set(s["round"] for s in d["points"][0]["samples"]))')" = "[0, 1, 2]" ]
	[ "$(json "$f" 'all(set(x) >= {"round","estimate","n","n_invalid","started_s","cpu","warmup_taken","warmup_reason"} for x in d["points"][0]["rounds"])')" = true ]
	[ "$(json "$f" 'd["points"][0]["ci_method"]')" = median_rounds ]
	# estimate = median of the round estimates, CI = their range, which holds
	# the median with probability 1 - 2 / 2^3 (never a t-interval: 2.5x wider)
	[ "$(json "$f" '(lambda p, e: abs(p["estimate"] - sorted(e)[1]) < 1e-9)(d["points"][0], [x["estimate"] for x in d["points"][0]["rounds"]])')" = true ]
	[ "$(json "$f" '(lambda p, e: p["ci"] == [min(e), max(e)])(d["points"][0], [x["estimate"] for x in d["points"][0]["rounds"]])')" = true ]
	[ "$(json "$f" 'd["points"][0]["ci_level"]')" = 0.75 ]
	# each round's estimate is the median of its own samples
	[ "$(json "$f" '(lambda p: all(abs(sorted(s["value"] for s in p["samples"] if s["round"] == k and not s["warmup"])[4:6][0] / 2 + sorted(s["value"] for s in p["samples"] if s["round"] == k and not s["warmup"])[4:6][1] / 2 - p["rounds"][k]["estimate"]) < 1e-6 for k in range(3)))(d["points"][0])')" = true ]
}

@test "with 5 or more rounds: their median, an order-statistic interval, its coverage in ci_level" {
	spec st 'probe: series' 'params: {shape: stationary, noise: 0.05}' 'rounds: 5' \
		'repetitions: 45' 'iterations: 1' 'warmup: 1'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 5 "$D/st.yaml"
	[ "$status" -eq 0 ]
	f=$(r a st)
	[ "$(json "$f" 'd["points"][0]["ci_method"]')" = median_rounds ]
	[ "$(json "$f" 'd["points"][0]["ci_level"]')" = 0.9375 ]
	[ "$(json "$f" '(lambda p, e: p["estimate"] == e[2] and p["ci"] == [e[0], e[4]])(d["points"][0], sorted(x["estimate"] for x in d["points"][0]["rounds"]))')" = true ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id b --seed 5 --set 'st.rounds=9' "$D/st.yaml"
	[ "$status" -eq 0 ]
	f=$(r b st)
	# nine rounds: [x(2), x(8)] covers 1 - 2 * 10/512
	[ "$(json "$f" 'round(d["points"][0]["ci_level"], 6)')" = 0.960938 ]
	[ "$(json "$f" '(lambda p, e: p["estimate"] == e[4] and p["ci"] == [e[1], e[7]])(d["points"][0], sorted(x["estimate"] for x in d["points"][0]["rounds"]))')" = true ]
}

@test "a round in a host episode is named and does not move the estimate" {
	# series/episode: each round (a process) is at 2x with probability 1/5;
	# seed 7 gives one such round of five, seed 4 two: the median stays with
	# the other rounds and the interval reaches the far ones.
	spec ep 'probe: series' 'params: {shape: episode, noise: 0.01, step: 1}' 'rounds: 5' \
		'repetitions: 20' 'iterations: 1' 'warmup: 1'
	for seed in 4 7; do
		run "$RUNNER" --no-report -q -o "$OUT" --run-id "s$seed" --seed "$seed" "$D/ep.yaml"
		[ "$status" -eq 0 ]
		f=$(r "s$seed" ep)
		far=$(json "$f" 'sum(x["estimate"] > 150 for x in d["points"][0]["rounds"])')
		[ "$far" -ge 1 ]
		[ "$far" -le 2 ]
		[ "$(json "$f" 'abs(d["points"][0]["estimate"] - 100) < 2')" = true ]
		[ "$(json "$f" 'd["points"][0]["ci"][1] > 150')" = true ]
		json "$f" '[s["message"] for s in d["points"][0]["sanity"] if s["flag"] == "outlying_rounds"][0]' |
			grep -q "^$far of 5 rounds far from the others"
	done
	# a stationary series names no round
	spec st 'probe: series' 'params: {shape: stationary, noise: 0.05}' 'rounds: 5' \
		'repetitions: 20' 'iterations: 1' 'warmup: 1'
	for seed in 1 2 3 4 5 6; do
		run "$RUNNER" --no-report -q -o "$OUT" --run-id "st$seed" --seed "$seed" "$D/st.yaml"
		[ "$(json "$(r "st$seed" st)" '[s["flag"] for s in d["points"][0]["sanity"] if s["flag"] == "outlying_rounds"]')" = "[]" ]
	done
}

@test "rounds are interleaved: round r of every point of every experiment before round r+1" {
	spec base 'probe: ok_fixed' 'params: {base: 30, noise: 0.01}' 'rounds: 3' 'repetitions: 3' \
		'iterations: 1000' 'warmup: 0'
	spec minus 'probe: ok_fixed' 'params: {base: [100, 200], noise: 0.01}' 'rounds: 3' \
		'repetitions: 3' 'iterations: 1000' 'warmup: 0' 'subtract: [base]'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id i "$D/minus.yaml"
	[ "$status" -eq 0 ]
	python3 - "$(r i base)" "$(r i minus)" <<-'PY'
	import json, sys
	starts = []   # (started_s, round, experiment order, point)
	for order, f in enumerate(sys.argv[1:]):
	    for p in json.load(open(f))["points"]:
	        for x in p["rounds"]:
	            starts.append((x["started_s"], x["round"], order, p["index"]))
	starts.sort()
	assert len(starts) == 9, starts
	# in time order: rounds ascending, and within a round base before minus
	assert [s[1:] for s in starts] == sorted(s[1:] for s in starts), starts
	PY
}

@test "subtraction pairs the rounds (same_round), or propagates the CI when it cannot" {
	spec base 'probe: ok_fixed' 'params: {base: 30, noise: 0.01}' 'rounds: 3' 'repetitions: 9' \
		'iterations: 1000' 'warmup: 0'
	spec minus 'probe: ok_fixed' 'params: {base: 100, noise: 0.01}' 'rounds: 3' \
		'repetitions: 9' 'iterations: 1000' 'warmup: 0' 'subtract: [base]'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id s "$D/minus.yaml"
	[ "$status" -eq 0 ]
	f=$(r s minus)
	[ "$(json "$f" 'd["points"][0]["subtracted"][0]["method"]')" = same_round ]
	# round k: its raw estimate minus base's round k
	[ "$(json "$f" '(lambda b: all(abs(x["estimate_raw"] - b[x["round"]]["estimate"] - x["estimate"]) < 1e-6 for x in d["points"][0]["rounds"]))(json.load(open(sys.argv[1].replace("minus", "base")))["points"][0]["rounds"])')" = true ]
	# a dependency with one round cannot pair: its estimate is subtracted and its CI propagated
	run "$RUNNER" --no-report -q -o "$OUT" --run-id p --set base.rounds=1 "$D/minus.yaml" "$D/base.yaml"
	[ "$status" -eq 0 ]
	f=$(r p minus)
	[ "$(json "$f" 'd["points"][0]["subtracted"][0]["method"]')" = propagated ]
	[ "$(json "$f" 'd["points"][0]["subtracted"][0]["ci_half_width"] > 0')" = true ]
}

@test "warmup: auto stops at a steady state, or at its cap on a drift; a number is exact" {
	spec st 'probe: series' 'params: {shape: stationary}' 'rounds: 2' 'repetitions: 16' 'iterations: 1'
	spec dr 'probe: series' 'params: {shape: drift, step: 0.5, at: 20}' 'rounds: 2' \
		'repetitions: 16' 'iterations: 1'
	spec fx 'probe: series' 'params: {shape: stationary}' 'rounds: 2' 'repetitions: 16' \
		'iterations: 1' 'warmup: 3'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id w --seed 2 "$D/st.yaml" "$D/dr.yaml" "$D/fx.yaml"
	[ "$(json "$(r w st)" '[x["warmup_reason"] for x in d["points"][0]["rounds"]]')" = '["steady", "steady"]' ]
	[ "$(json "$(r w st)" 'all(x["warmup_taken"] >= 1 for x in d["points"][0]["rounds"])')" = true ]
	[ "$(json "$(r w dr)" '[x["warmup_reason"] for x in d["points"][0]["rounds"]]')" = '["cap_count", "cap_count"]' ]
	[ "$(json "$(r w dr)" '"warmup_capped" in [s["flag"] for s in d["points"][0]["sanity"]]')" = true ]
	[ "$(json "$(r w fx)" '[(x["warmup_taken"], x["warmup_reason"]) for x in d["points"][0]["rounds"]]')" = '[[3, "fixed"], [3, "fixed"]]' ]
	[ "$(json "$(r w fx)" 'sum(s["warmup"] for s in d["points"][0]["samples"])')" = 6 ]
	# the warmups are the samples marked so, in every round
	[ "$(json "$(r w st)" 'sum(x["warmup_taken"] for x in d["points"][0]["rounds"]) == sum(s["warmup"] for s in d["points"][0]["samples"])')" = true ]
}

@test "a point with mostly invalid samples fails: no number, the summary says so, exit 1" {
	spec inv 'probe: series' 'params: {shape: invalid}' 'rounds: 3' 'repetitions: 30' \
		'iterations: 1' 'warmup: 0'
	spec ok 'probe: series' 'params: {shape: stationary}' 'rounds: 3' 'repetitions: 9' \
		'iterations: 1' 'warmup: 0'
	run "$RUNNER" --no-report -o "$OUT" --run-id v --seed 3 "$D/ok.yaml" "$D/inv.yaml"
	[ "$status" -eq 1 ]
	f=$(r v inv)
	[ "$(json "$f" 'd["points"][0]["status"]')" = failed ]
	[[ "$(json "$f" 'd["points"][0]["reason"]')" == *" samples invalid (more than 50 %)" ]]
	[ "$(json "$f" 'd["points"][0]["estimate"]')" = null ]
	[ "$(json "$f" 'd["points"][0]["ci"]')" = null ]
	[ "$(json "$f" 'd["status"]')" = failed ]
	[ "$(json "$(r v ok)" 'd["status"]')" = ok ]
	[[ "$output" == *"inv "*"failed"*"samples invalid"* ]]
	[[ "$output" != *"inv "*" ns ["* ]]
	# the report shows no number for it
	run "$RUNNER" report "$OUT/v"
	grep -q 'inv' "$OUT/v/report.md"
	! grep -E '^\| ns \| [^|]* \| [0-9]' <(sed -n '/^### inv/,/^### /p' "$OUT/v/report.md") || false
}

@test "a negative duration is an invalid sample, never used" {
	spec neg 'probe: series' 'params: {shape: negative}' 'rounds: 2' 'repetitions: 20' \
		'iterations: 1' 'warmup: 0'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id n "$D/neg.yaml"
	[ "$status" -eq 0 ]
	f=$(r n neg)
	[ "$(json "$f" 'd["points"][0]["n_invalid"]')" = 4 ]
	[ "$(json "$f" 'all(not s["valid"] for s in d["points"][0]["samples"] if s["value"] < 0)')" = true ]
	[[ "$(json "$f" '[s["note"] for s in d["points"][0]["samples"] if s["value"] < 0][0]')" == "negative duration"* ]]
	[ "$(json "$f" 'd["points"][0]["estimate"] > 0')" = true ]
}

@test "--quick is one round of 3 samples; repetitions are split over the rounds in total" {
	spec q 'probe: ok_fixed' 'repetitions: 20' 'iterations: 1000'
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id q "$D/q.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$(r q q)" '[x["n"] for x in d["points"][0]["rounds"]]')" = "[3]" ]
	[ "$(json "$(r q q)" 'd["points"][0]["ci_method"]')" = bootstrap ]
	spec t 'probe: ok_fixed' 'repetitions: 11' 'rounds: 3' 'iterations: 1000' 'warmup: 1'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t "$D/t.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$(r t t)" '[x["n"] for x in d["points"][0]["rounds"]]')" = "[4, 4, 3]" ]
}

# --- adaptive rounds (issue 22): rounds: {min, max, target, budget} -------
# The canary is scripted (SYSMETER_CANARY_MS) so that the host's real drift
# cannot add rounds: a steady 3 ms, or one slow timing where the test wants
# the host to have changed speed.

@test "adaptive rounds: a quiet point stops at min, a noisy one goes to max; the result records it" {
	spec ad 'probe: series' 'params: {shape: stationary, noise: [0.001, 0.5]}' \
		'rounds: {min: 3, max: 7, target: 5%, budget: 60s}' 'repetitions: 6' 'iterations: 1' \
		'warmup: 1'
	SYSMETER_CANARY_MS=3 run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 5 "$D/ad.yaml"
	[ "$status" -eq 0 ]
	f=$(r a ad)
	[ "$(json "$f" '[p["n_rounds"] for p in d["points"]]')" = "[3, 7]" ]
	[ "$(json "$f" '[p["rounds_stopped"] for p in d["points"]]')" = '["target met", "max reached"]' ]
	[ "$(json "$f" '[p["rounds_rel_half_width"] <= 0.05 for p in d["points"]]')" = "[true, false]" ]
	[ "$(json "$f" '{k: d["rounds"][k] for k in ("adaptive", "min", "max", "target", "budget_s", "run", "stopped", "points")}')" = \
	  '{"adaptive": true, "min": 3, "max": 7, "target": 0.05, "budget_s": 60.0, "run": 7, "stopped": "max reached", "points": {"target met": 1, "max reached": 1}}' ]
	# every extra round of the noisy point keeps the share of samples of the first ones
	[ "$(json "$f" '[x["n"] for x in d["points"][1]["rounds"]]')" = "[2, 2, 2, 2, 2, 2, 2]" ]
	# the point's CI is the order-statistic interval over all 7 rounds
	[ "$(json "$f" '(lambda p, e: p["ci_method"] == "median_rounds" and p["ci"] == [e[0], e[6]])(d["points"][1], sorted(x["estimate"] for x in d["points"][1]["rounds"]))')" = true ]
	# a fixed spec says so
	spec fx 'probe: series' 'params: {shape: stationary, noise: 0.5}' 'rounds: 3' 'repetitions: 6' \
		'iterations: 1' 'warmup: 1'
	SYSMETER_CANARY_MS=3 run "$RUNNER" --no-report -q -o "$OUT" --run-id b --seed 5 "$D/fx.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$(r b fx)" '(d["rounds"]["adaptive"], d["rounds"]["run"], d["rounds"]["stopped"], "rounds_stopped" in d["points"][0])')" = "(False, 3, 'fixed', False)" ]
}

@test "adaptive rounds: the budget stops extra rounds; the report says what was decided" {
	spec bu 'probe: series' 'params: {shape: stationary, noise: 0.5}' \
		'rounds: {min: 3, max: 7, target: 5%, budget: 1ms}' 'repetitions: 6' 'iterations: 1' \
		'warmup: 1'
	SYSMETER_CANARY_MS=3 run "$RUNNER" -q -o "$OUT" --run-id a --seed 5 "$D/bu.yaml"
	[ "$status" -eq 0 ]
	f=$(r a bu)
	[ "$(json "$f" '(d["points"][0]["n_rounds"], d["points"][0]["rounds_stopped"], d["rounds"]["stopped"])')" = "(3, 'budget', 'budget')" ]
	grep -q "in 3 to 7 rounds (.*adaptive: after 3 rounds a point took more while that CI reached further than 5 % of the estimate either side.*within 0.001 s of extra rounds; the points took 3: 1 stopped at the budget)" "$OUT/a/report.md"
}

@test "adaptive rounds: a pass the drift check flags buys a point more rounds" {
	spec dq 'probe: series' 'params: {shape: stationary, noise: 0.001}' \
		'rounds: {min: 3, max: 7, target: 5%, budget: 60s}' 'repetitions: 6' 'iterations: 1' \
		'warmup: 1'
	spec df 'probe: series' 'params: {shape: stationary, noise: 0.001}' 'rounds: 3' \
		'repetitions: 6' 'iterations: 1' 'warmup: 1'
	# steady: 3 rounds
	SYSMETER_CANARY_MS=3 run "$RUNNER" --no-report -q -o "$OUT" --run-id s --seed 5 "$D/dq.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$(r s dq)" 'd["points"][0]["n_rounds"]')" = 3 ]
	# the timing before pass 3 is slow: passes 2 and 3 drifted, so the point
	# needs two more rounds for 3 clean ones (rounds 0, 1, 4)
	SYSMETER_CANARY_MS=3,3,3,6,3 run "$RUNNER" --no-report -q -o "$OUT" --run-id d --seed 5 \
		"$D/dq.yaml" "$D/df.yaml"
	[ "$status" -eq 0 ]
	f=$(r d dq)
	[ "$(json "$f" '(d["points"][0]["n_rounds"], d["points"][0]["rounds_stopped"])')" = "(5, 'target met')" ]
	[ "$(json "$f" '[s["flag"] for s in d["points"][0]["sanity"] if s["flag"] == "host_drift"]')" = '["host_drift"]' ]
	[ "$(json "$OUT/d/manifest.json" 'd["drift"]["drifted_rounds"]')" = "[2, 3]" ]
	[[ "$(json "$OUT/d/manifest.json" 'd["drift"]["canary"]["work"]')" == "scripted by SYSMETER_CANARY_MS"* ]]
	# a fixed experiment beside it keeps its rounds
	[ "$(json "$(r d df)" '(d["points"][0]["n_rounds"], d["rounds"]["stopped"])')" = "(3, 'fixed')" ]
}

@test "every point has a rerun interval: its estimate +- t(k-1) s sqrt(pi/k) on the log scale, wider than the CI" {
	spec st 'probe: series' 'params: {shape: stationary, noise: 0.05}' 'rounds: 5' \
		'repetitions: 45' 'iterations: 1' 'warmup: 1'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 5 "$D/st.yaml"
	[ "$status" -eq 0 ]
	f=$(r a st)
	[ "$(json "$f" 'd["points"][0]["rerun"]["method"]')" = rerun_rounds ]
	[ "$(json "$f" 'd["points"][0]["rerun"]["level"]')" = 0.95 ]
	[ "$(json "$f" 'd["points"][0]["rerun"]["between_run"]')" = null ]
	# t(0.975, 4) = 2.776445; the sd of the rounds' logs; two medians of 5: 2 (pi/2) / 5
	[ "$(json "$f" '(lambda p, l: (lambda m: abs(__import__("math").log(p["rerun"]["interval"][1] / p["estimate"]) - 2.7764451 * (sum((x - m) ** 2 for x in l) / 4) ** 0.5 * (__import__("math").pi / 5) ** 0.5) < 1e-6)(sum(l) / 5))(d["points"][0], [__import__("math").log(x["estimate"]) for x in d["points"][0]["rounds"]])')" = true ]
	[ "$(json "$f" '(lambda p: p["rerun"]["interval"][0] < p["ci"][0] and p["rerun"]["interval"][1] > p["ci"][1])(d["points"][0])')" = true ]
}

@test "with earlier runs in the store, the rerun interval takes in how far whole runs moved on this machine" {
	spec st 'probe: series' 'params: {shape: stationary, noise: 0.005}' 'rounds: 5' \
		'repetitions: 25' 'iterations: 1' 'warmup: 1'
	# four earlier runs, each at its own level (sd of the logs about 8 %)
	for s in 1.0:h1 1.1:h2 0.9:h3 1.05:h4; do
		SYSMETER_FIXTURE_SCALE=${s%%:*} run "$RUNNER" --no-report -q -o "$OUT" --run-id "${s#*:}" \
			--seed 5 "$D/st.yaml"
		[ "$status" -eq 0 ]
	done
	# the first runs had fewer than three before them: the rounds only
	[ "$(json "$(r h3 st)" 'd["points"][0]["rerun"]["method"]')" = rerun_rounds ]
	[ "$(json "$(r h4 st)" 'd["points"][0]["rerun"]["between_run"]["runs"]')" = 3 ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id now --seed 5 "$D/st.yaml"
	[ "$status" -eq 0 ]
	f=$(r now st)
	[ "$(json "$f" 'd["points"][0]["rerun"]["method"]')" = rerun_rounds_history ]
	[ "$(json "$f" 'd["points"][0]["rerun"]["between_run"]["runs"]')" = 4 ]
	# tau about the runs' spread (0.08), far above the rounds' own (0.005)
	[ "$(json "$f" '0.04 < d["points"][0]["rerun"]["between_run"]["tau"] < 0.15')" = true ]
	# the interval now reaches the earlier runs' levels; without the store it would not
	[ "$(json "$f" '(lambda iv: iv[0] < 92 and iv[1] > 108)(d["points"][0]["rerun"]["interval"])')" = true ]
	run "$RUNNER" --no-report --no-store -q -o "$OUT" --run-id alone --seed 5 "$D/st.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$(r alone st)" '(lambda p: p["rerun"]["between_run"] is None and p["rerun"]["interval"][1] < 103)(d["points"][0])')" = true ]
}

@test "the between-run spread is taken since the history's last change point, not across it" {
	spec st 'probe: series' 'params: {shape: stationary, noise: 0.005}' 'rounds: 5' \
		'repetitions: 25' 'iterations: 1' 'warmup: 1'
	# four runs at one level, then a step of 30 % (a new kernel, say) and three at the new one
	for s in 1.0:a1 1.01:a2 0.99:a3 1.0:a4 1.3:b1 1.31:b2 1.29:b3; do
		SYSMETER_FIXTURE_SCALE=${s%%:*} run "$RUNNER" --no-report -q -o "$OUT" --run-id "${s#*:}" \
			--seed 5 "$D/st.yaml"
		[ "$status" -eq 0 ]
	done
	SYSMETER_FIXTURE_SCALE=1.3 run "$RUNNER" --no-report -q -o "$OUT" --run-id now --seed 5 "$D/st.yaml"
	[ "$status" -eq 0 ]
	f=$(r now st)
	[ "$(json "$f" 'd["points"][0]["rerun"]["between_run"]["runs"]')" = 3 ]
	[ "$(json "$f" 'd["points"][0]["rerun"]["between_run"]["tau"] < 0.03')" = true ]
}

# --- a whole run against the machine's earlier runs (drift.history) -------
# The canary is scripted, one level per run (its core clock then is not
# measured): what a host that ran a whole run faster or slower looks like.

# runs_at MS:ID...: one quiet run of $D/lv.yaml per pair, its canary at MS
runs_at() {
	local s
	for s in "$@"; do
		SYSMETER_CANARY_MS=${s%%:*} run "$RUNNER" --no-report -q -o "$OUT" --run-id "${s#*:}" "$D/lv.yaml"
		[ "$status" -eq 0 ]
	done
}

@test "a whole run at another speed than this machine's earlier runs is named: manifest, summary line, report" {
	spec lv 'probe: ok_fixed' 'rounds: 3' 'repetitions: 6' 'iterations: 10' 'warmup: 1'
	# the first two have too few runs before them to compare with
	runs_at 3.0:a1 3.1:a2
	[ "$(json "$OUT/a1/manifest.json" '(d["drift"]["history"]["verdict"], d["drift"]["history"]["runs"])')" = "('too few runs', 0)" ]
	[ "$(json "$OUT/a2/manifest.json" 'd["drift"]["history"]["verdict"]')" = "too few runs" ]
	# the third is compared with the median of the three: 3 ms over 1024 links
	SYSMETER_CANARY_MS=2.9 run "$RUNNER" --no-report -q -o "$OUT" --run-id a3 "$D/lv.yaml"
	[ "$(json "$OUT/a3/manifest.json" '(lambda h: (h["verdict"], h["runs"], round(h["reference"]["canary_ns"], 3), h["core_ratio"], h["earlier_off"]))(d["drift"]["history"])')" = "('same level', 2, 2929.688, None, [])" ]
	# a run 30 % slower: steady inside, but not against the others
	SYSMETER_CANARY_MS=4 run "$RUNNER" -o "$OUT" --run-id slow "$D/lv.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/slow/manifest.json" '(d["drift"]["verdict"], d["drift"]["history"]["verdict"], d["drift"]["history"]["runs"])')" = "('steady', 'shifted', 3)" ]
	[ "$(json "$OUT/slow/manifest.json" 'round(d["drift"]["history"]["canary_ratio"], 3)')" = 1.311 ]
	[[ "$output" == *"(host)               shifted     this whole run ran at another speed than this machine's 3 earlier runs (canary 1.31x the median of their levels and its own, threshold 10 %): compare it with them with care"* ]]
	grep -q "This whole run ran at another speed than the 3 earlier runs on this machine (canary 1.31x the median of their levels and its own; threshold 10 %)" "$OUT/slow/report.md"
	grep -q "Against 3 earlier runs on this machine: another speed (canary 1.31x their median)" "$OUT/slow/report.md"
	# the store keeps each run's level for the runs after it
	[ "$(python3 -c 'import sqlite3, sys; print([round(r[0], 1) for r in sqlite3.connect(sys.argv[1]).execute("SELECT canary_ns FROM runs ORDER BY started")])' "$OUT/sysmeter.db")" = "[2929.7, 3027.3, 2832.0, 3906.2]" ]
	# without a store: not compared, and why
	SYSMETER_CANARY_MS=4 run "$RUNNER" --no-report --no-store -q -o "$OUT" --run-id alone "$D/lv.yaml"
	[ "$(json "$OUT/alone/manifest.json" '(d["drift"]["history"]["verdict"], d["drift"]["history"]["why"])')" = "('not compared', 'no results store (--no-store)')" ]
}

@test "a whole run whose cross-CPU wake-up moved while its CPU canary held is named; the wake-up's band is 15 %" {
	spec lv 'probe: ok_fixed' 'rounds: 3' 'repetitions: 6' 'iterations: 10' 'warmup: 1'
	for s in 40:w1 41:w2 39:w3; do
		SYSMETER_CANARY_MS=3 SYSMETER_WAKE_US=${s%%:*} run "$RUNNER" --no-report -q -o "$OUT" --run-id "${s#*:}" "$D/lv.yaml"
		[ "$status" -eq 0 ]
	done
	[ "$(json "$OUT/w3/manifest.json" '(lambda h: (h["verdict"], h["reference"]["wake_us"], h["wake_ratio"], h["canary_ratio"]))(d["drift"]["history"])')" = "('same level', 40.0, 0.975, 1.0)" ]
	# 1.11x the median: beyond the canary's 10 %, within the wake-up's 15 %
	SYSMETER_CANARY_MS=3 SYSMETER_WAKE_US=45 run "$RUNNER" --no-report -q -o "$OUT" --run-id w4 "$D/lv.yaml"
	[ "$(json "$OUT/w4/manifest.json" '(lambda h: (h["verdict"], round(h["wake_ratio"], 3)))(d["drift"]["history"])')" = "('same level', 1.111)" ]
	# 1.27x: the host's state moved, the CPU did not
	SYSMETER_CANARY_MS=3 SYSMETER_WAKE_US=52 run "$RUNNER" -o "$OUT" --run-id w5 "$D/lv.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/w5/manifest.json" '(lambda h: (h["verdict"], round(h["wake_ratio"], 3), h["canary_ratio"]))(d["drift"]["history"])')" = "('shifted', 1.268, 1.0)" ]
	[[ "$output" == *"(host)               shifted     this whole run ran at another speed than this machine's 4 earlier runs (canary 1.00x, cross-CPU wake-up 1.27x the median of their levels and its own, threshold 10 %, 15 % for the cross-CPU wake-up): compare it with them with care"* ]]
	grep -q "Against 4 earlier runs on this machine: another speed (canary 1.00x, cross-CPU wake-up 1.27x their median)" "$OUT/w5/report.md"
	[ "$(python3 -c 'import sqlite3, sys; print([r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT wake_us FROM runs ORDER BY started")])' "$OUT/sysmeter.db")" = "[40.0, 41.0, 39.0, 45.0, 52.0]" ]
	[ "$(json "$OUT/w5/manifest.json" '(d["drift"]["wake"]["median_us"], d["drift"]["wake"]["takes"], d["drift"]["timings"][0]["wake_us"])')" = "(52.0, 4, 52.0)" ]
}

@test "a first run at another speed, in a fresh store, is named by the third run" {
	spec lv 'probe: ok_fixed' 'rounds: 3' 'repetitions: 6' 'iterations: 10' 'warmup: 1'
	runs_at 4.0:b1 3.0:b2
	SYSMETER_CANARY_MS=3.05 run "$RUNNER" -o "$OUT" --run-id b3 "$D/lv.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/b3/manifest.json" '(lambda h: (h["verdict"], [e["run"] for e in h["earlier_off"]], round(h["earlier_off"][0]["canary_ratio"], 2)))(d["drift"]["history"])')" = "('same level', ['b1'], 1.31)" ]
	[[ "$output" == *"(host)               shifted     the earlier run b1 ran at another speed than the rest (canary 1.31x the median)"* ]]
	grep -q "Earlier run on this machine ran at another speed than the rest: b1 (canary 1.31x)" "$OUT/b3/report.md"
	grep -q "Against 2 earlier runs on this machine: the same speed (canary 1.00x their median)" "$OUT/b3/report.md"
}
