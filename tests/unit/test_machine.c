/*
 * test_machine.c - the machine description (runner/machine/) from fake
 * machines: CPUID tables (written here, and the files of
 * tests/fixtures/machine/NAME/cpuid.txt) and sysfs/proc trees
 * (tests/fixtures/machine/NAME/root, read through machine_set_root).
 * Checks the family/model/stepping decoding and the microarchitecture
 * table, the caches and where they came from (sysfs wins; Intel leaf 4;
 * AMD 0x8000001D, else the legacy leaves), the LLC plausibility rule,
 * PTI/PCID/INVPCID, the clocksource and the TSC's standing, SMT; the
 * environment variables the bats tests use; and the core clock on this
 * host.  Run from the top of the tree (tests/run-all.sh does).
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "tap.h"
#include "lib/jsonutil.h"
#include "machine/machine.h"
#include "machine/model_table.h"

#define FIX "tests/fixtures/machine/"

static const char *str(json_t *o, const char *k)
{
	const char *s = jsonutil_str(o, k);
	return s ? s : "(null)";
}

/* o[k] as an integer, -1 when null or absent. */
static long long integer(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* o[k] as 1, 0, or -1 when not a boolean. */
static int boolean(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* An array of strings joined by blanks into buf. */
static const char *joined(json_t *a, char *buf, size_t len)
{
	size_t off = 0, i;
	json_t *v;

	snprintf(buf, len, "(null)");
	if (!json_is_array(a))
		return buf;
	buf[0] = '\0';
	json_array_foreach(a, i, v)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "",
					json_string_value(v) ? json_string_value(v) : "?");
	return buf;
}

/* ---- 1. family, model, stepping, microarchitecture: leaf 0 and leaf 1 */

struct sig_case {
	const char *vendor;		/* 12 characters */
	uint32_t eax;			/* leaf 1 EAX */
	int family, model, stepping;
	const char *uarch;
};

static const struct sig_case sig_cases[] = {
	/* the extended family counts only past a base family of 0xF */
	{"AuthenticAMD", 0x00b00f21, 0x1a, 0x02, 1, "Zen 5"},
	{"AuthenticAMD", 0x00b20f40, 0x1a, 0x24, 0, "Zen 5"},
	{"AuthenticAMD", 0x00a10f11, 0x19, 0x11, 1, "Zen 4"},
	{"AuthenticAMD", 0x00a20f12, 0x19, 0x21, 2, "Zen 3"},
	{"AuthenticAMD", 0x00830f10, 0x17, 0x31, 0, "Zen 2"},
	{"AuthenticAMD", 0x00800f12, 0x17, 0x01, 2, "Zen / Zen+"},
	{"AuthenticAMD", 0x00600f20, 0x15, 0x02, 0, "Piledriver"},
	{"AuthenticAMD", 0x00b50f00, 0x1a, 0x50, 0, "Zen 6"},
	{"HygonGenuine", 0x00900f02, 0x18, 0x00, 2, "Dhyana (Zen)"},
	/* the extended model counts for a base family of 6 (or 0xF) */
	{"GenuineIntel", 0x000806f8, 6, 0x8f, 8, "Golden Cove (Sapphire Rapids)"},
	{"GenuineIntel", 0x00050654, 6, 0x55, 4, "Skylake (Skylake-SP)"},
	{"GenuineIntel", 0x00050657, 6, 0x55, 7, "Skylake (Cascade Lake)"},
	{"GenuineIntel", 0x0005065b, 6, 0x55, 11, "Skylake (Cooper Lake)"},
	{"GenuineIntel", 0x000606a6, 6, 0x6a, 6, "Sunny Cove (Ice Lake-SP)"},
	{"GenuineIntel", 0x000a06a4, 6, 0xaa, 4, "Redwood Cove + Crestmont (Meteor Lake)"},
	{"GenuineIntel", 0x000b0671, 6, 0xb7, 1, "Raptor Cove + Gracemont (Raptor Lake)"},
	{"GenuineIntel", 0x000406f1, 6, 0x4f, 1, "Broadwell (Broadwell-EP)"},
	{"GenuineIntel", 0x00400f10, 19, 0x01, 0, "Panther Cove (Diamond Rapids)"},
	{"GenuineIntel", 0x00000f41, 15, 0x04, 1, "unknown"},
	/* family 5: the extended model field is not part of the model */
	{"GenuineIntel", 0x00010543, 5, 0x04, 3, "unknown"},
	{"CentaurHauls", 0x000006f2, 6, 0x0f, 2, "unknown"},
};

static void test_signatures(void)
{
	for (size_t i = 0; i < sizeof sig_cases / sizeof sig_cases[0]; i++) {
		const struct sig_case *c = &sig_cases[i];
		struct machine_cpuid_leaf leaves[2] = { { 0, 0, { 1, 0, 0, 0 } },
							{ 1, 0, { c->eax, 0, 0, 0 } } };
		struct machine_cpuid_table t = { leaves, 2, "test" };
		json_t *m, *cpu;

		memcpy(&leaves[0].r[1], c->vendor, 4);		/* EBX EDX ECX */
		memcpy(&leaves[0].r[3], c->vendor + 4, 4);
		memcpy(&leaves[0].r[2], c->vendor + 8, 4);
		m = machine_describe_with(1e9, &t);
		cpu = json_object_get(m, "cpu");
		ok(!strcmp(str(cpu, "vendor"), c->vendor) && integer(cpu, "family") == c->family &&
		   integer(cpu, "model") == c->model && integer(cpu, "stepping") == c->stepping &&
		   !strcmp(str(cpu, "microarchitecture"), c->uarch),
		   "%s 0x%08x: family 0x%llx model 0x%llx stepping %lld, %s", c->vendor, c->eax,
		   integer(cpu, "family"), integer(cpu, "model"), integer(cpu, "stepping"),
		   str(cpu, "microarchitecture"));
		json_decref(m);
	}
}

/* ---- 2. whole machines: tests/fixtures/machine/NAME */

struct cache_want {
	int level;
	const char *type;
	long long size, line, ways;	/* -1: null */
};

struct fixture {
	const char *name;
	const char *vendor, *uarch;
	int family, model, stepping;
	const char *hypervisor;		/* "(null)" when none */
	int ncaches;
	struct cache_want caches[4];
	const char *source;		/* every cache's */
	long long llc_size;
	int llc_plausible;
	const char *llc_why;		/* a word of llc.why, or NULL when plausible */
	const char *pti;
	int pcid_cpuid, pcid_kernel, invpcid_cpuid, invpcid_kernel;
	const char *clocksource, *available, *tsc_verdict;
	int tsc_trusted;
	const char *tsc_cmdline;
	int threads_per_core;
	const char *siblings;
	int online, configured;
};

static const struct fixture fixtures[] = {
	{
		.name = "amd-zen5-guest", .vendor = "AuthenticAMD", .uarch = "Zen 5",
		.family = 0x1a, .model = 0x02, .stepping = 1, .hypervisor = "KVMKVMKVM",
		.ncaches = 4,
		.caches = { {1, "Data", 48 << 10, 64, 12}, {1, "Instruction", 32 << 10, 64, 8},
			    {2, "Unified", 1 << 20, 64, 16}, {3, "Unified", 508LL << 20, 64, -1} },
		.source = "cpuid 0x80000005/6",
		.llc_size = 508LL << 20, .llc_plausible = 0, .llc_why = "more than 96 MiB",
		.pti = "on", .pcid_cpuid = 0, .pcid_kernel = 0, .invpcid_cpuid = 0,
		.invpcid_kernel = 0,
		.clocksource = "kvm-clock", .available = "kvm-clock", .tsc_verdict = "not trusted",
		.tsc_trusted = 0,
		.tsc_cmdline = "clocksource=kvm-clock tsc=reliable tsc=unstable",
		.threads_per_core = 1, .siblings = "0", .online = 2, .configured = 2,
	},
	{
		.name = "intel-spr-guest", .vendor = "GenuineIntel",
		.uarch = "Golden Cove (Sapphire Rapids)", .family = 6, .model = 0x8f, .stepping = 8,
		.hypervisor = "KVMKVMKVM", .ncaches = 4,
		.caches = { {1, "Data", 48 << 10, 64, 12}, {1, "Instruction", 32 << 10, 64, 8},
			    {2, "Unified", 2 << 20, 64, 16}, {3, "Unified", 105LL << 20, 64, 15} },
		.source = "cpuid leaf 4",
		.llc_size = 105LL << 20, .llc_plausible = 0, .llc_why = "shared by up to 128",
		.pti = "off", .pcid_cpuid = 1, .pcid_kernel = 1, .invpcid_cpuid = 1,
		.invpcid_kernel = 1,
		.clocksource = "kvm-clock", .available = "kvm-clock tsc acpi_pm",
		.tsc_verdict = "available, not in use", .tsc_trusted = 1, .tsc_cmdline = "",
		.threads_per_core = 2, .siblings = "0-1", .online = 4, .configured = 4,
	},
	{
		.name = "intel-skx-sysfs", .vendor = "GenuineIntel", .uarch = "Skylake (Skylake-SP)",
		.family = 6, .model = 0x55, .stepping = 4, .hypervisor = "(null)", .ncaches = 4,
		.caches = { {1, "Data", 32 << 10, 64, 8}, {1, "Instruction", 32 << 10, 64, 8},
			    {2, "Unified", 1 << 20, 64, 16}, {3, "Unified", 25344LL << 10, 64, 11} },
		.source = "sysfs",
		.llc_size = 25344LL << 10, .llc_plausible = 1, .llc_why = NULL,
		.pti = "on", .pcid_cpuid = 1, .pcid_kernel = 1, .invpcid_cpuid = 1,
		.invpcid_kernel = 1,
		.clocksource = "tsc", .available = "tsc hpet acpi_pm", .tsc_verdict = "in use",
		.tsc_trusted = 1, .tsc_cmdline = "tsc=reliable",
		.threads_per_core = 2, .siblings = "0,4", .online = 8, .configured = 8,
	},
};

static json_t *describe_fixture(const char *name)
{
	char root[256], file[256], err[256];
	struct machine_cpuid_table t;
	json_t *m;

	snprintf(root, sizeof root, FIX "%s/root", name);
	snprintf(file, sizeof file, FIX "%s/cpuid.txt", name);
	if (machine_cpuid_table_load(file, &t, err, sizeof err) < 0) {
		ok(0, "%s: %s", name, err);
		return NULL;
	}
	machine_set_root(root);
	m = machine_describe_with(2e9, &t);
	machine_set_root(NULL);
	machine_cpuid_table_free(&t);
	return m;
}

static void check_caches(const struct fixture *f, json_t *caches)
{
	int good = (int)json_array_size(caches) == f->ncaches;

	for (int i = 0; good && i < f->ncaches; i++) {
		const struct cache_want *w = &f->caches[i];
		json_t *c = json_array_get(caches, (size_t)i);

		good = integer(c, "level") == w->level && !strcmp(str(c, "type"), w->type) &&
		       integer(c, "size_bytes") == w->size && integer(c, "line_bytes") == w->line &&
		       integer(c, "ways") == w->ways && !strcmp(str(c, "source"), f->source);
		if (!good)
			printf("#   cache %d: L%lld %s %lld bytes, line %lld, %lld ways, source %s\n", i,
			       integer(c, "level"), str(c, "type"), integer(c, "size_bytes"),
			       integer(c, "line_bytes"), integer(c, "ways"), str(c, "source"));
	}
	ok(good, "%s: %d caches from %s, with their sizes, lines and ways", f->name, f->ncaches,
	   f->source);
}

static void test_fixture(const struct fixture *f)
{
	json_t *m = describe_fixture(f->name), *cpu, *llc, *pti, *tt, *smt;
	char avail[512], opts[512];

	if (!m)
		return;
	cpu = json_object_get(m, "cpu");
	ok(!strcmp(str(cpu, "source"), "cpuid table (given)") &&
	   !strcmp(str(cpu, "vendor"), f->vendor) && integer(cpu, "family") == f->family &&
	   integer(cpu, "model") == f->model && integer(cpu, "stepping") == f->stepping &&
	   !strcmp(str(cpu, "microarchitecture"), f->uarch) &&
	   !strcmp(str(cpu, "hypervisor"), f->hypervisor),
	   "%s: %s family 0x%llx model 0x%llx stepping %lld, %s, hypervisor %s", f->name,
	   str(cpu, "vendor"), integer(cpu, "family"), integer(cpu, "model"),
	   integer(cpu, "stepping"), str(cpu, "microarchitecture"), str(cpu, "hypervisor"));
	check_caches(f, json_object_get(m, "caches"));
	llc = json_object_get(m, "llc");
	ok(integer(llc, "size_bytes") == f->llc_size && integer(llc, "level") == 3 &&
	   !strcmp(str(llc, "source"), f->source) && boolean(llc, "plausible") == f->llc_plausible &&
	   (f->llc_why ? strstr(str(llc, "why"), f->llc_why) != NULL
		       : json_is_null(json_object_get(llc, "why"))) &&
	   jsonutil_str(llc, "rule") != NULL,
	   "%s: LLC %lld bytes, plausible %d (%s)", f->name, integer(llc, "size_bytes"),
	   boolean(llc, "plausible"), str(llc, "why"));
	pti = json_object_get(m, "pti");
	ok(!strcmp(str(pti, "state"), f->pti) && jsonutil_str(pti, "evidence"),
	   "%s: PTI %s (%s)", f->name, str(pti, "state"), str(pti, "evidence"));
	ok(boolean(json_object_get(m, "pcid"), "cpuid") == f->pcid_cpuid &&
	   boolean(json_object_get(m, "pcid"), "kernel") == f->pcid_kernel &&
	   boolean(json_object_get(m, "invpcid"), "cpuid") == f->invpcid_cpuid &&
	   boolean(json_object_get(m, "invpcid"), "kernel") == f->invpcid_kernel,
	   "%s: PCID %d/%d, INVPCID %d/%d (CPUID/kernel)", f->name, f->pcid_cpuid, f->pcid_kernel,
	   f->invpcid_cpuid, f->invpcid_kernel);
	tt = json_object_get(m, "tsc_trust");
	joined(json_object_get(m, "clocksources_available"), avail, sizeof avail);
	joined(json_object_get(tt, "cmdline"), opts, sizeof opts);
	ok(!strcmp(str(m, "clocksource"), f->clocksource) && !strcmp(avail, f->available) &&
	   !strcmp(str(tt, "verdict"), f->tsc_verdict) && boolean(tt, "trusted") == f->tsc_trusted &&
	   !strcmp(opts, f->tsc_cmdline),
	   "%s: clocksource %s of [%s], TSC %s, cmdline [%s]", f->name, str(m, "clocksource"),
	   avail, str(tt, "verdict"), opts);
	smt = json_object_get(m, "smt");
	ok(integer(smt, "threads_per_core") == f->threads_per_core &&
	   !strcmp(str(smt, "cpu0_siblings"), f->siblings) && integer(m, "cpus_online") == f->online &&
	   integer(m, "cpus_configured") == f->configured,
	   "%s: %lld threads per core, cpu0's siblings %s, %lld of %lld CPUs online", f->name,
	   integer(smt, "threads_per_core"), str(smt, "cpu0_siblings"), integer(m, "cpus_online"),
	   integer(m, "cpus_configured"));
	ok(json_is_object(json_object_get(m, "given")) &&
	   strstr(str(json_object_get(m, "given"), "root"), f->name) &&
	   strstr(str(json_object_get(m, "given"), "cpuid"), "cpuid.txt"),
	   "%s: the description says it was given a root and a CPUID table", f->name);
	json_decref(m);
}

/* ---- 3. deterministic-leaf details, from tables written here */

static void test_amd_8000001d(void)
{
	/* this host's (a 2-vCPU AMD guest): TOPOEXT and 0x8000001D filled:
	   they win over the legacy leaves, whose L3 is the package's 64 MiB */
	static const struct machine_cpuid_leaf l[] = {
		{0, 0, {0x0d, 0x68747541, 0x444d4163, 0x69746e65}},
		{1, 0, {0x00800f12, 0x01020800, 0xfff83203, 0x178bfbff}},
		{0x80000000u, 0, {0x80000021u, 0x68747541, 0x444d4163, 0x69746e65}},
		{0x80000001u, 0, {0x00800f12, 0x40000000, 0x004003f3, 0x2fd3fbff}},
		{0x80000005u, 0, {0xff40ff40u, 0xff40ff40u, 0x20080140, 0x40040140}},
		{0x80000006u, 0, {0x36006400, 0x56006400, 0x02006140, 0x0200c140}},
		{0x8000001du, 0, {0x00000121, 0x01c0003f, 0x0000003f, 0}},
		{0x8000001du, 1, {0x00000122, 0x00c0003f, 0x000000ff, 0}},
		{0x8000001du, 2, {0x00000143, 0x01c0003f, 0x000003ff, 2}},
		{0x8000001du, 3, {0x00004163, 0x03c0003f, 0x00001fff, 1}},
		{0x8000001eu, 0, {1, 0x00000001, 0, 0}},
	};
	struct machine_cpuid_table t = { l, sizeof l / sizeof l[0], "this host" };
	static const long long size[] = {32 << 10, 64 << 10, 512 << 10, 8 << 20};
	json_t *m, *c, *llc;
	int good = 1;

	machine_set_root(FIX "amd-zen5-guest/root");	/* no cache files there */
	m = machine_describe_with(2e9, &t);
	machine_set_root(NULL);
	c = json_object_get(m, "caches");
	good = json_array_size(c) == 4;
	for (size_t i = 0; good && i < 4; i++)
		good = integer(json_array_get(c, i), "size_bytes") == size[i] &&
		       !strcmp(str(json_array_get(c, i), "source"), "cpuid 0x8000001d");
	ok(good, "AMD with TOPOEXT: 0x8000001D's L1d 32 KiB, L1i 64 KiB, L2 512 KiB, L3 8 MiB");
	llc = json_object_get(m, "llc");
	ok(integer(llc, "shared_by") == 2 && boolean(llc, "plausible") == 1,
	   "its L3 is shared by 2 logical CPUs, as many as the fake tree has: plausible");
	ok(integer(json_object_get(m, "smt"), "threads_per_core") == 1,
	   "0x8000001E: one thread per core");
	json_decref(m);

	/* the same CPU without TOPOEXT: the legacy leaves, whatever 0x8000001D holds */
	struct machine_cpuid_leaf l2[sizeof l / sizeof l[0]];
	memcpy(l2, l, sizeof l);
	l2[3].r[2] &= ~(1u << 22);
	t.leaves = l2;
	machine_set_root(FIX "amd-zen5-guest/root");
	m = machine_describe_with(2e9, &t);
	machine_set_root(NULL);
	c = json_object_get(m, "caches");
	ok(json_array_size(c) == 4 &&
	   !strcmp(str(json_array_get(c, 0), "source"), "cpuid 0x80000005/6") &&
	   integer(json_array_get(c, 3), "size_bytes") == 64LL << 20 &&
	   integer(json_array_get(c, 3), "ways") == 64 &&
	   integer(json_array_get(c, 2), "ways") == 8,
	   "without TOPOEXT: the legacy leaves (L2 8-way, L3 64 MiB 64-way: the package's)");
	json_decref(m);
}

static void test_no_cpuid(void)
{
	struct machine_cpuid_table t = { NULL, 0, "an empty table" };
	json_t *m, *cpu;

	machine_set_root(FIX "amd-zen5-guest/root");
	m = machine_describe_with(2e9, &t);
	machine_set_root(NULL);
	cpu = json_object_get(m, "cpu");
	ok(json_is_null(json_object_get(cpu, "source")) && json_is_null(json_object_get(cpu, "family")) &&
	   jsonutil_str(cpu, "why_not") != NULL,
	   "no CPUID: cpu.family null, why_not '%s'", str(cpu, "why_not"));
	ok(json_array_size(json_object_get(m, "caches")) == 0 &&
	   json_is_null(json_object_get(m, "llc")),
	   "no CPUID and no cache files: caches [], llc null");
	ok(json_is_null(json_object_get(json_object_get(m, "pcid"), "cpuid")) &&
	   boolean(json_object_get(m, "pcid"), "kernel") == 0,
	   "no CPUID: pcid.cpuid null, pcid.kernel from /proc/cpuinfo");
	json_decref(m);
}

/* ---- 4. the table file, and the environment variables of the bats tests */

static void test_table_file(void)
{
	struct machine_cpuid_table t;
	char err[256], path[] = "/tmp/test_machine.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	ok(machine_cpuid_table_load(FIX "amd-zen5-guest/cpuid.txt", &t, err, sizeof err) == 0 &&
	   t.n == 8 && t.leaves[7].leaf == 0x80000006u && t.leaves[7].r[3] == 0x0fe09140u,
	   "a table file: 8 leaves, comments skipped");
	machine_cpuid_table_free(&t);
	ok(machine_cpuid_table_load("/no/such/file", &t, err, sizeof err) < 0 &&
	   strstr(err, "No such file"), "a missing table file: '%s'", err);
	if (!f)
		return;
	fprintf(f, "# fine\n0 0 1 2 3 4\n1 0 zz 2 3 4\n");
	fclose(f);
	ok(machine_cpuid_table_load(path, &t, err, sizeof err) < 0 && strstr(err, ":3: want"),
	   "a bad line is named: '%s'", err);
	unlink(path);
}

static void test_environment(void)
{
	json_t *m, *given;

	setenv("SYSMETER_MACHINE_ROOT", FIX "intel-spr-guest/root", 1);
	setenv("SYSMETER_CPUID_FILE", FIX "intel-spr-guest/cpuid.txt", 1);
	m = machine_describe(2e9);
	given = json_object_get(m, "given");
	ok(!strcmp(str(json_object_get(m, "cpu"), "microarchitecture"),
		   "Golden Cove (Sapphire Rapids)") &&
	   !strcmp(str(json_array_get(json_object_get(m, "caches"), 0), "source"), "cpuid leaf 4") &&
	   strstr(str(given, "root"), "intel-spr-guest/root") &&
	   strstr(str(given, "cpuid"), "intel-spr-guest/cpuid.txt"),
	   "SYSMETER_MACHINE_ROOT and SYSMETER_CPUID_FILE: the fake machine, and given says so");
	json_decref(m);
	setenv("SYSMETER_CPUID_FILE", "/no/such/cpuid.txt", 1);
	m = machine_describe(2e9);
	ok(json_is_null(json_object_get(json_object_get(m, "cpu"), "family")) &&
	   strstr(str(json_object_get(m, "given"), "cpuid"), "No such file"),
	   "an unreadable SYSMETER_CPUID_FILE: no CPUID facts, and given says why");
	json_decref(m);
	unsetenv("SYSMETER_MACHINE_ROOT");
	unsetenv("SYSMETER_CPUID_FILE");
	machine_set_root(NULL);
	m = machine_describe(2e9);
	ok(!json_object_get(m, "given"), "the real machine: no 'given'");
	json_decref(m);
}

/* ---- 5. the core clock, on this host */

static volatile int spinning;

static void *spin(void *arg)
{
	(void)arg;
	while (spinning)
		;
	return NULL;
}

static int pin_to(int cpu, pthread_t t)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return pthread_setaffinity_np(t, sizeof one, &one);
}

static void test_core_clock(void)
{
	struct machine_core_clock c;
	double spread, hz, tsc = machine_calibrate_tsc();
	int r = machine_core_clock(&c, 5, 0.001), agreed = 0;
	json_t *j = machine_core_clock_json(&c);

	if (c.method && getenv("SYSMETER_EMULATED")) {
		/* under qemu an instruction takes no cycle of a real core: the
		   method is there, the figures are the emulator's */
		ok(r == 0 && c.method && (c.holds == (c.why_not == NULL)) &&
		   jsonutil_str(j, "method") && json_is_boolean(json_object_get(j, "holds")),
		   "core clock: method '%s', its JSON", c.method);
		ok(1, "# skip emulated CPU: the clock and the chains' agreement are not measured");
		json_decref(j);
		return;
	}
	if (!c.method) {
		(void)tsc;
		(void)agreed;
		ok(r < 0 && isnan(c.hz) && c.why_not, "no core clock here: %s", c.why_not);
		ok(json_is_null(json_object_get(j, "hz")) && jsonutil_str(j, "why_not"),
		   "its JSON: hz null, why_not");
		hz = machine_core_hz(&spread);
		ok(isnan(hz) && isnan(spread), "machine_core_hz: NAN");
		json_decref(j);
		return;
	}
	ok(r == 0 && c.hz > 2e8 && c.hz < 1e10 && c.min_hz <= c.hz && c.hz <= c.max_hz &&
	   isfinite(c.spread) && c.method && c.repeats == 5,
	   "core clock measured: %.4g GHz (%.4g-%.4g), spread %.1f %%, %d windows set aside",
	   c.hz / 1e9, c.min_hz / 1e9, c.max_hz / 1e9, 100 * c.spread, c.lost);
	/* cores run between a quarter and five times their TSC (nominal) rate */
	ok(c.hz > 0.25 * tsc && c.hz < 5 * tsc, "%.3g times the TSC's %.4g GHz", c.hz / tsc,
	   tsc / 1e9);
	ok(isfinite(c.tsc_ratio) && fabs(c.tsc_ratio * tsc / c.hz - 1) < 0.1,
	   "core cycles per TSC tick %.3f: the clock over the TSC's rate", c.tsc_ratio);
	/* two chains of different latency agree on one clock; a busy moment may
	   split them once, so up to three tries (aarch64 has no second chain:
	   arch.c says why) */
	for (int i = 0; i < 3 && !agreed && c.check_method; i++) {
		struct machine_core_clock k;

		if (i == 0)
			k = c;
		else
			machine_core_clock(&k, 5, 0.001);
		agreed = isfinite(k.check_hz) && k.check_method && k.check_agrees;
		if (!agreed)
			printf("#   add chain %.4g GHz, multiply chain %.4g GHz\n", k.hz / 1e9,
			       k.check_hz / 1e9);
	}
	if (c.check_method)
		ok(agreed, "the multiply chain (3 cycles a link) agrees with the add chain (1 cycle)");
	else
		ok(1, "# skip no multiply chain of one known latency on this architecture");
	ok(c.holds == (c.why_not == NULL), "holds unless a why_not is given (%s)",
	   c.why_not ? c.why_not : "holds");
	ok(json_is_real(json_object_get(j, "hz")) && jsonutil_str(j, "method") &&
	   json_is_boolean(json_object_get(j, "holds")) &&
	   (json_is_object(json_object_get(j, "check")) || !c.check_method) && json_is_integer(json_object_get(j, "lost")) &&
	   json_is_real(json_object_get(j, "iqr")) && c.iqr <= c.spread,
	   "its JSON: hz, method, holds, check, lost, iqr");
	hz = machine_core_hz(&spread);
	ok(hz > 0.7 * c.hz && hz < 1.4 * c.hz && isfinite(spread) && spread >= 0,
	   "machine_core_hz: %.4g GHz, spread %.1f %%", hz / 1e9, 100 * spread);

	/* a thread spinning on the same CPU takes it away half the time: the
	   windows it interrupts are set aside, the clock comes out the same */
	cpu_set_t old;
	pthread_t t;
	struct machine_core_clock busy, quiet;

	sched_getaffinity(0, sizeof old, &old);
	if (pin_to(0, pthread_self()) == 0) {
		struct machine_core_clock after;

		machine_core_clock(&quiet, 9, 0.002);
		spinning = 1;
		if (pthread_create(&t, NULL, spin, NULL) == 0 && pin_to(0, t) == 0) {
			/* a new thread waits for its turn, and the scheduler may let
			   a calibration's short windows fall between its slices (seen
			   once in three tries under the sanitizers): up to ten */
			for (int i = 0; i < 10; i++)
				if (machine_core_clock(&busy, 9, 0.002) == 0 && busy.lost > 0)
					break;
			spinning = 0;
			pthread_join(t, NULL);
			machine_core_clock(&after, 9, 0.002);
			/* this host's clock itself moves by 10-20 % within seconds;
			   a window that lost its CPU for a time slice reads at a
			   fraction of the clock */
			ok(busy.lost > 0 && busy.repeats >= 3 &&
			   busy.hz > 0.75 * fmin(quiet.hz, after.hz) &&
			   busy.hz < 1.25 * fmax(quiet.hz, after.hz),
			   "CPU shared with a spinning thread: %d windows set aside, %.4g GHz against "
			   "%.4g and %.4g alone", busy.lost, busy.hz / 1e9, quiet.hz / 1e9,
			   after.hz / 1e9);
		} else {
			spinning = 0;
			ok(0, "a spinning thread on CPU 0");
		}
		sched_setaffinity(0, sizeof old, &old);
	} else {
		ok(1, "# skip cannot pin to CPU 0");
	}
	json_decref(j);
}

/* ---- 6. 64-bit ARM: MIDR from sysfs or /proc/cpuinfo, on any host */

static void test_arm(void)
{
	json_t *m, *cpu;

	machine_set_root(FIX "arm-graviton2/root");
	m = machine_describe_with(2e9, NULL);
	cpu = json_object_get(m, "cpu");
	ok(!strcmp(str(cpu, "microarchitecture"), "Neoverse N1") && !strcmp(str(cpu, "vendor"), "ARM") &&
	   json_integer_value(json_object_get(cpu, "family")) == 0x41 &&
	   json_integer_value(json_object_get(cpu, "model")) == 0xd0c &&
	   json_integer_value(json_object_get(cpu, "variant")) == 3 &&
	   json_integer_value(json_object_get(cpu, "stepping")) == 1 &&
	   !strcmp(str(cpu, "signature"), "0x413fd0c1") && strstr(str(cpu, "source"), "midr_el1"),
	   "Graviton2: MIDR 0x413fd0c1 from sysfs is an ARM Neoverse N1 (%s)", str(cpu, "source"));
	ok(!strcmp(str(m, "cpu_model"), "ARM Neoverse N1"), "no model name: cpu_model from the MIDR");
	ok(json_array_size(json_object_get(m, "caches")) == 4 &&
	   json_integer_value(json_object_get(json_object_get(m, "llc"), "size_bytes")) == 32 << 20 &&
	   json_is_null(json_object_get(m, "caches_why_not")),
	   "Graviton2: four caches from sysfs, a 32 MiB LLC");
	json_decref(m);

	machine_set_root(FIX "arm-rpi4/root");
	m = machine_describe_with(2e9, NULL);
	cpu = json_object_get(m, "cpu");
	ok(!strcmp(str(cpu, "microarchitecture"), "Cortex-A72") &&
	   !strcmp(str(cpu, "signature"), "0x410fd083") && strstr(str(cpu, "source"), "/proc/cpuinfo"),
	   "Raspberry Pi 4: no sysfs MIDR, /proc/cpuinfo's fields make 0x410fd083, a Cortex-A72");
	ok(json_array_size(json_object_get(m, "caches")) == 0 && json_is_null(json_object_get(m, "llc")) &&
	   strstr(str(m, "caches_why_not"), "CCSIDR_EL1"),
	   "Raspberry Pi 4: no cache folders: caches n/a, and why: %s", str(m, "caches_why_not"));
	json_decref(m);
	machine_set_root(NULL);

	ok(!strcmp(machine_model_find("ARM", 0x41, 0xd0c)->name, "Neoverse N1") &&
	   !strcmp(machine_model_find("ARM", 0x41, 0xd08)->name, "Cortex-A72") &&
	   !strcmp(machine_model_find("Apple", 0x61, 0x023)->name, "generic aarch64 (not in the table)") &&
	   !strcmp(machine_model_find("GenuineIntel", 6, 0x01)->name, "generic x86-64 (not in the table)"),
	   "the table: ARM rows by implementer and part; an unknown ARM core gets the generic aarch64 row");
	{
		double v = 0;

		ok(machine_model_value(machine_model_find("ARM", 0x41, 0xd0c), "l2_cycles", 0, &v) == 0 &&
		   v == 11 &&
		   machine_model_value(machine_model_find("ARM", 0x41, 0xd0c), "rdtscp_cycles", 0, &v) < 0,
		   "Neoverse N1: L2 11 cycles; a figure no source gives is not in the table");
	}
}

int main(void)
{
	test_signatures();
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++)
		test_fixture(&fixtures[i]);
	test_amd_8000001d();
	test_no_cpuid();
	test_table_file();
	test_environment();
	test_core_clock();
	test_arm();
	return done_testing();
}
