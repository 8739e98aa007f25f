#!/bin/sh
# The aarch64 build's tests under qemu-user (make test-arm64; docs/arm64.md):
# every unit test, and the bats files that test function rather than
# speed, with SYSMETER_EMULATED=1 so that what judges timing or physics
# skips ("emulated CPU").  The runner and its helper programs are aarch64;
# binfmt_misc (tools/qemu-binfmt.sh) runs them through qemu-aarch64-static,
# the host's tools natively.  Ends with one "N passed, N failed" line.
# Usage: tests/run-arm64.sh [BUILD_DIR]   (default build-arm64)
set -u
cd "$(dirname "$0")/.." || exit 3
b=${1:-build-arm64}
sh tools/qemu-binfmt.sh || exit 1
"$b/runner" --version >/dev/null 2>&1 || { echo "run-arm64: $b/runner does not run under qemu" >&2; exit 1; }
SYSMETER_EMULATED=1
# specs parse and fail well; the report; rerun and compare; the port itself
BATS_FILES="tests/100-spec-errors.bats tests/400-report.bats tests/500-rerun.bats tests/510-compare.bats tests/800-arm64.bats"
export SYSMETER_EMULATED BATS_FILES
exec sh tests/run-all.sh "$b"
