#!/bin/sh
# Bench fragment for the CPU-service probes (tools/bench.sh runs it with
# BUILD and RUNNER in the environment).  Prints figures, asserts nothing:
#  - a static standalone getpid loop (tools/bench/syscall_loop.c) next to the
#    syscall probe's estimate (they should agree within about 2 %);
#  - the runner's per-sample overhead, from the null probe: the difference in
#    wall time between two runs of tools/bench/null_overhead.yaml divided by
#    the difference in samples;
#  - the wall time of `runner --quick` and `runner` on the four CPU specs
#    (targets: under 5 s and under 30 s).
set -u
: "${BUILD:=build}"
: "${RUNNER:=$PWD/$BUILD/runner}"
SPECS="specs/timer_overhead.yaml specs/loop_overhead.yaml specs/procedure_call.yaml specs/syscall.yaml"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-cpu.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# python3 one-liner over one results JSON: est FILE PARAM_TEXT FIELD
point() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    key = ";".join("%s=%s" % kv for kv in sorted(p["params_text"].items()))
    if key == sys.argv[2]:
        v = p.get(sys.argv[3])
        print("%.4f" % v if isinstance(v, (int, float)) else "n/a")
        break
else:
    print("n/a")
PY
}

# 1. Standalone getpid loop vs the syscall probe, alternated for five rounds
#    so that a slow spell of the host (a busy SMT sibling, steal) hits both
#    sides alike; compared by the median of the rounds' medians and by the
#    fastest sample seen (interference only ever adds time).
loop_bin="$BUILD/bench/syscall_loop"
mkdir -p "$BUILD/bench"
if gcc -O2 -static -o "$loop_bin" tools/bench/syscall_loop.c 2>"$tmp/cc.err"; then
	: >"$tmp/pairs"
	for r in 1 2 3 4 5; do
		line=$("$loop_bin" 15 10 0)
		"$RUNNER" -q --no-report -o "$tmp/out" --run-id "syscall$r" --set syscall.params.call=getpid \
			--set syscall.repetitions=15 specs/syscall.yaml >/dev/null 2>"$tmp/run.err" ||
			echo "  (runner exited $? on specs/syscall.yaml: $(head -c 300 "$tmp/run.err"))"
		res="$tmp/out/syscall$r/results/syscall.json"
		a=$(echo "$line" | sed -n 's/^ns_per_call=\([0-9.]*\).*/\1/p')
		amin=$(echo "$line" | sed -n 's/.* min=\([0-9.]*\).*/\1/p')
		p=$(point "$res" call=getpid estimate_raw)
		pmin=$(python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["points"][0]["stats"]["min"])' "$res" 2>/dev/null || echo n/a)
		echo "round $r: standalone median $a ns (min $amin), probe estimate_raw $p ns (min $pmin)"
		echo "$a $p $amin $pmin" >>"$tmp/pairs"
	done
	awk 'function med(v, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return v[int((n + 1) / 2)] }
		$2 != "n/a" && $4 != "n/a" { n++; a[n] = $1; p[n] = $2
			if (!am || $3 < am) am = $3; if (!pm || $4 < pm) pm = $4 }
		END { if (!n) { print "getpid probe / standalone: n/a"; exit }
			ma = med(a, n); mp = med(p, n)
			printf "getpid, median of %d rounds: standalone %.1f ns, probe %.1f ns: probe / standalone %.3f (%+.1f %%)\n",
				n, ma, mp, mp / ma, (mp / ma - 1) * 100
			printf "getpid, fastest sample: standalone %.1f ns, probe %.1f ns: probe / standalone %.3f (%+.1f %%; target within 2 %%)\n",
				am, pm, pm / am, (pm / am - 1) * 100 }' "$tmp/pairs"
else
	echo "getpid standalone loop: cannot build a static program: $(head -c 300 "$tmp/cc.err")"
fi

# 2. The runner's per-sample overhead with the null probe.
n1=100; n2=2100
t0=$(now)
"$RUNNER" -q --no-report -o "$tmp/out" --run-id null1 --set null_overhead.repetitions=$n1 \
	tools/bench/null_overhead.yaml >/dev/null 2>&1 || echo "  (null run 1 exited $?)"
t1=$(now)
"$RUNNER" -q --no-report -o "$tmp/out" --run-id null2 --set null_overhead.repetitions=$n2 \
	tools/bench/null_overhead.yaml >/dev/null 2>&1 || echo "  (null run 2 exited $?)"
t2=$(now)
pair=$(point "$tmp/out/null2/results/null_overhead.json" "" estimate_raw)
e1=$(point "$tmp/out/null1/results/null_overhead.json" "" elapsed_s)
e2=$(point "$tmp/out/null2/results/null_overhead.json" "" elapsed_s)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n1=$n1 -v n2=$n2 -v e1="$e1" -v e2="$e2" -v pair="$pair" 'BEGIN {
	w1 = b - a; w2 = c - b; per = (w2 - w1) / (n2 - n1)
	printf "harness, whole run (wall): %d samples %.3f s, %d samples %.3f s -> %.1f us per sample (stats included), %.3f s fixed per run\n",
		n1, w1, n2, w2, per * 1e6, w1 - n1 * per
	if (e1 != "n/a" && e2 != "n/a")
		printf "harness, point only (elapsed_s): %.3f s, %.3f s -> %.1f us per sample (fork, samples, pipe; no stats)\n",
			e1, e2, (e2 - e1) / (n2 - n1) * 1e6
	printf "null probe: empty timed region (lfence;rdtsc .. rdtscp;lfence) %s ns\n", pair }'

# 3. Wall time of the four CPU specs, --quick and full.
t0=$(now)
"$RUNNER" -q --no-report --quick -o "$tmp/out" --run-id quick $SPECS >/dev/null 2>&1 || echo "  (quick run exited $?)"
t1=$(now)
echo "runner --quick on the 4 CPU specs: $(elapsed "$t0" "$t1") s (target < 5 s)"
t0=$(now)
"$RUNNER" -q --no-report -o "$tmp/out" --run-id full $SPECS >/dev/null 2>&1 || echo "  (full run exited $?)"
t1=$(now)
echo "runner on the 4 CPU specs: $(elapsed "$t0" "$t1") s (target < 30 s)"
for e in timer_overhead loop_overhead procedure_call syscall; do
	python3 - "$tmp/out/full/results/$e.json" <<'PY' 2>/dev/null || echo "  $e: no result"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    key = ";".join("%s=%s" % kv for kv in sorted(p["params_text"].items())) or "-"
    e, r = p.get("estimate"), p.get("estimate_raw")
    f = lambda v: "%.2f" % v if isinstance(v, (int, float)) else "n/a"
    print("  %-16s %-26s estimate %8s ns  raw %8s ns  n %s" % (d["experiment"], key, f(e), f(r), p.get("n")))
PY
done
