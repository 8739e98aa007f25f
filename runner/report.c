/*
 * report.c - render a saved run: charts, report.md, report.tex, report.pdf
 * (design §8-§9; report.h).
 *
 * The run's JSON is turned into one view model (documented for template
 * authors in docs/templates.md) in which every number is already a string
 * in a readable unit, so that templates only place text: the same view
 * fills report.md (Markdown escaping) and report.tex (LaTeX escaping).
 * gnuplot and latexmk/pdflatex are run with fork+execvp and argument
 * vectors, never through a shell, in the run folder, under a time limit,
 * with their output in report.log.
 */
#include "report.h"
#include "chart.h"
#include "template.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYSMETER_PREFIX
#define SYSMETER_PREFIX "/usr/local"
#endif

#define REPORT_GNUPLOT_TIMEOUT 60.0	/* s, per chart */
#define REPORT_LATEX_TIMEOUT 300.0	/* s, for the whole PDF */
#define REPORT_TEX_DIR ".report-tex"	/* latexmk's scratch folder in the run */
#define DASH "\xe2\x80\x93"		/* "–": a value that does not exist */

struct rctx {
	const char *run;		/* run folder, as given (for messages) */
	unsigned formats;
	int verbose;
	const char *dirs[3];		/* template search path */
	int user_templates;		/* dirs[0] is the user's */
	int log_fd;			/* report.log, opened when a tool first runs */
	double tsc_hz;			/* the manifest's, NAN when unknown */
	json_t *bases;			/* chart file stems already used */
	int have_gnuplot;
	char chart_msg[1024];		/* the first chart that could not be drawn */
	char *err;
	size_t errlen;
};

/* How a probe's values are shown: in `label` after multiplying by `scale`;
   for time units also as TSC ticks (cycles = probe value * cyc). */
struct dunit {
	char label[32];
	double scale;
	int is_time;
	double cyc;			/* ticks per probe unit, NAN when not a time */
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* snprintf for paths and messages whose truncation is harmless (the
   result is checked where it matters, by the open() that follows). */
static void strf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void strf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ json helpers */

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A view string: never NULL, so that a key is never silently missing. */
static json_t *vs(const char *s)
{
	json_t *v = json_string(s ? s : "");

	return v ? v : json_string("?");
}

static json_t *vsf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *vsf(const char *fmt, ...)
{
	char *s = NULL;
	json_t *v;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	v = vs(s ? s : "?");
	free(s);
	return v;
}

static void put(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

/* One line of text from a user string (table cells cannot hold newlines). */
static char *one_line(const char *s)
{
	char *out = strdup(s ? s : ""), *p;

	if (!out)
		return NULL;
	for (p = out; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return out;
}

static json_t *vline(const char *s)
{
	char *l = one_line(s);
	json_t *v = vs(l ? l : "?");

	free(l);
	return v;
}

/* ------------------------------------------------------- numbers and units */

static json_t *vnum(double v)
{
	char buf[64];

	if (!isfinite(v))
		return vs(DASH);
	chart_format_number(v, buf, sizeof buf);
	return vs(buf);
}

static json_t *vnum_unit(double v, const char *unit)
{
	char buf[64];

	if (!isfinite(v))
		return vs(DASH);
	chart_format_number(v, buf, sizeof buf);
	return vsf("%s %s", buf, unit);
}

static json_t *vci(double lo, double hi)
{
	char a[64], b[64];

	if (!isfinite(lo) || !isfinite(hi))
		return vs(DASH);
	chart_format_number(lo, a, sizeof a);
	chart_format_number(hi, b, sizeof b);
	return vsf("[%s, %s]", a, b);
}

/* Bytes for prose: "32 KiB", "1.5 GiB". */
static void size_text(double bytes, char *buf, size_t len)
{
	char compact[64];
	size_t i = 0;

	chart_format_size(bytes, compact, sizeof compact);
	while (compact[i] == '.' || compact[i] == '-' || (compact[i] >= '0' && compact[i] <= '9'))
		i++;
	if (i > 0 && compact[i])
		strf(buf, len, "%.*s %s", (int)i, compact, compact + i);
	else
		strf(buf, len, "%s", compact);
}

static json_t *vsize(double bytes)
{
	char buf[64];

	if (!isfinite(bytes))
		return vs(DASH);
	size_text(bytes, buf, sizeof buf);
	return vs(buf);
}

static double time_unit_ns(const char *u)
{
	if (!u)
		return NAN;
	if (strcmp(u, "ns") == 0)
		return 1;
	if (strcmp(u, "us") == 0 || strcmp(u, "\xc2\xb5s") == 0 || strcmp(u, "\xce\xbcs") == 0)
		return 1e3;
	if (strcmp(u, "ms") == 0)
		return 1e6;
	if (strcmp(u, "s") == 0)
		return 1e9;
	return NAN;
}

static double rate_unit_bps(const char *u)
{
	static const struct { const char *u; double f; } r[] = {
		{"B/s", 1}, {"bytes/s", 1}, {"KB/s", 1e3}, {"kB/s", 1e3},
		{"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12} };
	size_t i;

	for (i = 0; u && i < sizeof r / sizeof r[0]; i++)
		if (strcmp(u, r[i].u) == 0)
			return r[i].f;
	return NAN;
}

/* Choose the unit a table shows: the one that puts the typical value (ref,
   in probe units) between 1 and 1000. */
static void pick_unit(const char *probe_unit, double ref, double tsc_hz, struct dunit *d)
{
	double ns = time_unit_ns(probe_unit), bps = rate_unit_bps(probe_unit);

	memset(d, 0, sizeof *d);
	d->scale = 1;
	d->cyc = NAN;
	strf(d->label, sizeof d->label, "%s", probe_unit ? probe_unit : "");
	if (!isfinite(ref) || ref == 0)
		ref = 1;
	ref = fabs(ref);
	if (isfinite(ns)) {
		static const struct { double ns; const char *l; } t[] = {
			{1, "ns"}, {1e3, "\xc2\xb5s"}, {1e6, "ms"}, {1e9, "s"} };
		size_t i = 0;

		while (i < 3 && ref * ns >= t[i + 1].ns)
			i++;
		d->scale = ns / t[i].ns;
		strf(d->label, sizeof d->label, "%s", t[i].l);
		d->is_time = 1;
		if (isfinite(tsc_hz) && tsc_hz > 0)
			d->cyc = ns * tsc_hz / 1e9;
	} else if (isfinite(bps)) {
		static const struct { double f; const char *l; } t[] = {
			{1, "B/s"}, {1e3, "KB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"} };
		size_t i = 0;

		while (i < 4 && ref * bps >= t[i + 1].f)
			i++;
		d->scale = bps / t[i].f;
		strf(d->label, sizeof d->label, "%s", t[i].l);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median |estimate| over ok points: what the unit is chosen for. */
static double typical_value(json_t *points)
{
	size_t i, n = 0;
	double *v = calloc(json_array_size(points) + 1, sizeof *v), med = NAN;
	json_t *pt;

	if (!v)
		return NAN;
	json_array_foreach(points, i, pt) {
		double e = jnum(pt, "estimate");

		if (isfinite(e))
			v[n++] = fabs(e);
	}
	if (n) {
		qsort(v, n, sizeof *v, cmp_double);
		med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return med;
}

/* ------------------------------------------------------------ run loading */

/* Parse a JSON file; *missing tells a file that does not exist from a
   broken one. */
static json_t *load_json(const char *path, char *msg, size_t msglen, int *missing)
{
	json_error_t jerr;
	json_t *j;
	FILE *f = fopen(path, "r");

	*missing = 0;
	if (!f) {
		*missing = errno == ENOENT;
		strf(msg, msglen, "%s", strerror(errno));
		return NULL;
	}
	j = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!j)
		strf(msg, msglen, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
	return j;
}

/* "2026-11-22T05:15:00Z" -> "2026-11-22 05:15:00 UTC"; other text as is. */
static json_t *vdate(const char *iso)
{
	char buf[64];

	if (!iso)
		return vs("n/a");
	if (strlen(iso) >= 19 && iso[10] == 'T') {
		strf(buf, sizeof buf, "%.10s %.8s UTC", iso, iso + 11);
		return vs(buf);
	}
	return vs(iso);
}

static int parse_utc(const char *iso, time_t *t)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	if (!iso || !strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm))
		return -1;
	*t = timegm(&tm);
	return 0;
}

static json_t *vduration(const char *from, const char *to)
{
	time_t a, b;
	long s;

	if (parse_utc(from, &a) < 0 || parse_utc(to, &b) < 0 || b < a)
		return vs("n/a");
	s = (long)(b - a);
	if (s >= 3600)
		return vsf("%ld h %ld min %ld s", s / 3600, s / 60 % 60, s % 60);
	if (s >= 60)
		return vsf("%ld min %ld s", s / 60, s % 60);
	return vsf("%ld s", s);
}

/* Any machine value as text: null -> "n/a", bool -> yes/no, arrays and
   objects (disk, nic may be either) joined. */
static void machine_text(FILE *f, json_t *v)
{
	size_t i;
	const char *k;
	json_t *e;

	if (!v || json_is_null(v))
		fputs("n/a", f);
	else if (json_is_string(v))
		fputs(json_string_length(v) ? json_string_value(v) : "n/a", f);
	else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "yes" : "no", f);
	else if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%.4g", json_real_value(v));
	else if (json_is_array(v)) {
		json_array_foreach(v, i, e) {
			if (i)
				fputs("; ", f);
			machine_text(f, e);
		}
		if (json_array_size(v) == 0)
			fputs("n/a", f);
	} else if (json_is_object(v)) {
		i = 0;
		json_object_foreach(v, k, e) {
			if (json_is_null(e))
				continue;
			fprintf(f, "%s%s: ", i++ ? ", " : "", k);
			machine_text(f, e);
		}
		if (i == 0)
			fputs("n/a", f);
	}
}

static json_t *vmachine(json_t *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *out;

	if (!f)
		return vs("?");
	machine_text(f, v);
	fclose(f);
	out = vline(buf);
	free(buf);
	return out;
}

static void machine_row(json_t *rows, const char *label, json_t *value)
{
	json_t *r = json_object();

	put(r, "label", vs(label));
	put(r, "value", value);
	json_array_append_new(rows, r);
}

static json_t *machine_rows(json_t *m)
{
	json_t *rows = json_array(), *caches = json_object_get(m, "caches"), *c, *v;
	double hz = jnum(m, "tsc_hz");
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	machine_row(rows, "Host", vmachine(json_object_get(m, "hostname")));
	v = json_object_get(m, "cpus_online");
	if (json_is_integer(v)) {
		char *model = NULL;
		size_t ml = 0;
		FILE *mf = open_memstream(&model, &ml);

		machine_text(mf, json_object_get(m, "cpu_model"));
		fprintf(mf, " (%lld CPUs online", (long long)json_integer_value(v));
		if (json_is_integer(json_object_get(m, "cpus_configured")))
			fprintf(mf, " of %lld", (long long)json_integer_value(json_object_get(m, "cpus_configured")));
		fputs(")", mf);
		fclose(mf);
		machine_row(rows, "CPU", vline(model));
		free(model);
	} else {
		machine_row(rows, "CPU", vmachine(json_object_get(m, "cpu_model")));
	}
	if (isfinite(hz) && hz > 0) {
		char num[64], ghz[64];

		chart_format_number(1e9 / hz, num, sizeof num);
		strf(ghz, sizeof ghz, "%.4g", hz / 1e9);
		machine_row(rows, "Cycle time", vsf("%s ns (TSC at %s GHz, %s)", num, ghz,
						     jstr(m, "tsc_source") ? jstr(m, "tsc_source") : "source n/a"));
	} else {
		machine_row(rows, "Cycle time", vs("n/a"));
	}
	f = open_memstream(&buf, &len);
	json_array_foreach(caches, i, c) {
		char sz[64];
		const char *type = jstr(c, "type");
		double lvl = jnum(c, "level");

		size_text(jnum(c, "size_bytes"), sz, sizeof sz);
		fprintf(f, "%sL%.0f%s %s", i ? ", " : "", lvl,
			!type ? "" : strcmp(type, "Data") == 0 ? "d" :
			strcmp(type, "Instruction") == 0 ? "i" : "", sz);
		if (json_is_integer(json_object_get(c, "ways")))
			fprintf(f, " %lld-way", (long long)json_integer_value(json_object_get(c, "ways")));
	}
	c = json_array_get(caches, 0);
	if (c && isfinite(jnum(c, "line_bytes")))
		fprintf(f, "; %.0f-byte lines", jnum(c, "line_bytes"));
	if (json_array_size(caches) == 0)
		fputs("n/a", f);
	fclose(f);
	machine_row(rows, "Caches", vline(buf));
	free(buf);
	machine_row(rows, "Memory", isfinite(jnum(m, "memory_bytes")) ?
		    vsize(jnum(m, "memory_bytes")) : vs("n/a"));
	machine_row(rows, "Disk", vmachine(json_object_get(m, "disk")));
	machine_row(rows, "NIC", vmachine(json_object_get(m, "nic")));
	machine_row(rows, "OS", vmachine(json_object_get(m, "os")));
	if (jstr(m, "kernel") && jstr(m, "arch"))
		machine_row(rows, "Kernel", vsf("%s (%s)", jstr(m, "kernel"), jstr(m, "arch")));
	else
		machine_row(rows, "Kernel", vmachine(json_object_get(m, "kernel")));
	machine_row(rows, "Compiler", vmachine(json_object_get(m, "compiler")));
	machine_row(rows, "CPU frequency governor", vmachine(json_object_get(m, "governor")));
	machine_row(rows, "Turbo/boost", vmachine(json_object_get(m, "boost")));
	v = json_object_get(m, "aslr");
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 2) {
		static const char *aslr[] = { "off (0)", "partial (1)", "full (2)" };

		machine_row(rows, "ASLR", vs(aslr[json_integer_value(v)]));
	} else {
		machine_row(rows, "ASLR", vmachine(v));
	}
	machine_row(rows, "Transparent huge pages", vmachine(json_object_get(m, "thp")));
	machine_row(rows, "Virtualisation", vmachine(json_object_get(m, "virtualization")));
	v = json_object_get(m, "load_avg");
	if (json_array_size(v) == 3)
		machine_row(rows, "Load average", vsf("%.2f, %.2f, %.2f (1, 5, 15 min)",
						      json_number_value(json_array_get(v, 0)),
						      json_number_value(json_array_get(v, 1)),
						      json_number_value(json_array_get(v, 2))));
	else
		machine_row(rows, "Load average", vmachine(v));
	machine_row(rows, "Privileged", vmachine(json_object_get(m, "privileged")));
	return rows;
}

/* ------------------------------------------------------- experiment views */

static const char *group_title(const char *g)
{
	static const struct { const char *g, *t; } known[] = {
		{"cpu", "CPU and OS services"}, {"memory", "Memory"},
		{"network", "Network"}, {"filesystem", "File system"} };
	size_t i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(g, known[i].g) == 0)
			return known[i].t;
	return NULL;
}

/* A name safe for a file name, a LaTeX label and a gnuplot string. */
static void safe_name(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < len; i++) {
		char c = s[i];

		out[i] = (c == '_' || c == '-' || (c >= 'a' && c <= 'z') ||
			  (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) ? c : '_';
	}
	out[i] = '\0';
	if (i == 0)
		strf(out, len, "experiment");
}

/* Swept parameters (more than one value in the resolved spec), in order. */
static json_t *swept_names(json_t *spec)
{
	json_t *params = json_object_get(spec, "params"), *vals, *out = json_array();
	const char *key;

	json_object_foreach(params, key, vals)
		if (json_array_size(vals) > 1)
			json_array_append_new(out, json_string(key));
	return out;
}

/* "size=16KiB, stride=64": a point by its swept values ("" when none). */
static char *point_label(json_t *pt, json_t *swept, const char *sep)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	json_t *n;

	if (!f)
		return NULL;
	json_array_foreach(swept, i, n) {
		const char *t = jstr(json_object_get(pt, "params_text"), json_string_value(n));

		fprintf(f, "%s%s=%s", i ? sep : "", json_string_value(n), t ? t : "?");
	}
	fclose(f);
	return buf;
}

static json_t *vparams(json_t *spec)
{
	json_t *params = json_object_get(spec, "params"), *vals, *out = json_array(), *v;
	const char *key;
	size_t i, n;

	json_object_foreach(params, key, vals) {
		json_t *p = json_object();
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		n = json_array_size(vals);
		json_array_foreach(vals, i, v) {
			/* long sweeps: the first three, "…", the last */
			if (n > 6 && i >= 3 && i < n - 1) {
				if (i == 3)
					fputs(", \xe2\x80\xa6", f);
				continue;
			}
			fprintf(f, "%s%s", i ? ", " : "", json_is_string(v) ? json_string_value(v) : "?");
		}
		if (!json_is_array(vals))
			machine_text(f, vals);
		fclose(f);
		put(p, "name", vs(key));
		put(p, "value", vline(buf));
		put(p, "swept", json_boolean(n > 1));
		put(p, "count", vsf("%zu", n));
		free(buf);
		json_array_append_new(out, p);
	}
	return out;
}

static json_t *vmethod(json_t *spec)
{
	json_t *reps = json_object_get(spec, "repetitions"), *out, *v;
	json_t *o = json_object_get(spec, "outliers"), *e = json_object_get(spec, "estimate");
	const char *rule = jstr(o, "rule"), *est = jstr(e, "name");
	double mst = jnum(spec, "min_sample_time_s");
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (json_is_true(json_object_get(reps, "adaptive"))) {
		fprintf(f, "%.0f to %.0f samples (adaptive", jnum(reps, "min"), jnum(reps, "max"));
		if (isfinite(jnum(reps, "target_ci")))
			fprintf(f, ", until the CI is within %.3g %%", 100 * jnum(reps, "target_ci"));
		if (isfinite(jnum(reps, "max_time_s")))
			fprintf(f, ", at most %.3g s", jnum(reps, "max_time_s"));
		fputs(")", f);
	} else if (isfinite(jnum(reps, "min"))) {
		fprintf(f, "%.0f samples", jnum(reps, "min"));
	} else {
		fputs("samples", f);
	}
	if (isfinite(jnum(spec, "warmup")))
		fprintf(f, " after %.0f warm-up sample%s", jnum(spec, "warmup"),
			jnum(spec, "warmup") == 1 ? "" : "s");
	v = json_object_get(spec, "iterations");
	if (json_is_number(v))
		fprintf(f, "; %.0f operations per sample", json_number_value(v));
	else if (isfinite(mst))
		fprintf(f, "; each sample times enough operations to last %.3g ms", mst * 1e3);
	fprintf(f, "; estimator: %s", !est ? "n/a" : strcmp(est, "trimmed_mean") == 0 ?
		"trimmed mean" : est);
	if (est && strcmp(est, "trimmed_mean") == 0 && isfinite(jnum(e, "p")))
		fprintf(f, " (%.3g %% cut from each end)", 100 * jnum(e, "p"));
	if (!rule || strcmp(rule, "none") == 0)
		fputs("; no outlier rule", f);
	else if (strcmp(rule, "trim") == 0)
		fprintf(f, "; outliers: lowest %.3g %% and highest %.3g %% trimmed",
			100 * jnum(o, "lo"), 100 * jnum(o, "hi"));
	else
		fprintf(f, "; outliers: %s, k = %.3g", strcmp(rule, "median_ratio") == 0 ?
			"median ratio" : rule, jnum(o, "k"));
	v = json_object_get(spec, "subtract");
	if (json_array_size(v)) {
		json_t *s;

		fputs("; subtracted per operation: ", f);
		json_array_foreach(v, i, s)
			fprintf(f, "%s%s", i ? ", " : "", json_is_string(s) ? json_string_value(s) : "?");
		/* the table's mean, median and std are of the raw samples */
		fputs(" (from the measured value; mean, median and std are before it)", f);
	}
	if (isfinite(jnum(spec, "cpu")))
		fprintf(f, "; pinned to CPU %.0f", jnum(spec, "cpu"));
	fclose(f);
	out = vline(buf);
	free(buf);
	return out;
}

/* One table row's numbers (the time row, or the cycles row with f = ticks
   per probe unit). */
static json_t *vrow(json_t *pt, double f, const char *unit)
{
	json_t *r = json_object(), *st = json_object_get(pt, "stats");
	json_t *ci = json_object_get(pt, "ci"), *pred = json_object_get(pt, "prediction");

	put(r, "unit", vs(unit));
	put(r, "predicted", vnum(jnum(pred, "value") * f));
	put(r, "estimate", vnum(jnum(pt, "estimate") * f));
	put(r, "mean", vnum(jnum(st, "mean") * f));
	put(r, "median", vnum(jnum(st, "median") * f));
	put(r, "std", vnum(jnum(st, "std") * f));
	if (json_array_size(ci) == 2 && json_is_number(json_array_get(ci, 0)) &&
	    json_is_number(json_array_get(ci, 1)))
		put(r, "ci", vci(json_number_value(json_array_get(ci, 0)) * f,
				 json_number_value(json_array_get(ci, 1)) * f));
	else
		put(r, "ci", vs(DASH));
	return r;
}

/* A row's first cells: the point's swept values, as text. */
static json_t *swept_cells(json_t *pt, json_t *swept)
{
	json_t *cells = json_array(), *n;
	size_t i;

	json_array_foreach(swept, i, n) {
		json_t *c = json_object();
		const char *t = jstr(json_object_get(pt, "params_text"), json_string_value(n));

		put(c, "value", vline(t ? t : "?"));
		json_array_append_new(cells, c);
	}
	return cells;
}

static json_t *vpoint(json_t *pt, json_t *swept, const struct dunit *d)
{
	json_t *p;
	const char *status = jstr(pt, "status");
	int ok = status && strcmp(status, "ok") == 0;
	char *label = point_label(pt, swept, ", ");

	if (ok && isfinite(jnum(pt, "estimate")))
		p = vrow(pt, d->scale, d->label);
	else {
		p = json_object();
		put(p, "unit", vs(d->label));
		put(p, "predicted", vnum(jnum(json_object_get(pt, "prediction"), "value") * d->scale));
		put(p, "estimate", vs(ok || !status ? "n/a" : status));
		put(p, "mean", vs(DASH));
		put(p, "median", vs(DASH));
		put(p, "std", vs(DASH));
		put(p, "ci", vs(DASH));
	}
	put(p, "swept", swept_cells(pt, swept));
	put(p, "label", vline(label ? label : ""));
	put(p, "status", vs(status ? status : "unknown"));
	put(p, "ok", json_boolean(ok));
	put(p, "reason", jstr(pt, "reason") ? vline(jstr(pt, "reason")) : json_null());
	put(p, "n", json_is_integer(json_object_get(pt, "n")) ?
	    vsf("%lld", (long long)json_integer_value(json_object_get(pt, "n"))) : vs(DASH));
	put(p, "outliers", json_is_integer(json_object_get(pt, "n_outliers")) ?
	    vsf("%lld", (long long)json_integer_value(json_object_get(pt, "n_outliers"))) : vs(DASH));
	/* the cycles row: time x TSC frequency (the result's `cycles` are the
	   same numbers for the estimate only; mean, std... need computing) */
	if (ok && d->is_time && isfinite(d->cyc) && isfinite(jnum(pt, "estimate")))
		put(p, "cycles", vrow(pt, d->cyc, "cycles"));
	else
		put(p, "cycles", json_null());
	free(label);
	return p;
}

/* The knees finding: per series, the levels found beside sysfs's sizes. */
/* "L1 32 KiB, L2 1 MiB, L3 32 MiB": the data/unified caches sysfs lists. */
static json_t *vsysfs_all(json_t *sysfs)
{
	char *buf = NULL, sz[64];
	size_t len = 0, i, n = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *sf, *out;

	json_array_foreach(sysfs, i, sf) {
		if (jstr(sf, "type") && strcmp(jstr(sf, "type"), "Instruction") == 0)
			continue;
		size_text(jnum(sf, "size_bytes"), sz, sizeof sz);
		fprintf(f, "%sL%.0f %s", n++ ? ", " : "", jnum(sf, "level"), sz);
	}
	fclose(f);
	out = vline(n ? buf : DASH);
	free(buf);
	return out;
}

/* The knees finding: per series, the levels found beside the size sysfs
   gives for the same level; a series where no knee was found says so. */
static json_t *vknees(json_t *knees, json_t *spec, const struct dunit *d)
{
	json_t *out = json_array(), *series = json_object_get(knees, "series"), *s;
	const char *key, *sparam = jstr(json_object_get(spec, "chart"), "series");
	json_t *swept = swept_names(spec);
	size_t i;

	/* what the series values are values of */
	if (!sparam) {
		json_t *n;

		json_array_foreach(swept, i, n)
			if (!jstr(knees, "param") || strcmp(json_string_value(n), jstr(knees, "param")) != 0) {
				sparam = json_string_value(n);
				break;
			}
	}
	json_object_foreach(series, key, s) {
		json_t *k = json_object(), *rows = json_array(), *lvl, *sysfs = json_object_get(s, "sysfs");

		/* keys are "64" or already "stride=64" */
		put(k, "series", sparam && !strchr(key, '=') ? vsf("%s=%s", sparam, key) : vline(key));
		json_array_foreach(json_object_get(s, "levels"), i, lvl) {
			json_t *r = json_object(), *sf;
			const char *name = jstr(lvl, "name");
			double lat = jnum(lvl, "latency");
			size_t j;
			int level = 0;

			put(r, "found", json_true());
			put(r, "level", vline(name ? name : "?"));
			put(r, "size", vsize(jnum(lvl, "size_bytes")));
			put(r, "latency", vnum_unit(lat * d->scale, d->label));
			put(r, "cycles", isfinite(d->cyc) ? vnum(lat * d->cyc) : vs(DASH));
			put(r, "sysfs", vs(DASH));
			if (name && (name[0] == 'L' || name[0] == 'l'))
				level = atoi(name + 1);
			json_array_foreach(sysfs, j, sf) {
				const char *type = jstr(sf, "type");

				if (level > 0 && jnum(sf, "level") == level &&
				    (!type || strcmp(type, "Instruction") != 0)) {
					put(r, "sysfs", vsize(jnum(sf, "size_bytes")));
					break;
				}
			}
			json_array_append_new(rows, r);
		}
		if (json_array_size(rows) == 0) {
			json_t *r = json_object();

			put(r, "found", json_false());
			put(r, "level", vs("no knee found"));
			put(r, "size", vs(DASH));
			put(r, "latency", vs(DASH));
			put(r, "cycles", vs(DASH));
			put(r, "sysfs", vsysfs_all(sysfs));
			json_array_append_new(rows, r);
		}
		put(k, "rows", rows);
		json_array_append_new(out, k);
	}
	json_decref(swept);
	return out;
}

static int point_has_value(json_t *pt)
{
	return jstr(pt, "status") && strcmp(jstr(pt, "status"), "ok") == 0 &&
	       isfinite(jnum(pt, "estimate"));
}

static void summary_row(json_t *summary, const char *operation, const char *anchor,
			json_t *predicted, json_t *measured, json_t *cycles)
{
	json_t *r = json_object();

	put(r, "operation", vline(operation));
	put(r, "anchor", vs(anchor));
	put(r, "predicted", predicted);
	put(r, "measured", measured);
	put(r, "cycles", cycles);
	json_array_append_new(summary, r);
}

/* The closing "Summary" rows of one experiment: points with a prediction,
   the levels found as knees, or else its points (a range when there are
   many); a skipped or failed experiment gets one row saying so. */
static void summarise(json_t *summary, json_t *e, json_t *res, json_t *swept, const struct dunit *d)
{
	json_t *points = json_object_get(res, "points"), *pt;
	const char *title = jstr(e, "title"), *anchor = jstr(e, "anchor");
	size_t i, n_ok = 0, rows = 0;
	double lo = INFINITY, hi = -INFINITY;

	json_array_foreach(points, i, pt)
		if (point_has_value(pt))
			n_ok++;
	if (n_ok == 0) {
		summary_row(summary, title, anchor, vs(DASH), vsf("%s", jstr(e, "status")), vs(DASH));
		return;
	}
	json_array_foreach(points, i, pt) {
		json_t *pred = json_object_get(pt, "prediction");
		double est = jnum(pt, "estimate"), pv = jnum(pred, "value");
		int want = isfinite(pv) || (n_ok <= 6 && !json_object_get(json_object_get(res, "findings"), "knees"));
		char *label, *op;

		if (!point_has_value(pt))
			continue;
		if (est < lo)
			lo = est;
		if (est > hi)
			hi = est;
		if (!want)
			continue;
		label = point_label(pt, swept, ", ");
		if (label && label[0]) {
			if (asprintf(&op, "%s (%s)", title, label) < 0)
				op = NULL;
		} else {
			op = strdup(title);
		}
		summary_row(summary, op ? op : title, anchor,
			    isfinite(pv) ? vnum_unit(pv * d->scale, d->label) : vs(DASH),
			    vnum_unit(est * d->scale, d->label),
			    isfinite(d->cyc) ? vnum(est * d->cyc) : vs(DASH));
		free(op);
		free(label);
		rows++;
	}
	if (json_object_get(json_object_get(res, "findings"), "knees")) {
		json_t *kv = json_object_get(e, "knees"), *k, *r;
		size_t j;

		json_array_foreach(kv, i, k)
			json_array_foreach(json_object_get(k, "rows"), j, r) {
				char *op = NULL;

				if (!json_is_true(json_object_get(r, "found")))
					continue;
				if (asprintf(&op, "%s: %s (%s)", title, jstr(r, "level"), jstr(k, "series")) < 0)
					op = NULL;
				summary_row(summary, op ? op : title, anchor, vs(DASH),
					    json_incref(json_object_get(r, "latency")),
					    json_incref(json_object_get(r, "cycles")));
				free(op);
				rows++;
			}
	}
	if (rows == 0) {
		/* a long sweep without predictions or findings: its range */
		char a[64], b[64], ca[64], cb[64];

		chart_format_number(lo * d->scale, a, sizeof a);
		chart_format_number(hi * d->scale, b, sizeof b);
		chart_format_number(lo * d->cyc, ca, sizeof ca);
		chart_format_number(hi * d->cyc, cb, sizeof cb);
		summary_row(summary, title, anchor, vs(DASH), vsf("%s" DASH "%s %s", a, b, d->label),
			    isfinite(d->cyc) ? vsf("%s" DASH "%s", ca, cb) : vs(DASH));
	}
}

static const char *status_text(const char *st)
{
	if (!st)
		return "unknown";
	if (strcmp(st, "ok") == 0)
		return "all points measured";
	if (strcmp(st, "partial") == 0)
		return "some points did not complete";
	if (strcmp(st, "failed") == 0)
		return "failed: no point could be measured";
	if (strcmp(st, "skipped") == 0)
		return "skipped: cannot be measured here";
	if (strcmp(st, "interrupted") == 0)
		return "interrupted: the run was stopped";
	return st;
}

/* ----------------------------------------------------------- running tools */

static int find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, full[PATH_MAX];
	int found = 0;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	copy = strdup(path);
	if (!copy)
		return 0;
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		struct stat st;

		strf(full, sizeof full, "%s/%s", *dir ? dir : ".", prog);
		found = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

static int open_log(struct rctx *rc)
{
	char path[PATH_MAX];

	if (rc->log_fd >= 0)
		return 0;
	strf(path, sizeof path, "%s/report.log", rc->run);
	rc->log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return rc->log_fd < 0 ? -1 : 0;
}

/*
 * Run argv in the run folder with its output appended to report.log, for
 * at most timeout_s.  The child leads its own process group so that a
 * timeout kills what it started too (latexmk runs pdflatex).  Returns 0
 * when it exited 0, else -1 with why in msg.
 */
static int run_tool(struct rctx *rc, char *const argv[], double timeout_s, char *msg, size_t msglen)
{
	struct timespec t0, now, nap = { 0, 10 * 1000 * 1000 };
	int status, i;
	pid_t pid, w;

	if (open_log(rc) < 0) {
		strf(msg, msglen, "cannot write %s/report.log: %s", rc->run, strerror(errno));
		return -1;
	}
	{
		char *line = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&line, &len);

		fputs("$", f);
		for (i = 0; argv[i]; i++)
			fprintf(f, " %s", argv[i]);
		fputs("\n", f);
		fclose(f);
		if (write(rc->log_fd, line, strlen(line)) < 0)
			msg[0] = '\0';	/* the log is best effort */
		free(line);
	}
	if (rc->verbose) {
		fprintf(stderr, "runner: report: running");
		for (i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		strf(msg, msglen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (null >= 0)
			dup2(null, 0);
		dup2(rc->log_fd, 1);
		dup2(rc->log_fd, 2);
		if (chdir(rc->run) == 0)
			execvp(argv[0], argv);
		dprintf(2, "runner: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			strf(msg, msglen, "waitpid: %s", strerror(errno));
			return -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 > timeout_s) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			strf(msg, msglen, "%s timed out after %.0f s", argv[0], timeout_s);
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	/* a finished tool may leave children behind (it should not): end them */
	kill(-pid, SIGKILL);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		strf(msg, msglen, "%s exited with status %d", argv[0], WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		strf(msg, msglen, "%s killed by signal %d (%s)", argv[0], WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		strf(msg, msglen, "%s failed", argv[0]);
	return -1;
}

static int file_nonempty(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* Draw one chart with gnuplot into temporary names, then rename them. */
static int draw_chart(struct rctx *rc, const char *base, int png, int pdf, int *has_png,
		      int *has_pdf, char *msg, size_t msglen)
{
	char script[PATH_MAX], vars[2 * PATH_MAX], tmp[2][PATH_MAX], dst[2][PATH_MAX];
	char *argv[] = { "gnuplot", "-e", vars, script, NULL };
	int k;

	strf(script, sizeof script, "charts/%s.gp", base);
	vars[0] = '\0';
	/* base is a safe name (safe_name): no quote can occur in it */
	if (png)
		strf(vars, sizeof vars, "png_out='charts/.%s.png.tmp'; ", base);
	if (pdf)
		strf(vars + strlen(vars), sizeof vars - strlen(vars),
			 "pdf_out='charts/.%s.pdf.tmp'", base);
	for (k = 0; k < 2; k++) {
		strf(tmp[k], sizeof tmp[k], "%s/charts/.%s.%s.tmp", rc->run, base, k ? "pdf" : "png");
		strf(dst[k], sizeof dst[k], "%s/charts/%s.%s", rc->run, base, k ? "pdf" : "png");
		unlink(tmp[k]);
	}
	if (run_tool(rc, argv, REPORT_GNUPLOT_TIMEOUT, msg, msglen) < 0) {
		unlink(tmp[0]);
		unlink(tmp[1]);
		return -1;
	}
	for (k = 0; k < 2; k++) {
		if (!(k ? pdf : png))
			continue;
		if (!file_nonempty(tmp[k])) {
			strf(msg, msglen, "gnuplot drew no charts/%s.%s (does chart.gp set output %s?)",
				 base, k ? "pdf" : "png", k ? "pdf_out" : "png_out");
			unlink(tmp[k]);
			return -1;
		}
		if (rename(tmp[k], dst[k]) < 0) {
			strf(msg, msglen, "cannot rename %s: %s", tmp[k], strerror(errno));
			return -1;
		}
		*(k ? has_pdf : has_png) = 1;
	}
	return 0;
}

static void remove_tree_flat(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		strf(path, sizeof path, "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* The first error pdflatex reported, from its log ("report.tex:12: ..."). */
static void latex_error(const char *logpath, char *out, size_t len)
{
	FILE *f = fopen(logpath, "r");
	char line[1024];

	strf(out, len, "see the log");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, "report.tex:");

		line[strcspn(line, "\n")] = '\0';
		if ((p && p[11] >= '0' && p[11] <= '9') || line[0] == '!') {
			size_t n;

			strf(out, len, "%s", p ? p : line + 2);
			n = strlen(out);
			if (n && out[n - 1] == '.')	/* our messages end without one */
				out[n - 1] = '\0';
			break;
		}
	}
	fclose(f);
}

/* report.tex -> report.pdf with latexmk (else pdflatex, run until the
   cross references settle), in a scratch folder, then renamed. */
static int build_pdf(struct rctx *rc, int use_latexmk, char *msg, size_t msglen)
{
	char outdir[PATH_MAX], pdf[PATH_MAX], dst[PATH_MAX], logpath[PATH_MAX], why[512];
	char *latexmk[] = { "latexmk", "-norc", "-pdf", "-interaction=nonstopmode", "-halt-on-error",
			    "-file-line-error", "-no-shell-escape", "-outdir=" REPORT_TEX_DIR,
			    "report.tex", NULL };
	char *pdflatex[] = { "pdflatex", "-interaction=nonstopmode", "-halt-on-error",
			     "-file-line-error", "-no-shell-escape",
			     "-output-directory=" REPORT_TEX_DIR, "report.tex", NULL };
	int rc_tool = 0, pass;

	strf(outdir, sizeof outdir, "%s/" REPORT_TEX_DIR, rc->run);
	strf(pdf, sizeof pdf, "%s/report.pdf", outdir);
	strf(dst, sizeof dst, "%s/report.pdf", rc->run);
	strf(logpath, sizeof logpath, "%s/report.log", outdir);
	if (mkdir(outdir, 0755) < 0 && errno != EEXIST) {
		strf(msg, msglen, "cannot create %s: %s", outdir, strerror(errno));
		return -1;
	}
	unlink(pdf);
	if (use_latexmk) {
		rc_tool = run_tool(rc, latexmk, REPORT_LATEX_TIMEOUT, msg, msglen);
	} else {
		for (pass = 0; pass < 4 && rc_tool == 0; pass++) {
			FILE *f;
			char line[1024];
			int again = 0;

			rc_tool = run_tool(rc, pdflatex, REPORT_LATEX_TIMEOUT / 4, msg, msglen);
			f = rc_tool == 0 ? fopen(logpath, "r") : NULL;
			while (f && fgets(line, sizeof line, f))
				/* not just "Rerun": the rerunfilecheck banner has it */
				if (strstr(line, "Rerun to get") || strstr(line, "Rerun LaTeX") ||
				    strstr(line, "Label(s) may have changed"))
					again = 1;
			if (f)
				fclose(f);
			if (!again)
				break;
		}
	}
	if (rc_tool < 0) {
		latex_error(logpath, why, sizeof why);
		strf(msg + strlen(msg), msglen - strlen(msg), ": %s (see %s/report.log)", why, rc->run);
		return -1;
	}
	if (!file_nonempty(pdf)) {
		strf(msg, msglen, "%s wrote no report.pdf (see %s/report.log)",
			 use_latexmk ? "latexmk" : "pdflatex", rc->run);
		return -1;
	}
	if (rename(pdf, dst) < 0) {
		strf(msg, msglen, "cannot rename %s: %s", pdf, strerror(errno));
		return -1;
	}
	remove_tree_flat(outdir);
	return 0;
}

/* ------------------------------------------------------------ the view */

/* The table rows, problems, predictions and sanity flags of one
   experiment; returns how many points have a value. */
static int add_points(json_t *e, json_t *points, json_t *swept, const struct dunit *d)
{
	json_t *pts = json_array(), *problems = json_array(), *preds = json_array();
	json_t *sanity = json_array(), *pt;
	size_t i;
	int n_ok = 0;

	json_array_foreach(points, i, pt) {
		json_t *p = vpoint(pt, swept, d), *pred = json_object_get(pt, "prediction");
		json_t *label = json_object_get(p, "label"), *flag;
		size_t j;

		if (json_is_true(json_object_get(p, "ok"))) {
			n_ok++;
		} else {
			json_t *pr = json_object();

			put(pr, "point", json_incref(label));
			put(pr, "status", vs(jstr(pt, "status") ? jstr(pt, "status") : "unknown"));
			put(pr, "reason", vline(jstr(pt, "reason") ? jstr(pt, "reason") : "no reason recorded"));
			json_array_append_new(problems, pr);
		}
		if (json_is_object(pred) && isfinite(jnum(pred, "value"))) {
			json_t *r = json_object();

			put(r, "point", json_incref(label));
			put(r, "value", vnum_unit(jnum(pred, "value") * d->scale, d->label));
			put(r, "cycles", isfinite(d->cyc) ? vnum(jnum(pred, "value") * d->cyc) : json_null());
			put(r, "why", vline(jstr(pred, "why") ? jstr(pred, "why") : "no reason given"));
			put(r, "ratio", vnum(jnum(pred, "ratio")));
			json_array_append_new(preds, r);
		}
		json_array_foreach(json_object_get(pt, "sanity"), j, flag) {
			json_t *r = json_object();

			put(r, "point", json_incref(label));
			put(r, "flag", vline(jstr(flag, "flag")));
			put(r, "message", vline(jstr(flag, "message")));
			json_array_append_new(sanity, r);
		}
		json_array_append_new(pts, p);
	}
	put(e, "points", pts);
	put(e, "has_table", json_boolean(n_ok > 0));
	put(e, "has_problems", json_boolean(json_array_size(problems) > 0));
	put(e, "problems", problems);
	put(e, "has_predictions", json_boolean(json_array_size(preds) > 0));
	put(e, "predictions", preds);
	put(e, "has_sanity", json_boolean(json_array_size(sanity) > 0));
	put(e, "sanity", sanity);
	return n_ok;
}

/* A point's median of one secondary metric; NAN when the metric does not
   apply to it (null) or the point has no samples (failed: extra is {}). */
static double extra_median(json_t *pt, const char *metric)
{
	return jnum(json_object_get(json_object_get(pt, "extra"), metric), "median");
}

/* Whether every value a metric has is a whole number: CPU numbers, counts
   and flags then read "1", not the main table's "1.00". */
static int metric_is_whole(json_t *points, const char *metric)
{
	json_t *pt;
	size_t i;

	json_array_foreach(points, i, pt) {
		double v = extra_median(pt, metric);

		if (isfinite(v) && (v != floor(v) || fabs(v) >= 1e15))
			return 0;
	}
	return 1;
}

/*
 * The "Secondary values" table: the probe's declared metrics (round_trip_ns
 * beside the derived switch cost, ns_per_byte beside the fault cost), one
 * row per point with the main table's swept columns, one column per metric
 * holding its median, in the probe's own unit (the names say the unit, as
 * in round_trip_ns, so they are not rescaled).  has_extras is false when no
 * metric has a value at any point.
 */
static void add_extras(json_t *e, json_t *res, json_t *points, json_t *swept)
{
	json_t *decl = json_object_get(json_object_get(res, "probe"), "metrics");
	json_t *metrics = json_array(), *rows = json_array(), *m, *pt;
	size_t i, j, n_metrics = 0;
	int any = 0;
	int *whole = calloc(json_array_size(decl) + 1, sizeof *whole);

	json_array_foreach(decl, i, m) {
		json_t *v = json_object();
		const char *name = jstr(m, "name"), *unit = jstr(m, "unit"), *help = jstr(m, "help");

		if (!name)
			continue;
		put(v, "name", vline(name));
		put(v, "unit", vline(unit));
		put(v, "header", unit && *unit ? vsf("%s (%s)", name, unit) : vline(name));
		put(v, "help", vline(help));
		json_array_append_new(metrics, v);
		if (whole)
			whole[i] = metric_is_whole(points, name);
		n_metrics++;
	}
	json_array_foreach(points, i, pt) {
		json_t *r = json_object(), *values = json_array();
		char *label = point_label(pt, swept, ", ");

		json_array_foreach(decl, j, m) {
			json_t *c;
			double v;

			if (!jstr(m, "name"))
				continue;
			v = extra_median(pt, jstr(m, "name"));
			any |= isfinite(v);
			c = json_object();
			/* without the flags (no memory), 3 significant digits */
			put(c, "value", isfinite(v) && whole && whole[j] ? vsf("%.0f", v == 0 ? 0.0 : v) : vnum(v));
			json_array_append_new(values, c);
		}
		put(r, "label", vline(label ? label : ""));
		put(r, "swept", swept_cells(pt, swept));
		put(r, "values", values);
		json_array_append_new(rows, r);
		free(label);
	}
	free(whole);
	put(e, "metrics", metrics);
	put(e, "n_metrics", vsf("%zu", n_metrics));
	put(e, "extras", rows);
	put(e, "has_extras", json_boolean(any && n_metrics > 0));
}

/* Write and draw the experiment's chart (when asked to, and when there is
   something to draw) and say in e.chart which pictures exist.  A gnuplot
   failure is remembered in rc and does not stop the report; a template
   error does (-1). */
static int add_chart(struct rctx *rc, json_t *e, json_t *res, const char *base,
		     const struct dunit *d, int n_ok)
{
	json_t *c = json_object();
	char png[PATH_MAX], pdf[PATH_MAX], msg[1024];
	int want_png = !!(rc->formats & REPORT_MD), want_pdf = !!(rc->formats & REPORT_TEX);
	int has_png = 0, has_pdf = 0;

	strf(png, sizeof png, "%s/charts/%s.png", rc->run, base);
	strf(pdf, sizeof pdf, "%s/charts/%s.pdf", rc->run, base);
	if (n_ok > 0 && (rc->formats & REPORT_CHARTS)) {
		struct chart_request rq = {
			rc->run, base, res, d->label, d->scale, want_png, want_pdf, rc->dirs };
		int w = chart_write(&rq, rc->err, rc->errlen);

		if (w < 0) {
			json_decref(c);
			return -1;
		}
		if (w > 0 && rc->have_gnuplot &&
		    draw_chart(rc, base, want_png, want_pdf, &has_png, &has_pdf, msg, sizeof msg) < 0 &&
		    !rc->chart_msg[0])
			strf(rc->chart_msg, sizeof rc->chart_msg, "chart '%s': %s (see %s/report.log)",
			     jstr(e, "name"), msg, rc->run);
	} else if (n_ok > 0) {
		/* not redrawn: use what an earlier rendering left */
		has_png = file_nonempty(png);
		has_pdf = file_nonempty(pdf);
	}
	put(c, "png", vsf("charts/%s.png", base));
	put(c, "pdf", vsf("charts/%s.pdf", base));
	put(c, "script", vsf("charts/%s.gp", base));
	put(c, "has_png", json_boolean(has_png));
	put(c, "has_pdf", json_boolean(has_pdf));
	put(e, "chart", c);
	return 0;
}

/* Make one experiment's view from its manifest entry and result file, with
   its chart, and add its rows to the summary.  Returns NULL with rc->err
   set on a broken result file or a template error. */
static json_t *experiment_view(struct rctx *rc, json_t *mexp, json_t *summary)
{
	const char *name = jstr(mexp, "name"), *rpath = jstr(mexp, "result");
	json_t *e = json_object(), *res = NULL, *spec, *points, *swept, *pv, *pt, *arr, *knees;
	char path[PATH_MAX], msg[512], base[128], anchor[160];
	const char *reason;
	struct dunit d;
	size_t i;
	int n_ok, missing = 0;

	safe_name(name, base, sizeof base);
	/* two experiments whose names differ only in unsafe characters */
	for (i = 2; json_object_get(rc->bases, base); i++) {
		char b2[160];

		safe_name(name, b2, sizeof b2 - 12);
		strf(base, sizeof base, "%s-%zu", b2, i);
	}
	json_object_set_new(rc->bases, base, json_true());
	strf(anchor, sizeof anchor, "exp-%s", base);

	if (rpath) {
		strf(path, sizeof path, "%s/%s", rc->run, rpath);
		res = load_json(path, msg, sizeof msg, &missing);
		if (!res && !missing) {
			seterr(rc->err, rc->errlen, "run '%s': cannot read %s: %s", rc->run, rpath, msg);
			json_decref(e);
			return NULL;
		}
	}
	if (!res) {
		/* never measured (an interrupted run): say so, do not hide it */
		res = json_object();
		put(res, "status", vs(jstr(mexp, "status") ? jstr(mexp, "status") : "interrupted"));
		put(res, "reason", vsf("no result file (%s)", rpath ? rpath : "none in the manifest"));
	}
	spec = json_object_get(res, "spec");
	points = json_object_get(res, "points");
	swept = swept_names(spec);
	pick_unit(jstr(json_object_get(res, "probe"), "unit"), typical_value(points),
		  isfinite(jnum(res, "tsc_hz")) ? jnum(res, "tsc_hz") : rc->tsc_hz, &d);

	put(e, "name", vs(name ? name : "?"));
	put(e, "anchor", vs(anchor));
	put(e, "title", vline(jstr(res, "title") ? jstr(res, "title") :
			      jstr(mexp, "title") ? jstr(mexp, "title") : name));
	put(e, "group", vs(jstr(res, "group") ? jstr(res, "group") : jstr(mexp, "group")));
	put(e, "description", vs(jstr(res, "description")));
	put(e, "status", vs(jstr(res, "status") ? jstr(res, "status") : "unknown"));
	put(e, "status_text", vs(status_text(jstr(res, "status"))));
	put(e, "unit", vs(d.label));
	put(e, "is_time", json_boolean(d.is_time));
	put(e, "has_cycles", json_boolean(d.is_time && isfinite(d.cyc)));
	put(e, "bigger_is_better",
	    json_boolean(json_is_true(json_object_get(json_object_get(res, "probe"), "bigger_is_better"))));
	pv = json_object();
	put(pv, "name", vs(jstr(json_object_get(res, "probe"), "name")));
	put(pv, "version", vs(jstr(json_object_get(res, "probe"), "version")));
	put(pv, "unit", vs(jstr(json_object_get(res, "probe"), "unit")));
	put(e, "probe", pv);
	put(e, "method", json_is_object(spec) ? vmethod(spec) : vs(""));
	arr = vparams(spec);
	put(e, "has_params", json_boolean(json_array_size(arr) > 0));
	put(e, "params", arr);
	arr = json_array();
	json_array_foreach(swept, i, pt) {
		json_t *c = json_object();

		put(c, "name", vs(json_string_value(pt)));
		json_array_append_new(arr, c);
	}
	put(e, "swept", arr);
	put(e, "n_swept", vsf("%zu", json_array_size(swept)));
	put(e, "has_swept", json_boolean(json_array_size(swept) > 0));

	n_ok = add_points(e, points, swept, &d);
	add_extras(e, res, points, swept);
	/* when nothing was measured, the experiment's reason or its first
	   point's */
	reason = jstr(res, "reason");
	json_array_foreach(points, i, pt)
		if (!reason && jstr(pt, "reason"))
			reason = jstr(pt, "reason");
	put(e, "reason", n_ok == 0 && reason ? vline(reason) : json_null());
	put(e, "measured", json_boolean(n_ok > 0));

	knees = json_object_get(json_object_get(res, "findings"), "knees");
	arr = json_is_object(knees) ? vknees(knees, spec, &d) : json_array();
	put(e, "has_knees", json_boolean(json_array_size(arr) > 0));
	put(e, "knees", arr);
	put(e, "knees_param", vs(jstr(knees, "param") ? jstr(knees, "param") : "size"));

	if (add_chart(rc, e, res, base, &d, n_ok) < 0) {
		json_decref(e);
		e = NULL;
	} else {
		summarise(summary, e, res, swept, &d);
	}
	json_decref(swept);
	json_decref(res);
	return e;
}

static json_t *run_view(struct rctx *rc, json_t *man)
{
	json_t *m = json_object(), *mach = json_object_get(man, "machine"), *v;
	char *cmd = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&cmd, &len);

	json_array_foreach(json_object_get(man, "command_line"), i, v)
		fprintf(f, "%s%s", i ? " " : "", json_is_string(v) ? json_string_value(v) : "?");
	fclose(f);
	put(m, "id", vline(jstr(man, "run_id") ? jstr(man, "run_id") : "n/a"));
	put(m, "date", vdate(jstr(man, "started")));
	put(m, "started", vdate(jstr(man, "started")));
	put(m, "finished", vdate(jstr(man, "finished")));
	put(m, "duration", vduration(jstr(man, "started"), jstr(man, "finished")));
	put(m, "host", vline(jstr(mach, "hostname") ? jstr(mach, "hostname") : "n/a"));
	put(m, "command", vline(cmd && cmd[0] ? cmd : "n/a"));
	v = json_object_get(man, "seed");
	put(m, "seed", json_is_integer(v) ? vsf("%lld", (long long)json_integer_value(v)) : vmachine(v));
	put(m, "version", vline(jstr(json_object_get(man, "runner"), "version") ?
				 jstr(json_object_get(man, "runner"), "version") : "n/a"));
	put(m, "commit", vmachine(json_object_get(json_object_get(man, "runner"), "git_commit")));
	put(m, "status", vs(jstr(man, "status") ? jstr(man, "status") : "n/a"));
	put(m, "interrupted", json_boolean(jstr(man, "status") && !strcmp(jstr(man, "status"), "interrupted")));
	put(m, "quick", json_boolean(json_is_true(json_object_get(json_object_get(man, "options"), "quick"))));
	v = json_object_get(man, "origin");
	put(m, "origin", json_is_object(v) && jstr(v, "run") ? vline(jstr(v, "run")) : json_null());
	free(cmd);
	(void)rc;
	return m;
}

static json_t *build_view(struct rctx *rc, json_t *man)
{
	json_t *view = json_object(), *groups = json_array(), *all = json_array(), *summary = json_array();
	json_t *exps = json_object_get(man, "experiments"), *mexp, *e, *g;
	const char *order[] = { "cpu", "memory", "network", "filesystem" };
	size_t i, j;
	int counts[5] = { 0, 0, 0, 0, 0 };	/* ok, partial, failed, skipped, interrupted */
	json_t *by_group = json_object();	/* group -> array of experiment views */
	json_t *group_order = json_array();	/* other groups, first seen first */

	json_array_foreach(exps, i, mexp) {
		const char *gname, *st;

		e = experiment_view(rc, mexp, summary);
		if (!e)
			goto fail;
		gname = jstr(e, "group") && *jstr(e, "group") ? jstr(e, "group") : "other";
		st = jstr(e, "status");
		counts[!strcmp(st, "ok") ? 0 : !strcmp(st, "partial") ? 1 : !strcmp(st, "skipped") ? 3 :
		       !strcmp(st, "interrupted") ? 4 : 2]++;
		if (!json_object_get(by_group, gname)) {
			json_object_set_new(by_group, gname, json_array());
			json_array_append_new(group_order, json_string(gname));
		}
		json_array_append(json_object_get(by_group, gname), e);
		json_array_append_new(all, e);
	}
	/* the seeds' order: CPU, memory, network, file system, then the rest */
	for (i = 0; i < 4 + json_array_size(group_order); i++) {
		const char *gname = i < 4 ? order[i] : json_string_value(json_array_get(group_order, i - 4));
		json_t *list = json_object_get(by_group, gname);
		char anchor[160], title[256];

		if (!list || (i >= 4 && group_title(gname)))
			continue;
		g = json_object();
		safe_name(gname, anchor, sizeof anchor);
		if (group_title(gname))
			strf(title, sizeof title, "%s", group_title(gname));
		else
			strf(title, sizeof title, "%c%s", gname[0] >= 'a' && gname[0] <= 'z' ?
				 gname[0] - 'a' + 'A' : gname[0], gname + 1);
		put(g, "name", vs(gname));
		put(g, "title", vline(title));
		put(g, "anchor", vsf("group-%s", anchor));
		put(g, "experiments", json_incref(list));
		json_array_append_new(groups, g);
	}
	/* the summary follows the report's order, not the run's */
	{
		json_t *sorted = json_array(), *r;

		json_array_foreach(groups, i, g)
			json_array_foreach(json_object_get(g, "experiments"), j, e) {
				size_t k;

				json_array_foreach(summary, k, r)
					if (!strcmp(jstr(r, "anchor"), jstr(e, "anchor")))
						json_array_append(sorted, r);
			}
		json_decref(summary);
		summary = sorted;
	}
	put(view, "run", run_view(rc, man));
	put(view, "machine", machine_rows(json_object_get(man, "machine")));
	put(view, "groups", groups);
	put(view, "experiments", all);
	put(view, "summary", summary);
	put(view, "has_summary", json_boolean(json_array_size(summary) > 0));
	put(view, "n_experiments", vsf("%zu", json_array_size(exps)));
	put(view, "n_ok", vsf("%d", counts[0]));
	put(view, "n_partial", vsf("%d", counts[1]));
	put(view, "n_failed", vsf("%d", counts[2]));
	put(view, "n_skipped", vsf("%d", counts[3]));
	put(view, "n_interrupted", vsf("%d", counts[4]));
	put(view, "counts", counts[4] ?
	    vsf("%d complete, %d partial, %d failed, %d skipped, %d interrupted",
		counts[0], counts[1], counts[2], counts[3], counts[4]) :
	    vsf("%d complete, %d partial, %d failed, %d skipped",
		counts[0], counts[1], counts[2], counts[3]));
	json_decref(by_group);
	json_decref(group_order);
	return view;
fail:
	json_decref(by_group);
	json_decref(group_order);
	json_decref(groups);
	json_decref(all);
	json_decref(summary);
	json_decref(view);
	return NULL;
}

/* ------------------------------------------------------------ entry point */

const char *report_default_templates(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX], probe[PATH_MAX + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			strf(probe, sizeof probe, "%s/../templates/report.md", exe);
			if (access(probe, R_OK) == 0) {
				char *real;

				strf(probe, sizeof probe, "%s/../templates", exe);
				real = realpath(probe, NULL);
				strf(dir, sizeof dir, "%s", real ? real : probe);
				free(real);
				return dir;
			}
		}
	}
	return SYSMETER_PREFIX "/share/sysmeter/templates";
}

static int render_one(struct rctx *rc, json_t *view, const char *tname, enum template_format fmt)
{
	char *text = template_render_file(tname, view, fmt, rc->dirs, rc->err, rc->errlen);

	if (!text)
		return REPORT_EINPUT;
	if (chart_write_file(rc->run, tname, text, strlen(text)) < 0) {
		seterr(rc->err, rc->errlen, "run '%s': cannot write %s: %s", rc->run, tname, strerror(errno));
		free(text);
		return REPORT_EFAIL;
	}
	if (rc->verbose)
		fprintf(stderr, "runner: report: wrote %s/%s\n", rc->run, tname);
	free(text);
	return 0;
}

int report_render(const char *run_dir, const char *templates_dir, unsigned formats,
		  int verbose, char *err, size_t errlen)
{
	struct rctx rc;
	json_t *man = NULL, *view = NULL;
	char path[PATH_MAX], msg[1024];
	int ret = 0, missing;
	struct stat st;

	memset(&rc, 0, sizeof rc);
	rc.run = run_dir;
	rc.formats = formats ? formats : REPORT_ALL;
	if (rc.formats & REPORT_PDF)
		rc.formats |= REPORT_TEX;
	rc.verbose = verbose;
	rc.log_fd = -1;
	rc.err = err;
	rc.errlen = errlen;
	rc.bases = json_object();
	{
		const char *def = report_default_templates();
		int n = 0;

		if (templates_dir) {
			if (stat(templates_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
				seterr(err, errlen, "templates '%s': %s", templates_dir,
				       stat(templates_dir, &st) < 0 ? strerror(errno) : "not a directory");
				json_decref(rc.bases);
				return REPORT_EINPUT;
			}
			rc.dirs[n++] = templates_dir;
			/* main passes the default set explicitly when there is no
			   --templates: only another folder is the user's */
			rc.user_templates = strcmp(templates_dir, def) != 0;
		}
		if (!templates_dir || strcmp(templates_dir, def) != 0)
			rc.dirs[n++] = def;
		rc.dirs[n] = NULL;
	}

	strf(path, sizeof path, "%s/manifest.json", run_dir);
	man = load_json(path, msg, sizeof msg, &missing);
	if (!man) {
		seterr(err, errlen, "run '%s': cannot read manifest.json: %s", run_dir, msg);
		json_decref(rc.bases);
		return REPORT_EINPUT;
	}
	if (!jstr(man, "schema") || strncmp(jstr(man, "schema"), "sysmeter.manifest/", 18) != 0 ||
	    !json_is_array(json_object_get(man, "experiments"))) {
		seterr(err, errlen, "run '%s': manifest.json is not a sysmeter.manifest/1 file", run_dir);
		ret = REPORT_EINPUT;
		goto out;
	}
	rc.tsc_hz = jnum(json_object_get(man, "machine"), "tsc_hz");

	rc.have_gnuplot = find_in_path("gnuplot");
	if (rc.formats & REPORT_CHARTS) {
		strf(path, sizeof path, "%s/charts", run_dir);
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			seterr(err, errlen, "run '%s': cannot create charts/: %s", run_dir, strerror(errno));
			ret = REPORT_EFAIL;
			goto out;
		}
		if (!rc.have_gnuplot)
			fprintf(stderr, "runner: note: gnuplot not found; install gnuplot-nox (make deps) "
				"to get the charts (their scripts are in %s/charts)\n", run_dir);
	}
	view = build_view(&rc, man);
	if (!view) {
		/* a broken template or result file is the user's input; a chart
		   that cannot be written ("chart 'x': cannot write ...") is not */
		ret = strncmp(err, "template", 8) == 0 || strncmp(err, "run", 3) == 0 ?
			REPORT_EINPUT : REPORT_EFAIL;
		goto out;
	}
	put(view, "charts_drawn", json_boolean(rc.have_gnuplot && (rc.formats & REPORT_CHARTS)));

	if ((rc.formats & REPORT_MD) && (ret = render_one(&rc, view, "report.md", TEMPLATE_MD)) < 0)
		goto out;
	if ((rc.formats & REPORT_TEX) && (ret = render_one(&rc, view, "report.tex", TEMPLATE_TEX)) < 0)
		goto out;
	if (rc.formats & REPORT_PDF) {
		int use_latexmk = find_in_path("latexmk");

		if (!use_latexmk && !find_in_path("pdflatex")) {
			fprintf(stderr, "runner: note: pdflatex not found; install texlive-latex-base "
				"texlive-latex-recommended texlive-fonts-recommended lmodern latexmk "
				"(make deps) to get report.pdf from %s/report.tex\n", run_dir);
		} else if (build_pdf(&rc, use_latexmk, msg, sizeof msg) < 0) {
			/* with the user's templates, most likely the user's TeX */
			seterr(err, errlen, "run '%s': %s", run_dir, msg);
			ret = rc.user_templates ? REPORT_EINPUT : REPORT_EFAIL;
			goto out;
		} else if (verbose) {
			fprintf(stderr, "runner: report: wrote %s/report.pdf\n", run_dir);
		}
	}
	if (rc.chart_msg[0]) {
		seterr(err, errlen, "run '%s': %s", run_dir, rc.chart_msg);
		ret = rc.user_templates ? REPORT_EINPUT : REPORT_EFAIL;
	}
out:
	if (rc.log_fd >= 0)
		close(rc.log_fd);
	json_decref(view);
	json_decref(man);
	json_decref(rc.bases);
	return ret;
}
