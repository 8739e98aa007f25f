#!/usr/bin/env bats
# 436-predict-final: a prediction built on another experiment's result
# (@name) is made from that experiment's final estimate, the one its table
# prints, even when rounds interleave and the model's own experiment ends
# first (issue 35 item 11: an NFS row predicted from a round trip the
# report did not print).

load helpers

@test "predict: a model reading @b, ended before b's last round, is made again from b's final estimate" {
	d="$BATS_TEST_TMPDIR/specs"
	mkdir -p "$d"
	# b: five rounds whose levels differ (seeded episodes); a: one round, its model is b
	printf '%s\n' 'probe: series' 'params: {shape: episode, base: 100, noise: 0.01, step: 10}' \
		'rounds: 5' 'repetitions: 3' 'warmup: 0' 'iterations: 1' >"$d/b.yaml"
	printf '%s\n' 'probe: ok_fixed' 'params: {base: 100, noise: 0.01}' 'rounds: 1' \
		'repetitions: 5' 'warmup: 0' 'iterations: 10' 'predict:' '  - hw: "@b"' '    sw: "0ns"' \
		>"$d/a.yaml"
	for seed in 2 4; do
		run "$RUNNER" --seed "$seed" --no-report -q -o "$BATS_TEST_TMPDIR/out" --run-id "s$seed" \
			"$d/b.yaml" "$d/a.yaml"
		echo "$output"
		[ "$status" -eq 0 ]
		R="$BATS_TEST_TMPDIR/out/s$seed/results"
		python3 - "$R" <<-'PY'
		import json, sys
		r = sys.argv[1]
		b = json.load(open(r + "/b.json"))["points"][0]
		a = json.load(open(r + "/a.json"))["points"][0]["prediction"]
		rounds = [x["estimate"] for x in b["rounds"]]
		print("b", b["estimate"], rounds, "a predicted", a["value"], a["missing"])
		assert a["missing"] is None, a["missing"]
		assert abs(a["value"] - b["estimate"]) <= 1e-9 * b["estimate"], (a["value"], b["estimate"])
		PY
	done
}
