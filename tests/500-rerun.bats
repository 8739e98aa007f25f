#!/usr/bin/env bats
# Reruns and comparisons of saved runs.

load helpers

setup() { OUT="$BATS_TEST_TMPDIR/out"; }

@test "rerun re-executes with the same seed and options into a new folder naming its origin" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 7 --set null.repetitions=3 \
		tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	run "$RUNNER" rerun --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/b/manifest.json" 'd["seed"]')" = 7 ]
	[ "$(json "$OUT/b/manifest.json" 'd["origin"]["run_id"]')" = a ]
	[ "$(json "$OUT/b/manifest.json" 'd["options"]["set"]')" = '["null.repetitions=3"]' ]
	[ "$(json "$OUT/b/results/null.json" 'len(d["points"][0]["samples"])')" = 4 ]
	[ "$(json "$OUT/a/manifest.json" 'd["experiments"][0]["spec_sha256"]')" = \
	  "$(json "$OUT/b/manifest.json" 'd["experiments"][0]["spec_sha256"]')" ]
}

@test "rerun refuses a changed probe unless --force, and says what changed" {
	pd="$BATS_TEST_TMPDIR/probes"
	mkdir -p "$pd"
	cp "$BUILD/probes/null.so" "$pd/"
	run "$RUNNER" --probe-dir "$pd" --no-report -q -o "$OUT" --run-id a tests/fixtures/specs/cli/null.yaml
	[ "$status" -eq 0 ]
	printf 'x' >> "$pd/null.so"     # still loads, different sha256
	run "$RUNNER" rerun --probe-dir "$pd" --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"probe 'null' changed: sha256"* ]]
	[ ! -e "$OUT/b" ]
	run "$RUNNER" rerun --force --probe-dir "$pd" --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 0 ]
	[[ "$(json "$OUT/b/manifest.json" 'd["origin"]["changes"][0]')" == *"probe 'null' changed"* ]]
}

@test "rerun of a folder without a manifest is bad usage" {
	run "$RUNNER" rerun "$BATS_TEST_TMPDIR/nothing"
	[ "$status" -eq 2 ]
	[[ "$output" == *"manifest.json"* ]]
}

# scale_run SRC DST FACTOR: a copy of run SRC whose every sample and
# estimate is FACTOR times the original (a run that differs by a known factor)
scale_run() {
	cp -R "$1" "$2"
	python3 - "$2" "$3" <<-'PY'
	import glob, json, sys
	f = float(sys.argv[2])
	for path in glob.glob(sys.argv[1] + "/results/*.json"):
	    d = json.load(open(path))
	    for p in d["points"]:
	        for s in p["samples"]:
	            s["value"] *= f
	        p["estimate"] *= f
	    json.dump(d, open(path, "w"))
	PY
}

# rows OUTPUT: the compare table without its header, one line per point,
# fields separated by '|': experiment|point|A|B|B/A|p(Welch)|p(MW)|verdict
rows() {
	printf '%s\n' "$1" | sed -n '2,$p' | sed -E \
		's/^([^ ]+) +(.*[^ ]) +([^ ]+ ns) +([^ ]+ ns) +([^ ]+) +([^ ]+) +([^ ]+)  (.*)$/\1|\2|\3|\4|\5|\6|\7|\8/'
}

@test "compare of a run with itself: every point, ratio 1, p = 1, nothing significant" {
	S=tests/fixtures/specs/stats
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 1 "$S/fixed.yaml" "$S/sweep.yaml"
	[ "$status" -eq 0 ]
	run "$RUNNER" compare "$OUT/a" "$OUT/a"
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${lines[0]}" = "$(printf '%-18s %-28s %12s %12s %8s %9s %9s  %s' experiment point A B B/A 'p(Welch)' 'p(MW)' verdict)" ]
	r=$(rows "$output")
	# one row per point of both experiments, in run order
	[ "$(cut -d'|' -f1,2 <<<"$r")" = "fixed|base=100 noise=0.01
sweep|base=10 noise=0
sweep|base=10 noise=0.01
sweep|base=20 noise=0
sweep|base=20 noise=0.01
sweep|base=30 noise=0
sweep|base=30 noise=0.01
sweep|base=40 noise=0
sweep|base=40 noise=0.01" ]
	# A and B are the same estimate, the ratio 1, no difference
	[ -z "$(awk -F'|' '$3 != $4 || $5 != "1.000" || $6 != "1" || $7 != "1" || $8 != "no significant difference"' <<<"$r")" ]
	# the estimates are the ones in the results
	[ "$(cut -d'|' -f3 <<<"$r" | sed -n 3p)" = "$(json "$OUT/a/results/sweep.json" '"%.4g ns" % d["points"][1]["estimate"]')" ]
}

@test "compare of runs differing by a known factor: the ratio, and a significant verdict its way" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 1 tests/fixtures/specs/stats/fixed.yaml
	[ "$status" -eq 0 ]
	scale_run "$OUT/a" "$OUT/x2" 2
	scale_run "$OUT/a" "$OUT/half" 0.5
	run "$RUNNER" compare "$OUT/a" "$OUT/x2"
	[ "$status" -eq 0 ]
	echo "$output"
	r=$(rows "$output")
	[ "$(wc -l <<<"$r")" -eq 1 ]
	IFS='|' read -r e pt a b ratio pw pmw verdict <<<"$r"
	[ "$e|$pt" = "fixed|base=100 noise=0.01" ]
	[ "$a" = "$(json "$OUT/a/results/fixed.json" '"%.4g ns" % d["points"][0]["estimate"]')" ]
	[ "$b" = "$(json "$OUT/a/results/fixed.json" '"%.4g ns" % (2 * d["points"][0]["estimate"])')" ]
	[ "$ratio" = 2.000 ]
	# 20 samples each, 1 % noise, twice as slow: both tests are sure
	python3 -c "import sys; assert float('$pw') < 1e-6 and float('$pmw') < 1e-6, ('$pw', '$pmw')"
	[ "$verdict" = "B higher (p<0.05)" ]
	run "$RUNNER" compare "$OUT/a" "$OUT/half"
	[ "$status" -eq 0 ]
	IFS='|' read -r e pt a b ratio pw pmw verdict <<<"$(rows "$output")"
	[ "$ratio" = 0.500 ]
	[ "$verdict" = "B lower (p<0.05)" ]
}

@test "compare of runs with no point in common says so (exit 1); a missing run is bad usage" {
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 1 tests/fixtures/specs/cli/null.yaml
	"$RUNNER" --no-report -q -o "$OUT" --run-id b --seed 1 tests/fixtures/specs/stats/fixed.yaml
	run "$RUNNER" compare "$OUT/a" "$OUT/b"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: compare: the two runs have no point in common"* ]]
	run "$RUNNER" compare "$OUT/a" "$BATS_TEST_TMPDIR/nothing"
	[ "$status" -eq 2 ]
	[[ "$output" == *"manifest.json"* ]]
}

@test "rerun loads the probes from where the run found them (a --probe-dir probe needs no option)" {
	run env -u SYSMETER_PROBE_DIR "$RUNNER" --probe-dir "$FIXTURE_DIR" --no-report -q -o "$OUT" \
		--run-id a tests/fixtures/specs/stats/fixed.yaml
	[ "$status" -eq 0 ]
	path=$(json "$OUT/a/manifest.json" 'd["experiments"][0]["probe"]["path"]')
	[ "$path" = "$(realpath "$FIXTURE_DIR")/ok_fixed.so" ]
	cd "$BATS_TEST_TMPDIR"		# and from another directory
	run env -u SYSMETER_PROBE_DIR "$RUNNER" rerun --no-report -q -o "$OUT" --run-id b "$OUT/a"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/b/manifest.json" 'd["experiments"][0]["probe"]["path"]')" = "$path" ]
	[ "$(json "$OUT/b/results/fixed.json" 'd["status"]')" = ok ]
}
