# sysmeter - build, run, test, install.  Nothing else is needed on a fresh
# Debian/Ubuntu machine: `make run` and `make test` install what is missing.

CC       ?= gcc
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
SAN      ?=

WARN     := -Wall -Wextra -Werror -Wno-format-truncation
CFLAGS_COMMON := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN)
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
PKGS     := yaml-0.1 jansson gsl libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

RUNNER_CFLAGS := $(CFLAGS_COMMON) $(SANFLAGS) $(PKG_CFLAGS) -Irunner \
	-DSYSMETER_PREFIX='"$(PREFIX)"'
RUNNER_LIBS   := $(PKG_LIBS) -ldl -lm -lpthread

# Probes: always optimised at -O2 (the measured work survives through barriers
# and sinks, never through an unoptimised build), hidden visibility, one rule.
# Probes are not built with sanitizers: they are the thing being measured.
PROBE_CFLAGS := $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -Irunner
PROBE_LDFLAGS := -shared -lm -lpthread

RUNNER_SRC  := $(wildcard runner/*.c)
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

.PHONY: all runner probes fixtures unit deps check-deps run test test-one bench install clean
all: check-deps $(BUILD)/runner $(PROBE_SO) $(PROBE_BIN)

runner: $(BUILD)/runner
probes: $(PROBE_SO) $(PROBE_BIN)
fixtures: $(FIXTURE_SO)
unit: $(UNIT_BIN)

$(BUILD)/obj/runner/%.o: runner/%.c $(wildcard runner/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) -c -o $@ $<

$(BUILD)/runner: $(RUNNER_OBJ)
	$(CC) $(RUNNER_CFLAGS) -o $@ $^ $(RUNNER_LIBS)

$(BUILD)/probes/%.so: probes/%.c runner/probe.h runner/probe_time.h
	@mkdir -p $(dir $@)
	$(CC) $(PROBE_CFLAGS) -o $@ $< $(PROBE_LDFLAGS)

$(BUILD)/probes/bin/%: probes/bin/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -static -o $@ $<

$(BUILD)/fixtures/probes/%.so: tests/fixtures/probes/%.c runner/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(PROBE_CFLAGS) -o $@ $< $(PROBE_LDFLAGS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(RUNNER_CFLAGS) -Itests/unit -o $@ $< $(LIB_OBJ) $(RUNNER_LIBS)

# Install missing packages only when something is missing (pkg-config or a tool).
check-deps:
	@pkg-config --exists $(PKGS) 2>/dev/null || $(MAKE) --no-print-directory deps

deps:
	@sh tools/deps.sh

run: all
	$(BUILD)/runner specs/

# The whole suite, in a normal build and again under ASan+UBSan, ending with
# one "N passed, N failed" line.
test: check-deps
	@sh tools/deps.sh --test-only
	@$(MAKE) --no-print-directory all fixtures unit
	@$(MAKE) --no-print-directory BUILD=build-san SAN=1 all fixtures unit
	@sh tests/run-all.sh build build-san

# One build only (quick iteration): make test-one [BUILD=build]
test-one: all fixtures unit
	@sh tests/run-all.sh $(BUILD)

bench: all
	@sh tools/bench.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/sysmeter/probes/bin \
		$(DESTDIR)$(PREFIX)/share/sysmeter/specs $(DESTDIR)$(PREFIX)/share/sysmeter/templates
	install -m 755 $(BUILD)/runner $(DESTDIR)$(PREFIX)/bin/runner
	install -m 644 $(PROBE_SO) $(DESTDIR)$(PREFIX)/lib/sysmeter/probes/
	$(if $(PROBE_BIN),install -m 755 $(PROBE_BIN) $(DESTDIR)$(PREFIX)/lib/sysmeter/probes/bin/)
	install -m 644 specs/*.yaml $(DESTDIR)$(PREFIX)/share/sysmeter/specs/
	cp -R templates/. $(DESTDIR)$(PREFIX)/share/sysmeter/templates/

clean:
	rm -rf build build-san
