#!/bin/sh
# make bench: print figures about the harness and the probes; asserts
# nothing (speed and precision targets live here, not in tests).
# Each tools/bench.d/*.sh fragment gets BUILD and RUNNER in its environment.
set -u
cd "$(dirname "$0")/.." || exit 3
BUILD=${1:-build}
RUNNER="$PWD/$BUILD/runner"
SYSMETER_PROBE_DIR="$PWD/$BUILD/probes"
export BUILD RUNNER SYSMETER_PROBE_DIR
for f in tools/bench.d/*.sh; do
	[ -f "$f" ] || continue
	echo "=== $(basename "$f" .sh)"
	sh "$f" || echo "(bench fragment $f exited with $?)"
done
