#!/bin/sh
# Bench fragment (issue 15, scale): report and compare on a run of many
# points.  A run folder of POINTS points (default 100,000: a 2,500 x 40
# sweep, each point a copy of a fixture point with 3 samples) is written
# from tests/fixtures/runs/basic, then `runner report --format md` and
# `runner compare RUN RUN` are timed.  Both read the results JSON once and
# match or index points by key, so the times grow with the file, linearly
# (compare was quadratic: 10,000 points took 104 s, now 2.5 s; jansson's
# json_loadfd reads one byte per read(2), so files go through stdio).
# Asserts nothing.
set -u
: "${BUILD:=build}"
: "${RUNNER:=$PWD/$BUILD/runner}"
: "${POINTS:=100000}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-scale.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -R tests/fixtures/runs/basic "$tmp/run"
python3 - "$tmp/run" "$POINTS" <<'PY' || exit 1
import copy, json, os, sys
run, n = sys.argv[1], int(sys.argv[2])
path = os.path.join(run, "results", "ram_access.json")
d = json.load(open(path))
base = d["points"][0]
strides = [64 * (j + 1) for j in range(40)]
sizes = [1024 * (i + 1) for i in range((n + 39) // 40)]
pts = []
for s in sizes:
    for st in strides:
        if len(pts) == n:
            break
        p = copy.deepcopy(base)
        p["index"] = len(pts)
        p["params"] = dict(base["params"], size=s, stride=st)
        p["params_text"] = dict(base["params_text"], size=str(s), stride=str(st))
        p["samples"] = p["samples"][:3]
        pts.append(p)
d["points"] = pts
d["spec"]["params"]["size"] = [str(s) for s in sizes]
d["spec"]["params"]["stride"] = [str(s) for s in strides]
d.pop("findings", None)
json.dump(d, open(path, "w"))
print("run folder: %d points of ram_access, results file %.0f MB" % (len(pts), os.path.getsize(path) / 1e6))
PY
now() { date +%s.%N; }
t0=$(now)
"$RUNNER" report "$tmp/run" --format md >/dev/null 2>"$tmp/err" || { echo "report failed:"; cat "$tmp/err"; }
t1=$(now)
"$RUNNER" compare "$tmp/run" "$tmp/run" >/dev/null 2>"$tmp/err"
rc=$?
t2=$(now)
[ "$rc" -le 1 ] || { echo "compare failed ($rc):"; cat "$tmp/err"; }
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$POINTS" 'BEGIN {
	printf "report --format md: %.1f s (%.0f us per point)\n", b - a, (b - a) / n * 1e6
	printf "compare RUN RUN:    %.1f s (%.0f us per point)\n", c - b, (c - b) / n * 1e6 }'
