/*
 * test_history.c - `runner history` without a store (cli/history_view.c,
 * history_chart.c, history_html.c): series built in memory, their change
 * points, the text, the --fail-on regression gate, the chart and the page
 * (its escaping of user text).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/history.h"
#include "report/report.h"
#include "tap.h"

/* n runs of key in e, one hour apart from t0, at the given levels: the
   value v[i] with interval +- half. */
static void add_runs(struct history_experiment *e, const char *key, const char *unit,
		     const double *v, size_t n, double half, double t0)
{
	for (size_t i = 0; i < n; i++) {
		char id[32];
		struct history_point p = {
			.run_id = id, .run_dir = "", .host = "hostA", .kernel = "6.1.0",
			.commit = "", .status = "ok", .flags = i == 2 ? "host_drift" : "",
			.started = t0 + 3600.0 * (double)i, .est = v[i], .lo = v[i] - half,
			.hi = v[i] + half, .level = 0.95,
		};

		snprintf(id, sizeof id, "run-%02zu", i + 1);
		if (history_add(e, key, "{}", unit, &p) < 0)
			abort();
	}
}

static char *print(const struct history_experiment *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	history_print(f, e);
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc((size_t)n + 1, 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static const double flat[8] = {100, 101, 99.5, 100.4, 99.8, 100.6, 100.1, 99.7};
static const double slow_last[8] = {100, 101, 99.5, 100.4, 99.8, 100.6, 100.1, 121};
static const double fast_last[8] = {100, 101, 99.5, 100.4, 99.8, 100.6, 100.1, 80};
static const double slow_mid[8] = {100, 101, 99.5, 100.4, 120.3, 121, 119.5, 120.6};
static const double slow_back[8] = {100, 101, 120.5, 121, 119.5, 100.6, 100.1, 99.7};

/* The gate: 1 only when the newest run sits in a level slower than the
   one before, in the direction of the unit. */
static void test_gate(void)
{
	struct {
		const double *v;
		const char *unit;
		enum history_direction dir;
		int want;
		const char *what;
	} c[] = {
		{ flat, "ns", HISTORY_DIR_TIME, 0, "flat" },
		{ slow_last, "ns", HISTORY_DIR_TIME, 1, "newest run 20 % longer (a time)" },
		{ fast_last, "ns", HISTORY_DIR_TIME, 0, "newest run 20 % shorter (a time)" },
		{ fast_last, "MB/s", HISTORY_DIR_RATE, 1, "newest run 20 % lower (a rate)" },
		{ slow_last, "MB/s", HISTORY_DIR_RATE, 0, "newest run 20 % higher (a rate)" },
		{ slow_mid, "ns", HISTORY_DIR_TIME, 1, "slower since run 5, still slower" },
		{ slow_back, "ns", HISTORY_DIR_TIME, 0, "slower for three runs, then back" },
		{ slow_last, "widgets", HISTORY_DIR_NONE, 0, "no direction: never a regression" },
	};

	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		struct history_experiment e = { .name = strdup("syscall") };

		e.dir = history_direction_of_unit(c[i].unit);
		ok(e.dir == c[i].dir, "%s: direction of unit %s", c[i].what, c[i].unit);
		add_runs(&e, "size=64", c[i].unit, c[i].v, 8, 1, 1.7e9);
		ok(history_analyse(&e) == 0, "%s: analysed", c[i].what);
		ok(history_regressed(&e, &e.s[0]) == c[i].want, "%s: regressed %d", c[i].what,
		   c[i].want);
		history_experiment_free(&e);
	}
}

/* The text names every run, marks the step before the run it starts at and
   says why it is real. */
static void test_text(void)
{
	struct history_experiment e = { .name = strdup("syscall"), .dir = HISTORY_DIR_TIME,
					.dir_source = "the probe's bigger_is_better" };
	char *out, *step, *r5;

	add_runs(&e, "size=64", "ns", slow_mid, 8, 1, 1.7e9);
	add_runs(&e, "size=4096", "ns", flat, 8, 1, 1.7e9);
	history_analyse(&e);
	out = print(&e);
	ok(out && strstr(out, "syscall size=64") && strstr(out, "syscall size=4096"),
	   "text: one block per parameter key");
	ok(out && strstr(out, "run-01") && strstr(out, "run-08") && strstr(out, "hostA") &&
	   strstr(out, "6.1.0") && strstr(out, "host_drift"), "text: run, host, kernel, flags");
	ok(out && strstr(out, "[99, 101]"), "text: the interval of run 1");
	step = out ? strstr(out, "-- change point: slower from here") : NULL;
	r5 = out ? strstr(out, "  run-05") : NULL;
	ok(step && r5 && step < r5 && !strstr(step + 1, "-- change point"),
	   "text: one change point, marked just before run 5");
	ok(step && strstr(step, "outside both intervals") && strstr(step, "> threshold"),
	   "text: the step says why it is real");
	ok(out && strstr(out, "SLOWER than before its last change point"), "text: the gate's verdict");
	ok(out && strstr(out, "no change point"), "text: the flat series has none");
	free(out);
	history_experiment_free(&e);
}

/* The chart: a valid SVG from gnuplot with the step function; a user
   string with a quote cannot break out of the script. */
static void test_chart(void)
{
	struct history_experiment e = { .name = strdup("sys'call`echo pwned`"),
					.dir = HISTORY_DIR_TIME };
	char dir[] = "/tmp/test_history.XXXXXX", path[256], err[1024] = "", *svg;

	if (!report_gnuplot_found()) {
		printf("# skip: gnuplot is not installed\n");
		free(e.name);
		return;
	}
	mkdtemp(dir);
	add_runs(&e, "op='read'", "ns", slow_mid, 8, 1, 1.7e9);
	history_analyse(&e);
	snprintf(path, sizeof path, "%s/h.svg", dir);
	ok(history_chart(path, &e, 0, err, sizeof err) == 0, "chart: drawn (%s)", err);
	svg = slurp(path);
	ok(svg && strstr(svg, "<svg") && strstr(svg, "</svg>"), "chart: an SVG");
	/* the report's escaping: a quote stays, a backquote becomes a quote */
	ok(svg && strstr(svg, "sys'call'echo pwned' over time"),
	   "chart: the title with a quote and backquotes shown as text");
	free(svg);
	snprintf(path, sizeof path, "%s/h.png", dir);
	ok(history_chart(path, &e, 0, err, sizeof err) == 0, "chart: a PNG too (%s)", err);
	svg = slurp(path);
	ok(svg && memcmp(svg, "\x89PNG", 4) == 0, "chart: PNG magic");
	free(svg);
	snprintf(path, sizeof path, "%s/h.pdf", dir);
	ok(history_chart(path, &e, 0, err, sizeof err) < 0 && strstr(err, ".svg or .png"),
	   "chart: .pdf refused: %s", err);
	history_experiment_free(&e);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	if (system(path) != 0)
		printf("# could not remove %s\n", dir);
}

/* The page: every experiment, its chart, the change points; user text
   escaped. */
static void test_html(void)
{
	struct history_experiment e[2] = {
		{ .name = strdup("<script>alert(1)</script>"), .dir = HISTORY_DIR_TIME,
		  .dir_source = "the unit" },
		{ .name = strdup("ram_bandwidth"), .dir = HISTORY_DIR_RATE, .dir_source = "the unit" },
	};
	char dir[] = "/tmp/test_history_html.XXXXXX", path[256], err[1024] = "", *page;
	size_t drawn = 0;

	mkdtemp(dir);
	add_runs(&e[0], "op=<b>x</b>", "ns", slow_last, 8, 1, 1.7e9);
	add_runs(&e[1], "size=1MiB", "MB/s", flat, 8, 1, 1.7e9);
	history_analyse(&e[0]);
	history_analyse(&e[1]);
	snprintf(path, sizeof path, "%s/site", dir);
	ok(history_html(path, e, 2, 0, &drawn, err, sizeof err) == 0, "html: written (%s)", err);
	snprintf(path, sizeof path, "%s/site/index.html", dir);
	page = slurp(path);
	ok(page && strstr(page, "<!DOCTYPE html>") && strstr(page, "</html>"), "html: a page");
	ok(page && !strstr(page, "<script") && strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"),
	   "html: the experiment name '<script>' is text");
	ok(page && !strstr(page, "<b>x") && strstr(page, "op=&lt;b&gt;x&lt;/b&gt;"),
	   "html: a parameter with markup is text");
	ok(page && strstr(page, "ram_bandwidth") && strstr(page, "href=\"#exp-2\""),
	   "html: both experiments, linked");
	ok(page && strstr(page, "class=\"slower\">slower<"), "html: the step, slower");
	ok(page && !strstr(page, "http://") && !strstr(page, "https://"), "html: no network address");
	if (report_gnuplot_found()) {
		ok(drawn == 2 && strstr(page, "src=\"01-_script_alert_1___script_.svg\""),
		   "html: two charts, a safe file name");
		snprintf(path, sizeof path, "%s/site/02-ram_bandwidth.svg", dir);
		ok(access(path, R_OK) == 0, "html: the chart is beside the page");
	}
	free(page);
	history_experiment_free(&e[0]);
	history_experiment_free(&e[1]);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	if (system(path) != 0)
		printf("# could not remove %s\n", dir);
}

int main(void)
{
	test_gate();
	test_text();
	test_chart();
	test_html();
	return done_testing();
}
