/*
 * history_html.c - the history page, DIR/index.html (history.h): every
 * experiment's series, a gnuplot SVG chart each (DIR/NN-name.svg), and
 * the change points in tables with their reasons.
 *
 * One folder that works offline: the CSS is in the page, there is no
 * script, and the pictures are files beside it (HTML_CSP lets a browser
 * load nothing else).  Every string that came
 * from a store (experiment, parameters, hosts, kernels, flags) goes
 * through html_escape, so a parameter with "<script>" is text.
 */
#include "cli/history.h"
#include "lib/html.h"
#include "lib/strf.h"
#include "results/results.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char css[] =
	"body{font-family:sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}"
	"h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}"
	"table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}"
	"th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left}"
	"td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}"
	"tr.step td{border-top:3px solid #d62728}tr.note td{background:#fff4f4}"
	".slower{color:#b00;font-weight:bold}.faster{color:#070;font-weight:bold}"
	"img{max-width:100%;height:auto}p.muted{color:#666}";

/* The chart's file name: NN-<name with anything but [A-Za-z0-9_.-] as _>. */
static void chart_name(char *buf, size_t len, size_t i, const char *name)
{
	size_t k;

	strf(buf, len, "%02zu-", i + 1);
	k = strlen(buf);
	for (const char *p = name; *p && k + 5 < len && k < 64; p++)
		buf[k++] = isalnum((unsigned char)*p) || *p == '_' || *p == '-' ? *p : '_';
	buf[k] = '\0';
	strf(buf + k, len - k, ".svg");
}

static void esc(FILE *f, const char *s)
{
	html_escape(f, s ? s : "");
}

static void cell_num(FILE *f, double v, double scale)
{
	char b[32];

	history_number(b, sizeof b, v, scale);
	fprintf(f, "<td class=\"num\">%s</td>", b);
}

static void steps_table(FILE *f, const struct history_experiment *e,
			const struct history_series *s, double scale, const char *label)
{
	char why[640], host[256];

	if (s->cp.nstep == 0) {
		fprintf(f, "<p>No change point.</p>\n");
		return;
	}
	fprintf(f, "<table><caption>Change points</caption>\n<tr><th>from run</th><th>change</th>"
		"<th>before</th><th>after</th><th>step</th><th>why it is real</th></tr>\n");
	for (size_t j = 0; j < s->cp.nstep; j++) {
		const struct stats_cp_step *st = &s->cp.step[j];
		const char *word = history_step_word(e->dir, st->delta);

		fprintf(f, "<tr><td>");
		esc(f, s->pt[st->at].run_id);
		fprintf(f, "</td><td class=\"%s\">%s</td>", word, word);
		cell_num(f, st->before, scale);
		cell_num(f, st->after, scale);
		fprintf(f, "<td class=\"num\">%+.1f %%</td><td>", 100 * st->rel);
		history_step_reason(why, sizeof why, st, scale, label);
		esc(f, why);
		history_step_host_text(host, sizeof host, e, s, st);
		if (*host) {
			fprintf(f, "; ");
			esc(f, host);
		}
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	if (history_regressed(e, s))
		fprintf(f, "<p class=\"slower\">The newest run is slower than before its last change "
			"point.</p>\n");
}

static void series_table(FILE *f, const struct history_experiment *e,
			 const struct history_series *s)
{
	char label[32], t[32];
	double scale = history_display(s, label, sizeof label);

	fprintf(f, "<h3>");
	esc(f, *s->key ? s->key : "(its only point)");
	fprintf(f, "</h3>\n<table>\n<tr><th>run</th><th>started (UTC)</th><th>host</th>"
		"<th>kernel</th><th>estimate (");
	esc(f, label);
	fprintf(f, ")</th><th>95 %% CI</th><th title=\"the run's canary over the median of this "
		"machine's runs here: above 1, the machine itself ran slower\">canary</th>"
		"<th>flags</th></tr>\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct history_point *p = &s->pt[i];
		int step = 0;

		for (size_t j = 0; j < s->cp.nstep; j++)
			step |= s->cp.step[j].at == i;
		history_time(t, sizeof t, p->started);
		fprintf(f, "<tr%s><td>", step ? " class=\"step\"" : "");
		esc(f, p->run_id);
		fprintf(f, "</td><td>%s</td><td>", t);
		esc(f, p->host);
		fprintf(f, "</td><td>");
		esc(f, p->kernel);
		fprintf(f, "</td>");
		cell_num(f, p->est, scale);
		if (isfinite(p->lo) && isfinite(p->hi)) {
			char lo[32], hi[32];

			history_number(lo, sizeof lo, p->lo, scale);
			history_number(hi, sizeof hi, p->hi, scale);
			fprintf(f, "<td class=\"num\">[%s, %s]</td>", lo, hi);
		} else {
			fprintf(f, "<td>-</td>");
		}
		char pace[32];

		history_pace_text(pace, sizeof pace, s, i);
		fprintf(f, "<td class=\"num\">%s</td><td>", pace);
		esc(f, p->flags);
		fprintf(f, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	steps_table(f, e, s, scale, label);
}

static void experiment_section(FILE *f, const struct history_experiment *e, size_t i,
			       const char *chart, const char *no_chart)
{
	fprintf(f, "<section id=\"exp-%zu\">\n<h2>", i + 1);
	esc(f, e->name);
	fprintf(f, "</h2>\n<p class=\"muted\">%zu point%s; %s (", e->n, e->n == 1 ? "" : "s",
		e->dir == HISTORY_DIR_TIME ? "bigger is slower"
		: e->dir == HISTORY_DIR_RATE ? "bigger is faster" : "no direction: steps are up or down");
	esc(f, e->dir_source);
	fprintf(f, ")</p>\n");
	if (chart) {
		fprintf(f, "<p><img src=\"");
		esc(f, chart);
		fprintf(f, "\" alt=\"");
		esc(f, e->name);
		fprintf(f, " over time: estimates with their 95 %% intervals and the fitted levels\">"
			"</p>\n");
	} else {
		fprintf(f, "<p class=\"muted\">No chart: ");
		esc(f, no_chart);
		fprintf(f, "</p>\n");
	}
	for (size_t k = 0; k < e->n; k++)
		series_table(f, e, &e->s[k]);
	fprintf(f, "</section>\n");
}

/* The page into f; charts[i] NULL where experiment i has none (why[i]). */
static void page(FILE *f, const struct history_experiment *e, size_t n, char **charts,
		 char **why)
{
	char now[64];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", &tm);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"" HTML_CSP "\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>Results over time</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<h1>Results over time</h1>\n<p class=\"muted\">Made %s by sysmeter's "
		"<code>runner history</code>. A change point is a run from which a figure moved to "
		"another level and stayed there: the intervals of the two levels do not overlap and "
		"the step is larger than the noise threshold.</p>\n", css, now);
	if (n == 0)
		fprintf(f, "<p>The store holds no results for this selection.</p>\n");
	else {
		fprintf(f, "<nav><ul>\n");
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "<li><a href=\"#exp-%zu\">", i + 1);
			esc(f, e[i].name);
			fprintf(f, "</a></li>\n");
		}
		fprintf(f, "</ul></nav>\n");
	}
	for (size_t i = 0; i < n; i++)
		experiment_section(f, &e[i], i, charts[i], why[i]);
	fprintf(f, "</body>\n</html>\n");
}

int history_html(const char *dir, const struct history_experiment *e, size_t n, int verbose,
		 size_t *drawn, char *err, size_t errlen)
{
	char **charts = calloc(n + 1, sizeof *charts), **why = calloc(n + 1, sizeof *why);
	char path[PATH_MAX], name[96], msg[1024], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = -1;

	*drawn = 0;
	if (!charts || !why) {
		strf(err, errlen, "out of memory");
		goto out;
	}
	if (results_mkdirs(dir, err, errlen) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		chart_name(name, sizeof name, i, e[i].name);
		strf(path, sizeof path, "%s/%s", dir, name);
		if (e[i].n && history_chart(path, &e[i], verbose, msg, sizeof msg) == 0) {
			charts[i] = strdup(name);
			(*drawn)++;
		} else {
			/* the page is written all the same; the reader is told why */
			why[i] = strdup(e[i].n ? msg : "no results");
			fprintf(stderr, "runner: history: note: %s\n", e[i].n ? msg : "no results");
		}
	}
	if (!(f = open_memstream(&buf, &len))) {
		strf(err, errlen, "out of memory");
		goto out;
	}
	page(f, e, n, charts, why);
	if (fclose(f) != 0) {
		strf(err, errlen, "out of memory");
		goto out;
	}
	strf(path, sizeof path, "%s/index.html", dir);
	rc = results_write_file(path, buf, len, err, errlen);
out:
	for (size_t i = 0; charts && why && i < n; i++) {
		free(charts[i]);
		free(why[i]);
	}
	free(charts);
	free(why);
	free(buf);
	return rc;
}
