/*
 * cpu.c - CPUID decoded (cpu.h).  The leaves and bits are those of Intel's
 * SDM vol. 2A (CPUID: leaves 0, 1, 4, 7, 0xB, 0x40000000 by convention of
 * the hypervisors) and AMD's APM vol. 3 appendix E (0x80000005/6,
 * 0x8000001D, 0x8000001E), as Linux's arch/x86/kernel/cpu/cacheinfo.c reads
 * them.  Nothing here runs an instruction: the CPU is asked through
 * arch.c, a table through its rows, so every decoding path is tested on
 * any host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/arch.h"
#include "machine/cpu.h"

struct src {
	const struct machine_cpuid_table *t;	/* NULL: the CPU */
	uint32_t max_basic, max_ext;
};

static void raw(const struct src *s, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	memset(r, 0, 4 * sizeof r[0]);
	if (!s->t) {
		machine_arch_cpuid(leaf, sub, r);
		return;
	}
	for (size_t i = 0; i < s->t->n; i++)
		if (s->t->leaves[i].leaf == leaf && s->t->leaves[i].subleaf == sub) {
			memcpy(r, s->t->leaves[i].r, 4 * sizeof r[0]);
			return;
		}
}

/* A leaf above the maximum the CPU reports is not asked: Intel answers
   those with the highest basic leaf's data. */
static int q(const struct src *s, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	uint32_t max = leaf >= 0x80000000u ? s->max_ext : leaf >= 0x40000000u ? 0xffffffffu
									       : s->max_basic;

	memset(r, 0, 4 * sizeof r[0]);
	if (leaf > max || (leaf >= 0x80000000u && s->max_ext < 0x80000000u))
		return -1;
	raw(s, leaf, sub, r);
	return 0;
}

static void regs_text(char *out, uint32_t a, uint32_t b, uint32_t c)
{
	memcpy(out, &a, 4);
	memcpy(out + 4, &b, 4);
	memcpy(out + 8, &c, 4);
	out[12] = '\0';
	for (int i = 0; i < 12; i++)	/* a table can hold anything */
		if (out[i] && (out[i] < 0x20 || out[i] > 0x7e))
			out[i] = '?';
}

static const char *type_name(unsigned t)
{
	return t == 1 ? "Data" : t == 2 ? "Instruction" : t == 3 ? "Unified" : NULL;
}

/* Intel leaf 4 and AMD 0x8000001D share one layout: EAX[4:0] type (0: no
   more caches), [7:5] level, [25:14] logical CPUs sharing it minus one;
   EBX[31:22] ways - 1, [21:12] partitions - 1, [11:0] line - 1; ECX sets - 1. */
static int deterministic(const struct src *s, uint32_t leaf, struct machine_cpu *c)
{
	uint32_t r[4];

	c->ncaches = 0;
	for (uint32_t sub = 0; sub < MACHINE_CPU_MAX_CACHES; sub++) {
		if (q(s, leaf, sub, r) < 0)
			break;
		unsigned type = r[0] & 0x1f;
		if (type == 0)
			break;
		if (!type_name(type))
			continue;
		long long ways = (r[1] >> 22) + 1, parts = ((r[1] >> 12) & 0x3ff) + 1;
		long long line = (r[1] & 0xfff) + 1, sets = (long long)r[2] + 1;
		c->caches[c->ncaches++] = (struct machine_cache){
			.level = (int)((r[0] >> 5) & 7), .type = type_name(type),
			.size_bytes = ways * parts * line * sets, .line_bytes = line,
			.ways = ways, .shared_by = (int)((r[0] >> 14) & 0xfff) + 1,
		};
	}
	return c->ncaches;
}

/* AMD's encoded associativity of 0x80000006 (APM vol. 3, E.4.5): 0 means
   no such cache; 9 (family 17h on) "see 0x8000001D"; 0xF fully
   associative; the rest a number of ways. */
static long long legacy_ways(unsigned code)
{
	static const int ways[16] = {0, 1, 2, 3, 4, 6, 8, -1, 16, -1, 32, 48, 64, 96, 128, -1};
	return ways[code & 0xf];
}

static void add_legacy(struct machine_cpu *c, int level, const char *type, long long size,
		       long long line, long long ways)
{
	if (size <= 0 || c->ncaches == MACHINE_CPU_MAX_CACHES)
		return;
	c->caches[c->ncaches++] = (struct machine_cache){
		.level = level, .type = type, .size_bytes = size,
		.line_bytes = line > 0 ? line : -1, .ways = ways > 0 ? ways : -1, .shared_by = -1,
	};
}

/* 0x80000005 ECX/EDX: L1d/L1i, [31:24] KiB, [23:16] ways (0xFF fully),
   [7:0] line.  0x80000006 ECX: L2, [31:16] KiB, [15:12] ways code, [7:0]
   line; EDX: L3, [31:18] units of 512 KiB (the package's total on AMD
   family 17h and later, not one CCX's share), [15:12], [7:0] the same. */
static int legacy(const struct src *s, struct machine_cpu *c)
{
	uint32_t r[4];

	c->ncaches = 0;
	if (q(s, 0x80000005u, 0, r) == 0) {
		unsigned a = (r[2] >> 16) & 0xff, ai = (r[3] >> 16) & 0xff;

		add_legacy(c, 1, "Data", (long long)(r[2] >> 24) * 1024, r[2] & 0xff,
			   a == 0xff ? -1 : (long long)a);
		add_legacy(c, 1, "Instruction", (long long)(r[3] >> 24) * 1024, r[3] & 0xff,
			   ai == 0xff ? -1 : (long long)ai);
	}
	if (q(s, 0x80000006u, 0, r) == 0) {
		if ((r[2] >> 12) & 0xf)
			add_legacy(c, 2, "Unified", (long long)(r[2] >> 16) * 1024, r[2] & 0xff,
				   legacy_ways(r[2] >> 12));
		if ((r[3] >> 12) & 0xf)
			add_legacy(c, 3, "Unified", (long long)(r[3] >> 18) * 512 * 1024, r[3] & 0xff,
				   legacy_ways(r[3] >> 12));
	}
	return c->ncaches;
}

static int is_amd(const char *vendor)
{
	return !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
}

/* Intel: leaf 4.  AMD: 0x8000001D when the CPU has TOPOEXT (0x80000001
   ECX bit 22) and the leaf lists a cache, else the legacy leaves (a guest
   may show TOPOEXT and an empty 0x8000001D).  Anyone else: leaf 4, then
   the legacy leaves. */
static void caches(const struct src *s, struct machine_cpu *c)
{
	uint32_t r[4];

	c->cache_source = NULL;
	if (is_amd(c->vendor)) {
		if (q(s, 0x80000001u, 0, r) == 0 && (r[2] & (1u << 22)) &&
		    deterministic(s, 0x8000001du, c) > 0) {
			c->cache_source = "cpuid 0x8000001d";
			return;
		}
	} else if (deterministic(s, 4, c) > 0) {
		c->cache_source = "cpuid leaf 4";
		return;
	}
	if (legacy(s, c) > 0)
		c->cache_source = "cpuid 0x80000005/6";
}

/* Leaf 0xB subleaf 0 is the SMT level when ECX[15:8] == 1: EBX[15:0] is
   its logical CPUs per core.  Else AMD's 0x8000001E EBX[15:8] + 1. */
static int threads_per_core(const struct src *s, const struct machine_cpu *c)
{
	uint32_t r[4];

	if (q(s, 0xb, 0, r) == 0 && ((r[2] >> 8) & 0xff) == 1 && (r[1] & 0xffff))
		return (int)(r[1] & 0xffff);
	if (is_amd(c->vendor) && q(s, 0x80000001u, 0, r) == 0 && (r[2] & (1u << 22)) &&
	    q(s, 0x8000001eu, 0, r) == 0)
		return (int)((r[1] >> 8) & 0xff) + 1;
	return -1;
}

void machine_cpu_read(const struct machine_cpuid_table *t, struct machine_cpu *c)
{
	struct src s = { .t = t };
	uint32_t r[4];

	memset(c, 0, sizeof *c);
	c->threads_per_core = -1;
	c->uarch = "unknown";
	if (!t && machine_arch_cpuid(0, 0, r) < 0) {
		c->why_not = machine_arch_why_not();
		return;
	}
	raw(&s, 0, 0, r);
	s.max_basic = r[0];
	regs_text(c->vendor, r[1], r[3], r[2]);
	if (s.max_basic == 0 && !c->vendor[0]) {
		c->why_not = "CPUID leaf 0 is empty";
		return;
	}
	raw(&s, 0x80000000u, 0, r);
	s.max_ext = r[0];
	c->have = 1;
	q(&s, 1, 0, r);
	c->signature = r[0];
	/* Intel SDM vol. 2A, CPUID leaf 1 ("display family/model"); AMD APM
	   vol. 3 Fn0000_0001_EAX: the extended fields count only past a base
	   family of 0xF (and, for the model, 6 on Intel). */
	unsigned base_fam = (r[0] >> 8) & 0xf, base_model = (r[0] >> 4) & 0xf;
	c->family = (int)(base_fam == 0xf ? base_fam + ((r[0] >> 20) & 0xff) : base_fam);
	c->model = (int)(base_fam == 0x6 || base_fam == 0xf ? (((r[0] >> 16) & 0xf) << 4) | base_model
							     : base_model);
	c->stepping = (int)(r[0] & 0xf);
	c->pcid = (r[2] >> 17) & 1;
	if (r[2] & (1u << 31)) {	/* the hypervisor bit: leaf 0x40000000 is the hypervisor's */
		uint32_t h[4];

		raw(&s, 0x40000000u, 0, h);
		regs_text(c->hypervisor, h[1], h[2], h[3]);
	}
	c->invpcid = q(&s, 7, 0, r) == 0 && (r[1] & (1u << 10));
	c->uarch = machine_cpu_uarch(c->vendor, c->family, c->model, c->stepping);
	c->threads_per_core = threads_per_core(&s, c);
	caches(&s, c);
}

/* The microarchitecture, by vendor, family, model range and stepping
   range.  Each group of rows names its public source. */
struct uarch_row {
	const char *vendor;
	int family, model_lo, model_hi, step_lo, step_hi;
	const char *name;
};

#define I "GenuineIntel"
#define A "AuthenticAMD"
#define ALL 0, 15
static const struct uarch_row uarch_rows[] = {
	/* Intel family 6: Linux arch/x86/include/asm/intel-family.h (v6.10),
	   its names and its comments ("Sky Lake -- s: 7" for Cascade Lake...) */
	{I, 6, 0x0f, 0x0f, ALL, "Core (Merom)"},
	{I, 6, 0x16, 0x16, ALL, "Core (Merom)"},
	{I, 6, 0x17, 0x17, ALL, "Penryn"},
	{I, 6, 0x1d, 0x1d, ALL, "Penryn (Dunnington)"},
	{I, 6, 0x1a, 0x1a, ALL, "Nehalem (Nehalem-EP)"},
	{I, 6, 0x1e, 0x1f, ALL, "Nehalem"},
	{I, 6, 0x2e, 0x2e, ALL, "Nehalem (Nehalem-EX)"},
	{I, 6, 0x25, 0x25, ALL, "Westmere"},
	{I, 6, 0x2c, 0x2c, ALL, "Westmere (Westmere-EP)"},
	{I, 6, 0x2f, 0x2f, ALL, "Westmere (Westmere-EX)"},
	{I, 6, 0x2a, 0x2a, ALL, "Sandy Bridge"},
	{I, 6, 0x2d, 0x2d, ALL, "Sandy Bridge (Sandy Bridge-EP)"},
	{I, 6, 0x3a, 0x3a, ALL, "Ivy Bridge"},
	{I, 6, 0x3e, 0x3e, ALL, "Ivy Bridge (Ivy Bridge-EP)"},
	{I, 6, 0x3c, 0x3c, ALL, "Haswell"},
	{I, 6, 0x3f, 0x3f, ALL, "Haswell (Haswell-EP)"},
	{I, 6, 0x45, 0x46, ALL, "Haswell"},
	{I, 6, 0x3d, 0x3d, ALL, "Broadwell"},
	{I, 6, 0x47, 0x47, ALL, "Broadwell"},
	{I, 6, 0x4f, 0x4f, ALL, "Broadwell (Broadwell-EP)"},
	{I, 6, 0x56, 0x56, ALL, "Broadwell (Broadwell-DE)"},
	{I, 6, 0x4e, 0x4e, ALL, "Skylake"},
	{I, 6, 0x5e, 0x5e, ALL, "Skylake"},
	{I, 6, 0x55, 0x55, 0, 4, "Skylake (Skylake-SP)"},
	{I, 6, 0x55, 0x55, 5, 7, "Skylake (Cascade Lake)"},
	{I, 6, 0x55, 0x55, 11, 11, "Skylake (Cooper Lake)"},
	{I, 6, 0x55, 0x55, ALL, "Skylake (server)"},
	{I, 6, 0x8e, 0x8e, ALL, "Skylake (Kaby/Amber/Coffee/Whiskey Lake)"},
	{I, 6, 0x9e, 0x9e, ALL, "Skylake (Kaby/Coffee Lake)"},
	{I, 6, 0xa5, 0xa6, ALL, "Skylake (Comet Lake)"},
	{I, 6, 0x66, 0x66, ALL, "Palm Cove (Cannon Lake)"},
	{I, 6, 0x6a, 0x6a, ALL, "Sunny Cove (Ice Lake-SP)"},
	{I, 6, 0x6c, 0x6c, ALL, "Sunny Cove (Ice Lake-D)"},
	{I, 6, 0x7d, 0x7e, ALL, "Sunny Cove (Ice Lake)"},
	{I, 6, 0x9d, 0x9d, ALL, "Sunny Cove (Ice Lake NNPI)"},
	{I, 6, 0xa7, 0xa7, ALL, "Cypress Cove (Rocket Lake)"},
	{I, 6, 0x8c, 0x8d, ALL, "Willow Cove (Tiger Lake)"},
	{I, 6, 0x8f, 0x8f, ALL, "Golden Cove (Sapphire Rapids)"},
	{I, 6, 0x8a, 0x8a, ALL, "Sunny Cove + Tremont (Lakefield)"},
	{I, 6, 0x97, 0x97, ALL, "Golden Cove + Gracemont (Alder Lake)"},
	{I, 6, 0x9a, 0x9a, ALL, "Golden Cove + Gracemont (Alder Lake)"},
	{I, 6, 0xb7, 0xb7, ALL, "Raptor Cove + Gracemont (Raptor Lake)"},
	{I, 6, 0xd7, 0xd7, ALL, "Raptor Cove (Bartlett Lake)"},
	{I, 6, 0xad, 0xad, ALL, "Redwood Cove (Granite Rapids)"},
	{I, 6, 0xae, 0xae, ALL, "Redwood Cove (Granite Rapids-D)"},
	{I, 6, 0x1c, 0x1c, ALL, "Bonnell (Atom)"},
	{I, 6, 0x26, 0x26, ALL, "Bonnell (Atom)"},
	{I, 6, 0x27, 0x27, ALL, "Saltwell (Atom)"},
	{I, 6, 0x35, 0x36, ALL, "Saltwell (Atom)"},
	{I, 6, 0x37, 0x37, ALL, "Silvermont (Atom)"},
	{I, 6, 0x4a, 0x4a, ALL, "Silvermont (Atom)"},
	{I, 6, 0x4d, 0x4d, ALL, "Silvermont (Atom)"},
	{I, 6, 0x4c, 0x4c, ALL, "Airmont (Atom)"},
	{I, 6, 0x5a, 0x5a, ALL, "Airmont (Atom)"},
	{I, 6, 0x75, 0x75, ALL, "Airmont (Atom)"},
	{I, 6, 0x5c, 0x5c, ALL, "Goldmont (Atom)"},
	{I, 6, 0x5f, 0x5f, ALL, "Goldmont (Atom)"},
	{I, 6, 0x7a, 0x7a, ALL, "Goldmont Plus (Atom)"},
	{I, 6, 0x86, 0x86, ALL, "Tremont (Atom)"},
	{I, 6, 0x96, 0x96, ALL, "Tremont (Atom)"},
	{I, 6, 0x9c, 0x9c, ALL, "Tremont (Atom)"},
	{I, 6, 0xbe, 0xbe, ALL, "Gracemont (Alder Lake-N)"},
	{I, 6, 0xaf, 0xaf, ALL, "Crestmont (Sierra Forest)"},
	{I, 6, 0xb6, 0xb6, ALL, "Crestmont (Grand Ridge)"},
	{I, 6, 0xdd, 0xdd, ALL, "Darkmont (Clearwater Forest)"},
	{I, 6, 0x57, 0x57, ALL, "Knights Landing (Xeon Phi)"},
	{I, 6, 0x85, 0x85, ALL, "Knights Mill (Xeon Phi)"},
	/* Cores the header names without a comment: Intel's product pages
	   (ark.intel.com) and Wikipedia's articles of the same names */
	{I, 6, 0xba, 0xba, ALL, "Raptor Cove + Gracemont (Raptor Lake)"},
	{I, 6, 0xbf, 0xbf, ALL, "Raptor Cove + Gracemont (Raptor Lake)"},
	{I, 6, 0xcf, 0xcf, ALL, "Raptor Cove (Emerald Rapids)"},
	{I, 6, 0xaa, 0xaa, ALL, "Redwood Cove + Crestmont (Meteor Lake)"},
	{I, 6, 0xac, 0xac, ALL, "Redwood Cove + Crestmont (Meteor Lake)"},
	{I, 6, 0xb5, 0xb5, ALL, "Lion Cove + Skymont (Arrow Lake)"},
	{I, 6, 0xc5, 0xc6, ALL, "Lion Cove + Skymont (Arrow Lake)"},
	{I, 6, 0xbd, 0xbd, ALL, "Lion Cove + Skymont (Lunar Lake)"},
	/* Intel family 19: Linux intel-family.h (v6.15), INTEL_DIAMONDRAPIDS_X */
	{I, 19, 0x01, 0x01, ALL, "Panther Cove (Diamond Rapids)"},
	/* AMD families 17h-1Ah: Linux arch/x86/kernel/cpu/amd.c, bsp_init_amd()
	   ("Figure out Zen generations", v6.18: X86_FEATURE_ZEN1..ZEN6) */
	{A, 0x17, 0x00, 0x2f, ALL, "Zen / Zen+"},
	{A, 0x17, 0x50, 0x5f, ALL, "Zen / Zen+"},
	{A, 0x17, 0x30, 0x4f, ALL, "Zen 2"},
	{A, 0x17, 0x60, 0x7f, ALL, "Zen 2"},
	{A, 0x17, 0x90, 0x91, ALL, "Zen 2"},
	{A, 0x17, 0xa0, 0xaf, ALL, "Zen 2"},
	{A, 0x19, 0x00, 0x0f, ALL, "Zen 3"},
	{A, 0x19, 0x20, 0x5f, ALL, "Zen 3"},
	{A, 0x19, 0x10, 0x1f, ALL, "Zen 4"},
	{A, 0x19, 0x60, 0xaf, ALL, "Zen 4"},
	{A, 0x1a, 0x00, 0x2f, ALL, "Zen 5"},
	{A, 0x1a, 0x40, 0x4f, ALL, "Zen 5"},
	{A, 0x1a, 0x60, 0x7f, ALL, "Zen 5"},
	{A, 0x1a, 0x50, 0x5f, ALL, "Zen 6"},
	{A, 0x1a, 0x80, 0xaf, ALL, "Zen 6"},
	{A, 0x1a, 0xc0, 0xcf, ALL, "Zen 6"},
	/* Older AMD families: AMD's BIOS and Kernel Developer's Guides for
	   families 10h, 15h (models 00h-0Fh, 10h-1Fh, 30h-3Fh, 60h-6Fh) and 16h
	   (models 00h-0Fh, 30h-3Fh) */
	{A, 0x0f, 0x00, 0xff, ALL, "K8"},
	{A, 0x10, 0x00, 0xff, ALL, "K10"},
	{A, 0x15, 0x00, 0x01, ALL, "Bulldozer"},
	{A, 0x15, 0x02, 0x02, ALL, "Piledriver"},
	{A, 0x15, 0x10, 0x1f, ALL, "Piledriver"},
	{A, 0x15, 0x30, 0x3f, ALL, "Steamroller"},
	{A, 0x15, 0x60, 0x7f, ALL, "Excavator"},
	{A, 0x16, 0x00, 0x0f, ALL, "Jaguar"},
	{A, 0x16, 0x30, 0x3f, ALL, "Puma"},
	/* Hygon family 18h: Linux arch/x86/kernel/cpu/hygon.c (a Zen core) */
	{"HygonGenuine", 0x18, 0x00, 0xff, ALL, "Dhyana (Zen)"},
};
#undef I
#undef A
#undef ALL

const char *machine_cpu_uarch(const char *vendor, int family, int model, int stepping)
{
	for (size_t i = 0; i < sizeof uarch_rows / sizeof uarch_rows[0]; i++) {
		const struct uarch_row *u = &uarch_rows[i];

		if (!strcmp(u->vendor, vendor) && u->family == family && model >= u->model_lo &&
		    model <= u->model_hi && stepping >= u->step_lo && stepping <= u->step_hi)
			return u->name;
	}
	return "unknown";
}

/* The table file: "LEAF SUBLEAF EAX EBX ECX EDX", hexadecimal (0x
   optional), blank lines and '#' comments skipped. */
int machine_cpuid_table_load(const char *path, struct machine_cpuid_table *t, char *err,
			     size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct machine_cpuid_leaf *rows = NULL;
	size_t n = 0, cap = 0;
	char line[512];
	int lineno = 0;

	memset(t, 0, sizeof *t);
	if (!f) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		unsigned long v[6];
		char *p = line, *end;
		int k;

		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		for (k = 0; k < 6; k++, p = end) {
			v[k] = strtoul(p, &end, 16);
			if (end == p || v[k] > 0xffffffffUL)
				break;
		}
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (k == 0 && *p == '\0')
			continue;	/* blank or comment */
		if (k < 6 || *p) {
			snprintf(err, errlen, "'%s':%d: want LEAF SUBLEAF EAX EBX ECX EDX in hex", path,
				 lineno);
			fclose(f);
			free(rows);
			return -1;
		}
		if (n == cap) {
			struct machine_cpuid_leaf *nr;

			cap = cap ? 2 * cap : 32;
			if (!(nr = realloc(rows, cap * sizeof *rows))) {
				snprintf(err, errlen, "'%s': out of memory", path);
				fclose(f);
				free(rows);
				return -1;
			}
			rows = nr;
		}
		rows[n++] = (struct machine_cpuid_leaf){ (uint32_t)v[0], (uint32_t)v[1],
							 { (uint32_t)v[2], (uint32_t)v[3],
							   (uint32_t)v[4], (uint32_t)v[5] } };
	}
	fclose(f);
	t->leaves = rows;
	t->n = n;
	t->name = path;
	return 0;
}

void machine_cpuid_table_free(struct machine_cpuid_table *t)
{
	free((void *)t->leaves);
	memset(t, 0, sizeof *t);
}
