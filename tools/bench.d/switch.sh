#!/bin/sh
# Thread hand-offs beside independent references (prints, asserts nothing):
#   condvar_switch (same and cross CPU) vs cv_pingpong.c (same protocol, own
#     clock, nothing subtracted: the probe subtracts ~25 ns per hand-off)
#   context_switch thread/pipe vs `perf bench sched pipe -T` (threads, both
#     pinned to CPU 0; perf reports usecs/op per round trip: halved here,
#     nothing subtracted, while the probe subtracts the pipe write+read)
# three alternations each, so a slow spell of the host hits both sides.
# Needs BUILD and RUNNER in the environment (tools/bench.sh sets them).
set -u
: "${RUNNER:?}" "${BUILD:?}"
out=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-switch.XXXXXX") || exit 3
trap 'rm -rf "$out"' EXIT
cc -O2 -pthread -o "$out/cv_pingpong" tools/bench.d/cv_pingpong.c ||
	{ echo "(cannot build cv_pingpong.c)"; exit 0; }
est() {	# est RUN EXPERIMENT PARAM VALUE [FIELD] -> the point's estimate (or extra median)
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for p in d["points"]:
    if p["params"].get(sys.argv[2]) == sys.argv[3]:
        v = p["estimate"] if len(sys.argv) < 5 else p["extra"][sys.argv[4]]["median"]
        print("%.0f" % v if v is not None else "nan"); break' \
		"$out/$1/results/$2.json" "$3" "$4" ${5:+"$5"} 2>/dev/null || echo nan
}
for r in 1 2 3; do
	"$RUNNER" --no-report -q -o "$out" --run-id "cv$r" --set condvar_switch.repetitions=20 \
		--set 'context_switch.params.kind=thread' --set 'context_switch.params.mechanism=pipe' \
		specs/condvar_switch.yaml specs/context_switch.yaml >/dev/null ||
		echo "(probe run exited with $?)"
	same=$("$out/cv_pingpong" 200000 0 0)
	cross=$("$out/cv_pingpong" 20000 0 1)
	perf=""
	if command -v perf >/dev/null 2>&1; then
		# perf does not pin: taskset puts both threads on CPU 0 like the probe
		perf=$(taskset -c 0 perf bench sched pipe -T -l 200000 2>/dev/null |
			awk '/usecs\/op/ { printf "%.0f", $1 * 1000 / 2 }')
	fi
	echo "round $r: condvar same: probe $(est "cv$r" condvar_switch placement same) ns (round trip / 2: $(est "cv$r" condvar_switch placement same round_trip_ns) / 2), cv_pingpong $same ns"
	echo "round $r: condvar cross: probe $(est "cv$r" condvar_switch placement cross) ns, cv_pingpong $cross ns"
	echo "round $r: thread/pipe same: probe $(est "cv$r" context_switch mechanism pipe) ns (round trip $(est "cv$r" context_switch mechanism pipe round_trip_ns)), perf bench sched pipe -T (round trip / 2) ${perf:-n/a} ns"
done
