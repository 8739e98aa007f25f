#!/bin/sh
# Cold sequential reads: read_apis_cold's read(2) at 64 KiB and 1 MiB chunks
# beside GNU dd on the same 64 MiB test file, evicted the same way first
# (dd iflag=nocache count=0: posix_fadvise(DONTNEED) on the whole file),
# three alternations (prints, asserts nothing).
# Needs BUILD and RUNNER in the environment (tools/bench.sh sets them).
set -u
: "${RUNNER:?}" "${BUILD:?}"
out=$(mktemp -d "${TMPDIR:-/tmp}/sysmeter-bench-cold.XXXXXX") || exit 3
trap 'rm -rf "$out"' EXIT
f=/var/tmp/sysmeter-files/sysmeter-67108864-0000000000000001.dat
for r in 1 2 3; do
	"$RUNNER" --no-report -q -o "$out" --run-id "c$r" --set 'read_apis_cold.params.api=read' \
		--set 'read_apis_cold.params.chunk=[64KiB, 1MiB]' specs/read_apis_cold.yaml >/dev/null ||
		echo "(probe run exited with $?)"
	[ -f "$f" ] || { echo "no test file $f"; exit 0; }
	for bs in 64K 1M; do
		dd if="$f" iflag=nocache count=0 status=none
		rate=$(LC_ALL=C dd if="$f" of=/dev/null bs=$bs 2>&1 | sed -n 's/.*copied, [0-9.e-]* s, \(.*\)$/\1/p')
		probe=$(python3 -c 'import json,sys
for p in json.load(open(sys.argv[1]))["points"]:
    if p["params"]["chunk"] == int(sys.argv[2]): print("%.0f MB/s (%.1f us per chunk)" % (p["extra"]["mb_per_s"]["median"], p["estimate"] / 1e3))' \
			"$out/c$r/results/read_apis_cold.json" "$([ $bs = 64K ] && echo 65536 || echo 1048576)" 2>/dev/null)
		echo "round $r: cold read(2) bs $bs: probe ${probe:-n/a}, dd $rate"
	done
done
