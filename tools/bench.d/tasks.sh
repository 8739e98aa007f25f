#!/bin/sh
# Task creation and context switch: each spec run 3 times (full profile, no
# report); per point the estimate +- CI half-width of each run and the
# run-to-run CV of the estimate (target on an idle machine: < 3 % for
# pthread and the same-CPU context switch).  Prints figures, asserts nothing.
# Needs BUILD and RUNNER in the environment (tools/bench.sh sets them).
set -u
: "${RUNNER:?}"
out=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-tasks.XXXXXX") || exit 3
trap 'rm -rf "$out"' EXIT
specs="specs/task_create.yaml specs/context_switch.yaml specs/cross_cpu_handoff.yaml"
for i in 1 2 3; do
	"$RUNNER" --no-report -q -o "$out" --run-id "r$i" $specs >/dev/null ||
		echo "(run $i exited with $?)"
done
python3 - "$out" $specs <<'PY'
import json, math, os, statistics, sys

out, specs = sys.argv[1], sys.argv[2:]
runs = sorted(r for r in os.listdir(out) if r.startswith("r"))
fmt = lambda x: "-" if x is None or not math.isfinite(x) else "%.4g" % x
for spec in specs:
    name = os.path.splitext(os.path.basename(spec))[0]
    res = []
    for r in runs:
        try:
            res.append(json.load(open(os.path.join(out, r, "results", name + ".json"))))
        except OSError:
            res.append(None)
    first = next((d for d in res if d), None)
    if not first:
        print("%s: no results" % name)
        continue
    unit = first["probe"]["unit"]
    print("%s (%s): estimate +- CI half-width per run, run-to-run CV" % (name, unit))
    for i, p0 in enumerate(first["points"]):
        label = ",".join("%s=%s" % kv for kv in p0["params_text"].items()
                         if len(first["spec"]["params"].get(kv[0], [])) > 1) or "-"
        cells, ests = [], []
        for d in res:
            p = d["points"][i] if d and i < len(d["points"]) else None
            if not p or p["status"] != "ok" or p["estimate"] is None:
                cells.append("%-22s" % (p["status"] if p else "missing"))
                continue
            e, (lo, hi) = p["estimate"], p["ci"]
            half = (hi - lo) / 2 if lo is not None and hi is not None else float("nan")
            cells.append("%9s +- %-9s" % (fmt(e), fmt(half)))
            ests.append(e)
        cv = (statistics.stdev(ests) / statistics.mean(ests) * 100
              if len(ests) >= 2 and statistics.mean(ests) else float("nan"))
        extra = ""
        p = first["points"][i]
        for m in ("round_trip_ns", "pipe_ns", "futex_ns", "child_done"):
            x = (p.get("extra") or {}).get(m)
            if x and x.get("median") is not None:
                extra += " %s=%s" % (m, fmt(x["median"]))
        print("  %-36s %s  CV %s%%%s" % (label, " ".join(cells), fmt(cv), extra))
PY
