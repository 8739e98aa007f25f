#!/usr/bin/env bats
# The libFuzzer targets (issue 15): when clang with libFuzzer is here
# (Debian: clang libclang-rt-14-dev), `make fuzz FUZZ_TIME=3` builds every
# tests/fuzz harness with -fsanitize=fuzzer,address,undefined and runs each
# for 3 s from its seed corpus; a crash, leak or timeout fails.  The plain
# mutation mode of the same harnesses runs in every build as unit tests;
# the long run is `make fuzz FUZZ_TIME=600` (docs/methodology.md).

bats_require_minimum_version 1.5.0
cd "$BATS_TEST_DIRNAME/.." || exit 1

have_libfuzzer() {
	command -v clang >/dev/null 2>&1 || return 1
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
		>"$BATS_TEST_TMPDIR/t.c"
	clang -fsanitize=fuzzer -o "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/t.c" >/dev/null 2>&1
}

@test "make fuzz: every libFuzzer target runs 3 s from its seeds without a crash, leak or timeout" {
	have_libfuzzer || skip "clang with libFuzzer not installed (apt-get install clang libclang-rt-14-dev)"
	# build-fuzz is kept between runs (incremental; a crash file left there
	# fails the next run too, until it is looked at)
	run make --no-print-directory fuzz FUZZ_TIME=3
	echo "$output" | tail -40
	[ "$status" -eq 0 ]
	for t in tests/fuzz/*.c; do
		n=$(basename "$t" .c)
		[[ "$output" == *"$n"* ]] || { echo "target $n did not run"; false; }
	done
	! ls build-fuzz/fuzz/crash-* 2>/dev/null
}
