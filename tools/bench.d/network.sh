#!/bin/sh
# Network: each tcp_* probe beside an independent reference on the same
# machine and placement (prints, asserts nothing):
#   tcp_rtt loopback (64 B, same and cross CPU) vs pingpong.c  (target: within 10 %)
#   tcp_bandwidth loopback vs iperf3 (Debian; installed on demand)  (target: within 15 %)
#   tcp_connect loopback vs pingpong.c's connect/close loop
#   tcp_teardown (setup and teardown apart) loopback vs pingpong.c's phases loop
# and the wall time of the three specs in one full run (budget: 60 s together;
# with --peer netns as root, so remote points count too).
# BENCH_QUICK=1 (or --quick) runs everything with --quick (smoke test of this script).
# Needs BUILD and RUNNER in the environment (tools/bench.sh sets them).
set -u
: "${RUNNER:?}" "${BUILD:?}"
quick=""
[ "${1:-}" = "--quick" ] || [ "${BENCH_QUICK:-0}" = 1 ] && quick="--quick"
out=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-net.XXXXXX") || exit 3
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/pingpong" tools/bench.d/pingpong.c || { echo "(cannot build pingpong.c)"; exit 0; }
peer=""
[ "$(id -u)" -eq 0 ] && peer="--peer netns"
n=$([ -n "$quick" ] && echo 2000 || echo 50000)

# The probes, loopback only, as the references run.
"$RUNNER" $quick --no-report -q -o "$out" --run-id probes \
	--set 'tcp_rtt.params.target=loopback' --set 'tcp_rtt.params.size=64' \
	--set 'tcp_bandwidth.params.target=loopback' --set 'tcp_bandwidth.params.msg_size=128KiB' \
	--set 'tcp_connect.params.target=loopback' --set 'tcp_connect.params.closer=client' \
	--set 'tcp_teardown.params.target=loopback' \
	specs/tcp_rtt.yaml specs/tcp_bandwidth.yaml specs/tcp_connect.yaml specs/tcp_teardown.yaml >/dev/null ||
	echo "(probe run exited with $?)"
est() {	# est EXPERIMENT 'python condition on p' -> estimate
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for p in d["points"]:
    if eval(sys.argv[2]): print(p["estimate"] if p["estimate"] is not None else "nan"); break' \
		"$out/probes/results/$1.json" "$2" 2>/dev/null || echo nan
}
cmp() {	# cmp LABEL PROBE REF UNIT
	python3 -c 'import sys; l,a,b,u=sys.argv[1:]; a,b=float(a),float(b)
print("  %-34s probe %10.4g %s  reference %10.4g %s  probe/ref %.3f" % (l, a, u, b, u, a/b if b else float("nan")))' "$@" 2>/dev/null ||
		echo "  $1: probe $2, reference $3 (not comparable)"
}
echo "tcp_rtt, 64 B, loopback (ns per round trip):"
cmp "same CPU (0/0)" "$(est tcp_rtt 'p["params"]["placement"]=="same"')" "$("$out/pingpong" rtt "$n" 64 0 0)" ns
cmp "cross CPU (0/1)" "$(est tcp_rtt 'p["params"]["placement"]=="cross"')" "$("$out/pingpong" rtt "$n" 64 0 1)" ns
echo "tcp_connect, loopback, client closes (ns per connect+close):"
cmp "same CPU (0/0)" "$(est tcp_connect 'True')" "$("$out/pingpong" connect "$((n / 10))" 0 0)" ns
echo "tcp_teardown, loopback, client closes (ns per connection, each half apart):"
ph=$("$out/pingpong" phases "$((n / 10))" 0 0)
cmp "setup, same CPU (0/0)" "$(est tcp_teardown 'p["params"]["phase"]=="setup"')" "${ph% *}" ns
cmp "teardown, same CPU (0/0)" "$(est tcp_teardown 'p["params"]["phase"]=="teardown"')" "${ph#* }" ns
echo "tcp_bandwidth, loopback, 128 KiB writes, cross CPU (bytes/s; probe: peak of samples):"
if ! command -v iperf3 >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && [ -z "$quick" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq iperf3 >/dev/null 2>&1 || :
fi
if command -v iperf3 >/dev/null 2>&1; then
	taskset -c 1 iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
	sleep 0.5
	ref=$(taskset -c 0 iperf3 -c 127.0.0.1 -p 5299 -l 128K -t "$([ -n "$quick" ] && echo 1 || echo 5)" -O 1 -J 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/8)' 2>/dev/null)
	wait
	cmp "iperf3 -l 128K (mean)" "$(est tcp_bandwidth 'True')" "${ref:-nan}" B/s
else
	echo "  iperf3 not installed (apt-get install iperf3): no reference"
fi
echo "wall time of the three specs in a full run ($([ -n "$peer" ] && echo "--peer netns" || echo "no peer: remote points skipped")):"
t0=$(date +%s.%N)
"$RUNNER" $quick $peer --no-report -q -o "$out" --run-id full \
	specs/tcp_rtt.yaml specs/tcp_bandwidth.yaml specs/tcp_connect.yaml >/dev/null
rc=$?
python3 -c 'import sys,time; print("  %.1f s (budget 60 s), exit %s" % (time.time() - float(sys.argv[1]), sys.argv[2]))' "$t0" "$rc"
