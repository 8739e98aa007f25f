/*
 * machine.h - describe the machine once per run (design §5.3), calibrate
 * the TSC against CLOCK_MONOTONIC_RAW, and measure the core clock.
 */
#ifndef SYSMETER_MACHINE_H
#define SYSMETER_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "machine/model_table.h"

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

/* The core clock, measured (like lmbench's mhz): a chain of dependent
   instructions of known latency timed against CLOCK_MONOTONIC_RAW and the
   TSC in `repeats` windows of about window_s seconds in which the thread
   kept its CPU; the median is kept.  hz is NAN and why_not says why where
   it cannot be measured. */
struct machine_core_clock {
	double hz;			/* core clock, Hz */
	double min_hz, max_hz;		/* the slowest and fastest window kept */
	double spread;			/* (max - min) / hz */
	double iqr;			/* (third quartile - first) / hz */
	double tsc_ratio;		/* core cycles per TSC tick (same windows), NAN without a TSC */
	double check_hz;		/* the same from the multiply chain, NAN when not run */
	int check_agrees;		/* within MACHINE_CORE_CHECK_TOL of hz */
	int holds;			/* hz can stand for "core cycles" (docs/methodology.md) */
	int repeats;			/* windows kept */
	int lost;			/* windows set aside: the thread lost its CPU */
	double window_s;
	int cpu;			/* the CPU it ran on, -1 when it moved */
	const char *method;		/* NULL where it cannot be measured */
	const char *check_method;
	const char *why_not;		/* why not measured, or why it does not hold; NULL */
};
#define MACHINE_CORE_CHECK_TOL 0.10	/* add and multiply chains agree within 10 % */
#define MACHINE_CORE_IQR_MAX 0.05	/* the middle half of the windows within 5 % */

/* Measure; 0, or -1 when it cannot be measured here (c->why_not says). */
int machine_core_clock(struct machine_core_clock *c, int repeats, double window_s);

/* A short measurement for use between passes of a run (5 windows of 1 ms,
   no check chain: 5-20 ms): the core clock in Hz, NAN where it cannot be measured
   (or the thread kept losing its CPU); *spread (when not NULL) gets
   (max - min) / hz of the windows. */
double machine_core_hz(double *spread);

/* The core clock as the manifest records it (machine.core_clock). */
json_t *machine_core_clock_json(const struct machine_core_clock *c);

/* The facts predictions need that only some machines state (hwfacts.c):
   memory_type, memory_speed (SMBIOS type 17, else EDAC), nic_link_speed
   (the default route's interface, sysfs), and memory_bus_bandwidth,
   disk_seq_read, disk_rand_read_iops (null: no file states them) into m,
   with machine.sources: {key: {source, why_not}}. */
void machine_hw_facts(json_t *m);

/*
 * Machine facts given with --machine FILE (facts.c, docs/results-format.md
 * "Given facts"): a YAML mapping of names of the machine object, each of a
 * known type (a whitelist; unknown keys get "did you mean").
 */
struct machine_facts {
	char *file;		/* as named in messages and the manifest */
	char *text; size_t len;	/* the file's text, for the run folder's copy */
	json_t *values;		/* {manifest key: value}, in manifest units */
	json_t *keys;		/* the manifest keys given, in the file's order */
};

/* Read and check path (named `shown` in messages, NULL: path).  0, or -1
   with "FILE:LINE:COL: why" (or "FILE: cannot read: why") in err. */
int machine_facts_load(const char *path, const char *shown, struct machine_facts *f, char *err,
		       size_t errlen);
/* The same for a run folder's copy (rerun): a file anyone may have edited,
   so a symbolic link is refused ("PATH: a symbolic link: not followed"),
   never read through.  Either way only a regular file is read ("PATH: not
   a regular file": a FIFO is not waited on), and once its aliases are
   expanded a file holds at most 10000 values and 256 KiB of text. */
int machine_facts_load_copy(const char *path, struct machine_facts *f, char *err, size_t errlen);
void machine_facts_free(struct machine_facts *f);

/* The given values into machine object m: each completes or overrides the
   detected one (kept under m.detected.<key>), m.sources.<key> says
   "given", m.given gets {file, copy, keys}; copy is the copy's name in the
   run folder (NULL: none). */
void machine_facts_apply(json_t *m, const struct machine_facts *f, const char *copy);

#endif
