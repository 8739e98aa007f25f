#!/bin/sh
# The command probe against hyperfine: the same short programs timed by
# both (hyperfine -N: no shell, like the probe), mean and standard deviation
# side by side (target: within 5 % or within hyperfine's own spread), and
# what the harness costs per run beyond the run itself (the cgroup, the
# kill-and-reap, the runner's rounds): elapsed time of the whole
# sysmeter run divided by its runs, minus their mean.  Prints figures,
# asserts nothing.  hyperfine (Debian) is installed on demand when root.
# Needs BUILD and RUNNER in the environment (tools/bench.sh sets them).
set -u
: "${RUNNER:?}" "${BUILD:?}"
bin="$PWD/$BUILD/probes/bin"
out=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-command.XXXXXX") || exit 3
trap 'rm -rf "$out"' EXIT
if ! command -v hyperfine >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq hyperfine >/dev/null 2>&1 || :
fi
RUNS=30
# name|argv as YAML|the same as one hyperfine command line (no shell: -N)
cat >"$out/cases" <<EOF2
spawn_true|["$bin/spawn_true"]|$bin/spawn_true
work_split 10|["$bin/work_split", threads, "1", "10"]|$bin/work_split threads 1 10
sleep 20ms|[sleep, "0.02"]|sleep 0.02
EOF2
printf '%-14s %22s %22s %9s %14s\n' program "sysmeter mean+-sd" "hyperfine mean+-sd" "diff" "harness/run"
while IFS='|' read -r name argv line; do
	spec="$out/c.yaml"
	printf 'probe: command\ncommand: %s\nrepetitions: %d\nrounds: 1\nwarmup: 3\ncpu: none\n' \
		"$argv" "$RUNS" >"$spec"
	rm -rf "$out/run"
	t0=$(date +%s.%N)
	"$RUNNER" --no-report -q -o "$out/run" --run-id r "$spec" >/dev/null 2>&1 ||
		{ echo "$name: the runner failed"; continue; }
	t1=$(date +%s.%N)
	href="nan nan"
	if command -v hyperfine >/dev/null 2>&1; then
		# shellcheck disable=SC2086 # the line is split into argv on purpose
		hyperfine -N -w 3 -r "$RUNS" --export-json "$out/h.json" "$line" >/dev/null 2>&1 &&
			href=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["mean"]*1e3, r["stddev"]*1e3)' "$out/h.json")
	fi
	python3 - "$out/run/r/results/c.json" "$name" "$t0" "$t1" $href <<'PY'
import json, math, statistics, sys
res, name, t0, t1, hm, hs = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
p = json.load(open(res))["points"][0]
v = [s["value"] for s in p["samples"] if not s["warmup"]]
allv = [s["value"] for s in p["samples"]]
m, sd = statistics.mean(v), statistics.stdev(v)
harness = (t1 - t0) * 1e3 / len(allv) - statistics.mean(allv)
fmt = lambda a, b: "-" if math.isnan(a) else "%.3f +- %.3f ms" % (a, b)
diff = "-" if math.isnan(hm) else "%+.1f %%" % (100 * (m - hm) / hm)
print("%-14s %22s %22s %9s %11.2f ms" % (name, fmt(m, sd), fmt(hm, hs), diff, harness))
PY
done <"$out/cases"
command -v hyperfine >/dev/null 2>&1 || echo "  hyperfine not installed (apt-get install hyperfine): no reference"
echo "  harness/run: the runner's elapsed time per run (untimed set-up included) minus the mean run"
