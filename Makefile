# sysmeter - build, run, test, install.  Nothing else is needed on a fresh
# Debian/Ubuntu machine: `make run` and `make test` install what is missing.
#
# User variables are honoured: CC, CFLAGS, CPPFLAGS, LDFLAGS, PREFIX, DESTDIR.
# WERROR=1 turns warnings into errors (tests and CI set it; a plain build does
# not, so a newer compiler's new warning never breaks a user's build).

# `make` with no goal builds everything `make all` builds.  Without this the
# first rule in the file, $(BUILD)/config.mk, would be the default goal.
.DEFAULT_GOAL := all

# CROSS=aarch64-linux-gnu- builds for another CPU family with Debian's cross
# compiler (CC = $(CROSS)gcc) against that architecture's multiarch -dev
# libraries (pkg-config reads only /usr/lib/<triplet>/pkgconfig), into its own
# build dir (build-arm64 unless BUILD is given).  `make deps-arm64` installs
# the compiler and the libraries; `make test-arm64` runs the tests under
# qemu-user (docs/arm64.md).
CROSS    ?=
CROSS_TRIPLET := $(patsubst %-,%,$(CROSS))
CROSS_ARCH    := $(if $(filter aarch64-%,$(CROSS_TRIPLET)),arm64,$(CROSS_TRIPLET))
# make predefines CC=cc; only a CC the user did not choose becomes gcc.
ifeq ($(origin CC),default)
CC := $(CROSS)gcc
endif
CFLAGS   ?= -O2 -g
ifeq ($(origin BUILD),undefined)
BUILD    := $(if $(CROSS),build-$(CROSS_ARCH),build)
endif
PKG_CONFIG := $(if $(CROSS),PKG_CONFIG_LIBDIR=/usr/lib/$(CROSS_TRIPLET)/pkgconfig:$(abspath $(BUILD))/pkgconfig:/usr/share/pkgconfig )pkg-config
PREFIX   ?= /usr/local
DESTDIR  ?=
SAN      ?=
WERROR   ?=

# -Wformat-truncation is gcc's (snprintf into fixed buffers truncates on
# purpose here); clang does not know the option and would say so per file.
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo 1)
WARN     := -Wall -Wextra $(if $(CC_IS_CLANG),,-Wno-format-truncation) $(if $(filter 1,$(WERROR)),-Werror)
STD      := -std=c11 -D_GNU_SOURCE
PKGS     := yaml-0.1 jansson gsl libcrypto libcmark sqlite3 libpq

# The libraries' flags come from pkg-config, read from $(BUILD)/config.mk.
# That file is made (after tools/deps.sh has installed whatever is missing)
# before anything compiles: make remakes an included makefile first and then
# restarts, so even `make -j4 run` on a bare machine compiles nothing before
# the compiler, libc headers and libraries are there.  It also records the
# build dir's SAN setting, so a later `make install BUILD=build-san` (say)
# never mixes sanitized and plain objects in one directory.
NODEPS_GOALS := clean deps deps-arm64 help uninstall test-arm64
ifneq ($(if $(MAKECMDGOALS),$(filter-out $(NODEPS_GOALS),$(MAKECMDGOALS)),all),)
include $(BUILD)/config.mk
endif
DEPS_WHAT := $(if $(filter test test-one,$(MAKECMDGOALS)),--test-only) $(if $(CROSS),--arch $(CROSS_ARCH))
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

$(BUILD)/config.mk: tools/deps.sh Makefile
	@sh tools/deps.sh $(DEPS_WHAT)
	@mkdir -p $(BUILD)
	@$(if $(CROSS),sh tools/cross-pc.sh $(CROSS_TRIPLET) $(abspath $(BUILD))/pkgconfig $(PKGS) libnfs)
	@cf=$$($(PKG_CONFIG) --cflags $(PKGS)) && lf=$$($(PKG_CONFIG) --libs $(PKGS)) || \
		{ echo "make: pkg-config cannot find: $(PKGS)" >&2; exit 1; }; \
	nc=$$($(PKG_CONFIG) --cflags libnfs) && nl=$$($(PKG_CONFIG) --libs libnfs) || \
		{ echo "make: pkg-config cannot find libnfs (libnfs-dev)" >&2; exit 1; }; \
	printf 'PKG_CFLAGS := %s\nPKG_LIBS := %s\nNFS_CFLAGS := %s\nNFS_LIBS := %s\nSAN := %s\n' \
		"$$cf" "$$lf" "$$nc" "$$nl" "$(SAN)" > $@.tmp && mv $@.tmp $@

RUNNER_CFLAGS := $(STD) $(WARN) $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) $(PKG_CFLAGS) -Irunner -MMD -MP
RUNNER_LIBS   := $(PKG_LIBS) -ldl -lm -lpthread

# Probes: always optimised at -O2 (the last -O wins, whatever CFLAGS says: the
# measured work survives through barriers and sinks, never through an
# unoptimised build), hidden visibility, one rule.  Probes are not built with
# sanitizers: they are the thing being measured.
PROBE_CFLAGS  := $(STD) $(WARN) $(CPPFLAGS) $(CFLAGS) -O2 -fPIC -fvisibility=hidden -Irunner -MMD -MP
PROBE_LDFLAGS := -shared $(LDFLAGS) -lm -lpthread

# The runner: runner/main.c plus one folder per pipeline stage (runner/*/),
# found by wildcard: adding a file or a stage needs no list here.
RUNNER_SRC  := $(wildcard runner/*.c runner/*/*.c)
RUNNER_OBJ  := $(RUNNER_SRC:runner/%.c=$(BUILD)/obj/runner/%.o)
LIB_OBJ     := $(filter-out $(BUILD)/obj/runner/main.o,$(RUNNER_OBJ))
PROBE_SRC   := $(wildcard probes/*.c)
PROBE_SO    := $(PROBE_SRC:probes/%.c=$(BUILD)/probes/%.so)
PROBE_BIN_SRC := $(wildcard probes/bin/*.c)
PROBE_BIN   := $(PROBE_BIN_SRC:probes/bin/%.c=$(BUILD)/probes/bin/%)
FIXTURE_SRC := $(wildcard tests/fixtures/probes/*.c)
FIXTURE_SO  := $(FIXTURE_SRC:tests/fixtures/probes/%.c=$(BUILD)/fixtures/probes/%.so)
UNIT_SRC    := $(wildcard tests/unit/test_*.c)
UNIT_BIN    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# tests/fuzz/<name>.c: a fuzz harness with a plain main(), run by the suite as a unit test
UNIT_BIN    += $(patsubst tests/fuzz/%.c,$(BUILD)/tests/test_%,$(wildcard tests/fuzz/*.c))

.PHONY: all runner probes fixtures unit deps deps-arm64 test-arm64 run run-opt-in test test-one bench bench-models install uninstall clean help fuzz fuzz-build
all: $(BUILD)/runner $(PROBE_SO) $(PROBE_BIN)

runner: $(BUILD)/runner
probes: $(PROBE_SO) $(PROBE_BIN)
fixtures: $(FIXTURE_SO)
unit: $(UNIT_BIN)

$(BUILD)/obj/runner/%.o: runner/%.c
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) -c -o $@ $<

$(BUILD)/runner: $(RUNNER_OBJ)
	$(CC) $(RUNNER_CFLAGS) $(LDFLAGS) -o $@ $^ $(RUNNER_LIBS)

$(BUILD)/probes/%.so: probes/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROBE_CFLAGS) $(PROBE_XCFLAGS) -o $@ $< $(PROBE_LDFLAGS) $(PROBE_XLIBS)

# The NFS client probe links libnfs (user space: no kernel NFS client needed).
$(BUILD)/probes/nfs_read.so: PROBE_XCFLAGS = $(NFS_CFLAGS)
$(BUILD)/probes/nfs_read.so: PROBE_XLIBS = $(NFS_LIBS)
$(BUILD)/probes/nfs_read.so: $(BUILD)/config.mk

$(BUILD)/probes/bin/%: probes/bin/%.c
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(CPPFLAGS) $(CFLAGS) -O2 -MMD -MP $(LDFLAGS) -static -o $@ $<

$(BUILD)/fixtures/probes/%.so: tests/fixtures/probes/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROBE_CFLAGS) -o $@ $< $(PROBE_LDFLAGS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) $(LDFLAGS) -Itests/unit -o $@ $< $(LIB_OBJ) $(RUNNER_LIBS)

$(BUILD)/tests/test_%: tests/fuzz/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJ) $(RUNNER_LIBS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

deps:
	@sh tools/deps.sh

# The aarch64 cross compiler, the arm64 -dev libraries (dpkg multiarch) and
# qemu-user-static: what `make CROSS=aarch64-linux-gnu-` and `make test-arm64` need.
deps-arm64:
	@sh tools/deps.sh --test-only --arch arm64

# The runner's exit 1 says that some points failed or were skipped (a busy
# machine can spoil a point's samples): the run and its report are still
# there, and say which, so `make run` goes on; any other failure stops it.
RUN_CMD = $(BUILD)/runner $(if $(filter 0,$(shell id -u)),--peer netns --nfs netns) specs/
run: all
	@echo '$(RUN_CMD)'; rc=0; $(RUN_CMD) || rc=$$?; \
	if [ $$rc -eq 1 ]; then \
		echo "make run: some points failed or were skipped (runner exit 1): out/latest/report.pdf says which"; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# Experiments too long for `make run` (docs/methodology.md says why): the
# whole machine's page cache (file_cache_machine: tens of GiB read, minutes).
run-opt-in: all
	$(BUILD)/runner specs/opt-in/

# The whole suite, warnings as errors, in a normal build and again under
# ASan+UBSan, ending with one "N passed, N failed" line.
test:
	@sh tools/deps.sh --test-only
	@$(MAKE) --no-print-directory WERROR=1 all fixtures unit
	@$(MAKE) --no-print-directory BUILD=build-san SAN=1 WERROR=1 all fixtures unit
	@sh tests/run-all.sh build build-san

# The functional tests of an aarch64 cross build under qemu-user (docs/arm64.md):
# the cross build, warnings as errors, in build-arm64 (ARM64_BUILD), then
# tests/run-arm64.sh: the unit tests and the bats files that test function,
# with SYSMETER_EMULATED set so that tests judging timing or physics skip
# with "emulated CPU".  Ends with one "N passed, N failed" line.
ARM64_BUILD ?= build-arm64
test-arm64:
	@sh tools/deps.sh --test-only --arch arm64
	@$(MAKE) --no-print-directory CROSS=aarch64-linux-gnu- BUILD=$(ARM64_BUILD) WERROR=1 all fixtures unit
	@sh tests/run-arm64.sh $(ARM64_BUILD)

# One build only (quick iteration): make test-one [BUILD=build]
test-one: all fixtures unit
	@sh tests/run-all.sh $(BUILD)

bench: all
	@sh tools/bench.sh $(BUILD)

# The prediction models judged over the real full-run folders of every host
# kind kept in tests/fixtures/model-runs/ (its README.md): the current
# specs' predictions for each recorded point, per host (issue 34).
bench-models: all
	$(BUILD)/runner models tests/fixtures/model-runs/*/

# libFuzzer targets: every tests/fuzz/<name>.c compiled with -DFUZZ_LIBFUZZER
# by clang against a clang-built copy of the runner's objects (its own build
# dir, so the gcc builds are untouched).  Needs clang and libFuzzer
# (Debian: apt-get install clang libclang-rt-14-dev).  `make fuzz` runs each
# target FUZZ_TIME seconds (default 10) on a corpus seeded by
# tools/fuzz-seeds.sh; the long run is `make fuzz FUZZ_TIME=600`.  A crash
# leaves crash-* in $(FUZZ_BUILD)/fuzz/ and stops: minimise it with
# `build-fuzz/fuzz/fuzz_X -minimize_crash=1 crash-...` and add it to
# tests/fuzz/regress/X/, which the plain-main harness replays in `make test`.
# tests/fuzz/X.dict, when there is one, is the target's libFuzzer dictionary.
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 10
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/*.c))
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DFUZZ_LIBFUZZER

fuzz-build:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang WERROR=1 \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" \
		$(addprefix $(FUZZ_BUILD)/fuzz/,$(FUZZ_NAMES))

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) $(FUZZ_FLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJ) $(RUNNER_LIBS)

fuzz: fuzz-build
	@for t in $(FUZZ_NAMES); do \
		sh tools/fuzz-seeds.sh $$t $(FUZZ_BUILD)/fuzz/corpus/$$t || exit 1; \
		echo "== $$t: $(FUZZ_TIME) s"; \
		dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
		($(FUZZ_BUILD)/fuzz/$$t $$dict -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -close_fd_mask=1 -artifact_prefix=$(FUZZ_BUILD)/fuzz/ \
			$(FUZZ_BUILD)/fuzz/corpus/$$t 2>&1 | grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==|SUMMARY|artifact_prefix|Test unit written)' ) ; \
		for a in $(FUZZ_BUILD)/fuzz/crash-* $(FUZZ_BUILD)/fuzz/leak-* $(FUZZ_BUILD)/fuzz/timeout-*; do \
			[ -e "$$a" ] && { echo "fuzz: $$t: $$a (reproduce: $(FUZZ_BUILD)/fuzz/$$t $$a)"; exit 1; }; \
		done; \
	done; true

# The runner finds its probes and templates relative to its own executable
# (bin/../lib/sysmeter/probes, bin/../share/sysmeter/templates), so any
# PREFIX or DESTDIR works without a rebuild.  Out-of-tree probes build against
# the installed probe.h with `pkg-config --cflags sysmeter`.
LIBDIR     = $(PREFIX)/lib
INCDIR     = $(PREFIX)/include/sysmeter
DATADIR    = $(PREFIX)/share
PROBEDIR   = $(LIBDIR)/sysmeter/probes
VERSION   := $(shell sed -n 's/^\#define SYSMETER_VERSION "\(.*\)"/\1/p' runner/lib/version.h 2>/dev/null)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PROBEDIR)/bin $(DESTDIR)$(INCDIR) \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(DATADIR)/sysmeter/specs \
		$(DESTDIR)$(DATADIR)/sysmeter/templates $(DESTDIR)$(DATADIR)/man/man1 \
		$(DESTDIR)$(DATADIR)/man/man5 $(DESTDIR)$(DATADIR)/bash-completion/completions
	install -m 755 $(BUILD)/runner $(DESTDIR)$(PREFIX)/bin/runner
	install -m 644 $(PROBE_SO) $(DESTDIR)$(PROBEDIR)/
	$(if $(PROBE_BIN),install -m 755 $(PROBE_BIN) $(DESTDIR)$(PROBEDIR)/bin/)
	install -m 644 runner/probe.h runner/probe_time.h runner/probe_barrier.h runner/probe_wire.h $(DESTDIR)$(INCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tools/sysmeter.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/sysmeter.pc
	install -m 644 specs/*.yaml $(DESTDIR)$(DATADIR)/sysmeter/specs/
	cp -R templates/. $(DESTDIR)$(DATADIR)/sysmeter/templates/
	install -d $(DESTDIR)$(DATADIR)/sysmeter/fleet
	install -m 644 tools/fleet/fleet.yml tools/fleet/stop.yml $(DESTDIR)$(DATADIR)/sysmeter/fleet/
	install -m 644 docs/man/runner.1 $(DESTDIR)$(DATADIR)/man/man1/
	install -m 644 docs/man/sysmeter-spec.5 $(DESTDIR)$(DATADIR)/man/man5/
	install -m 644 tools/completion/runner.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/runner

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/runner $(DESTDIR)$(LIBDIR)/pkgconfig/sysmeter.pc \
		$(DESTDIR)$(DATADIR)/man/man1/runner.1 $(DESTDIR)$(DATADIR)/man/man5/sysmeter-spec.5 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/runner
	rm -rf $(DESTDIR)$(LIBDIR)/sysmeter $(DESTDIR)$(INCDIR) $(DESTDIR)$(DATADIR)/sysmeter

clean:
	rm -rf build build-san build-fuzz build-arm64

help:
	@echo "make run | run-opt-in | test | test-one | test-arm64 | bench | bench-models | fuzz [FUZZ_TIME=s] | install [PREFIX=... DESTDIR=...] | deps | deps-arm64 | clean; CROSS=aarch64-linux-gnu- for an aarch64 build"
