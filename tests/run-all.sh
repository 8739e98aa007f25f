#!/bin/sh
# Run every unit test and bats file once per build dir given (build,
# build-san), count TAP results, and end with one "N passed, N failed" line.
# Usage: tests/run-all.sh BUILD_DIR...
set -u
cd "$(dirname "$0")/.." || exit 3
pass=0; fail=0; skip=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
count() {   # count TAP lines in $log, print failures
	p=$(grep -c '^ok ' "$log" | tr -d ' '); f=$(grep -c '^not ok ' "$log" | tr -d ' ')
	s=$(grep -c '^ok .*# skip' "$log" | tr -d ' ')
	pass=$((pass + p - s)); fail=$((fail + f)); skip=$((skip + s))
	[ "$s" -gt 0 ] && grep '^ok .*# skip' "$log" | sed 's/^/    /'	# say what did not run, and why
	if [ "$f" -gt 0 ] || [ "$1" -ne 0 -a "$p$f" = "00" ]; then
		grep -v '^ok ' "$log" | sed 's/^/    /' | head -60
		[ "$p$f" = "00" ] && fail=$((fail + 1))
	fi
}
for b in "$@"; do
	echo "== unit tests ($b)"
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		"$t" >"$log" 2>&1; rc=$?
		echo "  $(basename "$t"): $(grep -c '^ok ' "$log") ok, $(grep -c '^not ok ' "$log") not ok"
		count $rc
	done
	echo "== bats ($b)"
	# BATS_FILES: a subset (tests/run-arm64.sh), else every file
	for f in ${BATS_FILES:-tests/*.bats tests/probes/*.bats}; do
		[ -f "$f" ] || continue
		RUNNER="$PWD/$b/runner" SYSMETER_PROBE_DIR="$PWD/$b/probes:$PWD/$b/fixtures/probes" \
		FIXTURE_DIR="$PWD/$b/fixtures/probes" BUILD="$b" \
			bats --tap "$f" >"$log" 2>&1; rc=$?
		echo "  $f: $(grep -c '^ok ' "$log") ok, $(grep -c '^not ok ' "$log") not ok"
		count $rc
	done
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
