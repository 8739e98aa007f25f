# Shared by the CPU-service probes' bats files (null, timer, loop,
# proc_call, syscall): a quick run of some specs, then checks on one
# experiment's results JSON with python3 (jq is not a dependency).

# cpu_run SPEC...: a --quick run into $BATS_TEST_TMPDIR/out/t; sets RESULTS.
cpu_run() {
	RESULTS="$BATS_TEST_TMPDIR/out/t/results"
	run "$RUNNER" --quick --no-report -o "$BATS_TEST_TMPDIR/out" --run-id t "$@"
	if [ "$status" -ne 0 ]; then
		echo "runner exited $status: $output"
		return 1
	fi
}

# cpu_check EXPERIMENT [PYTHON]: the checks every CPU experiment must pass
# (status ok, unit ns, every point ok with n >= 1 and a finite positive
# estimate_raw, no invalid sample, no probe sanity flag), then PYTHON with
#   d      the results JSON,
#   pts    the points keyed by their parameter text ("call=getpid", "" when
#          the probe has no parameter),
#   raw(k) / est(k)   a point's estimate_raw / estimate,
#   lo(k)  its fastest kept sample: the physics-order checks use it, since
#          anything else running on the CPU (tests run in parallel, a busy
#          host) only ever adds time, and --quick takes only 3 samples.
cpu_check() {
	python3 - "$RESULTS/$1.json" "${2:-}" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "sysmeter.result/1", d.get("schema")
assert d["status"] == "ok", "experiment status %s" % d["status"]
assert d["probe"]["unit"] == "ns", d["probe"]["unit"]
assert d["points"], "no points"
pts = {}
for p in d["points"]:
    key = ";".join("%s=%s" % kv for kv in sorted(p["params_text"].items()))
    assert p["status"] == "ok", "%s: %s (%s)" % (key, p["status"], p.get("reason"))
    assert p["n"] >= 1, "%s: n = %s" % (key, p["n"])
    r = p["estimate_raw"]
    assert r is not None and math.isfinite(r) and r > 0, "%s: estimate_raw %r" % (key, r)
    assert p["n_invalid"] == 0, "%s: %d invalid samples" % (key, p["n_invalid"])
    for f in p["sanity"]:
        assert f["flag"] != "probe_sanity", "%s: %s" % (key, f["message"])
    pts[key] = p
def raw(k): return pts[k]["estimate_raw"]
def est(k): return pts[k]["estimate"]
def lo(k): return pts[k]["stats"]["min"]
exec(sys.argv[2])
PY
}
