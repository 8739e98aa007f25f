#!/bin/sh
# Bench fragment for remote reads (issue 12).  Prints, asserts nothing:
#  - nfs_read's median per-block time beside an independent libnfs read
#    loop (tools/bench.d/nfs_loop.c, built here: its own clock, offsets and
#    connection) on the same 16 MiB file of the same namespace server
#    (`runner nfs-serve`), 4 KiB blocks, server cache warm, NFSv3 and v4,
#    sequential and random, the reader on the server's CPU (same: the
#    server's daemons are pinned to the last CPU) and on another (cross);
#    the two alternate three times (target within 10 %);
#  - the wall time of specs/remote_file_read.yaml in a full run with
#    --nfs netns, server start included (budget 60 s).
# Needs root, nfs-ganesha, rpcbind and libnfs-dev; else says so and stops.
set -u
: "${BUILD:=build}"
: "${RUNNER:=$PWD/$BUILD/runner}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-nfs.XXXXXX") || exit 1
srv=
cleanup() {
	[ -n "$srv" ] && kill -INT "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

if [ "$(id -u)" -ne 0 ] || ! command -v ganesha.nfsd >/dev/null 2>&1; then
	echo "nfs bench: needs root and nfs-ganesha (make deps): skipped"
	exit 0
fi
if ! ${CC:-gcc} -O2 -o "$tmp/nfs_loop" tools/bench.d/nfs_loop.c -lnfs 2>"$tmp/cc.err"; then
	echo "nfs bench: cannot build the libnfs loop: $(head -c 300 "$tmp/cc.err")"
	exit 0
fi
"$RUNNER" nfs-serve -q --ready-file "$tmp/ready" >/dev/null 2>"$tmp/serve.err" &
srv=$!
i=0
while [ ! -s "$tmp/ready" ] && [ $i -lt 300 ] && kill -0 "$srv" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -s "$tmp/ready" ]; then
	echo "nfs bench: the server did not start: $(head -c 300 "$tmp/serve.err")"
	exit 0
fi
url=$(sed -n 1p "$tmp/ready")
export_dir=$(sed -n 2p "$tmp/ready")
file=sysmeter-16777216-0000000000000001.dat
# the loop's file: the same seeded data nfs_read reads, made in the export
"$RUNNER" -q --no-report -o "$tmp/out" --run-id mk specs/file_read.yaml \
	--set "file_read.params.dir=$export_dir" --set file_read.params.size=16MiB \
	--set file_read.params.cache=warm --set file_read.params.order=sequential \
	--set file_read.rounds=1 >/dev/null 2>&1
echo "== nfs_read (its own --nfs netns server per run) vs an independent libnfs loop (on $url, the same"
echo "   kind of server), 16 MiB file, 4 KiB blocks, server cache warm"
: >"$tmp/rows"
last=$(($(nproc) - 1))
for pl in same cross; do
for v in 3 4; do
	for order in sequential random; do
		cpu=$last
		[ $pl = cross ] && cpu=0
		for i in 1 2 3; do
			"$RUNNER" -q --no-report -o "$tmp/out" --run-id "p$pl$v$order$i" specs/remote_file_read.yaml \
				--nfs netns --set remote_file_read.params.size=16MiB \
				--set remote_file_read.params.placement=$pl \
				--set remote_file_read.params.cache=warm \
				--set remote_file_read.params.order=$order \
				--set remote_file_read.params.version=$v --set remote_file_read.rounds=1 \
				>/dev/null 2>"$tmp/err" || echo "  (runner: $(head -c 200 "$tmp/err"))"
			mode=seq
			[ $order = random ] && mode=rand
			loop=$(taskset -c $cpu "$tmp/nfs_loop" "$url" "$file" 4096 $mode 2000 $v 2>>"$tmp/err")
			probe=$(python3 -c "
import json
try:
    p = json.load(open('$tmp/out/p$pl$v$order$i/results/remote_file_read.json'))['points'][0]
    print('%.2f %.2f' % (p['extra']['p50_us']['median'], p['extra']['getattr_us']['median']))
except Exception:
    print('n/a n/a')")
			echo "$pl $v $order $i $probe ${loop:-n/a}" >>"$tmp/rows"
		done
	done
done
done
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    pl, v, order, i, p50, getattr_us, loop = line.split()
    rows.setdefault((pl, v, order), []).append((p50, getattr_us, loop))
for (pl, v, order), rs in sorted(rows.items()):
    def med(k):
        xs = [float(r[k]) for r in rs if r[k] != "n/a"]
        return statistics.median(xs) if xs else float("nan")
    p, g, l = med(0), med(1), med(2)
    print("%-5s NFSv%s %-10s nfs_read %.1f us (runs %s), GETATTR %.1f us; libnfs loop %.1f us (runs %s); ratio %.2f"
          % (pl, v, order, p, " ".join(r[0] for r in rs), g, l, " ".join(r[2] for r in rs), p / l if l else float("nan")))
PY
kill -INT "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
srv=
t0=$(date +%s.%N)
"$RUNNER" -q --no-report -o "$tmp/out" --run-id full --nfs netns specs/remote_file_read.yaml \
	>/dev/null 2>"$tmp/err" || echo "  (runner exited $?: $(head -c 300 "$tmp/err"))"
t1=$(date +%s.%N)
echo "remote_file_read with --nfs netns, server start included: $(python3 -c "print('%.0f' % ($t1 - $t0))") s (budget 60 s)"
