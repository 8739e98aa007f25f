#!/bin/sh
# Bench fragment (issue 9): do the intervals hold up on a rerun?  Runs the
# CPU and memory specs three times back to back and prints, over the points
# that have a number in every run:
#  - the share of ordered pairs of runs (a, b) in which run a's estimate lies
#    inside run b's 95 % CI (target at least 80 %; 25 % before rounds);
#  - the median and 90th percentile of the run-to-run spread of an estimate
#    ((max - min) / median over the three runs; 8.4 % and 43 % before),
#    taken on estimate_raw (before subtraction: a subtracted per-op cost near
#    zero would make any relative spread explode);
#  - the median CI half-width relative to estimate_raw;
#  - how many points carry each sanity flag, and how many are not ok;
#  - the wall time of each full run (budget: 2.5 minutes on 2 cores).
# Asserts nothing.  SPECS= overrides the spec list, RUNS= the number of runs
# (default 3); KEEP=dir keeps the runs' results there for a later look.
set -u
: "${RUNS:=3}"
: "${BUILD:=build}"
: "${RUNNER:=$PWD/$BUILD/runner}"
: "${SPECS:=$(grep -l '^group: *\(cpu\|memory\)' specs/*.yaml | tr '\n' ' ')}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-stats.XXXXXX") || exit 1
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP" && tmp=$(cd "$KEEP" && pwd) || exit 1
else
	trap 'rm -rf "$tmp"' EXIT INT TERM
fi

now() { date +%s.%N; }
: >"$tmp/times"
for i in $(seq "$RUNS"); do
	t0=$(now)
	"$RUNNER" -q --no-report -o "$tmp/out" --run-id "run$i" $SPECS >/dev/null 2>"$tmp/err$i"
	rc=$?
	t1=$(now)
	echo "$i $t0 $t1 $rc" >>"$tmp/times"
done
python3 - "$tmp" "$RUNS" <<'PY'
import glob, json, os, sys
tmp = sys.argv[1]
runs = []
for i in range(1, int(sys.argv[2]) + 1):
    pts = {}
    for f in glob.glob(os.path.join(tmp, "out", "run%d" % i, "results", "*.json")):
        d = json.load(open(f))
        for p in d.get("points", []):
            key = d["experiment"] + " " + ";".join("%s=%s" % kv for kv in sorted((p.get("params_text") or {}).items()))
            pts[key] = p
    runs.append(pts)
for line in open(os.path.join(tmp, "times")):
    i, a, b, rc = line.split()
    print("run %s: wall time %.1f s, exit %s" % (i, float(b) - float(a), rc))
def num(p, k):
    v = p.get(k)
    return v if isinstance(v, (int, float)) else None
def q(v, f):
    v = sorted(v)
    if not v:
        return float("nan")
    x = f * (len(v) - 1)
    i = int(x)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (x - i)
keys = sorted(set.intersection(*(set(r) for r in runs))) if runs else []
ok = [k for k in keys if all(num(r[k], "estimate") is not None and isinstance(r[k].get("ci"), list)
                             and None not in r[k]["ci"] for r in runs)]
inside = total = 0
spreads, halfs = [], []
by_exp = {}
for k in ok:
    ps = [r[k] for r in runs]
    e = by_exp.setdefault(k.split(" ", 1)[0], [0, 0])
    for a in ps:
        for b in ps:
            if a is b:
                continue
            total += 1
            hit = b["ci"][0] <= a["estimate"] <= b["ci"][1]
            inside += hit
            e[0] += hit
            e[1] += 1
    es = sorted(num(p, "estimate_raw") or p["estimate"] for p in ps)
    med = q(es, 0.5)
    if med:
        spreads.append((es[-1] - es[0]) / abs(med))
    for p in ps:
        raw = num(p, "estimate_raw") or p["estimate"]
        if raw:
            halfs.append((p["ci"][1] - p["ci"][0]) / 2 / abs(raw))
print("points with a number in all %d runs: %d of %d" % (len(runs), len(ok), len(keys)))
if total:
    print("cross-run estimate inside the other run's 95 %% CI: %.0f %% of %d pairs (target >= 80 %%; 25 %% before rounds)"
          % (100.0 * inside / total, total))
print("  by experiment: " + ", ".join("%s %.0f %%" % (x, 100.0 * h / n) for x, (h, n) in sorted(by_exp.items())))
print("run-to-run spread of an estimate (before subtraction): median %.1f %%, 90th percentile %.1f %% (8.4 %% / 43 %% before)"
      % (100 * q(spreads, 0.5), 100 * q(spreads, 0.9)))
print("CI half-width / estimate (before subtraction): median %.2f %%, 90th percentile %.2f %%" % (100 * q(halfs, 0.5), 100 * q(halfs, 0.9)))
for i, r in enumerate(runs, 1):
    flags, notok = {}, 0
    flagged = 0
    for p in r.values():
        names = set(s.get("flag") for s in p.get("sanity", []))
        names.discard("below_timer_resolution")
        flagged += bool(names)
        for n in names:
            flags[n] = flags.get(n, 0) + 1
        notok += p.get("status") not in ("ok",)
    print("run %d: %d points, %d flagged (below_timer_resolution not counted), %d not ok; %s"
          % (i, len(r), flagged, notok, ", ".join("%s %d" % kv for kv in sorted(flags.items())) or "no flags"))
PY
