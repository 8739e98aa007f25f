/*
 * machine.h - describe the machine once per run (design §5.3) and
 * calibrate the TSC against CLOCK_MONOTONIC_RAW.
 */
#ifndef SYSMETER_MACHINE_H
#define SYSMETER_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Ticks of pt_start()/pt_stop() per second, measured over ~50 ms against
   CLOCK_MONOTONIC_RAW (median of 5).  1e9 when there is no counter. */
double machine_calibrate_tsc(void);

/* The manifest's `machine` object (docs/results-format.md).  Reads the
   machine's files under $SYSMETER_MACHINE_ROOT and CPUID from the table in
   $SYSMETER_CPUID_FILE when those are set (tests only: the object then
   says so in `given`). */
json_t *machine_describe(double tsc_hz);

/* Does a spec's machine pattern name this machine?  "*" always; else a
   glob (fnmatch, case-insensitive) over the CPU model ("*EPYC*",
   "*Xeon*"), or the host name exactly. */
int machine_matches(const char *pattern);

/* A CPUID table: what CPUID(leaf, subleaf) returns, {eax, ebx, ecx, edx}.
   A leaf or subleaf the table lacks reads as zeros, as CPUID's reserved
   ones do. */
struct machine_cpuid_leaf {
	uint32_t leaf, subleaf;
	uint32_t r[4];
};
struct machine_cpuid_table {
	const struct machine_cpuid_leaf *leaves;
	size_t n;
	const char *name;		/* where it came from, for `given` */
};

/* Tests: read /sys, /proc and /etc/os-release under root ("" or NULL: the
   real ones) from now on. */
void machine_set_root(const char *root);

/* machine_describe, with CPUID answered from cpuid (NULL: the CPU). */
json_t *machine_describe_with(double tsc_hz, const struct machine_cpuid_table *cpuid);

/* Read a CPUID table file: one "LEAF SUBLEAF EAX EBX ECX EDX" line per
   leaf, hexadecimal, '#' comments (tests/fixtures/machine/).  0, or -1 with
   why in err.  machine_cpuid_table_free frees what it allocated. */
int machine_cpuid_table_load(const char *path, struct machine_cpuid_table *t, char *err,
			     size_t errlen);
void machine_cpuid_table_free(struct machine_cpuid_table *t);

#endif
