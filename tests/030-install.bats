#!/usr/bin/env bats
# make install: any PREFIX/DESTDIR, no rebuild, the installed runner finds its
# own probes and templates from wherever it is started, and an out-of-tree
# probe (docs/probe-guide.md's example, as written) builds against the
# installed header with pkg-config and runs; so do the network probes, whose
# peer protocol (probe_wire.h) is installed next to probe.h.

load helpers

setup() {
	DEST="$BATS_TEST_TMPDIR/dest"
	ELSEWHERE="$BATS_TEST_TMPDIR/elsewhere"
	mkdir -p "$ELSEWHERE"
}

install_to() {	# install_to PREFIX
	make -s --no-print-directory -C "$BATS_TEST_DIRNAME/.." install BUILD="$BUILD" \
		DESTDIR="$DEST" PREFIX="$1" >/dev/null
}

@test "plain make in a clean clone builds the runner and every probe" {
	# the first thing a C user types; once per suite, the Makefile is the same
	# for every build dir
	[ "$BUILD" = build ] || skip "once per suite (BUILD=build)"
	git -C "$BATS_TEST_DIRNAME/.." rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	git clone -q "$BATS_TEST_DIRNAME/.." "$BATS_TEST_TMPDIR/clone"
	run make -s -C "$BATS_TEST_TMPDIR/clone"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -x "$BATS_TEST_TMPDIR/clone/build/runner" ]
	for c in "$BATS_TEST_TMPDIR"/clone/probes/*.c; do
		[ -f "$BATS_TEST_TMPDIR/clone/build/probes/$(basename "$c" .c).so" ]
	done
	run "$BATS_TEST_TMPDIR/clone/build/runner" list
	[ "$status" -eq 0 ]
	[[ "$output" == *"mem_latency"* ]]
}

@test "two PREFIXes in a row, no clean: each installed runner lists its own probes" {
	for prefix in /opt/sm-a /usr/local; do
		install_to "$prefix"
		[ -x "$DEST$prefix/bin/runner" ]
		cd "$ELSEWHERE"
		run env -u SYSMETER_PROBE_DIR "$DEST$prefix/bin/runner" list
		[ "$status" -eq 0 ]
		[[ "$output" == *"mem_latency"* ]]
		[[ "$output" == *"syscall"* ]]
		[[ "$output" != *"bad_abi"* ]]		# fixtures are not installed
		cd - >/dev/null
	done
}

@test "the installed runner reports its version and renders from its installed templates" {
	install_to /opt/sm
	cd "$ELSEWHERE"
	run env -u SYSMETER_PROBE_DIR "$DEST/opt/sm/bin/runner" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^runner\ \(sysmeter\)\ [0-9]+\.[0-9]+ ]]
	cp "$BATS_TEST_DIRNAME/fixtures/specs/cli/null.yaml" .
	run env -u SYSMETER_PROBE_DIR "$DEST/opt/sm/bin/runner" -q -o out --run-id r1 null.yaml
	[ "$status" -eq 0 ]
	[ -s out/r1/report.md ]
	grep -q 'null' out/r1/report.md
	[ -f "$DEST/opt/sm/share/man/man1/runner.1" ]
	[ -f "$DEST/opt/sm/share/man/man5/sysmeter-spec.5" ]
	[ -f "$DEST/opt/sm/share/bash-completion/completions/runner" ]
}

@test "the probe guide's example builds with pkg-config against the installed header and runs" {
	install_to /opt/sm
	cd "$ELSEWHERE"
	# the guide's first C block, exactly as a reader copies it
	awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' \
		"$BATS_TEST_DIRNAME/../docs/probe-guide.md" > example.c
	name=$(sed -n 's/.*\.name *= *"\([a-z0-9_]*\)".*/\1/p' example.c | head -n 1)
	[ -n "$name" ]
	export PKG_CONFIG_PATH="$DEST/opt/sm/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$DEST"
	run pkg-config --cflags sysmeter
	[ "$status" -eq 0 ]
	[ "${output%% }" = "-I$DEST/opt/sm/include/sysmeter" ]
	mkdir myprobes
	cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -fvisibility=hidden $(pkg-config --cflags sysmeter) \
		-shared -o "myprobes/$name.so" example.c
	printf 'probe: %s\nrepetitions: 3\nwarmup: 1\n' "$name" > mine.yaml
	# --probe-dir adds to the search path: the installed probes stay visible
	run env -u SYSMETER_PROBE_DIR "$DEST/opt/sm/bin/runner" --probe-dir myprobes list
	[ "$status" -eq 0 ]
	[[ "$output" == *"$name"* ]]
	[[ "$output" == *"mem_latency"* ]]
	run env -u SYSMETER_PROBE_DIR "$DEST/opt/sm/bin/runner" --probe-dir myprobes --no-report -q \
		-o out --run-id r1 mine.yaml
	[ "$status" -eq 0 ]
	[ "$(json out/r1/results/mine.json 'd["points"][0]["status"]')" = ok ]
	[ "$(json out/r1/results/mine.json 'len(d["points"][0]["samples"]) > 0')" = true ]
}

@test "the network probes build out of the tree against the installed headers alone" {
	install_to /opt/sm
	for h in probe.h probe_time.h probe_barrier.h probe_wire.h; do
		[ -f "$DEST/opt/sm/include/sysmeter/$h" ]
	done
	cd "$ELSEWHERE"
	# a copy of the sources only: no runner/ directory to fall back on
	cp "$BATS_TEST_DIRNAME"/../probes/tcp_*.[ch] .
	export PKG_CONFIG_PATH="$DEST/opt/sm/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$DEST"
	mkdir myprobes
	for name in tcp_rtt tcp_connect tcp_bandwidth; do
		cc -std=c11 -D_GNU_SOURCE -O2 -fPIC -fvisibility=hidden $(pkg-config --cflags sysmeter) \
			-shared -o "myprobes/$name.so" "$name.c"
		run env -u SYSMETER_PROBE_DIR "$DEST/opt/sm/bin/runner" --probe-dir myprobes \
			probe-help "$PWD/myprobes/$name.so"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"target"* ]]
	done
}

@test "make run: a run with failed points (runner exit 1) still ends make run well; another failure stops it" {
	# a stand-in runner in its own build folder; -o all: nothing is built
	fake="$BATS_TEST_TMPDIR/fakebuild"
	mkdir -p "$fake"
	for rc in 1 3; do
		printf '#!/bin/sh\necho "measured $*"\nexit %s\n' "$rc" > "$fake/runner"
		chmod +x "$fake/runner"
		run make -s --no-print-directory -C "$BATS_TEST_DIRNAME/.." -o all BUILD="$fake" run
		echo "$output"
		[[ "$output" == *"measured "*"specs/"* ]]
		if [ "$rc" = 1 ]; then
			[ "$status" -eq 0 ]
			[[ "$output" == *"make run: some points failed or were skipped (runner exit 1)"* ]]
		else
			[ "$status" -ne 0 ]
			[[ "$output" != *"some points failed"* ]]
		fi
	done
}
