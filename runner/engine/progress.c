/*
 * progress.c - the progress line while a run measures (a terminal only,
 * not with --quiet) and one summary line per experiment on stdout, with
 * the points other tasks spoiled below it and how to rerun them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/progress.h"
#include "lib/monotonic.h"
#include "lib/text.h"
#include "lib/units.h"

void progress_on_sample(void *arg, const struct point_result *r)
{
	struct progress *pg = arg;
	if (!pg->tty || pg->quiet)
		return;
	double vals[4096];
	size_t n = 0;
	for (size_t i = 0; i < r->n_samples && n < 4096; i++)
		if (!r->samples[i].warmup && r->samples[i].valid)
			vals[n++] = r->samples[i].value;
	double mean = 0, sd = 0;
	for (size_t i = 0; i < n; i++)
		mean += vals[i];
	mean = n ? mean / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		sd += (vals[i] - mean) * (vals[i] - mean);
	sd = n > 1 ? sqrt(sd / (double)(n - 1)) : NAN;
	double el = monotonic_s() - pg->t0, per = pg->done_all ? el / (double)pg->done_all : NAN;
	double eta = per * (double)(pg->total_all - pg->done_all);
	char eta_txt[32] = "?", what[64] = "";
	if (isfinite(eta))
		snprintf(eta_txt, sizeof eta_txt, eta >= 90 ? "%.0fm%02.0fs" : "%.0fs",
			 eta >= 90 ? floor(eta / 60) : eta, fmod(eta, 60));
	/* the point's swept values, so a slow or odd point can be named */
	const struct spec *s = &pg->x->spec;
	size_t off = 0;
	for (size_t a = 0; pg->x->pts && a < s->n_axis && off < sizeof what; a++)
		if (s->axis_swept[a])
			off += (size_t)snprintf(what + off, sizeof what - off, "%s%s=%s", off ? "," : " ",
						s->bound->params[a].name,
						pg->x->pts[pg->point].vals[a]->text);
	if (n == 0)
		fprintf(stderr, "\r\033[Kround %d/%d  %s  point %zu/%zu%s  warming up  ETA %s",
			pg->round + 1, pg->x->planned, pg->x->spec.name, pg->point + 1, pg->npoints,
			what, eta_txt);
	else
		fprintf(stderr, "\r\033[Kround %d/%d  %s  point %zu/%zu%s  %.4g ± %.2g %s (n=%zu)  ETA %s",
			pg->round + 1, pg->x->planned, pg->x->spec.name, pg->point + 1, pg->npoints,
			what, mean, n > 1 ? 1.96 * sd / sqrt((double)n) : 0.0, pg->x->lp.p->unit, n,
			eta_txt);
	fflush(stderr);
}


/* "a=1,b=x" of a point's swept values (the spec's lists of two or more). */
static void point_label(const json_t *res, const json_t *p, char *buf, size_t len)
{
	const json_t *params = json_object_get(json_object_get(res, "spec"), "params");
	const char *k;
	json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach(json_object_get(p, "params_text"), k, v)
		if (off < len && json_array_size(json_object_get(params, k)) > 1)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? "," : "", k,
						json_string_value(v) ? json_string_value(v) : "?");
}

/* The headline numbers of a multi-point experiment on its summary line:
   the smallest and largest estimate with their points, and what its
   findings found (cache levels, the file cache). */
static void print_headline(const json_t *res, const char *unit)
{
	const json_t *pts = json_object_get(res, "points"), *p, *lo = NULL, *hi = NULL;
	const json_t *f = json_object_get(res, "findings");
	size_t i;
	char label[32], a[64], b[64], la[256], lb[256];

	json_array_foreach(pts, i, p) {
		json_t *e = json_object_get(p, "estimate");
		if (!json_is_number(e))
			continue;
		if (!lo || json_number_value(e) < json_number_value(json_object_get(lo, "estimate")))
			lo = p;
		if (!hi || json_number_value(e) > json_number_value(json_object_get(hi, "estimate")))
			hi = p;
	}
	if (lo && hi && lo != hi) {
		double est = json_number_value(json_object_get(hi, "estimate"));
		double k = units_display(unit ? unit : "", est, label, sizeof label, NULL);

		units_format_number(json_number_value(json_object_get(lo, "estimate")) * k, a, sizeof a);
		units_format_number(est * k, b, sizeof b);
		point_label(res, lo, la, sizeof la);
		point_label(res, hi, lb, sizeof lb);
		printf("; %s %s (%s) to %s %s (%s)", a, label, la, b, label, lb);
	}
	const json_t *series = json_object_get(json_object_get(f, "knees"), "series"), *s, *lv;
	const char *key;
	json_object_foreach((json_t *)series, key, s) {
		size_t j, n = 0;
		json_array_foreach(json_object_get(s, "levels"), j, lv) {
			double sz = json_number_value(json_object_get(lv, "knee_bytes"));
			char szt[32] = "";

			if (json_is_number(json_object_get(lv, "knee_bytes")))
				units_format_size_short(sz, szt, sizeof szt);
			printf("%s%s %s%s%.3g", n++ ? ", " : "; levels (", json_string_value(json_object_get(lv, "name")),
			       szt, szt[0] ? " " : "", json_number_value(json_object_get(lv, "latency")));
		}
		if (n)
			printf(" %s, %s)", unit ? unit : "", key);
		break;	/* the first series is enough for a headline */
	}
	const json_t *fc = json_object_get(f, "file_cache");
	if (json_is_number(json_object_get(fc, "knee_bytes"))) {
		char szt[32];
		units_format_size_short(json_number_value(json_object_get(fc, "knee_bytes")), szt, sizeof szt);
		printf("; file cache about %s%s", szt, json_is_number(json_object_get(fc, "limit_bytes"))
						       ? " (a memory cgroup's, not the machine's)" : "");
	}
}

/* Did other tasks take this point's CPUs (its flag cpu_taken)?  1 when
   that left it skipped, 2 when it kept an estimate, 0 otherwise. */
static int cpu_taken(const json_t *p)
{
	const json_t *f;
	const char *st = json_string_value(json_object_get(p, "status"));
	size_t i;

	json_array_foreach(json_object_get(p, "sanity"), i, f)
		if (json_string_value(json_object_get(f, "flag")) &&
		    strcmp(json_string_value(json_object_get(f, "flag")), "cpu_taken") == 0)
			return st && strcmp(st, "skipped") == 0 ? 1 : 2;
	return 0;
}

/* s single-quoted for a shell when it holds anything but [A-Za-z0-9_./:=,+-],
   its control characters escaped first (text_escape). */
static void shell_word(const char *s, char *buf, size_t len)
{
	size_t n = 4 * strlen(s ? s : "") + 1, off = 0;
	char *esc = malloc(n);

	if (!esc) {
		snprintf(buf, len, "?");
		return;
	}
	text_escape(s ? s : "", esc, n);
	if (esc[0] && strspn(esc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789_./:=,+-") == strlen(esc)) {
		snprintf(buf, len, "%s", esc);
		free(esc);
		return;
	}
	off += (size_t)snprintf(buf, len, "'");
	for (const char *c = esc; *c && off < len; c++)
		off += (size_t)snprintf(buf + off, len - off, *c == '\'' ? "'\\''" : "%c", *c);
	if (off < len)
		snprintf(buf + off, len - off, "'");
	free(esc);
}

/* Below the experiment's line: the points other tasks spoiled (skipped,
   never failed: docs/methodology.md, "A CPU that is never quiet"), by how
   much, and what to do; and how many kept an estimate without some of
   their samples. */
static void print_spoiled(const struct experiment *x, int one_point)
{
	const json_t *pts = json_object_get(x->result, "points"), *p;
	size_t i, skipped = 0, kept = 0;
	char label[256], text[1024], name[1024], file[16500];

	json_array_foreach(pts, i, p) {
		int t = cpu_taken(p);

		kept += t == 2;
		if (t != 1)
			continue;
		skipped++;
		if (one_point)		/* its reason is on the experiment's line */
			continue;
		point_label(x->result, p, label, sizeof label);
		text_escape(label, text, sizeof text);
		printf("  spoiled by other tasks, skipped: %s%s", text, text[0] ? ": " : "");
		text_escape(json_string_value(json_object_get(p, "reason")) ?: "", text, sizeof text);
		printf("%s\n", text);
	}
	if (kept)
		printf("  %zu point%s kept %s estimate without the samples other tasks spoiled "
		       "(flag cpu_taken)\n", kept, kept == 1 ? "" : "s", kept == 1 ? "its" : "their");
	if (!skipped)
		return;
	shell_word(x->spec.name, name, sizeof name);
	shell_word(x->spec.file, file, sizeof file);
	printf("  rerun %s with this run's options once the CPUs are quiet: runner --filter %s %s\n",
	       skipped == 1 ? "it" : "them", name, file);
}

void progress_summary(const struct experiment *x)
{
	const json_t *pts = json_object_get(x->result, "points"), *p;
	const char *st = json_string_value(json_object_get(x->result, "status"));
	const char *unit = json_string_value(json_object_get(json_object_get(x->result, "probe"), "unit"));
	size_t i;
	printf("%-20s %-11s", x->spec.name, st ? st : "?");
	if (json_array_size(pts) == 1 || !x->probe_ok) {
		p = json_array_get(pts, 0);
		json_t *est = json_object_get(p, "estimate"), *ci = json_object_get(p, "ci");
		if (json_is_number(est))
			printf(" %.4g %s", json_number_value(est), unit ? unit : "");
		if (json_is_array(ci) && json_is_number(json_array_get(ci, 0)))
			printf(" [%.4g, %.4g]", json_number_value(json_array_get(ci, 0)),
			       json_number_value(json_array_get(ci, 1)));
		const char *reason = json_string_value(json_object_get(p, "reason"));
		if (reason)
			printf(" %s", reason);
	} else {
		size_t ok = 0, skipped = 0, spoiled;
		json_array_foreach(pts, i, p) {
			const char *pst = json_string_value(json_object_get(p, "status")) ?: "";
			ok += strcmp(pst, "ok") == 0;
			skipped += strcmp(pst, "skipped") == 0;
		}
		printf(" %zu/%zu points ok", ok, json_array_size(pts));
		if (skipped)
			printf(", %zu skipped", skipped);
		for (i = 0, spoiled = 0; i < json_array_size(pts); i++)
			spoiled += cpu_taken(json_array_get(pts, i)) == 1;
		if (spoiled)
			printf(" (%zu spoiled by other tasks)", spoiled);
		print_headline(x->result, unit);
		json_array_foreach(pts, i, p) {
			const char *reason = json_string_value(json_object_get(p, "reason"));
			if (reason && cpu_taken(p) != 1) {	/* those: on their own lines */
				printf(" (first problem: %s)", reason);
				break;
			}
		}
	}
	printf("\n");
	if (x->probe_ok)
		print_spoiled(x, json_array_size(pts) == 1);
}

