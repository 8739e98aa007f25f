/*
 * history.c - `runner history` (history.h, docs/cli.md): the store's rows
 * of an experiment, grouped by point, analysed for change points, shown
 * as text, a chart and a page, and the gate of --fail-on regression.
 */
#include "cli/history.h"
#include "cli/cli.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "results/results.h"
#include "store/store.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int history_opt_where(struct cli_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg) {
		fprintf(stderr, "runner: history: --where '%s': expected KEY=VALUE (a parameter "
			"and its value, e.g. size=4KiB)\n", arg);
		return EXIT_USAGE;
	}
	o->wheres[o->n_wheres++] = (char *)arg;
	return 0;
}

/* YYYY-MM-DD, or ISO 8601 in UTC: YYYY-MM-DDTHH:MM[:SS][Z] (a space for
   the T is taken too).  The Unix time, or NaN. */
double history_parse_since(const char *s)
{
	static const char *const forms[] = {
		"%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%MZ", "%Y-%m-%dT%H:%M",
		"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dZ", "%Y-%m-%d",
	};

	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		struct tm tm;
		const char *end;

		memset(&tm, 0, sizeof tm);
		end = strptime(s, forms[i], &tm);
		if (end && *end == '\0' && tm.tm_mon >= 0 && tm.tm_mon < 12 && tm.tm_mday >= 1)
			return (double)timegm(&tm);
	}
	return NAN;
}

/* The experiment's name as a file name in a run's results/: a spec's name. */
static int safe_name(const char *s)
{
	if (!*s || *s == '.')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 0;
	return 1;
}

/* Bigger is better or worse: the probe's bigger_is_better in the newest
   run's result that can still be read (as `runner compare` decides), else
   the unit. */
static void direction(struct history_experiment *e)
{
	const struct history_point *newest = NULL;

	for (size_t i = 0; i < e->n; i++)
		for (size_t j = 0; j < e->s[i].n; j++)
			if (*e->s[i].pt[j].run_dir &&
			    (!newest || e->s[i].pt[j].started > newest->started))
				newest = &e->s[i].pt[j];
	if (newest && safe_name(e->name)) {
		char path[PATH_MAX], err[512];
		json_t *r;

		strf(path, sizeof path, "%s/results/%s.json", newest->run_dir, e->name);
		if ((r = results_load(path, err, sizeof err))) {
			json_t *probe = json_object_get(r, "probe");
			json_t *b = json_object_get(probe, "bigger_is_better");

			if (json_is_boolean(b)) {
				e->dir = json_is_true(b) ? HISTORY_DIR_RATE : HISTORY_DIR_TIME;
				e->dir_source = "the probe's bigger_is_better";
				json_decref(r);
				return;
			}
			json_decref(r);
		}
	}
	e->dir = history_direction_of_unit(e->n ? e->s[0].unit : "");
	e->dir_source = e->dir == HISTORY_DIR_NONE ? "the unit has none" : "the unit";
}

/* A parameter's value as text onto f, whole (a point's key: two values
   that differ anywhere are two points): a string as it is, a number with
   %g. */
static void value_put(FILE *f, const json_t *v)
{
	if (json_is_string(v))
		fwrite(json_string_value(v), 1, json_string_length(v), f);
	else if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "true" : "false", f);
	else {
		char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		fputs(d ? d : "?", f);
		free(d);
	}
}

/* The same into buf, cut to fit (a note to read, not a key). */
static void value_text(char *buf, size_t len, const json_t *v)
{
	if (json_is_string(v))
		strf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		strf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		strf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		strf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else {
		char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		strf(buf, len, "%s", d ? d : "?");
		free(d);
	}
}

/*
 * Which parameters make a point: those whose values differ between the
 * points of one run (the swept ones, in any run).  A parameter fixed in
 * each run is a setting, not a point: a run made with --set scale=1.2 is
 * the same point 20 % slower, which is what a history must see (as
 * `runner compare` matches points).  Returns an object name -> true.
 */
static json_t *swept_params(json_t *const *params, const struct store_row *rows, size_t n)
{
	json_t *swept = json_object(), *first = json_object();

	for (size_t i = 0; swept && first && i < n; i++) {
		json_t *f = json_object_get(first, rows[i].run_id);
		const char *k;
		json_t *v;

		if (!params[i])
			continue;
		if (!f) {
			json_object_set(first, rows[i].run_id, params[i]);
			continue;
		}
		json_object_foreach(params[i], k, v)
			if (!json_equal(v, json_object_get(f, k)))
				json_object_set_new(swept, k, json_true());
	}
	json_decref(first);
	return swept;
}

/* "k=v,k=v" of the swept parameters of one row (the store's key when its
   parameters cannot be read); the fixed ones that differ from the
   series' oldest row go to *note. */
static char *point_key(const json_t *params, const json_t *swept, const char *store_key)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	const char *k;
	json_t *v;
	int any = 0;

	if (!params)
		return strdup(store_key ? store_key : "");
	if (!(f = open_memstream(&buf, &len)))
		return NULL;
	json_object_foreach((json_t *)params, k, v) {
		if (!json_object_get(swept, k))
			continue;
		fprintf(f, "%s%s=", any++ ? "," : "", k);
		value_put(f, v);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The fixed parameters of params that differ from base: "base=120" into
   note ("" when none). */
static void settings_note(char *note, size_t len, const json_t *params, const json_t *base,
			  const json_t *swept)
{
	const char *k;
	json_t *v;
	char val[256];
	size_t used = 0;

	note[0] = '\0';
	if (!params || !base)
		return;
	json_object_foreach((json_t *)params, k, v) {
		if (json_object_get(swept, k) || json_equal(v, json_object_get(base, k)))
			continue;
		value_text(val, sizeof val, v);
		used += (size_t)snprintf(note + used, used < len ? len - used : 0, "%s%s=%s",
					 used ? "," : "", k, val);
		if (used >= len)
			break;
	}
}

/* Points in the order a reader expects: work=500 before work=1000. */
static int by_key(const void *a, const void *b)
{
	return strverscmp(((const struct history_series *)a)->key,
			  ((const struct history_series *)b)->key);
}

/* A point's runs, oldest first: seq is the run's place in by_run's order. */
static int by_time(const void *a, const void *b)
{
	const struct history_point *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Rows in the order of their runs (store_row_order); the rows of one run
   keep the store's order.  The store sorts by parameter key first, so two
   runs of one second whose settings differ (a --set) would otherwise come
   in the order of their keys, not the order they ran in. */
static int by_run(const void *a, const void *b)
{
	const struct store_row *x = *(const struct store_row *const *)a,
			       *y = *(const struct store_row *const *)b;
	int c = store_row_order(x, y);

	return c ? c : (x > y) - (x < y);
}

/* The rows into e: one series per swept-parameter key, oldest run first.
   The parameters the user selected with --where name their point too
   (selected to one value, they no longer vary within a run). */
static int group(struct history_experiment *e, const struct store_row *rows, size_t n,
		 char *const *wheres, size_t nwheres)
{
	json_t **params = calloc(n + 1, sizeof *params), *swept = NULL, *base = json_object();
	const struct store_row **ord = calloc(n + 1, sizeof *ord);
	int rc = -1;

	if (!params || !base || !ord)
		goto out;
	for (size_t i = 0; i < n; i++)
		ord[i] = &rows[i];
	qsort(ord, n, sizeof *ord, by_run);
	for (size_t i = 0; i < n; i++)
		params[i] = rows[i].params_json ? json_loads(rows[i].params_json, 0, NULL) : NULL;
	if (!(swept = swept_params(params, rows, n)))
		goto out;
	for (size_t w = 0; w < nwheres; w++) {
		char name[256];

		strf(name, sizeof name, "%.*s", (int)strcspn(wheres[w], "="), wheres[w]);
		json_object_set_new(swept, name, json_true());
	}
	for (size_t k = 0; k < n; k++) {
		const struct store_row *r = ord[k];
		size_t i = (size_t)(r - rows);
		char *key = point_key(params[i], swept, r->params_key), note[256], flags[1024];
		struct history_point p = {
			.run_id = r->run_id, .run_dir = r->run_dir, .host = r->host,
			.fingerprint = r->fingerprint, .kernel = r->kernel, .commit = r->commit,
			.status = r->status, .flags = flags, .started = r->started, .seq = k,
			.est = r->estimate, .lo = r->ci_lo, .hi = r->ci_hi, .level = r->level,
			.canary_ns = r->canary_ns,
		};

		if (!key)
			goto out;
		/* the oldest row of the key stands for the settings it began with */
		if (params[i] && !json_object_get(base, key))
			json_object_set(base, key, params[i]);
		settings_note(note, sizeof note, params[i], json_object_get(base, key), swept);
		/* a changed setting is shown in brackets after the flags */
		if (*note)
			strf(flags, sizeof flags, "%s%s[%s]", r->flags ? r->flags : "",
			     r->flags && *r->flags ? " " : "", note);
		else
			strf(flags, sizeof flags, "%s", r->flags ? r->flags : "");
		rc = history_add(e, key, r->params_json, r->unit, &p);
		free(key);
		if (rc < 0)
			goto out;
	}
	for (size_t i = 0; i < e->n; i++)
		qsort(e->s[i].pt, e->s[i].n, sizeof *e->s[i].pt, by_time);
	if (e->n > 1)
		qsort(e->s, e->n, sizeof *e->s, by_key);
	rc = 0;
out:
	for (size_t i = 0; params && i < n; i++)
		json_decref(params[i]);
	free(params);
	free(ord);
	json_decref(swept);
	json_decref(base);
	return rc;
}

/* The store's rows of one experiment into e.  0, or an exit code (said). */
static int load(struct store *st, const char *name, const struct cli_opts *o, double since,
		struct history_experiment *e)
{
	struct store_query q = { .experiment = name, .where = (const char *const *)o->wheres,
				 .nwhere = o->n_wheres, .host = o->host, .since = since };
	struct store_row *rows = NULL;
	size_t nrows = 0;
	char err[1024];
	int rc;

	memset(e, 0, sizeof *e);
	if (!(e->name = strdup(name)))
		return EXIT_INTERNAL;
	/* a store that cannot be read (damaged) is bad input, as one that
	   cannot be opened */
	if (store_series(st, &q, &rows, &nrows, err, sizeof err) < 0) {
		fprintf(stderr, "runner: history: %s\n", err);
		return EXIT_USAGE;
	}
	rc = group(e, rows, nrows, o->wheres, o->n_wheres);
	store_rows_free(rows, nrows);
	if (rc < 0) {
		fprintf(stderr, "runner: history: out of memory\n");
		return EXIT_INTERNAL;
	}
	direction(e);
	if (history_analyse(e) < 0) {
		fprintf(stderr, "runner: history: out of memory\n");
		return EXIT_INTERNAL;
	}
	return 0;
}

/* The options' values checked before the store is opened.  0 or EXIT_USAGE. */
static int check_args(char **ops, size_t nops, const struct cli_opts *o, double *since)
{
	if (nops == 0 && !o->html) {
		/* with --html and no name: every experiment of the store */
		fprintf(stderr, "runner: history: expected an experiment name (runner history "
			"[OPTIONS] EXPERIMENT...; several, or none for all, with --html)\n");
		return EXIT_USAGE;
	}
	if (nops > 1 && o->chart) {
		fprintf(stderr, "runner: history: --chart draws one experiment, %zu given\n", nops);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < nops; i++)
		if (!safe_name(ops[i])) {
			fprintf(stderr, "runner: history: '%s' is not an experiment name (letters, "
				"digits, _ - .)\n", ops[i]);
			return EXIT_USAGE;
		}
	if (o->fail_on && strcmp(o->fail_on, "regression") && strcmp(o->fail_on, "never")) {
		fprintf(stderr, "runner: history: --fail-on '%s': expected regression or never\n",
			o->fail_on);
		return EXIT_USAGE;
	}
	*since = 0;	/* the store's "all" */
	if (o->since && isnan(*since = history_parse_since(o->since))) {
		fprintf(stderr, "runner: history: --since '%s': expected a date YYYY-MM-DD or a UTC "
			"time YYYY-MM-DDTHH:MM:SSZ\n", o->since);
		return EXIT_USAGE;
	}
	if (o->chart) {
		const char *ext = strrchr(o->chart, '.');

		if (!ext || strchr(ext, '/') || (strcmp(ext, ".svg") && strcmp(ext, ".png"))) {
			fprintf(stderr, "runner: history: --chart '%s': expected a file name ending in "
				".svg or .png\n", o->chart);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* Every named experiment loaded, printed and its regressions counted.  0
   or an exit code (said). */
static int load_all(struct store *st, char **ops, size_t nops, const struct cli_opts *o,
		    double since, struct history_experiment *e, size_t *regressed)
{
	for (size_t k = 0; k < nops; k++) {
		int rc = load(st, ops[k], o, since, &e[k]);

		if (rc)
			return rc;
		if (e[k].n == 0) {
			fprintf(stderr, "runner: history: no results of experiment '%s' in the store "
				"%s%s\n", ops[k], store_where(st),
				o->n_wheres || o->host || o->since ? " that match --where/--host/--since"
								   : "");
			return EXIT_USAGE;
		}
		if (k)
			fputc('\n', stdout);
		history_print(stdout, &e[k]);
		for (size_t i = 0; i < e[k].n; i++)
			*regressed += history_regressed(&e[k], &e[k].s[i]);
	}
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int history_main(char **ops, size_t nops, const struct cli_opts *o)
{
	struct history_experiment *e;
	size_t regressed = 0;
	struct store *st;
	char err[1024];
	double since;
	int rc = check_args(ops, nops, o, &since);

	if (rc)
		return rc;
	/* read only: never created, never changed (a read-only mount, another
	   user's store) */
	if (!(st = store_open_read(o->store, o->out_dir, STORE_MISSING_REFUSED, err, sizeof err))) {
		fprintf(stderr, "runner: history: %s\n", err);
		return EXIT_USAGE;
	}
	char **all = NULL;
	size_t nall = 0;
	if (nops == 0) {
		if (store_experiments(st, &all, &nall, err, sizeof err) < 0) {
			fprintf(stderr, "runner: history: %s\n", err);
			store_close(st);
			return EXIT_USAGE;
		}
		if (nall == 0) {
			fprintf(stderr, "runner: history: no experiment in the store %s\n",
				store_where(st));
			free(all);
			store_close(st);
			return EXIT_USAGE;
		}
		ops = all;
		nops = nall;
	}
	if (!(e = calloc(nops, sizeof *e))) {
		free_names(all, nall);
		store_close(st);
		fprintf(stderr, "runner: history: out of memory\n");
		return EXIT_INTERNAL;
	}
	rc = load_all(st, ops, nops, o, since, e, &regressed);
	fflush(stdout);
	if (!rc && o->chart && history_chart(o->chart, &e[0], o->verbose, err, sizeof err) < 0) {
		fprintf(stderr, "runner: history: %s\n", err);
		rc = EXIT_INTERNAL;
	}
	if (!rc && o->html) {
		size_t drawn;

		if (history_html(o->html, e, nops, o->verbose, &drawn, err, sizeof err) < 0) {
			fprintf(stderr, "runner: history: %s\n", err);
			rc = EXIT_INTERNAL;
		}
	}
	for (size_t i = 0; i < nops; i++)
		history_experiment_free(&e[i]);
	free(e);
	free_names(all, nall);
	store_close(st);
	if (!rc && regressed && o->fail_on && strcmp(o->fail_on, "regression") == 0) {
		fprintf(stderr, "runner: history: the newest run is slower than before its last "
			"change point (%zu point%s): FAIL\n", regressed, regressed == 1 ? "" : "s");
		return EXIT_FAILED;
	}
	return rc;
}
