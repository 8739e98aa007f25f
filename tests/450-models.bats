#!/usr/bin/env bats
# 450-models: `runner models RUN...` judges the current specs' predictions
# over the real full-run folders of tests/fixtures/model-runs/ (issue 34):
# the figures per host agree with what python recomputes from the fixture's
# JSON, an edited spec changes the predictions (the current specs count,
# not the recorded formulas), usage errors exit 2, an unreadable folder
# exits 1, and the folders are never written.

load helpers

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
FIX="$ROOT/tests/fixtures/model-runs"

setup() {
	RUNS=("$FIX"/*/)
	[ -f "${RUNS[0]}manifest.json" ] || skip "no fixture run in $FIX"
}

# sums DIR...: one sha256 per file under the folders, in name order
sums() {
	find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
}

# recompute MODELS_JSON RUN...: every judged point checked against the
# fixture (the estimate is the run's, ratio = estimate / predicted), every
# ok point with a spec accounted for, and the figures of each host and of
# all hosts recomputed; prints one line per host, "LABEL|points|25|2x".
recompute() {
	python3 - "$@" <<-'PY'
	import json, math, os, sys
	fig = json.load(open(sys.argv[1]))
	runs = {}
	for d in sys.argv[2:]:
	    m = json.load(open(os.path.join(d, "manifest.json")))
	    runs[m["run_id"]] = (d, m)
	specs = {f[:-5] for f in os.listdir(os.path.join(os.environ["ROOT"], "specs")) if f.endswith(".yaml")}
	def med(x):
	    x = sorted(x); n = len(x)
	    return x[n // 2] if n % 2 else math.sqrt(x[n // 2 - 1] * x[n // 2])
	def close(a, b):
	    return abs(a - b) <= 1e-9 * max(1.0, abs(b))
	def figures(rs):
	    e = [max(r, 1 / r) for r in rs]
	    return (len(rs), sum(x <= 1.25 for x in e) / len(rs), sum(x <= 2 for x in e) / len(rs), med(e))
	allr = []
	for h in fig["hosts"]:
	    rs = []
	    seen = {}
	    for p in h["judged"]:
	        d, m = runs[p["run_id"]]
	        res = json.load(open(os.path.join(d, "results", p["experiment"] + ".json")))
	        pts = [q for q in res["points"] if q["params_text"] == p["params"]]
	        assert len(pts) == 1, (p["experiment"], p["params"])
	        q = pts[0]
	        assert q["status"] == "ok" and close(p["estimate"], q["estimate"]), p
	        assert p["predicted"] > 0 and close(p["ratio"], q["estimate"] / p["predicted"]), p
	        rs.append(p["ratio"])
	        seen[p["experiment"]] = seen.get(p["experiment"], 0) + 1
	    # every point of every experiment with a spec is judged or named
	    for r in h["runs"]:
	        d, m = runs[r["run_id"]]
	        for e in m["experiments"]:
	            if e["name"] not in specs or not os.path.exists(os.path.join(d, e["result"])):
	                continue
	            res = json.load(open(os.path.join(d, e["result"])))
	            nj = sum(1 for x in h["not_judged"] if x["experiment"] == e["name"] and x["run_id"] == r["run_id"])
	            nd = sum(1 for x in h["judged"] if x["experiment"] == e["name"] and x["run_id"] == r["run_id"])
	            assert nj + nd == len(res["points"]), (e["name"], nj, nd, len(res["points"]))
	    n, a, b, me = figures(rs)
	    assert (n, h["points"]) == (h["points"], n) and close(h["within_25"], a) and close(h["within_2x"], b) \
	        and close(h["median_error"], me), (h["host"], n, a, b, me)
	    for x in h["experiments"]:
	        mine = [p["ratio"] for p in h["judged"] if p["experiment"] == x["experiment"]]
	        assert x["points"] == len(mine), x
	        if mine:
	            assert close(x["median_ratio"], med(mine)), x
	            assert close(max(max(r, 1 / r) for r in mine), max(x["worst"]["ratio"], 1 / x["worst"]["ratio"])), x
	    allr += rs
	    print("%s|%d|%.0f %%|%.0f %%|%.2fx" % (h["host"], n, a * 100, b * 100, me))
	n, a, b, me = figures(allr)
	assert fig["all"]["points"] == n and close(fig["all"]["within_25"], a), fig["all"]
	print("all hosts|%d|%.0f %%|%.0f %%|%.2fx" % (n, a * 100, b * 100, me))
	PY
}

@test "models: a row per host and one for all hosts, the figures python recomputes from the fixture" {
	export ROOT
	run "$RUNNER" models --json "${RUNS[@]}"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/models.json"
	run recompute "$BATS_TEST_TMPDIR/models.json" "${RUNS[@]}"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	want=$output
	# each fixture folder is a host kind of its own
	[ "$(json "$BATS_TEST_TMPDIR/models.json" 'len(d["hosts"])')" -eq "${#RUNS[@]}" ]
	[ "$(json "$BATS_TEST_TMPDIR/models.json" 'd["all"]["points"]')" -ge 100 ]
	# the plain table: the same counts, shares and median error on each row
	run "$RUNNER" models "${RUNS[@]}"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	while IFS='|' read -r label n a b me; do
		row=$(grep -F -- "$label " <<<"$output" | head -1)
		[ -n "$row" ] || { echo "no row for '$label' in: $output"; false; }
		read -r -a f <<<"${row#"$label"}"
		# runs points +/-25% x2 median-error not-judged
		[ "${f[1]}" = "$n" ] && [ "${f[2]} ${f[3]}" = "$a" ] && [ "${f[4]} ${f[5]}" = "$b" ] &&
			[ "${f[6]}" = "$me" ] || { echo "row '$row' against $label $n $a $b $me"; false; }
	done <<<"$want"
}

@test "models: the current specs count: a formula doubled in a copy of specs/ doubles the predictions" {
	export ROOT
	cp -R "$ROOT/specs" "$BATS_TEST_TMPDIR/specs"
	# every quoted formula of syscall.yaml times 2
	python3 - "$BATS_TEST_TMPDIR/specs/syscall.yaml" <<-'PY'
	import re, sys
	p = sys.argv[1]
	s = open(p).read()
	s2, n = re.subn(r'^(\s*(?:-\s+)?(?:hw|sw|hardware|software|value):\s*)(["\'])(.+)\2\s*$',
	                lambda m: '%s"2 * (%s)"' % (m.group(1), m.group(3)), s, flags=re.M)
	assert n > 0, "no formula in " + p
	open(p, "w").write(s2)
	PY
	run "$RUNNER" models --json "${RUNS[@]}"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/before.json"
	run "$RUNNER" models --json --specs "$BATS_TEST_TMPDIR/specs" "${RUNS[@]}"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/after.json"
	run python3 - "$BATS_TEST_TMPDIR/before.json" "$BATS_TEST_TMPDIR/after.json" <<-'PY'
	import json, sys
	a, b = (json.load(open(f)) for f in sys.argv[1:3])
	def pts(f, exp):
	    return {(h["host"], p["run_id"], json.dumps(p["params"], sort_keys=True)): p
	            for h in f["hosts"] for p in h["judged"] if p["experiment"] == exp}
	old, new = pts(a, "syscall"), pts(b, "syscall")
	assert old and old.keys() == new.keys(), (len(old), len(new))
	for k in old:
	    assert abs(new[k]["predicted"] - 2 * old[k]["predicted"]) <= 1e-9 * old[k]["predicted"], k
	    assert abs(new[k]["ratio"] - old[k]["ratio"] / 2) <= 1e-9 * old[k]["ratio"], k
	# the other experiments keep their predictions
	for e in ("context_switch", "page_fault"):
	    o, n = pts(a, e), pts(b, e)
	    assert all(abs(n[k]["predicted"] - o[k]["predicted"]) <= 1e-9 * abs(o[k]["predicted"]) for k in o)
	print(len(old))
	PY
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$output" -ge 1 ]
}

@test "models: bad usage and a broken spec exit 2" {
	run "$RUNNER" models
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: models: no run folder given"* ]]
	run "$RUNNER" models --spec specs "${RUNS[0]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--specs"* ]]
	mkdir "$BATS_TEST_TMPDIR/bad"
	printf 'probe: syscall\nparams:\n  call: [getpid\n' >"$BATS_TEST_TMPDIR/bad/syscall.yaml"
	run "$RUNNER" models --specs "$BATS_TEST_TMPDIR/bad" "${RUNS[0]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad/syscall.yaml:"[0-9]*":"[0-9]* ]] || { echo "$output"; false; }
	run "$RUNNER" models --specs "$BATS_TEST_TMPDIR/nothing-here" "${RUNS[0]}"
	[ "$status" -eq 2 ]
}

@test "models: a folder that is not a run exits 1 and prints no table" {
	run "$RUNNER" models "${RUNS[0]}" "$BATS_TEST_TMPDIR/no-such-run"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: models: $BATS_TEST_TMPDIR/no-such-run/manifest.json: No such file or directory"* ]] ||
		{ echo "$output"; false; }
	[[ "$output" != *"all hosts"* ]]
	mkdir -p "$BATS_TEST_TMPDIR/broken"
	cp -R "${RUNS[0]}." "$BATS_TEST_TMPDIR/broken/"
	f=$(ls "$BATS_TEST_TMPDIR/broken/results/"*.json | head -1)
	printf '{"points": [' >"$f"
	run "$RUNNER" models "$BATS_TEST_TMPDIR/broken"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$f"* ]] || { echo "$output"; false; }
}

@test "models: the run folders are only read (byte-identical after the tables and the JSON)" {
	# copies, so that a runner that writes cannot spoil the fixture
	mkdir "$BATS_TEST_TMPDIR/runs"
	cp -a "${RUNS[@]}" "$BATS_TEST_TMPDIR/runs/"
	copies=("$BATS_TEST_TMPDIR"/runs/*/)
	sums "${copies[@]}" >"$BATS_TEST_TMPDIR/before"
	run "$RUNNER" models "${copies[@]}"
	[ "$status" -eq 0 ]
	run "$RUNNER" models --json "${copies[@]}"
	[ "$status" -eq 0 ]
	sums "${copies[@]}" >"$BATS_TEST_TMPDIR/after"
	cmp "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	[ -z "$(find "${copies[@]}" -newer "$BATS_TEST_TMPDIR/before")" ]
}

@test "models: with a laptop's facts file every model follows that machine: its row, its clock, its facts; composites through the primitives measured" {
	run "$RUNNER" models --json "$FIX/amd-zen5-bhyve-pti"
	[ "$status" -eq 0 ]
	echo "$output" >"$BATS_TEST_TMPDIR/own.json"
	for m in i7-1165g7 ryzen7-5800x; do
		run "$RUNNER" models --json --machine "$ROOT/tests/fixtures/machine-facts/$m.yaml" "$FIX/amd-zen5-bhyve-pti"
		[ "$status" -eq 0 ]
		echo "$output" >"$BATS_TEST_TMPDIR/$m.json"
	done
	python3 - "$BATS_TEST_TMPDIR" <<'PY'
import json, sys
d = sys.argv[1]
def points(name):
    return {(p["experiment"], json.dumps(p["params"], sort_keys=True)): p
            for p in json.load(open("%s/%s.json" % (d, name)))["hosts"][0]["judged"]}
own = points("own")
rows = {"i7-1165g7": ("Ice Lake / Tiger Lake", "4.7 GHz"), "ryzen7-5800x": ("Zen 3", "4.7 GHz")}
for m, (row, clock) in rows.items():
    lap = points(m)
    assert set(lap) == set(own), (m, set(own) ^ set(lap))
    follows = 0
    for k, p in lap.items():
        assert p["table_row"] == row, (m, k, p["table_row"])
        src = {s["name"]: s for s in p["sources"]}
        if "core_hz" in src:
            assert src["core_hz"]["source"] == "given: machine.core_clock", (m, k, src["core_hz"])
            assert src["core_hz"]["value"] == clock, (m, k, src["core_hz"])
        if "core_hz" in src or any(s["source"].startswith("table:") and not s["source"].startswith("table: Linux")
                                   for s in p["sources"]):
            # a model that reads the machine predicts this machine
            assert p["predicted"] != own[k]["predicted"], (m, k, p["predicted"])
            follows += 1
        elif all(s["source"].startswith(("measured:", "this point's parameter")) for s in p["sources"]):
            # a composite of measured primitives only: the same as on the host that measured them
            assert p["predicted"] == own[k]["predicted"], (m, k)
    assert follows >= 100, (m, follows)
print("ok")
PY
}
