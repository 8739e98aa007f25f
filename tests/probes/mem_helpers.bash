# Shared by the memory probes' bats files (mem_latency, mem_bandwidth,
# page_fault): a quick run of one spec with overrides, then checks on its
# results JSON with python3 (jq is not a dependency).

# mem_run SPEC [--set ...]...: a --quick run into $BATS_TEST_TMPDIR/out/tN
# (N counts the runs of the test); sets RESULTS.  Fails unless the runner
# exits 0.
mem_run() {
	MEM_RUNS=$((${MEM_RUNS:-0} + 1))
	RESULTS="$BATS_TEST_TMPDIR/out/t$MEM_RUNS/results"
	run "$RUNNER" --quick --no-report -o "$BATS_TEST_TMPDIR/out" --run-id "t$MEM_RUNS" "$@"
	if [ "$status" -ne 0 ]; then
		echo "runner exited $status: $output"
		return 1
	fi
}

# mem_check EXPERIMENT UNIT [PYTHON]: the checks every memory experiment
# must pass (schema, status ok, the unit, every point ok with n >= 1 and a
# finite positive estimate, no probe sanity flag), then
# PYTHON with
#   d        the results JSON,
#   pts      the points keyed by their parameter text ("size=16KiB;stride=64"),
#   est(k)   a point's estimate,
#   extra(k, metric)   the median of a secondary value over the kept samples.
# A point none of whose samples could run undisturbed (every one flagged
# "off the cpu": the machine is busy with other work) skips the test.
mem_check() {
	local rc=0
	python3 - "$RESULTS/$1.json" "$2" "${3:-}" <<'PY' || rc=$?
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "sysmeter.result/1", d.get("schema")
# "skipped": every point was (a point skipped for busy CPUs skips the test below)
assert d["status"] in ("ok", "skipped"), "experiment status %s: %s" % (
    d["status"], [(p["params_text"], p["reason"]) for p in d["points"] if p["status"] != "ok"])
assert d["probe"]["unit"] == sys.argv[2], d["probe"]["unit"]
assert d["points"], "no points"
pts = {}
for p in d["points"]:
    key = ";".join("%s=%s" % kv for kv in sorted(p["params_text"].items()))
    # skipped by the runner as spoiled by other tasks (flag cpu_taken)
    if p["status"] == "skipped" and any(f["flag"] == "cpu_taken" for f in p["sanity"]) or \
            p["n"] == 0 and p["samples"] and all(
            s["warmup"] or "off the cpu" in (s["note"] or "") for s in p["samples"]):
        print("%s: every sample was disturbed by other tasks" % key)
        sys.exit(77)
    assert p["status"] == "ok", "%s: %s (%s)" % (key, p["status"], p.get("reason"))
    assert p["n"] >= 1, "%s: n = %s" % (key, p["n"])
    e = p["estimate"]
    assert e is not None and math.isfinite(e) and e > 0, "%s: estimate %r" % (key, e)
    # Samples disturbed by other tasks are retried by the probes, then
    # flagged invalid; on a busy machine a few may remain.  Every other
    # reason for an invalid sample (faults not counted, ...) is a failure.
    for s in p["samples"]:
        assert s["valid"] or "off the cpu" in (s["note"] or ""), "%s: %s" % (key, s["note"])
    for f in p["sanity"]:
        assert f["flag"] != "probe_sanity", "%s: %s" % (key, f["message"])
    pts[key] = p
def est(k): return pts[k]["estimate"]
def extra(k, m): return pts[k]["extra"][m]["median"]
exec(sys.argv[3])
PY
	[ "$rc" -ne 77 ] || skip "the machine is too busy to measure: every sample was disturbed"
	return "$rc"
}
