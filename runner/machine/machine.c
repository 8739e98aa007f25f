/*
 * machine.c - describe the machine once per run (design §5.3): what a
 * reader needs to judge the numbers, and what a rerun compares.  Every
 * field the machine does not expose is null, never guessed.  Files are read
 * under the machine root (machine_fs.c), CPUID through cpu.c, the core
 * clock measured by core_clock.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "machine/machine.h"
#include "machine/arch.h"
#include "machine/cpu.h"
#include "machine/kernel.h"
#include "machine/machine_fs.h"
#include "machine/midr.h"
#include "probe_time.h"
#include "lib/jsonutil.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* What machine_calibrate_tsc found of the counter, for the description. */
static struct {
	int checked;
	const char *why;		/* the counter is not used, or used unchecked */
	double calibrated_hz;		/* counted against CLOCK_MONOTONIC_RAW */
	double architected_hz;		/* CNTFRQ_EL0; 0 where there is none */
} counter;

/* Count ticks over ~10 ms of CLOCK_MONOTONIC_RAW, five times, and keep the
   median: one preemption in one window cannot skew it.  Where the counter
   has an architected frequency (aarch64's CNTFRQ_EL0) that is the rate,
   unless the count disagrees with it by more than 2 % (firmware that set
   it wrong); both are recorded.  First of all, the counter is checked
   (arch.c): where user space may not read it, every pt_start() of this
   process and its children reads CLOCK_MONOTONIC_RAW, and the rate is
   1e9. */
double machine_calibrate_tsc(void)
{
	if (!counter.checked) {
		machine_arch_counter_check(&counter.why);
		counter.checked = 1;
	}
#if PT_HAVE_TSC
	double hz[5];
	for (int i = 0; i < 5; i++) {
		uint64_t n0 = pt_clock_ns(), t0 = pt_start(), n1, t1;
		do {
			n1 = pt_clock_ns();
		} while (n1 - n0 < 10000000u);
		t1 = pt_stop();
		hz[i] = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
	}
	qsort(hz, 5, sizeof hz[0], cmp_double);
	counter.calibrated_hz = hz[2];
	counter.architected_hz = pt_counter_hz();
	if (counter.architected_hz > 0 &&
	    fabs(counter.calibrated_hz / counter.architected_hz - 1) <= 0.02)
		return counter.architected_hz;
	return hz[2];
#else
	counter.calibrated_hz = 1e9;
	return 1e9;
#endif
}

/* The counter the probes time with: its name, the rate their ticks are
   converted with, one tick in ns (the resolution of a single reading), the
   architected and the counted rates, and why the counter is not used. */
static json_t *counter_json(double tsc_hz)
{
	json_t *j = json_object();
	int fallback = pt_counter_off();

	jsonutil_set(j, "name", jsonutil_text(pt_counter_name()));
	jsonutil_set(j, "hz", tsc_hz > 0 && tsc_hz < 1e12 ? json_real(tsc_hz) : json_null());
	jsonutil_set(j, "tick_ns", tsc_hz > 0 && tsc_hz < 1e12 ? json_real(1e9 / tsc_hz) : json_null());
	jsonutil_set(j, "architected_hz", !fallback && counter.architected_hz > 0 ?
		     json_real(counter.architected_hz) : json_null());
	jsonutil_set(j, "calibrated_hz", counter.calibrated_hz > 0 ?
		     json_real(counter.calibrated_hz) : json_null());
	jsonutil_set(j, "rate_from", jsonutil_text(fallback ? "nanoseconds (1e9)" :
		     counter.architected_hz > 0 && tsc_hz == counter.architected_hz ?
		     "cntfrq_el0 (architected), checked against CLOCK_MONOTONIC_RAW" :
		     "counted against CLOCK_MONOTONIC_RAW"));
	jsonutil_set(j, "why", counter.why ? jsonutil_text(counter.why) : json_null());
	return j;
}

void machine_set_root(const char *root)
{
	machine_fs_set_root(root);
}

static json_t *str_or_null(char *s)
{
	json_t *j = s ? jsonutil_text(s) : json_null();
	free(s);
	return j;
}

/* Sizes in sysfs look like "32K", "1024K", "32768K". */
static double sysfs_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	switch (toupper((unsigned char)*end)) {
	case 'K': v *= 1024; break;
	case 'M': v *= 1024 * 1024; break;
	case 'G': v *= 1024.0 * 1024 * 1024; break;
	}
	return v;
}

/* The last-level cache: the highest level of data or unified cache. */
struct llc_pick {
	int level;
	long long size;
	int shared_by;			/* -1 unknown */
	const char *source;
};

static void pick_llc(struct llc_pick *p, int level, const char *type, long long size,
		     int shared_by, const char *source)
{
	if ((type && !strcmp(type, "Instruction")) || size <= 0)
		return;
	if (level > p->level || (level == p->level && size > p->size))
		*p = (struct llc_pick){ level, size, shared_by, source };
}

static json_t *int_or_null(long long v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

/* Caches from /sys/devices/system/cpu/cpu0/cache/index<i>/, as the kernel
   knows them (on x86 it read CPUID itself, and may have corrected it). */
static json_t *sysfs_caches(struct llc_pick *p)
{
	json_t *arr = json_array();
	for (int i = 0; i < 16; i++) {
		char path[256], *level, *type, *size, *line, *ways, *shared;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!(level = machine_fs_line(path)))
			break;
#define CACHE_FIELD(var, name) \
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/" name, i); \
		var = machine_fs_line(path)
		CACHE_FIELD(type, "type");
		CACHE_FIELD(size, "size");
		CACHE_FIELD(line, "coherency_line_size");
		CACHE_FIELD(ways, "ways_of_associativity");
		CACHE_FIELD(shared, "shared_cpu_list");
#undef CACHE_FIELD
		pick_llc(p, atoi(level), type, size ? (long long)sysfs_size(size) : -1,
			 machine_fs_cpulist_count(shared), "sysfs");
		jsonutil_append(arr, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:s}",
			"level", atoi(level),
			"type", str_or_null(type),
			"size_bytes", size ? json_integer((json_int_t)sysfs_size(size)) : json_null(),
			"line_bytes", line ? json_integer(atoi(line)) : json_null(),
			"ways", ways ? json_integer(atoi(ways)) : json_null(),
			"shared_cpu_list", str_or_null(shared),
			"source", "sysfs"));
		free(level);
		free(size);
		free(line);
		free(ways);
	}
	return arr;
}

/* Caches from CPUID, where sysfs has none (some guests' kernels list
   none).  CPUID does not say which CPUs share a cache: shared_cpu_list is
   null. */
static json_t *cpuid_caches(const struct machine_cpu *c, struct llc_pick *p)
{
	json_t *arr = json_array();

	for (int i = 0; i < c->ncaches; i++) {
		const struct machine_cache *k = &c->caches[i];

		pick_llc(p, k->level, k->type, k->size_bytes, k->shared_by, c->cache_source);
		jsonutil_append(arr, json_pack("{s:i, s:s, s:o, s:o, s:o, s:n, s:s}",
			"level", k->level, "type", k->type,
			"size_bytes", int_or_null(k->size_bytes),
			"line_bytes", int_or_null(k->line_bytes),
			"ways", int_or_null(k->ways),
			"shared_cpu_list",
			"source", c->cache_source));
	}
	return arr;
}

/* The bounds of the LLC plausibility rule (docs/results-format.md, llc).
   32 MiB per CPU: the most L3 per core any x86 part ships (AMD EPYC 9175F:
   16 cores, 512 MiB, one core per 32 MiB CCD; amd.com product page).
   96 MiB: the most L3 one core sits behind on AMD (a 3D V-Cache CCD, 32 +
   64 MiB: Ryzen 7 7800X3D, EPYC 9684X), so one CPU is never flagged below
   it. */
#define LLC_PER_CPU_MAX (32LL << 20)
#define LLC_FLOOR (96LL << 20)
#define LLC_RULE "plausible unless larger than max(96 MiB, 32 MiB x online CPUs), or shared " \
		 "by more logical CPUs than this system has, rounded up to a power of two (CPUID's " \
		 "count)"

static int pow2_at_least(int n)
{
	int p = 1;

	while (p < n && p < (1 << 30))
		p <<= 1;
	return p;
}

static json_t *llc(const struct llc_pick *p, int online, int configured)
{
	char why[512] = "";
	long long bound;
	json_t *j;

	if (p->level <= 0)
		return json_null();
	bound = online > 0 && LLC_PER_CPU_MAX * online > LLC_FLOOR ? LLC_PER_CPU_MAX * online
								    : LLC_FLOOR;
	if (p->size > bound)
		snprintf(why, sizeof why, "%lld MiB is more than %lld MiB (max(96 MiB, 32 MiB x %d "
			 "online CPUs)): a socket's cache seen from a guest, not what this "
			 "system's CPUs can hold", p->size >> 20, bound >> 20, online);
	else if (p->shared_by > 0 && configured > 0 && p->shared_by > pow2_at_least(configured))
		snprintf(why, sizeof why, "shared by up to %d logical CPUs, and this system has %d: "
			 "the rest of the cache belongs to CPUs outside it", p->shared_by,
			 configured);
	j = json_object();
	jsonutil_set(j, "level", json_integer(p->level));
	jsonutil_set(j, "size_bytes", json_integer(p->size));
	jsonutil_set(j, "source", jsonutil_text(p->source));
	jsonutil_set(j, "shared_by", p->shared_by > 0 ? json_integer(p->shared_by) : json_null());
	jsonutil_set(j, "cpus_online", online > 0 ? json_integer(online) : json_null());
	jsonutil_set(j, "plausible", json_boolean(!why[0]));
	jsonutil_set(j, "rule", jsonutil_text(LLC_RULE));
	jsonutil_set(j, "why", why[0] ? jsonutil_text(why) : json_null());
	return j;
}

static json_t *cpu_json(const struct machine_cpu *c, const struct machine_cpuid_table *t)
{
	char sig[16];
	json_t *j = json_object();

	snprintf(sig, sizeof sig, "0x%08x", c->signature);
	jsonutil_set(j, "source", !c->have ? json_null() :
		     jsonutil_text(t ? "cpuid table (given)" : "cpuid"));
	jsonutil_set(j, "vendor", c->have ? jsonutil_text(c->vendor) : json_null());
	jsonutil_set(j, "family", c->have ? json_integer(c->family) : json_null());
	jsonutil_set(j, "model", c->have ? json_integer(c->model) : json_null());
	jsonutil_set(j, "stepping", c->have ? json_integer(c->stepping) : json_null());
	jsonutil_set(j, "signature", c->have ? jsonutil_text(sig) : json_null());
	jsonutil_set(j, "microarchitecture", c->have ? jsonutil_text(c->uarch) : json_null());
	jsonutil_set(j, "hypervisor", c->hypervisor[0] ? jsonutil_text(c->hypervisor) : json_null());
	jsonutil_set(j, "why_not", c->have ? json_null() : jsonutil_text(c->why_not));
	return j;
}

static json_t *virtualization(const char *flags)
{
	int guest = flags && machine_fs_has_word(flags, "hypervisor");
	char *vendor = machine_fs_line("/sys/class/dmi/id/sys_vendor");
	char *product = machine_fs_line("/sys/class/dmi/id/product_name");
	char buf[256];
	if (!guest) {
		free(vendor);
		free(product);
		return jsonutil_text("none detected");
	}
	snprintf(buf, sizeof buf, "guest (hypervisor flag set)%s%s%s%s",
		 vendor ? "; " : "", vendor ? vendor : "", product ? " " : "", product ? product : "");
	free(vendor);
	free(product);
	return jsonutil_text(buf);
}

/* THP: "always [madvise] never" -> "madvise". */
static json_t *bracketed(const char *path)
{
	char *s = machine_fs_line(path), *a, *b;
	if (!s)
		return json_null();
	if ((a = strchr(s, '[')) && (b = strchr(a, ']'))) {
		*b = 0;
		json_t *j = jsonutil_text(a + 1);
		free(s);
		return j;
	}
	return str_or_null(s);
}

static json_t *boost(void)
{
	char *b = machine_fs_line("/sys/devices/system/cpu/cpufreq/boost");
	if (b) {
		json_t *j = jsonutil_text(strcmp(b, "1") == 0 ? "on" : "off");
		free(b);
		return j;
	}
	char *nt = machine_fs_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
	if (nt) {
		json_t *j = jsonutil_text(strcmp(nt, "1") == 0 ? "off" : "on");
		free(nt);
		return j;
	}
	return json_null();
}

/* The first network interface backed by a device (not lo, ifb, veth,
   bridges: those live under /sys/devices/virtual), with its driver and
   speed when the kernel knows them. */
static json_t *first_nic(void)
{
	char dir[600];
	DIR *d = opendir(machine_fs_path(dir, sizeof dir, "/sys/class/net"));
	struct dirent *de;
	char best[256] = "";
	if (!d)
		return json_null();
	while ((de = readdir(d))) {
		char path[1024], target[512];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		ssize_t n = readlink(path, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strstr(target, "/virtual/"))
			continue;
		if (!best[0] || strcmp(de->d_name, best) < 0)
			snprintf(best, sizeof best, "%s", de->d_name);
	}
	closedir(d);
	if (!best[0])
		return json_null();
	char rel[600], path[1200], drv[512] = "", buf[1200], *speed;
	snprintf(rel, sizeof rel, "/sys/class/net/%s/device/driver", best);
	ssize_t n = readlink(machine_fs_path(path, sizeof path, rel), drv, sizeof drv - 1);
	drv[n > 0 ? n : 0] = 0;
	snprintf(rel, sizeof rel, "/sys/class/net/%s/speed", best);
	speed = machine_fs_line(rel);
	const char *dname = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
	int known = speed && atoi(speed) > 0;	/* virtio reports -1 */
	snprintf(buf, sizeof buf, "%s%s%s%s%s%s%s", best, dname[0] ? " (" : "", dname,
		 dname[0] ? ")" : "", known ? ", " : "", known ? speed : "", known ? " Mb/s" : "");
	free(speed);
	return jsonutil_text(buf);
}

static json_t *root_disk(void)
{
	/* The block device of the first disk in /sys/block that is not a
	   loop/ram device, with its rotational flag and model. */
	static const char *cands[] = {"vda", "sda", "nvme0n1", "xvda", "hda"};
	for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
		char path[256], *rot, *model, buf[300];
		snprintf(path, sizeof path, "/sys/block/%s/queue/rotational", cands[i]);
		if (!(rot = machine_fs_line(path)))
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/size", cands[i]);
		char *sectors = machine_fs_line(path);
		snprintf(path, sizeof path, "/sys/block/%s/device/model", cands[i]);
		model = machine_fs_line(path);
		snprintf(buf, sizeof buf, "%s%s%s, %.0f GiB, %s", cands[i], model ? " " : "",
			 model ? model : "", sectors ? atof(sectors) * 512 / (1 << 30) : 0.0,
			 strcmp(rot, "1") == 0 ? "rotational" : "non-rotational");
		free(rot);
		free(model);
		free(sectors);
		return jsonutil_text(buf);
	}
	return json_null();
}

/* The kernel command line (longer than a line buffer on a VM). */
static char *cmdline(void)
{
	char *s = machine_fs_slurp("/proc/cmdline", 4095);

	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/* SMT as the kernel reports it: control (on, off, forceoff, notsupported,
   notimplemented) and whether sibling threads are active; cpu0's sibling
   threads; CPUID's threads per core.  A guest usually sees "notsupported"
   while its vCPUs may still be SMT siblings on the host, which nothing
   inside shows. */
static json_t *smt(int threads_per_core)
{
	char *ctl = machine_fs_line("/sys/devices/system/cpu/smt/control");
	char *act = machine_fs_line("/sys/devices/system/cpu/smt/active");
	char *sib = machine_fs_line("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
	json_t *j;

	if (!ctl && !act && !sib && threads_per_core < 0)
		return json_null();
	j = json_pack("{s:o,s:o,s:o,s:o}", "control", ctl ? jsonutil_text(ctl) : json_null(),
		      "active", act ? json_boolean(strcmp(act, "1") == 0) : json_null(),
		      "cpu0_siblings", sib ? jsonutil_text(sib) : json_null(),
		      "threads_per_core", int_or_null(threads_per_core));
	free(ctl);
	free(act);
	free(sib);
	return j;
}

/* Every CPU vulnerability and its mitigation state, as the kernel words
   it: syscall and context-switch costs depend on them. */
static json_t *vulnerabilities(void)
{
	char dir[600];
	DIR *d = opendir(machine_fs_path(dir, sizeof dir, "/sys/devices/system/cpu/vulnerabilities"));
	struct dirent *e;
	json_t *j;

	if (!d)
		return json_null();
	j = json_object();
	while ((e = readdir(d))) {
		char path[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/vulnerabilities/%s", e->d_name);
		jsonutil_set(j, e->d_name, str_or_null(machine_fs_line(path)));
	}
	closedir(d);
	return j;
}

/* CPUs online (/sys/devices/system/cpu/online) and configured (its cpuN
   folders), as glibc's sysconf counts them, but under the machine root;
   sysconf's answer on the real machine when the files are unreadable. */
static int cpus_online(void)
{
	char *s = machine_fs_line("/sys/devices/system/cpu/online");
	int n = machine_fs_cpulist_count(s);

	free(s);
	if (n > 0)
		return n;
	return machine_fs_root()[0] ? -1 : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int cpus_configured(void)
{
	char dir[600];
	DIR *d = opendir(machine_fs_path(dir, sizeof dir, "/sys/devices/system/cpu"));
	struct dirent *e;
	int n = 0;

	if (d) {
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "cpu", 3) && isdigit((unsigned char)e->d_name[3]))
				n++;
		closedir(d);
	}
	if (n > 0)
		return n;
	return machine_fs_root()[0] ? -1 : (int)sysconf(_SC_NPROCESSORS_CONF);
}

int machine_matches(const char *pattern)
{
	static char *model;
	char host[256] = "";

	if (!pattern || strcmp(pattern, "*") == 0)
		return 1;
	if (!model)
		model = machine_fs_field("/proc/cpuinfo", "model name", ':');
	if (model && fnmatch(pattern, model, FNM_CASEFOLD) == 0)
		return 1;
	gethostname(host, sizeof host - 1);
	return strcmp(pattern, host) == 0;
}

/* An ARM CPU's identity (midr.c) in the fields CPUID fills on x86: vendor
   the implementer, family its code, model the part number, stepping the
   revision, signature the whole MIDR. */
static json_t *midr_json(const struct machine_midr *r)
{
	char sig[16];
	json_t *j = json_object();

	snprintf(sig, sizeof sig, "0x%08x", r->value);
	jsonutil_set(j, "source", jsonutil_text(r->source));
	jsonutil_set(j, "vendor", jsonutil_text(r->vendor));
	jsonutil_set(j, "family", json_integer(r->implementer));
	jsonutil_set(j, "model", json_integer(r->part));
	jsonutil_set(j, "stepping", json_integer(r->revision));
	jsonutil_set(j, "variant", json_integer(r->variant));
	jsonutil_set(j, "signature", jsonutil_text(sig));
	jsonutil_set(j, "microarchitecture", jsonutil_text(r->core));
	jsonutil_set(j, "hypervisor", json_null());
	jsonutil_set(j, "why_not", json_null());
	return j;
}

#define ARM_CACHES_WHY_NOT "the kernel lists no caches in /sys/devices/system/cpu/cpu0/cache " \
	"(its device tree or ACPI PPTT describes none), and an ARM CPU's cache registers " \
	"(CCSIDR_EL1) cannot be read from user space"

/* The facts CPUID and the kernel give on the CPU: cpu, caches, llc, pti,
   pcid, invpcid, the clock, smt. */
static void describe_cpu(json_t *m, const struct machine_cpuid_table *cpuid, const char *flags,
			 const char *cmd, int online, int configured)
{
	struct machine_cpu c;
	struct machine_midr r;
	struct llc_pick p = { 0, -1, -1, NULL };
	json_t *arr;

	/* a MIDR means an ARM CPU (a given root's, too): CPUID is not asked */
	machine_midr_read(&r);
	if (r.have && !cpuid) {
		memset(&c, 0, sizeof c);
		c.threads_per_core = -1;
		c.pcid = c.invpcid = -1;
		jsonutil_set(m, "cpu", midr_json(&r));
	} else {
		machine_cpu_read(cpuid, &c);
		jsonutil_set(m, "cpu", cpu_json(&c, cpuid));
	}
	arr = sysfs_caches(&p);
	if (json_array_size(arr) == 0) {
		json_decref(arr);
		p = (struct llc_pick){ 0, -1, -1, NULL };
		arr = cpuid_caches(&c, &p);
	}
	jsonutil_set(m, "caches", arr);
	jsonutil_set(m, "caches_why_not", json_array_size(arr) > 0 ? json_null() :
		     jsonutil_text(r.have && !cpuid ? ARM_CACHES_WHY_NOT : c.have ?
				   "neither sysfs nor CPUID lists a cache" :
				   "the kernel lists no caches in sysfs, and there is no CPUID"));
	jsonutil_set(m, "llc", llc(&p, online, configured));
	jsonutil_set(m, "pti", machine_kernel_pti(flags));
	jsonutil_set(m, "pcid", machine_kernel_feature(c.have ? c.pcid : -1, flags, "pcid"));
	jsonutil_set(m, "invpcid", machine_kernel_feature(c.have ? c.invpcid : -1, flags, "invpcid"));
	jsonutil_set(m, "smt", smt(c.threads_per_core));
	jsonutil_set(m, "clocksource",
		str_or_null(machine_fs_line("/sys/devices/system/clocksource/clocksource0/current_clocksource")));
	jsonutil_set(m, "clocksources_available", machine_kernel_clocksources());
	jsonutil_set(m, "tsc_trust", machine_kernel_tsc_trust(flags, cmd));
}

/* /proc/cpuinfo's model name; an ARM kernel writes none: then the
   implementer and core of the MIDR ("ARM Neoverse N1"), else null. */
static json_t *cpu_model(void)
{
	char *s = machine_fs_field("/proc/cpuinfo", "model name", ':'), buf[96];
	struct machine_midr r;

	if (s)
		return str_or_null(s);
	machine_midr_read(&r);
	if (!r.have)
		return json_null();
	snprintf(buf, sizeof buf, "%s %s", r.vendor, r.core);
	return jsonutil_text(buf);
}

json_t *machine_describe_with(double tsc_hz, const struct machine_cpuid_table *cpuid)
{
	struct utsname u;
	struct sysinfo si;
	struct machine_core_clock cc;
	double load[3] = {0, 0, 0};
	char host[256] = "";
	char *flags = machine_fs_field("/proc/cpuinfo", "flags", ':'), *cmd = cmdline();
	int online = cpus_online(), configured = cpus_configured();
	json_t *m = json_object();

	uname(&u);
	gethostname(host, sizeof host - 1);
	jsonutil_set(m, "hostname", jsonutil_text(host));
	jsonutil_set(m, "os", str_or_null(machine_fs_field("/etc/os-release", "PRETTY_NAME", '=')));
	char kern[600];
	snprintf(kern, sizeof kern, "%s %s %s", u.sysname, u.release, u.version);
	jsonutil_set(m, "kernel", jsonutil_text(kern));
	jsonutil_set(m, "arch", jsonutil_text(u.machine));
	jsonutil_set(m, "cpu_model", cpu_model());
	jsonutil_set(m, "cpus_online", online > 0 ? json_integer(online) : json_null());
	jsonutil_set(m, "cpus_configured", configured > 0 ? json_integer(configured) : json_null());
	jsonutil_set(m, "tsc_hz", tsc_hz > 0 && tsc_hz < 1e12 ? json_real(tsc_hz) : json_null());
	jsonutil_set(m, "tsc_source",
			    jsonutil_text(!pt_counter_off() ? "counter (rdtsc/cntvct) calibrated against CLOCK_MONOTONIC_RAW"
						    : "clock_gettime(CLOCK_MONOTONIC_RAW), ns"));
	jsonutil_set(m, "counter", counter_json(tsc_hz));
	machine_core_clock(&cc, 9, 0.001);
	jsonutil_set(m, "core_clock", machine_core_clock_json(&cc));
	describe_cpu(m, cpuid, flags, cmd, online, configured);
	if (sysinfo(&si) == 0)
		jsonutil_set(m, "memory_bytes", json_integer((json_int_t)si.totalram * si.mem_unit));
	else
		jsonutil_set(m, "memory_bytes", json_null());
#ifdef __VERSION__
	jsonutil_set(m, "compiler", jsonutil_text("gcc " __VERSION__));
#else
	jsonutil_set(m, "compiler", json_null());
#endif
	jsonutil_set(m, "governor",
		str_or_null(machine_fs_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")));
	jsonutil_set(m, "boost", boost());
	char *aslr = machine_fs_line("/proc/sys/kernel/randomize_va_space");
	jsonutil_set(m, "aslr", aslr ? jsonutil_text(strcmp(aslr, "0") == 0 ? "off" :
					strcmp(aslr, "1") == 0 ? "partial (1)" : "full (2)") : json_null());
	free(aslr);
	jsonutil_set(m, "thp", bracketed("/sys/kernel/mm/transparent_hugepage/enabled"));
	jsonutil_set(m, "virtualization", virtualization(flags));
	if (getloadavg(load, 3) == 3)
		jsonutil_set(m, "load_avg", json_pack("[f,f,f]", load[0], load[1], load[2]));
	else
		jsonutil_set(m, "load_avg", json_null());
	jsonutil_set(m, "disk", root_disk());
	jsonutil_set(m, "nic", first_nic());
	jsonutil_set(m, "privileged", json_boolean(geteuid() == 0));
	jsonutil_set(m, "cmdline", cmd ? jsonutil_text(cmd) : json_null());
	jsonutil_set(m, "vulnerabilities", vulnerabilities());
	machine_hw_facts(m);
	if (machine_fs_root()[0] || cpuid)
		jsonutil_set(m, "given", json_pack("{s:o,s:o}",
			"root", machine_fs_root()[0] ? jsonutil_text(machine_fs_root()) : json_null(),
			"cpuid", cpuid ? jsonutil_text(cpuid->name ? cpuid->name : "a table") : json_null()));
	free(flags);
	free(cmd);
	return m;
}

json_t *machine_describe(double tsc_hz)
{
	const char *root = getenv("SYSMETER_MACHINE_ROOT"), *file = getenv("SYSMETER_CPUID_FILE");
	struct machine_cpuid_table t = { NULL, 0, NULL };
	char err[512];
	json_t *m;

	if (root && *root)
		machine_set_root(root);
	if (!file || !*file)
		return machine_describe_with(tsc_hz, NULL);
	if (machine_cpuid_table_load(file, &t, err, sizeof err) < 0)
		t.name = err;		/* an empty table: CPUID reads as absent, and given says why */
	m = machine_describe_with(tsc_hz, &t);
	machine_cpuid_table_free(&t);
	return m;
}
