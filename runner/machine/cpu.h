/*
 * cpu.h - what the CPU says of itself through CPUID, decoded: vendor,
 * family/model/stepping, microarchitecture, the flags that change costs,
 * threads per core and the caches.  The decoding is portable: it reads a
 * table (a test's, or a file's) as well as the CPU (arch.c).  Private to
 * machine/.
 */
#ifndef SYSMETER_MACHINE_CPU_H
#define SYSMETER_MACHINE_CPU_H

#include <jansson.h>

#include "machine/machine.h"

#define MACHINE_CPU_MAX_CACHES 16

struct machine_cache {
	int level;
	const char *type;		/* "Data", "Instruction", "Unified" (sysfs's words) */
	long long size_bytes;		/* -1 unknown */
	long long line_bytes;		/* -1 unknown */
	long long ways;			/* -1 unknown (fully associative, or not said) */
	int shared_by;			/* logical CPUs sharing it (CPUID: an upper bound); -1 unknown */
};

struct machine_cpu {
	int have;			/* CPUID answered */
	const char *why_not;		/* when not */
	char vendor[13];
	unsigned signature;		/* leaf 1 EAX */
	int family, model, stepping;
	const char *uarch;		/* "unknown" when not in the table */
	char hypervisor[13];		/* leaf 0x40000000's vendor, "" when none */
	int pcid, invpcid;		/* 1, 0 */
	int threads_per_core;		/* -1 unknown */
	struct machine_cache caches[MACHINE_CPU_MAX_CACHES];
	int ncaches;
	const char *cache_source;	/* "cpuid leaf 4", ..., NULL when CPUID has none */
};

/* Decode the table t, or the CPU itself when t is NULL. */
void machine_cpu_read(const struct machine_cpuid_table *t, struct machine_cpu *out);

/* The microarchitecture of vendor/family/model/stepping, "unknown" when
   the table has no row for it. */
const char *machine_cpu_uarch(const char *vendor, int family, int model, int stepping);

#endif
