/*
 * report_run.c - the run's header and machine table in the view
 * (report_run.h).
 */
#include "report/report_run.h"
#include "results/results.h"
#include "report/report_view.h"
#include "report/report_env.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A merged report (runner merge): "a (2026-11-22 05:15:00 UTC), b (...)",
   the runs it was built from; null otherwise. */
static json_t *merged_view(json_t *merge)
{
	json_t *r, *out;
	char *txt = NULL;
	size_t len = 0, i;
	FILE *f;

	if (!json_is_object(merge) || !(f = open_memstream(&txt, &len)))
		return json_null();
	json_array_foreach(json_object_get(merge, "runs"), i, r) {
		const char *t = jsonutil_str(r, "finished") ? jsonutil_str(r, "finished")
							    : jsonutil_str(r, "started");
		json_t *d = report_view_date(t);

		fprintf(f, "%s%s (%s)", i ? ", " : "", jsonutil_str(r, "run_id") ?
			jsonutil_str(r, "run_id") : "?", json_string_value(d) ? json_string_value(d) : "?");
		json_decref(d);
	}
	fclose(f);
	out = report_view_line(txt);
	free(txt);
	return out;
}

/* The earlier runs on this machine that ran at another speed than the
   rest, "q1 (canary 0.92x, core clock 1.16x)", into f. */
static void earlier_off_text(FILE *f, json_t *h)
{
	json_t *e;
	size_t i;
	char buf[128];

	json_array_foreach(json_object_get(h, "earlier_off"), i, e)
		fprintf(f, "%s%s (%s)", i ? ", " : "",
			jsonutil_str(e, "run") ? jsonutil_str(e, "run") : "?",
			results_level_ratios(e, buf, sizeof buf));
}

/* The drift check's verdict as sentences, when the host changed speed
   during the run, or the whole run (or an earlier one) ran at another
   speed than this machine's other runs; null otherwise. */
static json_t *drift_view(json_t *d)
{
	json_t *r, *dr = json_object_get(d, "drifted_rounds"), *h = json_object_get(d, "history");
	char rounds[256] = "", *txt = NULL, buf[128], wk[96];
	size_t i, off = 0, len = 0;
	const char *hv = jsonutil_str(h, "verdict");
	int within = jsonutil_str(d, "verdict") && !strcmp(jsonutil_str(d, "verdict"), "drifted");
	int shifted = hv && !strcmp(hv, "shifted");
	size_t n_off = json_array_size(json_object_get(h, "earlier_off"));
	FILE *f;

	if (!within && !shifted && !n_off)
		return json_null();
	if (!(f = open_memstream(&txt, &len)))
		return json_null();
	json_array_foreach(dr, i, r)
		if (json_is_integer(r) && off < sizeof rounds)
			off += (size_t)snprintf(rounds + off, sizeof rounds - off, "%s%lld",
						i ? ", " : "", (long long)json_integer_value(r));
	if (within)
		fprintf(f, "The host changed speed during this run: a fixed canary workload, timed "
			"before every round, varied %.2fx (more than %.0f %% from its median) around "
			"round%s %s. The %lld points measured in those rounds carry the flag "
			"host_drift: their spread may be the host's.%s", jsonutil_num(d, "spread"),
			100 * jsonutil_num(json_object_get(d, "canary"), "threshold"),
			json_array_size(dr) > 1 ? "s" : "", rounds,
			(long long)json_integer_value(json_object_get(d, "flagged_points")),
			shifted || n_off ? " " : "");
	if (shifted)
		fprintf(f, "This whole run ran at another speed than the %lld earlier runs on this "
			"machine (%s the median of their levels and its own; %s). "
			"Every point moves with it: compare this run with those runs with care.%s",
			(long long)json_integer_value(json_object_get(h, "runs")),
			results_level_ratios(h, buf, sizeof buf), results_level_bands(h, wk, sizeof wk),
			n_off ? " " : "");
	if (n_off) {
		fprintf(f, "Earlier run%s on this machine ran at another speed than the rest: ",
			n_off > 1 ? "s" : "");
		earlier_off_text(f, h);
		fprintf(f, ", against the median of the runs compared. %s with this one "
			"with care.", n_off > 1 ? "Compare them" : "Compare it");
	}
	if (fclose(f) != 0 || !txt) {
		free(txt);
		return json_null();
	}
	r = report_view_str(txt);
	free(txt);
	return r;
}

json_t *report_run_view(json_t *man)
{
	json_t *m = json_object(), *mach = json_object_get(man, "machine"), *v;
	json_t *runner = json_object_get(man, "runner");
	const char *status = jsonutil_str(man, "status");
	char *cmd = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&cmd, &len);

	json_array_foreach(json_object_get(man, "command_line"), i, v)
		fprintf(f, "%s%s", i ? " " : "", json_is_string(v) ? json_string_value(v) : "?");
	fclose(f);
	report_view_put(m, "id", report_view_line(jsonutil_str(man, "run_id") ? jsonutil_str(man, "run_id") : "n/a"));
	report_view_put(m, "date", report_view_date(jsonutil_str(man, "started")));
	report_view_put(m, "started", report_view_date(jsonutil_str(man, "started")));
	report_view_put(m, "finished", report_view_date(jsonutil_str(man, "finished")));
	report_view_put(m, "duration", report_view_duration(jsonutil_str(man, "started"),
					      jsonutil_str(man, "finished")));
	report_view_put(m, "host", report_view_line(jsonutil_str(mach, "hostname") ?
				      jsonutil_str(mach, "hostname") : "n/a"));
	report_view_put(m, "command", report_view_line(cmd && cmd[0] ? cmd : "n/a"));
	/* the front matter a student hands in: --title, --author, --course */
	json_t *fm = json_object_get(man, "report");
	const char *title = jsonutil_str(fm, "title");
	report_view_put(m, "title", title ? report_view_line(title)
				  : report_view_strf("Measurement report: %s",
						     jsonutil_str(mach, "hostname") ?
						     jsonutil_str(mach, "hostname") : "n/a"));
	report_view_put(m, "author", jsonutil_str(fm, "author") ?
				     report_view_line(jsonutil_str(fm, "author")) : json_null());
	report_view_put(m, "course", jsonutil_str(fm, "course") ?
				     report_view_line(jsonutil_str(fm, "course")) : json_null());
	v = json_object_get(man, "seed");
	report_view_put(m, "seed", json_is_integer(v) ?
		 report_view_strf("%lld", (long long)json_integer_value(v)) : report_view_any(v));
	report_view_put(m, "version", report_view_line(jsonutil_str(runner, "version") ?
					 jsonutil_str(runner, "version") : "n/a"));
	report_view_put(m, "commit", report_view_any(json_object_get(runner, "git_commit")));
	report_view_put(m, "status", report_view_str(status ? status : "n/a"));
	report_view_put(m, "interrupted", json_boolean(status && !strcmp(status, "interrupted")));
	report_view_put(m, "quick", json_boolean(json_is_true(json_object_get(json_object_get(man, "options"),
									"quick"))));
	v = json_object_get(man, "origin");
	report_view_put(m, "origin", json_is_object(v) && jsonutil_str(v, "run") ?
		 report_view_line(jsonutil_str(v, "run")) : json_null());
	report_view_put(m, "merged", merged_view(json_object_get(man, "merge")));
	report_view_put(m, "drift", drift_view(json_object_get(man, "drift")));
	free(cmd);
	return m;
}

/* Was machine fact `key` given (--machine FILE) rather than detected? */
static int given(json_t *m, const char *key)
{
	const char *src = jsonutil_str(json_object_get(json_object_get(m, "sources"), key), "source");

	return src && !strcmp(src, "given");
}

static void machine_row(json_t *rows, const char *label, json_t *value)
{
	json_t *r = json_object();

	report_view_put(r, "label", report_view_str(label));
	report_view_put(r, "value", value);
	jsonutil_append(rows, r);
}

/* "Intel ... (8 CPUs online of 16)", or the model alone when the counts
   are not known. */
static json_t *cpu_text(json_t *m)
{
	json_t *v = json_object_get(m, "cpus_online"), *out;
	char *model = NULL;
	size_t ml = 0;
	FILE *mf;

	if (!json_is_integer(v))
		return report_view_any(json_object_get(m, "cpu_model"));
	mf = open_memstream(&model, &ml);
	report_view_any_text(mf, json_object_get(m, "cpu_model"));
	fprintf(mf, " (%lld CPUs online", (long long)json_integer_value(v));
	if (given(m, "cpus_online"))
		fputs(", given", mf);
	else if (json_is_integer(json_object_get(m, "cpus_configured")))
		fprintf(mf, " of %lld",
			(long long)json_integer_value(json_object_get(m, "cpus_configured")));
	fputs(")", mf);
	fclose(mf);
	out = report_view_line(model);
	free(model);
	return out;
}

/* "L1d 32 KiB 8-way, L1i 32 KiB 8-way, L2 1 MiB; 64-byte lines (from
   sysfs)", and why the LLC is implausible when it is. */
static json_t *caches_text(json_t *caches, json_t *llc)
{
	json_t *c, *out;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	json_array_foreach(caches, i, c) {
		char sz[64];
		const char *type = jsonutil_str(c, "type");
		double lvl = jsonutil_num(c, "level");

		report_view_size_text(jsonutil_num(c, "size_bytes"), sz, sizeof sz);
		fprintf(f, "%sL%.0f%s %s", i ? ", " : "", lvl,
			!type ? "" : strcmp(type, "Data") == 0 ? "d" :
			strcmp(type, "Instruction") == 0 ? "i" : "", sz);
		if (json_is_integer(json_object_get(c, "ways")))
			fprintf(f, " %lld-way", (long long)json_integer_value(json_object_get(c, "ways")));
	}
	c = json_array_get(caches, 0);
	if (c && isfinite(jsonutil_num(c, "line_bytes")))
		fprintf(f, "; %.0f-byte lines", jsonutil_num(c, "line_bytes"));
	if (c && jsonutil_str(c, "source"))	/* runs before it was recorded lack it */
		fprintf(f, " (from %s)", jsonutil_str(c, "source"));
	if (json_array_size(caches) == 0)
		fputs("n/a", f);
	if (json_is_false(json_object_get(llc, "plausible")))
		fprintf(f, "; L%.0f implausible here: %s", jsonutil_num(llc, "level"),
			jsonutil_str(llc, "why") ? jsonutil_str(llc, "why") : "n/a");
	fclose(f);
	out = report_view_line(buf);
	free(buf);
	return out;
}

/* "nfs-ganesha in a namespace on this host", or why there was none. */
static json_t *nfs_text(json_t *nfs)
{
	const char *label = jsonutil_str(nfs, "label"), *err = jsonutil_str(nfs, "error");

	if (label)
		return report_view_line(label);
	return report_view_strf("none (%s)", err ? err : "n/a");
}

/* "spectre_v2: Mitigation: ...; ...; not affected: a, b", sorted by name. */
static json_t *vulns_text(json_t *v)
{
	const char *k, *names[64];
	json_t *x;
	size_t n = 0;
	char buf[4096] = "", rest[1024] = "";
	size_t off = 0, roff = 0;

	if (!json_is_object(v) || json_object_size(v) == 0)
		return report_view_str("n/a");
	json_object_foreach(v, k, x)
		if (n < 64)
			names[n++] = k;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		const char *st = jsonutil_str(v, names[i]);

		if (st && strcmp(st, "Not affected") == 0) {
			if (roff < sizeof rest)
				roff += (size_t)snprintf(rest + roff, sizeof rest - roff, "%s%s",
							 roff ? ", " : "", names[i]);
		} else if (off < sizeof buf) {
			off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s: %s", off ? "; " : "",
						names[i], st ? st : "n/a");
		}
	}
	if (roff && off < sizeof buf)
		snprintf(buf + off, sizeof buf - off, "%snot affected: %s", off ? "; " : "", rest);
	return report_view_line(buf);
}

static json_t *smt_text(json_t *v)
{
	const char *ctl = jsonutil_str(v, "control"), *sib = jsonutil_str(v, "cpu0_siblings");
	json_t *act = json_object_get(v, "active"), *tpc = json_object_get(v, "threads_per_core");
	char more[200] = "", per[64] = "";

	if (!json_is_object(v))
		return report_view_str("n/a");
	if (json_is_integer(tpc))
		snprintf(per, sizeof per, "; %lld thread%s per core (CPUID)",
			 (long long)json_integer_value(tpc), json_integer_value(tpc) == 1 ? "" : "s");
	snprintf(more, sizeof more, "%s%s%s", sib ? "; CPU 0's threads: " : "", sib ? sib : "", per);
	return report_view_strf("%s%s%s", ctl ? ctl : "control n/a",
				json_is_boolean(act) ? (json_is_true(act) ? ", siblings active"
									  : ", no sibling active")
						     : "", more);
}

/* "0x17 (23), 0x01 (1), 2: Zen / Zen+; AuthenticAMD, as CPUID shows it
   under the KVMKVMKVM hypervisor", or why CPUID gave nothing. */
static json_t *cpuid_text(json_t *cpu)
{
	const char *hv = jsonutil_str(cpu, "hypervisor"), *why = jsonutil_str(cpu, "why_not");
	double fam = jsonutil_num(cpu, "family"), mod = jsonutil_num(cpu, "model");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	json_t *out;

	if (!isfinite(fam) || !isfinite(mod))
		return report_view_strf("n/a (%s)", why ? why : "not recorded");
	if (!(f = open_memstream(&buf, &len)))
		return report_view_str("n/a");
	fprintf(f, "0x%02x (%.0f), 0x%02x (%.0f), %.0f: %s; %s", (unsigned)fam, fam, (unsigned)mod,
		mod, jsonutil_num(cpu, "stepping"),
		jsonutil_str(cpu, "microarchitecture") ? jsonutil_str(cpu, "microarchitecture") : "n/a",
		jsonutil_str(cpu, "vendor") ? jsonutil_str(cpu, "vendor") : "vendor n/a");
	if (hv)
		fprintf(f, ", as CPUID shows it under the %s hypervisor", hv);
	if (jsonutil_str(cpu, "source") && strcmp(jsonutil_str(cpu, "source"), "cpuid") != 0)
		fprintf(f, " (%s)", jsonutil_str(cpu, "source"));
	fclose(f);
	out = report_view_line(buf);
	free(buf);
	return out;
}

/* "2.47 GHz, 1.24 × the TSC (median of 9 windows, spread 1.5 %; the multiply
   chain: 2.48 GHz)", "... does not hold: why", or "n/a (why)". */
static json_t *core_clock_text(json_t *cc)
{
	double hz = jsonutil_num(cc, "hz"), r = jsonutil_num(cc, "tsc_ratio");
	double chk = jsonutil_num(json_object_get(cc, "check"), "hz");
	const char *why = jsonutil_str(cc, "why_not");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	json_t *out;

	if (!isfinite(hz))
		return report_view_strf("n/a (%s)", why ? why : "not measured");
	if (jsonutil_str(cc, "source") && !strcmp(jsonutil_str(cc, "source"), "given")) {
		double base = jsonutil_num(cc, "base_hz"), max = jsonutil_num(cc, "max_hz");
		char b[64] = "", x[64] = "";

		if (isfinite(base))
			snprintf(b, sizeof b, "; base %.3g GHz", base / 1e9);
		if (isfinite(max))
			snprintf(x, sizeof x, "; max %.3g GHz", max / 1e9);
		return report_view_strf("%.3g GHz (given, not measured%s%s)", hz / 1e9, b, x);
	}
	if (!(f = open_memstream(&buf, &len)))
		return report_view_str("n/a");
	fprintf(f, "%.3g GHz", hz / 1e9);
	if (isfinite(r))
		fprintf(f, ", %.3g \u00d7 the TSC", r);
	fprintf(f, " (median of %.0f windows, spread %.2g %%", jsonutil_num(cc, "repeats"),
		100 * jsonutil_num(cc, "spread"));
	if (isfinite(chk))
		fprintf(f, "; the multiply chain: %.3g GHz", chk / 1e9);
	fputs(")", f);
	if (!json_is_true(json_object_get(cc, "holds")))
		fprintf(f, "; does not hold: %s", why ? why : "n/a");
	fclose(f);
	out = report_view_line(buf);
	free(buf);
	return out;
}

/* "tsc (available: tsc, kvm-clock); TSC in use: why; kernel options:
   tsc=reliable". */
static json_t *clocksource_text(json_t *m)
{
	json_t *avail = json_object_get(m, "clocksources_available"), *tt = json_object_get(m, "tsc_trust");
	json_t *v, *out;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return report_view_str("n/a");
	report_view_any_text(f, json_object_get(m, "clocksource"));
	if (json_is_array(avail)) {
		fputs(" (available:", f);
		json_array_foreach(avail, i, v)
			fprintf(f, "%s %s", i ? "," : "", json_string_value(v) ? json_string_value(v) : "?");
		fputs(")", f);
	}
	if (jsonutil_str(tt, "verdict"))
		fprintf(f, "; TSC %s: %s", jsonutil_str(tt, "verdict"),
			jsonutil_str(tt, "why") ? jsonutil_str(tt, "why") : "n/a");
	if (json_array_size(json_object_get(tt, "cmdline"))) {
		fputs("; kernel options:", f);
		json_array_foreach(json_object_get(tt, "cmdline"), i, v)
			fprintf(f, " %s", json_string_value(v) ? json_string_value(v) : "?");
	}
	fclose(f);
	out = report_view_line(buf);
	free(buf);
	return out;
}

/* "on (/proc/cpuinfo flag pti; ...); PCID: CPU no, kernel no; INVPCID: ...". */
static json_t *pti_pcid_text(json_t *m)
{
	json_t *pti = json_object_get(m, "pti");
	const char *what[] = { "pcid", "invpcid" }, *name[] = { "PCID", "INVPCID" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *out;

	if (!f)
		return report_view_str("n/a");
	fprintf(f, "PTI %s", jsonutil_str(pti, "state") ? jsonutil_str(pti, "state") : "n/a");
	if (jsonutil_str(pti, "evidence"))
		fprintf(f, " (%s)", jsonutil_str(pti, "evidence"));
	for (int i = 0; i < 2; i++) {
		json_t *x = json_object_get(m, what[i]), *c = json_object_get(x, "cpuid");
		json_t *k = json_object_get(x, "kernel");

		fprintf(f, "; %s: CPU %s, kernel %s", name[i],
			json_is_boolean(c) ? (json_is_true(c) ? "yes" : "no") : "n/a",
			json_is_boolean(k) ? (json_is_true(k) ? "yes" : "no") : "n/a");
	}
	fclose(f);
	out = report_view_line(buf);
	free(buf);
	return out;
}

/* A fact of machine.sources' keys: its value as text (fmt over the
   number scaled by `scale`, or the text itself), else "n/a (why)". */
static void fact_text(FILE *f, json_t *m, const char *key, const char *fmt, double scale,
		      const char **prev_why)
{
	json_t *v = json_object_get(m, key);
	const char *why = jsonutil_str(json_object_get(json_object_get(m, "sources"), key), "why_not");

	if (json_is_string(v))
		fputs(json_string_value(v), f);
	else if (json_is_number(v))
		fprintf(f, fmt, json_number_value(v) / scale);
	else if (why && *prev_why && strstr(*prev_why, why))	/* said just before */
		fputs("n/a", f);
	else
		fprintf(f, "n/a (%s)", why ? why : "not recorded");
	*prev_why = json_is_null(v) || !v ? why : NULL;
}

/* A row of facts (docs/results-format.md "Facts"), labelled "(given)" when
   any of them was given; left out for runs recorded before they existed. */
static void facts_row(json_t *rows, json_t *m, const char *label, const char *const *keys,
		      const char *const *fmts, const double *scales, size_t n)
{
	char *buf = NULL, lab[200];
	size_t len = 0;
	int any_given = 0;
	const char *prev = NULL;
	FILE *f;

	if (!json_object_get(m, keys[0]) || !(f = open_memstream(&buf, &len)))
		return;
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "; " : "", f);
		fact_text(f, m, keys[i], fmts[i], scales[i], &prev);
		any_given |= given(m, keys[i]);
	}
	fclose(f);
	snprintf(lab, sizeof lab, "%s%s", label, any_given ? " (given)" : "");
	machine_row(rows, lab, report_view_line(buf));
	free(buf);
}

static void facts_rows(json_t *rows, json_t *m)
{
	static const char *const mem[] = {"memory_type", "memory_speed"};
	static const char *const mem_f[] = {"%s", "%.0f MT/s"};
	static const double mem_s[] = {1, 1};
	static const char *const bw[] = {"memory_bus_bandwidth"};
	static const char *const bw_f[] = {"%.3g GB/s"};
	static const double bw_s[] = {1e9};
	static const char *const disk[] = {"disk_seq_read", "disk_rand_read_iops"};
	static const char *const disk_f[] = {"sequential %.3g GB/s", "random 4 KiB %.0f IOPS"};
	static const double disk_s[] = {1e9, 1};
	static const char *const nic[] = {"nic_link_speed"};
	static const char *const nic_f[] = {"%.3g Gbit/s"};
	static const double nic_s[] = {1e9};

	facts_row(rows, m, "Memory type, speed", mem, mem_f, mem_s, 2);
	facts_row(rows, m, "Memory bus bandwidth", bw, bw_f, bw_s, 1);
	facts_row(rows, m, "Disk reads", disk, disk_f, disk_s, 2);
	facts_row(rows, m, "NIC link speed", nic, nic_f, nic_s, 1);
}

/* "Memory (given)" for a row whose fact was given. */
static const char *label_of(json_t *m, const char *key, const char *label, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", label, given(m, key) ? " (given)" : "");
	return buf;
}

json_t *report_run_machine(json_t *m, json_t *nfs)
{
	char lab[120];
	json_t *rows = json_array(), *v;
	double hz = jsonutil_num(m, "tsc_hz");

	machine_row(rows, label_of(m, "hostname", "Host", lab, sizeof lab),
		    report_view_any(json_object_get(m, "hostname")));
	machine_row(rows, label_of(m, "cpu_model", "CPU", lab, sizeof lab), cpu_text(m));
	if (json_object_get(m, "cpu"))	/* runs before these were recorded lack them */
		machine_row(rows, label_of(m, "cpu", "CPU family, model, stepping", lab, sizeof lab),
			    cpuid_text(json_object_get(m, "cpu")));
	if (isfinite(hz) && hz > 0) {
		char num[64], ghz[64];
		const char *src = jsonutil_str(m, "tsc_source");

		units_format_number(1e9 / hz, num, sizeof num);
		strf(ghz, sizeof ghz, "%.4g", hz / 1e9);
		machine_row(rows, "Cycle time", report_view_strf("%s ns (TSC at %s GHz, %s)", num, ghz,
							  src ? src : "source n/a"));
	} else {
		machine_row(rows, "Cycle time", report_view_str("n/a"));
	}
	if (json_object_get(m, "core_clock"))
		machine_row(rows, label_of(m, "core_clock", "Core clock", lab, sizeof lab),
			    core_clock_text(json_object_get(m, "core_clock")));
	machine_row(rows, label_of(m, "caches", "Caches", lab, sizeof lab),
		    caches_text(json_object_get(m, "caches"), json_object_get(m, "llc")));
	machine_row(rows, label_of(m, "memory_bytes", "Memory", lab, sizeof lab),
		    isfinite(jsonutil_num(m, "memory_bytes")) ?
		    report_view_size(jsonutil_num(m, "memory_bytes")) : report_view_str("n/a"));
	facts_rows(rows, m);
	machine_row(rows, label_of(m, "disk", "Disk", lab, sizeof lab),
		    report_view_any(json_object_get(m, "disk")));
	machine_row(rows, label_of(m, "nic", "NIC", lab, sizeof lab),
		    report_view_any(json_object_get(m, "nic")));
	machine_row(rows, label_of(m, "os", "OS", lab, sizeof lab),
		    report_view_any(json_object_get(m, "os")));
	label_of(m, "kernel", "Kernel", lab, sizeof lab);
	if (jsonutil_str(m, "kernel") && jsonutil_str(m, "arch"))
		machine_row(rows, lab, report_view_strf("%s (%s)", jsonutil_str(m, "kernel"),
						      jsonutil_str(m, "arch")));
	else
		machine_row(rows, lab, report_view_any(json_object_get(m, "kernel")));
	machine_row(rows, "Compiler", report_view_any(json_object_get(m, "compiler")));
	machine_row(rows, "CPU frequency governor", report_view_any(json_object_get(m, "governor")));
	machine_row(rows, "Turbo/boost", report_view_any(json_object_get(m, "boost")));
	v = json_object_get(m, "aslr");
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 2) {
		static const char *aslr[] = { "off (0)", "partial (1)", "full (2)" };

		machine_row(rows, "ASLR", report_view_str(aslr[json_integer_value(v)]));
	} else {
		machine_row(rows, "ASLR", report_view_any(v));
	}
	machine_row(rows, "Transparent huge pages", report_view_any(json_object_get(m, "thp")));
	machine_row(rows, "Virtualisation", report_view_any(json_object_get(m, "virtualization")));
	v = json_object_get(m, "load_avg");
	if (json_array_size(v) == 3)
		machine_row(rows, "Load average", report_view_strf("%.2f, %.2f, %.2f (1, 5, 15 min)",
							    json_number_value(json_array_get(v, 0)),
							    json_number_value(json_array_get(v, 1)),
							    json_number_value(json_array_get(v, 2))));
	else
		machine_row(rows, "Load average", report_view_any(v));
	machine_row(rows, "Privileged", report_view_any(json_object_get(m, "privileged")));
	if (json_object_get(m, "clocksource"))	/* runs before these were recorded lack them */
		machine_row(rows, "Clocksource", clocksource_text(m));
	if (json_object_get(m, "pti"))
		machine_row(rows, "PTI, PCID", pti_pcid_text(m));
	if (json_object_get(m, "smt"))
		machine_row(rows, "SMT", smt_text(json_object_get(m, "smt")));
	if (jsonutil_str(m, "cmdline")) {
		/* the options that change measurements; the whole line (a VM's can
		   carry a page of its init's arguments) stays in manifest.json */
		char opts[1024];
		size_t all, kept = report_env_cmdline_options(jsonutil_str(m, "cmdline"), opts,
							      sizeof opts, &all);

		machine_row(rows, "Kernel command line",
			    kept ? report_view_strf("%s (%zu of the kernel's %zu options: those that "
						    "change measurements; the whole line is in "
						    "manifest.json)", opts, kept, all)
				 : report_view_strf("none of the options that change measurements "
						    "(%zu options; the whole line is in "
						    "manifest.json)", all));
	}
	if (json_object_get(m, "vulnerabilities"))
		machine_row(rows, "CPU vulnerabilities",
			    vulns_text(json_object_get(m, "vulnerabilities")));
	if (json_is_object(nfs))	/* --nfs was given */
		machine_row(rows, "NFS server", nfs_text(nfs));
	return rows;
}

/* One fact of the peer table as text: a machine object's (m) or the
   peer's compact one (peer: core_clock_hz, no core_clock). */
static json_t *peer_fact(json_t *m, int i, int is_peer)
{
	json_t *cpu = json_object_get(m, "cpu");
	double hz = is_peer ? jsonutil_num(m, "core_clock_hz")
			    : jsonutil_num(json_object_get(m, "core_clock"), "hz");

	switch (i) {
	case 0: return report_view_any(json_object_get(m, "hostname"));
	case 1: return report_view_any(json_object_get(m, "cpu_model"));
	case 2:
		if (!isfinite(jsonutil_num(cpu, "family")))
			return report_view_str("n/a");
		return report_view_strf("%s family %.0f, model %.0f (%s)",
					jsonutil_str(cpu, "vendor") ? jsonutil_str(cpu, "vendor") : "?",
					jsonutil_num(cpu, "family"), jsonutil_num(cpu, "model"),
					jsonutil_str(cpu, "microarchitecture") ?
					jsonutil_str(cpu, "microarchitecture") : "n/a");
	case 3: return report_view_any(json_object_get(m, "cpus_online"));
	case 4: return isfinite(hz) && hz > 0 ? report_view_strf("%.3g GHz", hz / 1e9)
					      : report_view_str("n/a");
	case 5: return isfinite(jsonutil_num(m, "memory_bytes")) ?
		       report_view_size(jsonutil_num(m, "memory_bytes")) : report_view_str("n/a");
	default: return report_view_any(json_object_get(m, "kernel"));
	}
}

json_t *report_run_peer(json_t *man)
{
	static const char *const labels[] = {"Host", "CPU", "CPU family, model", "CPUs online",
					     "Core clock", "Memory", "Kernel"};
	static const char *const keys[] = {"hostname", "cpu_model", "cpu", "cpus_online",
					   "core_clock", "memory_bytes", "kernel"};
	json_t *peer = json_object_get(man, "peer"), *pm = json_object_get(peer, "machine");
	json_t *m = json_object_get(man, "machine"), *v = json_object(), *rows = json_array();
	const char *addr = jsonutil_str(peer, "address"), *why = jsonutil_str(peer, "why_not");

	if (!json_is_object(peer)) {
		json_decref(v);
		json_decref(rows);
		return json_null();
	}
	report_view_put(v, "address", report_view_line(addr ? addr : "n/a"));
	report_view_put(v, "why_not", json_is_object(pm) ? json_null() :
			report_view_line(why ? why : "the peer did not say"));
	for (size_t i = 0; json_is_object(pm) && i < sizeof labels / sizeof labels[0]; i++) {
		json_t *r = json_object();

		report_view_put(r, "label", report_view_str(labels[i]));
		json_t *local = peer_fact(m, (int)i, 0);

		if (given(m, keys[i]) && json_is_string(local)) {
			json_t *g = report_view_strf("%s (given)", json_string_value(local));

			json_decref(local);
			local = g;
		}
		report_view_put(r, "local", local);
		report_view_put(r, "peer", peer_fact(pm, (int)i, 1));
		jsonutil_append(rows, r);
	}
	report_view_put(v, "has_rows", json_boolean(json_array_size(rows) > 0));
	report_view_put(v, "rows", rows);
	return v;
}
