/*
 * report_confounder.c - the recorded confounders that can account for a
 * prediction's miss (report_confounder.h).
 *
 * A candidate is named only when (1) the run recorded it (the manifest's
 * machine section, this run's other results), (2) the model's terms use
 * what it changes (a system call's entry cost for the mitigations, a
 * wake-up for an idle CPU's wake-up, the device's figures for the device,
 * a cache or DRAM figure for the cache; everything on a guest for the
 * virtual machine), and (3) it can move the measurement the way it missed:
 * a VM, mitigations and wake-ups only add time, so they never explain a
 * measurement faster than the model.  Each is given with its number.
 */
#include "report/report_confounder.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/units.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* 1 when a name the terms use starts with one of the prefixes (a
   "|"-separated list) or contains `part` (NULL: none). */
static int uses(json_t *names, const char *prefixes, const char *part)
{
	json_t *v;
	size_t i;

	json_array_foreach(names, i, v) {
		const char *n = json_string_value(v), *p = prefixes;

		if (!n)
			continue;
		if (part && strstr(n, part))
			return 1;
		while (p && *p) {
			size_t l = strcspn(p, "|");

			if (l && strncmp(n, p, l) == 0)
				return 1;
			p += l + (p[l] == '|');
		}
	}
	return 0;
}

/* "1.61 ns", "24.1 µs": a time in ns. */
static void time_text(double ns, char *buf, size_t len)
{
	char unit[16], num[32];
	double f = units_display("ns", ns, unit, sizeof unit, NULL);

	units_format_number(ns * f, num, sizeof num);
	snprintf(buf, len, "%s %s", num, unit);
}

/* The value text prediction.sources gives a name ("80 us"), or NULL. */
static const char *source_value(json_t *pred, const char *name, const char **src)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(pred, "sources"), i, s)
		if (!strcmp(jsonutil_str(s, "name") ?: "", name)) {
			if (src)
				*src = jsonutil_str(s, "source");
			return jsonutil_str(s, "value");
		}
	return NULL;
}

/* A clause appended to the list: "; " between them. */
static void clause(FILE *f, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void clause(FILE *f, int *n, const char *fmt, ...)
{
	va_list ap;

	if ((*n)++)
		fputs("; ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
}

/* The mitigations on the kernel's entry and exit that the machine lists:
   a segment of a vulnerabilities line that names one and is not negated
   ("STIBP: disabled", "PBRSB-eIBRS: Not affected"). */
static size_t mitigations(json_t *m, int pti_priced, char *buf, size_t len)
{
	static const char *const kinds[] = {"Retpolines", "RSB filling", "IBRS", "IBPB", "Safe RET",
					    "untrained return thunk", "Clear CPU buffers", "VERW"};
	int found[sizeof kinds / sizeof kinds[0]] = {0};
	json_t *v;
	const char *key;
	size_t n = 0, used = 0;

	buf[0] = '\0';
	if (!pti_priced && !strcmp(jsonutil_str(json_object_get(m, "pti"), "state") ?: "", "on")) {
		used += (size_t)snprintf(buf + used, len - used, "PTI");
		n++;
	}
	json_object_foreach(json_object_get(m, "vulnerabilities"), key, v) {
		const char *s = json_string_value(v);

		while (s && *s) {
			size_t l = strcspn(s, ";");
			char seg[256];

			snprintf(seg, sizeof seg, "%.*s", (int)l, s);
			s += l + (s[l] == ';');
			if (strstr(seg, "Not affected") || strstr(seg, "disabled") || strstr(seg, "Vulnerable"))
				continue;
			for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
				if (!found[k] && strstr(seg, kinds[k]))
					found[k] = 1;
		}
	}
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (found[k] && used < len) {
			used += (size_t)snprintf(buf + used, len - used, "%s%s", n ? ", " : "", kinds[k]);
			n++;
		}
	return n;
}

/* The first measured point's estimate in ns of result `name` of the run,
   with param=value when that point exists; NAN when none. */
static double run_ns(const char *run, const char *name, const char *param, const char *value)
{
	char path[PATH_MAX], msg[256];
	int missing = 0;
	json_t *res, *pt, *best = NULL;
	double ns = NAN, f = 1;
	size_t i;

	strf(path, sizeof path, "%s/results/%s.json", run, name);
	if (!(res = jsonutil_load(path, msg, sizeof msg, &missing)))
		return NAN;
	json_array_foreach(json_object_get(res, "points"), i, pt) {
		const char *t = jsonutil_str(json_object_get(pt, "params_text"), param);

		if (strcmp(jsonutil_str(pt, "status") ?: "", "ok") || !isfinite(jsonutil_num(pt, "estimate")))
			continue;
		if (!best || (t && !strcmp(t, value) &&
			      strcmp(jsonutil_str(json_object_get(best, "params_text"), param) ?: "", value)))
			best = pt;
	}
	if (best && units_is_time(jsonutil_str(json_object_get(res, "probe"), "unit"), &f))
		ns = jsonutil_num(best, "estimate") * f;
	json_decref(res);
	return ns;
}

/* The wake-up of an idle CPU as this run measured it: cross_cpu_handoff
   minus context_switch (threads), else the drift check's wake-up, else
   machine.wake ({median_us}); 0 when none, with the clause in buf. */
static int wake(const char *run, json_t *man, char *buf, size_t len)
{
	double h = run_ns(run, "cross_cpu_handoff", "kind", "thread");
	double s = run_ns(run, "context_switch", "kind", "thread");
	json_t *w = json_object_get(json_object_get(man, "drift"), "wake");
	char a[32], b[32], c[32];

	if (isfinite(h) && isfinite(s) && h > s) {
		time_text(h - s, a, sizeof a);
		time_text(h, b, sizeof b);
		time_text(s, c, sizeof c);
		snprintf(buf, len, "the wake-up of an idle CPU, %s in this run (cross_cpu_handoff %s "
			 "minus context_switch %s)", a, b, c);
		return 1;
	}
	if (!(jsonutil_num(w, "median_us") > 0))
		w = json_object_get(json_object_get(man, "machine"), "wake");
	if (jsonutil_num(w, "median_us") > 0) {
		time_text(jsonutil_num(w, "median_us") * 1e3, a, sizeof a);
		snprintf(buf, len, "the wake-up of an idle CPU, %s in this run (the median the drift "
			 "check measured)", a);
		return 1;
	}
	return 0;
}

/* 1 when machine.KEY holds a number (given: a number or {value}). */
static int given(json_t *m, const char *key)
{
	json_t *v = json_object_get(m, key);

	return json_is_number(v) || json_is_number(json_object_get(v, "value"));
}

/* "guest (hypervisor flag set)"; hypervisor "KVMKVMKVM": a guest unless the
   virtualization fact says none. */
static int guest(json_t *m, char *buf, size_t len)
{
	const char *v = jsonutil_str(m, "virtualization");
	const char *hv = jsonutil_str(json_object_get(m, "cpu"), "hypervisor");
	char h[64];
	size_t l;

	if (hv) {
		snprintf(h, sizeof h, "%s", hv);
		for (l = strlen(h); l > 0 && h[l - 1] == ' '; l--)
			h[l - 1] = '\0';
	}
	if (v && strncmp(v, "none", 4) != 0)
		snprintf(buf, len, "a virtual machine (machine.virtualization: %s%s%s)", v,
			 hv && *h ? "; hypervisor " : "", hv && *h ? h : "");
	else if (hv && *h && !v)
		snprintf(buf, len, "a virtual machine (hypervisor %s)", h);
	else
		return 0;
	return 1;
}

void report_confounder_say(FILE *f, const struct report_confounder_in *in)
{
	char path[PATH_MAX], msg[256], b[512];
	int missing = 0, n = 0, slow_only = 0;
	json_t *man, *m;
	char *list = NULL;
	size_t llen = 0;
	FILE *l;

	strf(path, sizeof path, "%s/manifest.json", in->run);
	man = jsonutil_load(path, msg, sizeof msg, &missing);
	m = json_object_get(man, "machine");
	if (!(l = open_memstream(&list, &llen))) {
		json_decref(man);
		return;
	}
	/* the system call's entry and exit priced from the table: the
	   mitigations on it, unless the model prices them (mitigation_cycles);
	   a model built on this run's measured system call (@syscall) has
	   them in that measurement already */
	if (uses(in->names, "syscall_cycles", NULL) && !uses(in->names, "mitigation_cycles", NULL)) {
		const char *src = NULL;
		size_t k;

		source_value(in->pred, "syscall_cycles", &src);
		k = mitigations(m, src && strstr(src, "with PTI"), b, sizeof b);
		if (k && in->slower)
			clause(l, &n, "the kernel's mitigations %s (%zu named in %s), on every system "
			       "call's entry and exit", b, k, strncmp(b, "PTI", 3) ? "machine.vulnerabilities"
			       : k == 1 ? "machine.pti" : "machine.pti and machine.vulnerabilities");
		slow_only += k > 0;
	}
	/* a wake-up of an idle CPU */
	if (uses(in->names, "wakeup|@cross_cpu_handoff", "wake") || in->cross) {
		if (wake(in->run, man, b, sizeof b)) {
			if (in->slower)
				clause(l, &n, "%s", b);
			slow_only++;
		}
	}
	/* the device: the table's default when its figures were not given */
	if (uses(in->names, "disk_", NULL)) {
		const char *lat = source_value(in->pred, "disk_latency", NULL);
		const char *bw = source_value(in->pred, "disk_bandwidth", NULL);
		const char *disk = jsonutil_str(m, "disk");
		int no_iops = !given(m, "disk_rand_read_iops"), no_seq = !given(m, "disk_seq_read");

		char dv[256] = "";

		if (lat && no_iops)
			snprintf(dv, sizeof dv, "disk_latency %s", lat);
		if (bw && no_seq)
			snprintf(dv + strlen(dv), sizeof dv - strlen(dv), "%sdisk_bandwidth %s",
				 dv[0] ? " and " : "", bw);
		if (dv[0])
			clause(l, &n, "the device: the model takes the table's NVMe figures (%s), not given "
			       "for this machine%s%s", dv, disk ? ", while this run's disk is " : "",
			       disk ? disk : "");
	}
	/* a cache or DRAM figure: an implausible last-level cache */
	if (uses(in->names, "dram_|mem_bandwidth|ws_|line_fills|l3_|llc_", NULL) &&
	    json_is_false(json_object_get(json_object_get(m, "llc"), "plausible")))
		clause(l, &n, "a last-level cache that is not plausible (machine.llc: %s)",
		       jsonutil_str(json_object_get(m, "llc"), "why") ?: "no reason recorded");
	/* cycles turned into time at a clock that did not hold */
	if (uses(in->names, "core_hz", "cycles") &&
	    json_is_false(json_object_get(json_object_get(m, "core_clock"), "holds"))) {
		const char *why = jsonutil_str(json_object_get(m, "core_clock"), "why_not");
		const char *hz = source_value(in->pred, "core_hz", NULL);

		clause(l, &n, "a core clock that did not hold (machine.core_clock%s%s), so the model "
		       "turned cycles into time at %s", why ? ": " : "", why ? why : "",
		       hz ? hz : "the TSC's rate");
	}
	/* everything on a guest */
	if (guest(m, b, sizeof b)) {
		if (in->slower)
			clause(l, &n, "%s", b);
		slow_only++;
	}
	fclose(l);
	if (n)
		fprintf(f, " What the run recorded that can account for it: %s.", list);
	else if (!in->slower && slow_only)
		fputs(" Nothing the run recorded can account for a measurement faster than the model "
		      "(what it recorded only adds time): the miss is unexplained.", f);
	else
		fputs(" Nothing the run recorded accounts for it: the miss is unexplained.", f);
	free(list);
	json_decref(man);
}
