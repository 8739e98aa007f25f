/*
 * machine.c - describe the machine once per run (design §5.3): what a
 * reader needs to judge the numbers, and what a rerun compares.  Every
 * field the machine does not expose is null, never guessed.
 */
#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "machine/machine.h"
#include "probe_time.h"
#include "lib/jsonutil.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Count ticks over ~10 ms of CLOCK_MONOTONIC_RAW, five times, and keep the
   median: one preemption in one window cannot skew it. */
double machine_calibrate_tsc(void)
{
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
	return hz[2];
#else
	return 1e9;
#endif
}

/* First line of a file, trailing newline cut; NULL when unreadable. */
static char *read_line(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	if (!f)
		return NULL;
	char *r = fgets(buf, sizeof buf, f);
	fclose(f);
	if (!r)
		return NULL;
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf);
}

static json_t *str_or_null(char *s)
{
	json_t *j = s ? jsonutil_text(s) : json_null();
	free(s);
	return j;
}

/* "key : value" from /proc/cpuinfo or os-release style files. */
static char *find_field(const char *path, const char *key, char sep)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t klen = strlen(key);
	char *out = NULL;
	if (!f)
		return NULL;
	while (!out && fgets(line, sizeof line, f)) {
		if (strncmp(line, key, klen) != 0)
			continue;
		char *p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != sep)
			continue;
		p++;
		while (*p == ' ' || *p == '"')
			p++;
		p[strcspn(p, "\"\n")] = 0;
		out = strdup(p);
	}
	fclose(f);
	return out;
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

static json_t *caches(void)
{
	json_t *arr = json_array();
	for (int i = 0; i < 16; i++) {
		char path[256], *level, *type, *size, *line, *ways, *shared;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!(level = read_line(path)))
			break;
#define CACHE_FIELD(var, name) \
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/" name, i); \
		var = read_line(path)
		CACHE_FIELD(type, "type");
		CACHE_FIELD(size, "size");
		CACHE_FIELD(line, "coherency_line_size");
		CACHE_FIELD(ways, "ways_of_associativity");
		CACHE_FIELD(shared, "shared_cpu_list");
#undef CACHE_FIELD
		jsonutil_append(arr, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}",
			"level", atoi(level),
			"type", str_or_null(type),
			"size_bytes", size ? json_integer((json_int_t)sysfs_size(size)) : json_null(),
			"line_bytes", line ? json_integer(atoi(line)) : json_null(),
			"ways", ways ? json_integer(atoi(ways)) : json_null(),
			"shared_cpu_list", str_or_null(shared)));
		free(level);
		free(size);
		free(line);
		free(ways);
	}
	return arr;
}

static json_t *virtualization(void)
{
	char *hv = find_field("/proc/cpuinfo", "flags", ':');
	int guest = hv && strstr(hv, " hypervisor") != NULL;
	free(hv);
	char *vendor = read_line("/sys/class/dmi/id/sys_vendor");
	char *product = read_line("/sys/class/dmi/id/product_name");
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
	char *s = read_line(path), *a, *b;
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
	char *b = read_line("/sys/devices/system/cpu/cpufreq/boost");
	if (b) {
		json_t *j = jsonutil_text(strcmp(b, "1") == 0 ? "on" : "off");
		free(b);
		return j;
	}
	char *nt = read_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
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
	DIR *d = opendir("/sys/class/net");
	struct dirent *de;
	char best[256] = "";
	if (!d)
		return json_null();
	while ((de = readdir(d))) {
		char path[512], target[512];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/sys/class/net/%s", de->d_name);
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
	char path[600], drv[512] = "", buf[1200], *speed;
	snprintf(path, sizeof path, "/sys/class/net/%s/device/driver", best);
	ssize_t n = readlink(path, drv, sizeof drv - 1);
	drv[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof path, "/sys/class/net/%s/speed", best);
	speed = read_line(path);
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
		if (!(rot = read_line(path)))
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/size", cands[i]);
		char *sectors = read_line(path);
		snprintf(path, sizeof path, "/sys/block/%s/device/model", cands[i]);
		model = read_line(path);
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

/* The kernel command line (longer than read_line's buffer on a VM). */
static json_t *cmdline(void)
{
	FILE *f = fopen("/proc/cmdline", "r");
	char buf[4096];
	size_t n;

	if (!f)
		return json_null();
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return jsonutil_text(buf);
}

/* SMT as the kernel reports it: control (on, off, forceoff, notsupported,
   notimplemented) and whether sibling threads are active; a guest usually
   sees "notsupported" while its vCPUs may still be SMT siblings on the
   host. */
static json_t *smt(void)
{
	char *ctl = read_line("/sys/devices/system/cpu/smt/control");
	char *act = read_line("/sys/devices/system/cpu/smt/active");
	json_t *j;

	if (!ctl && !act)
		return json_null();
	j = json_pack("{s:o,s:o}", "control", ctl ? jsonutil_text(ctl) : json_null(),
		      "active", act ? json_boolean(strcmp(act, "1") == 0) : json_null());
	free(ctl);
	free(act);
	return j;
}

/* Every CPU vulnerability and its mitigation state, as the kernel words
   it: syscall and context-switch costs depend on them. */
static json_t *vulnerabilities(void)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	DIR *d = opendir(dir);
	struct dirent *e;
	json_t *j;

	if (!d)
		return json_null();
	j = json_object();
	while ((e = readdir(d))) {
		char path[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		jsonutil_set(j, e->d_name, str_or_null(read_line(path)));
	}
	closedir(d);
	return j;
}

int machine_matches(const char *pattern)
{
	static char *model;
	char host[256] = "";

	if (!pattern || strcmp(pattern, "*") == 0)
		return 1;
	if (!model)
		model = find_field("/proc/cpuinfo", "model name", ':');
	if (model && fnmatch(pattern, model, FNM_CASEFOLD) == 0)
		return 1;
	gethostname(host, sizeof host - 1);
	return strcmp(pattern, host) == 0;
}

json_t *machine_describe(double tsc_hz)
{
	struct utsname u;
	struct sysinfo si;
	double load[3] = {0, 0, 0};
	char host[256] = "";
	json_t *m = json_object();

	uname(&u);
	gethostname(host, sizeof host - 1);
	jsonutil_set(m, "hostname", jsonutil_text(host));
	jsonutil_set(m, "os", str_or_null(find_field("/etc/os-release", "PRETTY_NAME", '=')));
	char kern[600];
	snprintf(kern, sizeof kern, "%s %s %s", u.sysname, u.release, u.version);
	jsonutil_set(m, "kernel", jsonutil_text(kern));
	jsonutil_set(m, "arch", jsonutil_text(u.machine));
	jsonutil_set(m, "cpu_model", str_or_null(find_field("/proc/cpuinfo", "model name", ':')));
	jsonutil_set(m, "cpus_online", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	jsonutil_set(m, "cpus_configured", json_integer(sysconf(_SC_NPROCESSORS_CONF)));
	jsonutil_set(m, "tsc_hz", tsc_hz > 0 && tsc_hz < 1e12 ? json_real(tsc_hz) : json_null());
	jsonutil_set(m, "tsc_source",
			    jsonutil_text(PT_HAVE_TSC ? "counter (rdtsc/cntvct) calibrated against CLOCK_MONOTONIC_RAW"
						    : "clock_gettime(CLOCK_MONOTONIC_RAW), ns"));
	jsonutil_set(m, "caches", caches());
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
			    str_or_null(read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")));
	jsonutil_set(m, "boost", boost());
	char *aslr = read_line("/proc/sys/kernel/randomize_va_space");
	jsonutil_set(m, "aslr", aslr ? jsonutil_text(strcmp(aslr, "0") == 0 ? "off" :
					strcmp(aslr, "1") == 0 ? "partial (1)" : "full (2)") : json_null());
	free(aslr);
	jsonutil_set(m, "thp", bracketed("/sys/kernel/mm/transparent_hugepage/enabled"));
	jsonutil_set(m, "virtualization", virtualization());
	if (getloadavg(load, 3) == 3)
		jsonutil_set(m, "load_avg", json_pack("[f,f,f]", load[0], load[1], load[2]));
	else
		jsonutil_set(m, "load_avg", json_null());
	jsonutil_set(m, "disk", root_disk());
	jsonutil_set(m, "nic", first_nic());
	jsonutil_set(m, "privileged", json_boolean(geteuid() == 0));
	jsonutil_set(m, "cmdline", cmdline());
	jsonutil_set(m, "clocksource",
		str_or_null(read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource")));
	jsonutil_set(m, "smt", smt());
	jsonutil_set(m, "vulnerabilities", vulnerabilities());
	return m;
}
