#!/bin/sh
# Bench fragment for the memory probes (tools/bench.sh runs it with BUILD
# and RUNNER in the environment).  Prints figures, asserts nothing:
#  - the cache levels the knees finding detects on one full ram_access
#    sweep (stride 64), beside the sizes sysfs reports;
#  - latency in L1, L2, L3 and DRAM, read/write/copy bandwidth with 1 and
#    all threads, and major/minor fault costs: each from 3 runs, with the
#    run-to-run CV of the estimate (targets: latency under 2 % in L1, L2
#    and DRAM; read bandwidth under 3 %);
#  - when installed, sysbench's memory test, mbw and lmbench's bw_mem rd
#    (1 and all readers, 512 MiB each) beside the bandwidth (independent
#    tools, their own conventions: see the labels).
set -u
: "${BUILD:=build}"
: "${RUNNER:=$PWD/$BUILD/runner}"
RUNS=${MEM_BENCH_RUNS:-3}
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-mem.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# run ID SPEC ARGS...: one quiet run into $tmp/out/ID; complains on failure.
run() {
	id=$1
	shift
	"$RUNNER" -q --no-report -o "$tmp/out" --run-id "$id" "$@" >/dev/null 2>"$tmp/err" ||
		echo "  (runner exited $? on $*: $(head -c 300 "$tmp/err"))"
}

# table EXPERIMENT UNIT FIELD ID...: per point, the estimate of each run,
# their median and CV; notes: invalid samples, TSC ticks (ns) or the mean
# of the samples (GB/s) of each run.
table() {
	python3 - "$tmp/out" "$@" <<'PY'
import json, math, os, statistics, sys
out, exp, unit, field, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
runs = []
for i in ids:
    f = os.path.join(out, i, "results", exp + ".json")
    try:
        runs.append(json.load(open(f)))
    except (OSError, ValueError):
        runs.append(None)
keys = []
for d in runs:
    for p in (d or {}).get("points", []):
        k = ";".join("%s=%s" % kv for kv in sorted(p["params_text"].items())
                     if kv[0] not in ("hugepages", "pattern", "order"))
        if k not in keys:
            keys.append(k)
print("  %-34s %s  %9s %7s  %s" % ("point", "  ".join("%9s" % ("run %d" % (n + 1)) for n in range(len(ids))),
                                     "median", "CV", "notes"))
for k in keys:
    vals, notes = [], []
    for d in runs:
        v = None
        for p in (d or {}).get("points", []):
            pk = ";".join("%s=%s" % kv for kv in sorted(p["params_text"].items())
                          if kv[0] not in ("hugepages", "pattern", "order"))
            if pk == k:
                v = p.get(field) if p["status"] == "ok" else None
                if p["status"] != "ok":
                    notes.append(p["status"])
                if p.get("n_invalid"):
                    notes.append("%d invalid" % p["n_invalid"])
                mean = (p.get("stats") or {}).get("mean")
                if unit == "GB/s" and mean is not None:
                    notes.append("mean %.1f" % mean)
                cyc = (p.get("cycles") or {}).get("estimate")
                if unit == "ns" and cyc is not None:
                    notes.append("%.1f ticks" % cyc)
        vals.append(v)
    ok = [v for v in vals if isinstance(v, (int, float)) and math.isfinite(v)]
    med = statistics.median(ok) if ok else float("nan")
    cv = (statistics.stdev(ok) / statistics.mean(ok) * 100) if len(ok) > 1 and statistics.mean(ok) else float("nan")
    print("  %-34s %s  %9.4g %6.1f%%  %s %s" % (k, "  ".join("%9.4g" % v if v is not None else "      n/a" for v in vals),
                                               med, cv, unit, ", ".join(dict.fromkeys(notes))))
PY
}

echo "memory: $NCPU cpus; sysfs caches of cpu0:"
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ -r "$d/size" ] || continue
	echo "  L$(cat "$d/level") $(cat "$d/type") $(cat "$d/size") (shared with cpus $(cat "$d/shared_cpu_list" 2>/dev/null))"
done

# 1. The staircase once, stride 64: the levels the knee finder detects.
t0=$(date +%s)
run knees specs/ram_access.yaml --set ram_access.params.stride=64
echo "ram_access full sweep (stride 64): $(($(date +%s) - t0)) s"
python3 - "$tmp/out/knees/results/ram_access.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("  no result: %s" % e)
    sys.exit(0)
k = d.get("findings", {}).get("knees", {})
for series, f in k.get("series", {}).items():
    print("  knees (%s):" % series)
    for lv in f.get("levels", []):
        print("    %-7s up to %10.0f KiB  %8.2f ns" % (lv["name"], (lv["size_bytes"] or 0) / 1024, lv["latency"] or float("nan")))
    print("    sysfs: " + ", ".join("L%s %s %d KiB" % (c["level"], c["type"], c["size_bytes"] // 1024)
                               for c in f.get("sysfs", []) if c.get("size_bytes")))
PY

# 2. Latency at one size per level, 3 runs.
ids=""
for r in $(seq "$RUNS"); do
	run "lat$r" specs/ram_access.yaml --set 'ram_access.params.size=[16KiB, 512KiB, 2MiB, 256MiB]' \
		--set ram_access.params.stride=64
	ids="$ids lat$r"
done
echo "ram_access: latency per level (ns per load; 16KiB = L1, 512KiB = L2, 2MiB = L3, 256MiB = DRAM)"
table ram_access ns estimate $ids

# 3. Bandwidth, 3 runs.
ids=""
for r in $(seq "$RUNS"); do
	run "bw$r" specs/ram_bandwidth.yaml --set 'ram_bandwidth.params.op=[read, write, copy]' \
		--set "ram_bandwidth.params.threads=[1, $NCPU]"
	ids="$ids bw$r"
done
echo "ram_bandwidth: peak GB/s (estimate = max; each run's mean in the notes)"
table ram_bandwidth GB/s estimate $ids

# 4. Page faults, 3 runs.
ids=""
for r in $(seq "$RUNS"); do
	run "pf$r" specs/page_fault.yaml
	ids="$ids pf$r"
done
echo "page_fault: us per fault"
table page_fault us estimate $ids

# 5. Independent tools, when installed.
if command -v sysbench >/dev/null 2>&1; then
	for op in read write; do
		line=$(taskset -c 0 sysbench memory --threads=1 --memory-block-size=256M --memory-total-size=16G \
			--memory-oper=$op --memory-access-mode=seq run 2>/dev/null | sed -n 's/.*(\([0-9.]*\) MiB\/sec).*/\1/p')
		[ -n "$line" ] && awk -v m="$line" -v op=$op 'BEGIN { printf "sysbench memory %s, 1 thread, 256 MiB block: %.2f GB/s (its MiB/s x 1.048576e-3)\n", op, m * 1.048576e-3 }'
	done
else
	echo "sysbench: not installed (apt-get install sysbench) - skipped"
fi
# lmbench's bw_mem rd beside ours on the same geometry: 512 MiB per reader
# (bw_mem -P N gives each of its N processes its own 512 MiB; our size is
# split among the threads, so N x 512 MiB).  bw_mem reports a median of its
# repetitions in MB/s (10^6); ours the peak (max) and the median in GB/s.
# Debian bookworm has no lmbench package: build it from source and put
# bw_mem in PATH, or set BW_MEM=/path/to/bw_mem (docs/methodology.md,
# "Against lmbench's bw_mem").
BW_MEM=${BW_MEM:-$(command -v bw_mem 2>/dev/null || ls /usr/lib/lmbench/bin/*/bw_mem 2>/dev/null | head -1)}
if [ -n "$BW_MEM" ] && [ -x "$BW_MEM" ]; then
	for n in 1 "$NCPU"; do
		run "bwm$n" specs/ram_bandwidth.yaml --set ram_bandwidth.params.op=read \
			--set "ram_bandwidth.params.threads=$n" --set "ram_bandwidth.params.size=$((512 * n))MiB" \
			--set ram_bandwidth.rounds=3
		ours=$(python3 - "$tmp/out/bwm$n/results/ram_bandwidth.json" <<'PY'
import json, sys
try:
    p = json.load(open(sys.argv[1]))["points"][0]
    print("peak %.2f, median %.2f GB/s" % (p["estimate"], p["stats"]["median"]))
except Exception:
    print("n/a")
PY
)
		bwm=$("$BW_MEM" -N 5 -P "$n" 512m rd 2>&1 | awk 'NF == 2 { printf "%.2f", $2 / 1000 }')
		echo "read, $n reader(s), 512 MiB each: ram_bandwidth $ours; bw_mem -P $n 512m rd ${bwm:-n/a} GB/s (median)"
	done
else
	echo "bw_mem: not found (lmbench is not packaged in Debian bookworm; BW_MEM=/path/to/bw_mem) - skipped"
fi
if command -v mbw >/dev/null 2>&1; then
	taskset -c 0 mbw -q -n 5 -t 0 256 2>/dev/null | awk '/^AVG/ { printf "mbw memcpy, 256 MiB arrays: %.2f GB/s copied (mbw counts bytes once; x2 for the STREAM convention: %.2f)\n", $(NF-1) * 1.048576e-3, 2 * $(NF-1) * 1.048576e-3 }'
else
	echo "mbw: not installed (apt-get install mbw) - skipped"
fi
