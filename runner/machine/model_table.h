/*
 * model_table.h - the per-family constants the prediction formulas read
 * (model_table.c; docs/spec-format.md, "The constants table").
 */
#ifndef SYSMETER_MODEL_TABLE_H
#define SYSMETER_MODEL_TABLE_H

#include <stddef.h>

#include <jansson.h>

/* One core family: cycles unless said otherwise. */
struct machine_model {
	const char *name;		/* "Zen 3", "generic x86-64 (not in the table)" */
	const char *vendor;		/* CPUID vendor string */
	int family, model_lo, model_hi;
	const char *source;		/* the public sources of the row */
	double l1, l2, l3;		/* load-to-use of a hit */
	double dram_ns;			/* DRAM load-to-use, ns */
	double stlb, tlb_miss;		/* L2 TLB hit; a page walk hitting the caches */
	double syscall, syscall_pti;	/* null system call entry + exit, no mitigation / its PTI column */
	double rdtsc, rdtscp;		/* back to back */
	double branch, call;		/* a taken branch; a predicted call + return */
	double fills;			/* line fills in flight per core (Little's law) */
	double copy_bpc;		/* bytes per cycle of a cache-resident copy */
	double store_fwd;		/* a load fed by a store to a stack slot */
};

/* Linux's path lengths: one column for every family. */
struct machine_kernel {
	const char *source;
	double sw, mm_sw, pipe, futex, fork, thread, exit, exec, fault, pagecache, block_io, tcp;
	double wakeup_s;		/* seconds */
	double stdio;
	double disk_latency_s;		/* NVMe 4 KiB random read at QD1, seconds (no disk fact given) */
	double disk_bandwidth;		/* NVMe sequential read, bytes/s (no disk fact given) */
	double fault_page;		/* a page mapped by a fault's fault-around */
};

/* One of the kernel's speculative-execution mitigations, as
   /sys/devices/system/cpu/vulnerabilities/FILE names it (`match` found in
   that file's text): the cycles it adds to every kernel entry and exit
   (`entry`) and to every context switch (`sw`).  Rows sharing a `once`
   key are one mechanism reached through several files (VERW for MDS, TAA
   and MMIO): counted once.  A row whose entry is NAN takes the core row's
   PTI column minus its plain column. */
struct machine_mitigation {
	const char *file, *match, *once;
	double entry, sw;
	const char *source;
};

/* Every mitigation row, for docs, tests and machine_model_mitigations(). */
const struct machine_mitigation *machine_model_mitigation_rows(size_t *n);

/* The cycles the machine's listed mitigations add per kernel entry+exit
   (*entry) and per switch (*sw), given `vuln` (machine.vulnerabilities:
   an object of file -> text) and the core row; each term found is passed
   to term(ctx, row, cycles) so that the caller can name it.  The number
   of terms found. */
size_t machine_model_mitigations(const struct machine_model *m, const json_t *vuln,
				 double *entry, double *sw,
				 void (*term)(void *ctx, const struct machine_mitigation *row, double cycles,
					      int per_switch),
				 void *ctx);

/* The row of a CPU (vendor "GenuineIntel"/"AuthenticAMD", CPUID family and
   model), else the generic row (never NULL). */
const struct machine_model *machine_model_find(const char *vendor, int family, int model);

/* Every row (the generic one in *fallback), for docs and tests. */
const struct machine_model *machine_model_rows(size_t *n, const struct machine_model **fallback);

const struct machine_kernel *machine_model_kernel(void);

/* A constant by its formula name (spec_expr.h's "table" names): 0 with *v
   in base units (dram_latency, wakeup_latency in seconds), -1 when name is
   not a table constant.  pti picks syscall_cycles' column. */
int machine_model_value(const struct machine_model *m, const char *name, int pti, double *v);

#endif
