/*
 * model_table.c - the per-family constants of the prediction formulas
 * (docs/spec-format.md, "The constants table"): one row per core family,
 * keyed by CPUID vendor, family and model range, each naming its public
 * sources; a generic row for a CPU the table does not know; and one column
 * of Linux path lengths shared by every row.
 *
 * store_forward_cycles is the latency a load adds when it takes its value
 * from an earlier store to a stack slot: Agner Fog's microarchitecture
 * guide gives 4-5 cycles of store forwarding on Intel's cores and Zen 1,
 * and 0 from Zen 2 on, which mirror an rsp-relative memory operand in a
 * register ("Mirroring memory operands").
 *
 * Cycles are core cycles; dram_ns is nanoseconds (it does not scale with
 * the core clock).  The figures are the sources' typical load-to-use
 * latencies and throughputs, rounded: a model's inputs, not a measurement.
 *
 * 64-bit ARM rows are keyed the same way by what the machine description
 * puts there from MIDR_EL1 (midr.c): vendor the implementer's name, family
 * its code, model the part number.  A figure no source gives is NAN (N):
 * a prediction that needs it says "not in the table" instead of guessing.
 */
#include "machine/model_table.h"

#include <math.h>
#include <string.h>

#include "machine/midr.h"

#define I "GenuineIntel"
#define A "AuthenticAMD"
#define N NAN

static const struct machine_model rows[] = {
	{"Skylake-SP / Cascade Lake", I, 6, 0x55, 0x55,
	 "7-cpu.com \"Intel Skylake X\"; Intel 64 and IA-32 Architectures Optimization Reference "
	 "Manual, Skylake Server chapter (L2 14 cycles, mesh L3); Agner Fog, instruction tables "
	 "(RDTSC, RDTSCP); LWN 741878 (KPTI costs)",
	 4, 14, 70, 90, 9, 30, 250, 600, 25, 32, 1, 3, 16, 32, 5},
	{"Skylake (client)", I, 6, 0x4e, 0x5e,
	 "7-cpu.com \"Intel Skylake\" (L1 4, L2 12, L3 42 cycles, RAM 42 cycles + 51 ns); Agner Fog, "
	 "instruction tables; LWN 741878",
	 4, 12, 42, 65, 9, 30, 250, 600, 25, 32, 1, 3, 12, 32, 5},
	{"Skylake (client)", I, 6, 0x8e, 0x9e,
	 "7-cpu.com \"Intel Skylake\"; Agner Fog, instruction tables; LWN 741878",
	 4, 12, 42, 65, 9, 30, 250, 600, 25, 32, 1, 3, 12, 32, 5},
	{"Ice Lake / Tiger Lake", I, 6, 0x7d, 0x7e,
	 "Intel Optimization Reference Manual, Ice Lake Client chapter (L1d 48 KiB 5 cycles, L2 13); "
	 "Chips and Cheese, \"Intel's Ice Lake and Tiger Lake\" (L3 and LPDDR4x latency); uops.info "
	 "(RDTSC, RDTSCP)",
	 5, 13, 40, 95, 7, 30, 250, 600, 25, 40, 1, 3, 32, 32, 5},
	{"Ice Lake / Tiger Lake", I, 6, 0x8c, 0x8d,
	 "Intel Optimization Reference Manual, Ice Lake Client chapter; Chips and Cheese, Tiger Lake "
	 "(L2 1.25 MiB 14 cycles, L3 ~45 cycles, LPDDR4x ~100 ns); uops.info",
	 5, 14, 45, 100, 7, 30, 250, 600, 25, 40, 1, 3, 32, 32, 5},
	{"Ice Lake-SP", I, 6, 0x6a, 0x6c,
	 "Intel Optimization Reference Manual, Ice Lake Server; Chips and Cheese, \"Ice Lake SP\" "
	 "(mesh L3 ~80 cycles, DRAM ~100 ns); uops.info",
	 5, 14, 80, 100, 7, 30, 250, 600, 25, 40, 1, 3, 32, 32, 5},
	{"Sapphire Rapids / Golden Cove", I, 6, 0x8f, 0x8f,
	 "Intel Optimization Reference Manual, Golden Cove chapter (L1d 5 cycles, L2 2 MiB 16 cycles); "
	 "Chips and Cheese, \"Sapphire Rapids\" (L3 ~33 ns, DRAM ~110 ns); uops.info",
	 5, 16, 100, 110, 7, 30, 250, 600, 25, 42, 1, 3, 48, 32, 5},
	{"Alder/Raptor Lake (Golden/Raptor Cove)", I, 6, 0x97, 0x9a,
	 "Intel Optimization Reference Manual, Golden Cove chapter; Chips and Cheese, \"Golden Cove's "
	 "Lopsided Vector Register File\" and Alder Lake memory articles (L3 ~65 cycles, DDR5 ~90 ns)",
	 5, 15, 65, 90, 7, 30, 250, 600, 25, 42, 1, 3, 48, 32, 5},
	{"Alder/Raptor Lake (Golden/Raptor Cove)", I, 6, 0xb7, 0xbf,
	 "Intel Optimization Reference Manual, Golden Cove chapter; Chips and Cheese, Raptor Lake",
	 5, 16, 70, 90, 7, 30, 250, 600, 25, 42, 1, 3, 48, 32, 5},
	{"Zen / Zen+", A, 0x17, 0x00, 0x2f,
	 "AMD Software Optimization Guide for family 17h (L1 4 cycles, L2 17 (Zen+ 12), L3 ~40); "
	 "7-cpu.com \"AMD Zen\" (RAM ~90 ns); Agner Fog, instruction tables (RDTSC 36, RDTSCP 64)",
	 4, 17, 40, 90, 7, 30, 200, 500, 36, 64, 1, 3, 24, 16, 4},
	{"Zen 2", A, 0x17, 0x30, 0x7f,
	 "AMD Software Optimization Guide for family 17h models 30h+ (L2 12 cycles, L3 ~39); Chips and "
	 "Cheese, Zen 2 (DRAM ~85 ns); Agner Fog, instruction tables",
	 4, 12, 39, 85, 7, 30, 200, 500, 36, 64, 1, 3, 32, 32, 0},
	{"Zen 2", A, 0x17, 0x90, 0xaf,
	 "AMD Software Optimization Guide for family 17h models 30h+; Agner Fog, instruction tables",
	 4, 12, 39, 85, 7, 30, 200, 500, 36, 64, 1, 3, 32, 32, 0},
	{"Zen 3", A, 0x19, 0x00, 0x0f,
	 "AMD Software Optimization Guide for family 19h (L1 4, L2 12, L3 46 cycles); Chips and "
	 "Cheese, \"AMD's Zen 3\" (DDR4 ~80 ns); Agner Fog, instruction tables",
	 4, 12, 46, 80, 7, 30, 200, 500, 36, 64, 1, 3, 48, 32, 0},
	{"Zen 3", A, 0x19, 0x20, 0x5f,
	 "AMD Software Optimization Guide for family 19h (L1 4, L2 12, L3 46 cycles); Chips and "
	 "Cheese, \"AMD's Zen 3\" (DDR4 ~80 ns); Agner Fog, instruction tables",
	 4, 12, 46, 80, 7, 30, 200, 500, 36, 64, 1, 3, 48, 32, 0},
	{"Zen 4", A, 0x19, 0x10, 0x1f,
	 "AMD Software Optimization Guide for family 19h models 10h+ (L2 1 MiB 14 cycles, L3 ~50); "
	 "Chips and Cheese, \"AMD's Zen 4\" (DDR5 ~75-110 ns); Agner Fog, instruction tables",
	 4, 14, 50, 90, 7, 30, 200, 500, 36, 64, 1, 3, 48, 32, 0},
	{"Zen 4", A, 0x19, 0x60, 0xaf,
	 "AMD Software Optimization Guide for family 19h models 10h+; Chips and Cheese, \"AMD's Zen 4\"",
	 4, 14, 50, 90, 7, 30, 200, 500, 36, 64, 1, 3, 48, 32, 0},
	{"Zen 5", A, 0x1a, 0x00, 0x7f,
	 "AMD Software Optimization Guide for family 1Ah (L1d 48 KiB 4 cycles, L2 14); Chips and "
	 "Cheese, \"Zen 5's memory subsystem\" (L3 ~50 cycles, DDR5 ~85 ns)",
	 4, 14, 50, 85, 7, 30, 200, 500, 36, 64, 1, 3, 64, 32, 0},
	/* 64-bit ARM (vendor, implementer code, part number) */
	{"Cortex-A72", "ARM", 0x41, 0xd08, 0xd08,
	 "Arm Cortex-A72 Software Optimization Guide (load-to-use 4 cycles); Cortex-A72 TRM "
	 "(DDI 0488) 6.4 \"L1 data memory system\" (up to six 64-byte line requests outstanding); "
	 "no L3 in the core (Raspberry Pi 4's BCM2711: 1 MiB shared L2)",
	 4, N, N, N, N, N, N, N, N, N, N, N, 6, N, N},
	{"Neoverse N1", "ARM", 0x41, 0xd0c, 0xd0c,
	 "AnandTech, \"Cloud Clash: Amazon Graviton2 Arm Against Intel and AMD\" (2020): L1D 4 "
	 "cycles, 1 MiB L2 11 cycles, DRAM structural latency 81 ns (Arm's published 83 ns)",
	 4, 11, N, 81, N, N, N, N, N, N, N, N, N, N, N},
};

static const struct machine_model generic_arm = {
	"generic aarch64 (not in the table)", "", 0, 0, 0,
	"what the 64-bit ARM rows above share (4-cycle L1D load-to-use): an ARM CPU this table "
	"does not know",
	4, N, N, N, N, N, N, N, N, N, N, N, N, N, N,
};

static const struct machine_model generic = {
	"generic x86-64 (not in the table)", "", 0, 0, 0,
	"middle of the rows above: a CPU this table does not know",
	4, 14, 45, 90, 8, 30, 250, 600, 30, 45, 1, 3, 24, 16, 5,
};

static const struct machine_kernel kernel = {
	"Linux path lengths for every family, rounded from lmbench's lat_ctx, lat_proc, lat_pagefault "
	"and lat_tcp on current x86-64 kernels (McVoy and Staelin, lmbench; Brendan Gregg, Systems "
	"Performance 2nd ed., ch. 6-10; Linux block/ and net/ipv4 source); NVMe figures from "
	"vendors' queue-depth-1 data sheets; fault_page_cycles: the per-page work of "
	"filemap_map_pages (mm/filemap.c: a folio reference, the rmap count and one PTE store, "
	"a few dozen instructions with two atomic updates)",
	2500, 500, 1500, 800, 90000, 20000, 30000, 600000, 1500, 600, 20000, 12000, 5e-6, 30,
	80e-6, 2e9, 50,
};

/*
 * The mitigations.  Each figure is the instruction sequence the kernel's
 * documentation says runs on the path, at the instruction costs of the
 * cited tables, rounded: a model's input, never a measurement of a host.
 */
static const struct machine_mitigation mitigations[] = {
	{"meltdown", "PTI", NULL, N, 0,
	 "kernel page-table isolation: two CR3 writes and a stack switch on every entry and exit "
	 "(Documentation/arch/x86/pti.rst; LWN 741878, \"The current state of kernel page-table "
	 "isolation\"); the core row's PTI column minus its plain one"},
	{"spectre_v2", "Retpolines", NULL, 40, 0,
	 "retpolines: each indirect branch on the path becomes a return the predictor never "
	 "follows, about a mispredicted branch (Intel, \"Retpoline: A Branch Target Injection "
	 "Mitigation\", 2018); two on the entry and exit path, ~20 cycles each (Agner Fog, "
	 "microarchitecture guide, branch misprediction penalty)"},
	{"spectre_v2", "Mitigation: IBRS", "ibrs", 250, 0,
	 "legacy IBRS: a WRMSR to IA32_SPEC_CTRL on entry and one on exit (Intel, \"Speculative "
	 "Execution Side Channel Mitigations\", 2018); WRMSR serialises, ~100+ cycles each (Agner "
	 "Fog, instruction tables)"},
	{"retbleed", "Mitigation: IBRS", "ibrs", 250, 0,
	 "as spectre_v2's IBRS (Documentation/admin-guide/hw-vuln/retbleed.rst): the same two WRMSRs"},
	{"spectre_v2", "RSB filling", NULL, 0, 64,
	 "return stack buffer stuffing on a context switch: 32 calls whose returns never run "
	 "(__FILL_RETURN_BUFFER in arch/x86/include/asm/nospec-branch.h; Intel's retpoline paper), "
	 "about two cycles each"},
	{"spectre_v2", "IBPB: always-on", NULL, 0, 4000,
	 "an indirect branch prediction barrier on every switch between address spaces flushes "
	 "the branch predictors (Documentation/admin-guide/hw-vuln/spectre.rst: \"IBPB ... costly\"); "
	 "thousands of cycles"},
	{"spectre_v2", "BHI: SW loop", NULL, 60, 0,
	 "clear_bhb_loop on entry: five rounds of five taken calls and jumps "
	 "(Documentation/admin-guide/hw-vuln/spectre.rst, Branch History Injection)"},
	{"spectre_v1", "swapgs barriers", NULL, 15, 0,
	 "an LFENCE after SWAPGS on entry (Documentation/admin-guide/hw-vuln/spectre.rst, "
	 "\"SWAPGS\"); LFENCE waits for earlier instructions, ~15 cycles (Agner Fog, instruction "
	 "tables)"},
	{"mds", "Clear CPU buffers", "verw", 100, 0,
	 "VERW on every exit to user space overwrites the CPU's buffers "
	 "(Documentation/admin-guide/hw-vuln/mds.rst); with the microcode it is a serialising "
	 "microcoded sequence, ~100 cycles (Intel, \"Deep Dive: Intel Analysis of Microarchitectural "
	 "Data Sampling\")"},
	{"tsx_async_abort", "Clear CPU buffers", "verw", 100, 0,
	 "the same VERW (Documentation/admin-guide/hw-vuln/tsx_async_abort.rst)"},
	{"mmio_stale_data", "Clear CPU buffers", "verw", 100, 0,
	 "the same VERW (Documentation/admin-guide/hw-vuln/processor_mmio_stale_data.rst)"},
	{"reg_file_data_sampling", "Clear Register File", "verw", 100, 0,
	 "the same VERW (Documentation/admin-guide/hw-vuln/reg-file-data-sampling.rst)"},
	{"spec_rstack_overflow", "Safe RET", NULL, 60, 0,
	 "Safe RET: every return on the kernel path goes through srso_safe_ret and the entry "
	 "retrains the return predictor (Documentation/admin-guide/hw-vuln/srso.rst); about a "
	 "dozen returns at a few cycles each"},
	{"spec_rstack_overflow", "Mitigation: IBPB", NULL, 4000, 0,
	 "IBPB on every kernel entry (Documentation/admin-guide/hw-vuln/srso.rst, \"IBPB\"): "
	 "thousands of cycles, as spectre_v2's IBPB"},
	{"retbleed", "untrained return thunk", NULL, 50, 0,
	 "jmp2ret: returns through a thunk and the return predictor untrained on entry "
	 "(Documentation/admin-guide/hw-vuln/retbleed.rst)"},
	{"indirect_target_selection", "Aligned branch/return thunks", NULL, 10, 0,
	 "indirect branches and returns through aligned thunks "
	 "(Documentation/admin-guide/hw-vuln/indirect-target-selection.rst): a few cycles"},
};

#undef I
#undef A
#undef N

const struct machine_mitigation *machine_model_mitigation_rows(size_t *n)
{
	*n = sizeof mitigations / sizeof mitigations[0];
	return mitigations;
}

size_t machine_model_mitigations(const struct machine_model *m, const json_t *vuln,
				 double *entry, double *sw,
				 void (*term)(void *ctx, const struct machine_mitigation *row, double cycles,
					      int per_switch),
				 void *ctx)
{
	const char *seen[sizeof mitigations / sizeof mitigations[0]];
	size_t n_seen = 0, found = 0;

	*entry = *sw = 0;
	for (size_t i = 0; i < sizeof mitigations / sizeof mitigations[0]; i++) {
		const struct machine_mitigation *r = &mitigations[i];
		const char *text = json_string_value(json_object_get(vuln, r->file));
		double e = r->entry;
		size_t k;

		/* "Vulnerable" and "Not affected" name nothing that runs */
		if (!text || strncmp(text, "Mitigation", 10) != 0 || !strstr(text, r->match))
			continue;
		for (k = 0; r->once && k < n_seen && strcmp(seen[k], r->once) != 0; k++)
			;
		if (r->once && k < n_seen)
			continue;
		if (r->once)
			seen[n_seen++] = r->once;
		if (isnan(e))
			e = m->syscall_pti - m->syscall;
		if (isnan(e))
			continue;
		*entry += e;
		*sw += r->sw;
		found++;
		if (term)
			term(ctx, r, r->sw ? r->sw : e, r->sw != 0);
	}
	return found;
}

const struct machine_model *machine_model_find(const char *vendor, int family, int model)
{
	for (size_t i = 0; vendor && i < sizeof rows / sizeof rows[0]; i++)
		if (strcmp(rows[i].vendor, vendor) == 0 && rows[i].family == family &&
		    model >= rows[i].model_lo && model <= rows[i].model_hi)
			return &rows[i];
	return machine_midr_is_vendor(vendor) ? &generic_arm : &generic;
}

const struct machine_model *machine_model_rows(size_t *n, const struct machine_model **fallback)
{
	*n = sizeof rows / sizeof rows[0];
	if (fallback)
		*fallback = &generic;
	return rows;
}

const struct machine_kernel *machine_model_kernel(void)
{
	return &kernel;
}

int machine_model_value(const struct machine_model *m, const char *name, int pti, double *v)
{
	const struct machine_kernel *k = &kernel;
	static const struct { const char *n; size_t off; int kern; } cols[] = {
#define M(n, f) {n, offsetof(struct machine_model, f), 0}
#define K(n, f) {n, offsetof(struct machine_kernel, f), 1}
		M("l1_cycles", l1), M("l2_cycles", l2), M("l3_cycles", l3),
		M("stlb_hit_cycles", stlb), M("tlb_miss_cycles", tlb_miss),
		M("rdtsc_cycles", rdtsc), M("rdtscp_cycles", rdtscp), M("branch_cycles", branch),
		M("call_cycles", call), M("line_fills", fills),
		M("copy_bytes_per_cycle", copy_bpc), M("store_forward_cycles", store_fwd),
		K("switch_cycles", sw), K("mm_switch_cycles", mm_sw), K("pipe_cycles", pipe),
		K("futex_cycles", futex), K("fork_cycles", fork), K("thread_cycles", thread),
		K("exit_cycles", exit), K("exec_cycles", exec), K("fault_cycles", fault), K("fault_page_cycles", fault_page),
		K("pagecache_cycles", pagecache), K("block_io_cycles", block_io),
		K("tcp_cycles", tcp), K("wakeup_latency", wakeup_s), K("stdio_cycles", stdio),
#undef M
#undef K
	};

	/* a figure the row's sources do not give (NAN) is not in the table */
	if (strcmp(name, "dram_latency") == 0) {
		*v = m->dram_ns * 1e-9;
		return isnan(*v) ? -1 : 0;
	}
	/* PTI is one of the mitigations (mitigation_cycles): the plain column */
	(void)pti;
	if (strcmp(name, "syscall_cycles") == 0) {
		*v = m->syscall;
		return isnan(*v) ? -1 : 0;
	}
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
		if (strcmp(cols[i].n, name) == 0) {
			*v = *(const double *)((const char *)(cols[i].kern ? (const void *)k : (const void *)m) +
					       cols[i].off);
			return isnan(*v) ? -1 : 0;
		}
	return -1;
}
