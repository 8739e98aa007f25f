#!/usr/bin/env bats
# runner resume: an interrupted run finished in its folder.

load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	SPECS="$BATS_TEST_TMPDIR/specs"
	HOLD="$BATS_TEST_TMPDIR/hold"
	mkdir -p "$SPECS"
	cp tests/fixtures/specs/resume/a_one.yaml tests/fixtures/specs/resume/b_three.yaml "$SPECS/"
	sed "s|HOLD|$HOLD|g" tests/fixtures/specs/resume/c_gate.yaml.in >"$SPECS/c_gate.yaml"
}

# A run stopped with SIGINT while c_gate's point 1 waits in its first
# round: a_one finished, b_three and c_gate's point 0 have one round of three.
interrupted_run() {
	touch "$HOLD"
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 11 "$SPECS" >/dev/null 2>&1 &
	pid=$!
	wait_until 60 test -e "$HOLD.reached"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	rm -f "$HOLD"
}

# The results of two runs equal, but for timings, the TSC rate and the
# last digit of what is recomputed from samples written with 10 digits.
same_results() {
	python3 - "$1" "$2" <<'PY'
import json, math, sys
skip = {"started_s", "elapsed_s", "cpu", "cycles", "tsc_hz", "placement"}
def eq(a, b, where):
    # the drift check's flag is about the host at the time, not the samples
    if where.endswith(".sanity") and isinstance(a, list) and isinstance(b, list):
        a = [f for f in a if f.get("flag") != "host_drift"]
        b = [f for f in b if f.get("flag") != "host_drift"]
    if isinstance(a, dict) and isinstance(b, dict):
        assert set(a) - skip == set(b) - skip, where
        for k in a:
            if k not in skip:
                eq(a[k], b[k], where + "." + k)
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            eq(x, y, "%s[%d]" % (where, i))
    elif isinstance(a, float) and isinstance(b, (int, float)):
        assert math.isclose(a, b, rel_tol=1e-8), "%s: %r != %r" % (where, a, b)
    else:
        assert a == b, "%s: %r != %r" % (where, a, b)
for n in ("a_one", "b_three", "c_gate"):
    ra = json.load(open("%s/results/%s.json" % (sys.argv[1], n)))
    rb = json.load(open("%s/results/%s.json" % (sys.argv[2], n)))
    for k in ("spec", "description", "title"):
        ra.pop(k, None); rb.pop(k, None)
    eq(ra, rb, n)
    # the samples themselves are the same to the last written digit
    for pa, pb in zip(ra["points"], rb["points"]):
        assert [s["value"] for s in pa["samples"]] == [s["value"] for s in pb["samples"]], n
PY
}

@test "resume after an interrupt: kept rounds stay, the rest are measured with the run's seed" {
	interrupted_run
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = interrupted ]
	[ "$(json "$OUT/a/results/b_three.json" '[len(p["rounds"]) for p in d["points"]]')" = "[1, 1]" ]
	cp -a "$OUT/a" "$BATS_TEST_TMPDIR/before"
	# as if the first part had read from an NFS server (--nfs): the resumed
	# part has its own (none here), and the record keeps the first one's
	python3 - "$OUT/a/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["nfs"] = {"url": "nfs://10.77.1.2/old", "label": "first part", "local_dir": None, "error": None}
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
	run "$RUNNER" resume --no-report -q "$OUT/a"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/a/manifest.json" 'd["resumed"][0]["nfs_before"]["url"]')" = "nfs://10.77.1.2/old" ]
	[ "$(json "$OUT/a/manifest.json" 'd["nfs"]')" = null ]
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = complete ]
	[ "$(json "$OUT/a/manifest.json" 'd["exit_code"]')" = 0 ]
	# a_one had finished: its file is untouched
	cmp "$BATS_TEST_TMPDIR/before/results/a_one.json" "$OUT/a/results/a_one.json"
	# the rounds measured before the interrupt are in the result as they were
	python3 - "$BATS_TEST_TMPDIR/before" "$OUT/a" <<'PY'
import json, sys
for n in ("b_three", "c_gate"):
    a = json.load(open("%s/results/%s.json" % (sys.argv[1], n)))
    b = json.load(open("%s/results/%s.json" % (sys.argv[2], n)))
    for pa, pb in zip(a["points"], b["points"]):
        kept = [r for r in pa["rounds"] if r["status"] != "interrupted"]
        # what the round's child recorded (its estimate and outlier count are
        # recomputed with the other rounds, as in any run)
        mine = ("round", "status", "reason", "started_s", "elapsed_s", "cpu", "warmup_taken",
                "warmup_reason")
        assert [{k: r[k] for k in mine} for r in pb["rounds"][:len(kept)]] == \
               [{k: r[k] for k in mine} for r in kept], (n, pa["index"])
        old = [s for s in pa["samples"] if s["round"] < len(kept)]
        new = [s for s in pb["samples"] if s["round"] < len(kept)]
        assert [s["value"] for s in old] == [s["value"] for s in new], n
    assert all(p["status"] == "ok" and len(p["rounds"]) == 3 for p in b["points"]), n
PY
	# the manifest says what the resume measured
	[ "$(json "$OUT/a/manifest.json" 'd["resumed"][0]["kept"]["a_one"]')" = finished ]
	[ "$(json "$OUT/a/manifest.json" 'd["resumed"][0]["measured"]["b_three"]["rounds"]')" = 4 ]
	[ "$(json "$OUT/a/manifest.json" 'sorted(d["resumed"][0]["measured"]["c_gate"]["points"])')" = "[0, 1]" ]
	[ "$(readlink "$OUT/latest")" = a ]
	# and the run holds what an uninterrupted run with the same seed holds
	run "$RUNNER" --no-report -q -o "$OUT" --run-id u --seed 11 "$SPECS"
	[ "$status" -eq 0 ]
	same_results "$OUT/a" "$OUT/u"
}

@test "resume renders the report at the end; a complete run has nothing to do" {
	interrupted_run
	run "$RUNNER" resume -q "$OUT/a"
	[ "$status" -eq 0 ]
	[ -s "$OUT/a/report.md" ]
	grep -q '^### ' "$OUT/a/report.md"
	cp "$OUT/a/manifest.json" "$BATS_TEST_TMPDIR/m.json"
	run "$RUNNER" resume "$OUT/a"
	[ "$status" -eq 0 ]
	[[ "$output" == *"complete, nothing to do"* ]]
	cmp "$BATS_TEST_TMPDIR/m.json" "$OUT/a/manifest.json"
}

@test "resume refuses a changed probe unless --force, and bad input with exit 2" {
	pd="$BATS_TEST_TMPDIR/probes"
	mkdir -p "$pd"
	fx=${FIXTURE_DIR:-$PWD/$BUILD/fixtures/probes}
	cp "$fx/gate.so" "$fx/ok_fixed.so" "$pd/"
	export SYSMETER_PROBE_DIR="$pd"		# the copies only
	touch "$HOLD"
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 3 "$SPECS" >/dev/null 2>&1 &
	pid=$!
	wait_until 60 test -e "$HOLD.reached"
	kill -INT "$pid"
	wait "$pid" || true
	rm -f "$HOLD"
	printf 'x' >>"$pd/gate.so"
	cp "$OUT/a/manifest.json" "$BATS_TEST_TMPDIR/m.json"
	run "$RUNNER" resume --no-report "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"probe 'gate' changed: sha256"* ]]
	cmp "$BATS_TEST_TMPDIR/m.json" "$OUT/a/manifest.json"
	run "$RUNNER" resume --force --no-report -q "$OUT/a"
	[ "$status" -eq 0 ]
	[[ "$(json "$OUT/a/manifest.json" 'd["resumed"][0]["changes"][0]')" == *"probe 'gate' changed"* ]]
	# not a run
	run "$RUNNER" resume "$BATS_TEST_TMPDIR/nothing"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a run folder"* ]]
	run "$RUNNER" resume
	[ "$status" -eq 2 ]
}

@test "resume continues a runner that was killed outright, and not one still running" {
	touch "$HOLD"
	"$RUNNER" --no-report -q -o "$OUT" --run-id a --seed 11 "$SPECS" >/dev/null 2>&1 &
	pid=$!
	wait_until 60 test -e "$HOLD.reached"
	# still running: refused, nothing touched
	run timeout 30 "$RUNNER" resume --no-report "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"still writing"* ]]
	kill -KILL "$pid"
	wait "$pid" || true
	# the point's process group (the gate's child) goes with the hold file
	rm -f "$HOLD"
	wait_until 30 sh -c "! fuser -s '$OUT/a' 2>/dev/null"
	[ "$(json "$OUT/a/manifest.json" 'd["status"]')" = running ]
	run "$RUNNER" resume --no-report -q "$OUT/a"
	[ "$status" -eq 0 ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id u --seed 11 "$SPECS"
	[ "$status" -eq 0 ]
	same_results "$OUT/a" "$OUT/u"
}
