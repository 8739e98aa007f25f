#!/usr/bin/env bats
# runner history: one experiment's figures over the runs of the results
# store, with change points (docs/cli.md, docs/methodology.md "History and
# change points").  The runs are of the ok_fixed fixture probe, whose values
# are its parameters' (base, a relative noise) and the run's seed: a step is
# made on purpose with --set, nothing real is measured.  Nothing here
# asserts a time.

load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	SPEC="$BATS_TEST_TMPDIR/fx.yaml"
	cat >"$SPEC" <<-'YAML'
	probe: ok_fixed
	title: history fixture
	params:
	  base: 100
	  noise: [0.001, 0.002]
	repetitions: 20
	rounds: 3
	YAML
	SEED=0
}

# runs BASE ID...: one run per id, the values centred on BASE, each run with
# its own seed (so runs at one level differ a little, as real runs do).  The
# drift check's canary reports $CANARY ms (default 3) instead of timing the
# machine, so that a real host episode cannot explain a step away.
runs() {
	local base=$1 id
	shift
	for id in "$@"; do
		SEED=$((SEED + 1))
		SYSMETER_CANARY_MS=${CANARY:-3} "$RUNNER" "$SPEC" -o "$OUT" --run-id "$id" \
			--seed "$SEED" --no-report -q --set "fx.params.base=$base" ${RUN_ARGS:-} >/dev/null ||
			{ echo "run $id failed"; return 1; }
	done
}

# The line of run ID in the output, and the line before it.
line_of() { grep -n "^  $1 " <<<"$output" | head -1 | cut -d: -f1; }

@test "history: both runs with their intervals, no change point in a flat history" {
	runs 100 b1 b2
	run "$RUNNER" history fx -o "$OUT"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"direction: bigger is slower (the probe's bigger_is_better)"* ]]
	[ "$(grep -c '(2 runs, ns)' <<<"$output")" -eq 2 ]
	grep -q '^  b1 .* \[[0-9.]*, [0-9.]*\]' <<<"$output"
	grep -q '^  b2 .* \[[0-9.]*, [0-9.]*\]' <<<"$output"
	! grep -q 'change point:' <<<"$output" || false
}

@test "history: a 20 % slowdown at the newest run is a change point there, --fail-on regression exits 1" {
	runs 100 b1 b2 b3
	runs 120 s1
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[[ "$output" == *"FAIL"* ]]
	# in both points, the step is marked right above run s1, with its reason
	[ "$(grep -c -- '-- change point: slower from here: .*outside both intervals; step .*> threshold' <<<"$output")" -eq 2 ]
	n=$(line_of s1)
	sed -n "$((n - 1))p" <<<"$output" | grep -q -- '-- change point: slower'
	[[ "$output" == *"newest run: SLOWER than before its last change point"* ]]
	# without the gate: shown, exit 0
	run "$RUNNER" history fx -o "$OUT"
	[ "$status" -eq 0 ]
}

@test "history: a rerun with no change, and a speed-up, pass --fail-on regression" {
	runs 100 b1 b2 b3 b4
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	! grep -q 'change point:' <<<"$output" || false
	runs 80 f1
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c -- '-- change point: faster from here' <<<"$output")" -eq 2 ]
}

@test "history: a slowdown that stays fails the gate until a run is back" {
	runs 100 b1 b2 b3
	runs 120 s1 s2 s3
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	n=$(line_of s1)
	sed -n "$((n - 1))p" <<<"$output" | grep -q -- '-- change point: slower'
	runs 100 r1 r2
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c -- '-- change point: faster from here' <<<"$output")" -eq 2 ]
}

@test "history: runs of one second keep the order they ran in, also when a --set changed their point's key" {
	# The store sorts rows by their point's key (base=100 before base=120)
	# before time; s2 and r1 both start and end in one second, as quick
	# runs do, and r1 ran after s2.
	RUN_ARGS=--no-store runs 100 b1 b2 b3
	RUN_ARGS=--no-store runs 120 s1 s2
	RUN_ARGS=--no-store runs 100 r1 r2
	t=0
	for id in b1 b2 b3 s1 s2 r1 r2; do
		[ "$id" = r1 ] || t=$((t + 10))
		python3 - "$OUT/$id/manifest.json" "$t" <<-'PY'
		import json, sys, time
		p, t = sys.argv[1], 1767225600 + int(sys.argv[2])
		m = json.load(open(p))
		m["started"] = m["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
		json.dump(m, open(p, "w"))
		PY
		"$RUNNER" store import "$OUT/$id" >/dev/null
	done
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c '^  s2   2026-01-01 00:00:50 ' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^  r1   2026-01-01 00:00:50 ' <<<"$output")" -eq 2 ]
	# in both points: s2, the step back, r1
	for n in $(grep -n '^  r1 ' <<<"$output" | cut -d: -f1); do
		sed -n "$((n - 1))p" <<<"$output" | grep -q -- '-- change point: faster from here' ||
			{ echo "$output"; false; }
		sed -n "$((n - 2))p" <<<"$output" | grep -q '^  s2 ' || { echo "$output"; false; }
	done
}

@test "history: a step the machine's own pace explains is shown with its canary and is not a regression" {
	CANARY=3.0 runs 100 b1
	CANARY=3.1 runs 100 b2
	CANARY=2.9 runs 100 b3
	# 20 % slower while the canary took 1.23x as long: the host's
	CANARY=3.7 runs 120 s1 s2
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c -- '-- change point: slower from here: .*; the machine itself ran 1.23x slower in the runs after it (its canary): put down to the host, not called a regression$' <<<"$output")" -eq 2 ]
	[[ "$output" == *"not a regression (the machine's own pace explains its last step)"* ]]
	# each run's pace against the median of this machine's five runs (3.1 ms)
	grep -q '^  b2 .*  1\.00x$' <<<"$output"
	grep -q '^  b3 .*  0\.94x$' <<<"$output"
	grep -q '^  s1 .*  1\.19x slow  ' <<<"$output"
	# the page says the same
	run "$RUNNER" history fx -o "$OUT" --html "$BATS_TEST_TMPDIR/page"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q 'put down to the host, not called a regression' "$BATS_TEST_TMPDIR/page/index.html"
	grep -q '<td class="num">1.19x slow</td>' "$BATS_TEST_TMPDIR/page/index.html"
	! grep -q 'The newest run is slower' "$BATS_TEST_TMPDIR/page/index.html" || false
}

@test "history: a step the machine's pace is too small for, or goes against, is still a regression" {
	CANARY=3.0 runs 100 b1 b2 b3
	# 50 % slower while the canary took only 1.12x as long
	CANARY=3.36 runs 150 s1 s2
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[ "$(grep -c -- '-- change point: slower from here: .*; the machine itself ran 1.12x slower in the runs after it (its canary): too little to explain this step$' <<<"$output")" -eq 2 ]
	[[ "$output" == *"newest run: SLOWER than before its last change point"* ]]
	# a third of a slowdown more while the machine ran faster
	CANARY=2.4 runs 200 r1 r2
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[ "$(grep -c -- '-- change point: slower from here: .*; the machine itself ran 1.40x faster in the runs after it (its canary): the step is in spite of it$' <<<"$output")" -eq 2 ]
}

@test "history: runs without a canary in the store show none and are judged by their figures alone" {
	runs 100 b1 b2 b3
	runs 120 s1
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE runs SET canary_ns = NULL"); c.commit()' "$OUT/sysmeter.db"
	run "$RUNNER" history fx -o "$OUT" --fail-on regression
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	grep -q '^  s1 .*  - *\[base=120\]$' <<<"$output"
	! grep -q 'the machine itself' <<<"$output" || false
}

@test "history --chart: a valid SVG and a PNG with the series" {
	command -v gnuplot >/dev/null || skip "gnuplot not installed"
	runs 100 b1 b2 b3
	runs 120 s1
	run "$RUNNER" history fx -o "$OUT" --chart "$BATS_TEST_TMPDIR/h.svg"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag.endswith("svg"), r.tag
text = "".join(r.itertext())
assert "fx over time" in text and "noise=0.001" in text, text' "$BATS_TEST_TMPDIR/h.svg"
	run "$RUNNER" history fx -o "$OUT" --chart "$BATS_TEST_TMPDIR/h.png"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(head -c 8 "$BATS_TEST_TMPDIR/h.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	# nothing left beside it
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c history-chart)" -eq 0 ]
}

@test "history --chart: a ring around each run the machine ran off its pace, none when it held" {
	command -v gnuplot >/dev/null || skip "gnuplot not installed"
	CANARY=3.0 runs 100 b1 b2 b3
	CANARY=3.7 runs 120 s1
	run "$RUNNER" history fx -o "$OUT" --chart "$BATS_TEST_TMPDIR/h.svg"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# the legend names the mark; s1 (3.7 ms against a median of 3.0) in
	# both series: two rings
	python3 -c 'import sys, re
t = open(sys.argv[1]).read()
assert "machine off its pace (canary)" in t, "no legend entry"
legend = t.index("machine off its pace (canary)")
rings = re.findall(r"<use xlink:href=.#gpPt5.", t[legend:])
assert len(rings) == 3, len(rings)    # the legend sample and two runs
' "$BATS_TEST_TMPDIR/h.svg"
	rm -rf "$OUT"
	CANARY=3.0 runs 100 b1 b2 b3
	run "$RUNNER" history fx -o "$OUT" --chart "$BATS_TEST_TMPDIR/h2.svg"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	! grep -q "off its pace" "$BATS_TEST_TMPDIR/h2.svg" || false
}

@test "history: --where, --host and --since select" {
	runs 100 b1 b2
	run "$RUNNER" history fx -o "$OUT" --where noise=0.001
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c '(2 runs, ns)' <<<"$output")" -eq 1 ]
	[[ "$output" == *"noise=0.001"* && "$output" != *"noise=0.002"* ]]
	host=$(awk '$1 == "b1" { print $4; exit }' <<<"$output")
	[ -n "$host" ]
	run "$RUNNER" history fx -o "$OUT" --host "$host"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c '(2 runs, ns)' <<<"$output")" -eq 2 ]
	run "$RUNNER" history fx -o "$OUT" --host "not-$host"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no results of experiment 'fx' in the store "*" that match --where/--host/--since"* ]]
	run "$RUNNER" history fx -o "$OUT" --since 2000-01-01
	[ "$status" -eq 0 ]
	run "$RUNNER" history fx -o "$OUT" --since 2999-01-01T00:00:00Z
	[ "$status" -eq 2 ]
}

@test "history: bad usage and an unknown experiment exit 2 with a clear message" {
	runs 100 b1
	run "$RUNNER" history fx -o "$OUT" --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
	run "$RUNNER" history nosuch -o "$OUT"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no results of experiment 'nosuch' in the store"* ]]
	run "$RUNNER" history -o "$OUT"
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected an experiment name"* ]]
	run "$RUNNER" history fx -o "$OUT" --since yesterday
	[ "$status" -eq 2 ]
	[[ "$output" == *"--since 'yesterday': expected a date YYYY-MM-DD"* ]]
	run "$RUNNER" history fx -o "$OUT" --since 2026-11-01x
	[ "$status" -eq 2 ]
	run "$RUNNER" history fx -o "$OUT" --since 2026-13-01
	[ "$status" -eq 2 ]
	run "$RUNNER" history fx -o "$OUT" --fail-on sometimes
	[ "$status" -eq 2 ]
	[[ "$output" == *"--fail-on 'sometimes': expected regression or never"* ]]
	run "$RUNNER" history fx -o "$OUT" --where noise
	[ "$status" -eq 2 ]
	[[ "$output" == *"--where 'noise': expected KEY=VALUE"* ]]
	run "$RUNNER" history fx -o "$OUT" --chart "$BATS_TEST_TMPDIR/h.pdf"
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected a file name ending in .svg or .png"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/h.pdf" ]
}

@test "history --html: an offline page with the series, its chart and the change points; user text escaped" {
	runs 100 b1 b2
	runs 120 'x<script>alert(1)'
	# a second experiment, flat
	sed 's/^title: .*/title: second/' "$SPEC" >"$BATS_TEST_TMPDIR/fy.yaml"
	"$RUNNER" "$BATS_TEST_TMPDIR/fy.yaml" -o "$OUT" --run-id y1 --seed 7 --no-report -q >/dev/null
	run "$RUNNER" history fx fy -o "$OUT" --html "$BATS_TEST_TMPDIR/site"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	page="$BATS_TEST_TMPDIR/site/index.html"
	[ -s "$page" ]
	# the run id with markup (a run folder's name has no slash) is text: no
	# script of any kind is in the page
	! grep -qi '<script' "$page" || false
	grep -q 'x&lt;script&gt;alert(1)' "$page"
	# the change point, its reason, both points
	grep -q 'class="slower">slower<' "$page"
	grep -q 'outside both intervals' "$page"
	grep -q 'noise=0.001' "$page"
	grep -q 'noise=0.002' "$page"
	# offline: every src and href is an anchor or a file in the folder
	python3 - "$BATS_TEST_TMPDIR/site" <<-'PY'
	import os, re, sys
	d = sys.argv[1]
	page = open(os.path.join(d, "index.html")).read()
	refs = re.findall(r'(?:src|href)="([^"]*)"', page)
	assert refs, "no links"
	for r in refs:
	    if r.startswith("#"):
	        assert 'id="%s"' % r[1:] in page, "anchor %s missing" % r
	    else:
	        assert "/" not in r and ":" not in r, "not a local file: %s" % r
	        assert os.path.isfile(os.path.join(d, r)), "missing: %s" % r
	assert not re.search(r'https?:', page), "an address in the page"
	PY
	grep -q 'href="#exp-2">fy<' "$page"
	# no name: every experiment in the store, in name order
	run "$RUNNER" history -o "$OUT" --html "$BATS_TEST_TMPDIR/all"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q 'href="#exp-1">fx<' "$BATS_TEST_TMPDIR/all/index.html"
	grep -q 'href="#exp-2">fy<' "$BATS_TEST_TMPDIR/all/index.html"
	if command -v gnuplot >/dev/null; then
		grep -q '<img src="01-fx.svg"' "$page"
		grep -q '<img src="02-fy.svg"' "$page"
		python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
			"$BATS_TEST_TMPDIR/site/01-fx.svg"
	fi
}

@test "history without gnuplot: --chart fails with the reason (exit 3), --html writes the page without charts" {
	runs 100 b1 b2
	# a PATH without gnuplot (the runner itself needs nothing from PATH here)
	PATH=/nonexistent run "$RUNNER" history fx -o "$OUT" --chart "$BATS_TEST_TMPDIR/h.svg"
	[ "$status" -eq 3 ]
	[[ "$output" == *"gnuplot is not installed"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/h.svg" ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c history-chart)" -eq 0 ]
	PATH=/nonexistent run "$RUNNER" history fx -o "$OUT" --html "$BATS_TEST_TMPDIR/site"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -q 'No chart: .*gnuplot is not installed' "$BATS_TEST_TMPDIR/site/index.html"
	[ "$(ls "$BATS_TEST_TMPDIR/site")" = index.html ]
}

@test "history --html in chromium: no console error or dialog, nothing fetched from elsewhere, the charts drawn, every link has its target" {
	command -v chromium >/dev/null 2>&1 ||
		skip "chromium not installed (tools/deps.sh --test-only installs it)"
	command -v gnuplot >/dev/null 2>&1 || skip "gnuplot not installed: no charts"
	runs 100 b1 b2
	runs 120 'x<script>alert(1)'
	run "$RUNNER" history -o "$OUT" --html "$BATS_TEST_TMPDIR/site"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	visit="$BATS_TEST_TMPDIR/visit"
	mkdir -p "$visit"
	rc=0
	python3 "$BATS_TEST_DIRNAME/chromium_page.py" "$BATS_TEST_TMPDIR/site/index.html" "$visit" \
		>"$visit/facts.json" 2>"$visit/err" || rc=$?
	[ "$rc" -ne 77 ] || skip "$(cat "$visit/err")"
	[ "$rc" -eq 0 ] || { cat "$visit/err"; false; }
	f="$visit/facts.json"
	[ "$(json "$f" 'd["console"]')" = "[]" ]
	[ "$(json "$f" 'd["dialogs"]')" = "[]" ]
	[ "$(json "$f" 'd["failed"]')" = "[]" ]
	[ "$(json "$f" 'd["outside"]')" = "[]" ]
	[ "$(json "$f" 'd["scripts"]')" = 0 ]
	[ "$(json "$f" 'd["missing_ids"]')" = "[]" ]
	# the run id with markup shows as text; the chart is drawn with a real size
	json "$f" 'd["text"]' | grep -qF 'x<script>alert(1)'
	[ "$(json "$f" 'len(d["images"]) >= 1 and all(i["complete"] and i["natural_width"] > 100 for i in d["images"])')" = true ]
	[ "$(json "$f" 'd["page_png"]["colours"]')" -gt 20 ]
}
