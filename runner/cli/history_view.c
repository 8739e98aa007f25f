/*
 * history_view.c - a history's series: built, analysed (change points), as
 * text, and the CI gate of --fail-on regression (history.h).
 */
#include "cli/history.h"
#include "lib/strf.h"
#include "lib/text.h"
#include "lib/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static void point_free(struct history_point *p)
{
	free(p->run_id);
	free(p->run_dir);
	free(p->host);
	free(p->fingerprint);
	free(p->kernel);
	free(p->commit);
	free(p->status);
	free(p->flags);
}

static struct history_series *series_of(struct history_experiment *e, const char *key,
					const char *params_json, const char *unit)
{
	struct history_series *s;

	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->s[i].key, key) == 0)
			return &e->s[i];
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 8;
		struct history_series *ns = realloc(e->s, cap * sizeof *ns);

		if (!ns)
			return NULL;
		e->s = ns;
		e->cap = cap;
	}
	s = &e->s[e->n];
	memset(s, 0, sizeof *s);
	s->key = strdup(key);
	s->params_json = dup_or_empty(params_json);
	s->unit = dup_or_empty(unit);
	if (!s->key || !s->params_json || !s->unit) {
		free(s->key);
		free(s->params_json);
		free(s->unit);
		return NULL;
	}
	e->n++;
	return s;
}

int history_add(struct history_experiment *e, const char *key, const char *params_json,
		const char *unit, const struct history_point *p)
{
	struct history_series *s = series_of(e, key ? key : "", params_json, unit);
	struct history_point *q;

	if (!s)
		return -1;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct history_point *np = realloc(s->pt, cap * sizeof *np);

		if (!np)
			return -1;
		s->pt = np;
		s->cap = cap;
	}
	q = &s->pt[s->n];
	*q = *p;
	q->run_id = dup_or_empty(p->run_id);
	q->run_dir = dup_or_empty(p->run_dir);
	q->host = dup_or_empty(p->host);
	q->fingerprint = dup_or_empty(p->fingerprint);
	q->kernel = dup_or_empty(p->kernel);
	q->commit = dup_or_empty(p->commit);
	q->status = dup_or_empty(p->status);
	q->flags = dup_or_empty(p->flags);
	if (!q->run_id || !q->run_dir || !q->host || !q->fingerprint || !q->kernel ||
	    !q->commit || !q->status || !q->flags) {
		point_free(q);
		return -1;
	}
	s->n++;
	return 0;
}

void history_experiment_free(struct history_experiment *e)
{
	for (size_t i = 0; i < e->n; i++) {
		struct history_series *s = &e->s[i];

		for (size_t j = 0; j < s->n; j++)
			point_free(&s->pt[j]);
		free(s->pt);
		free(s->key);
		free(s->params_json);
		free(s->unit);
		stats_cp_free(&s->cp);
	}
	free(e->s);
	free(e->name);
	memset(e, 0, sizeof *e);
}

int history_analyse(struct history_experiment *e)
{
	for (size_t i = 0; i < e->n; i++) {
		struct history_series *s = &e->s[i];
		double *v = malloc((4 * s->n + 1) * sizeof *v);

		if (!v)
			return -1;
		for (size_t j = 0; j < s->n; j++) {
			v[j] = s->pt[j].est;
			v[s->n + j] = s->pt[j].lo;
			v[2 * s->n + j] = s->pt[j].hi;
			v[3 * s->n + j] = s->pt[j].level;
		}
		stats_cp_free(&s->cp);
		int rc = stats_changepoints(v, v + s->n, v + 2 * s->n, v + 3 * s->n, s->n, NULL,
					    &s->cp);
		free(v);
		if (rc < 0)
			return -1;
	}
	return 0;
}

enum history_direction history_direction_of_unit(const char *unit)
{
	size_t n = unit ? strlen(unit) : 0;

	if (n && units_is_time(unit, NULL))
		return HISTORY_DIR_TIME;
	if (n > 2 && strcmp(unit + n - 2, "/s") == 0)
		return HISTORY_DIR_RATE;
	return HISTORY_DIR_NONE;
}

const char *history_step_word(enum history_direction d, double delta)
{
	if (d == HISTORY_DIR_NONE)
		return delta > 0 ? "up" : "down";
	/* a bigger time is slower, a bigger rate faster */
	return (delta > 0) == (d == HISTORY_DIR_TIME) ? "slower" : "faster";
}

/* The median of the canaries of runs a..b of s (a run with none: NaN);
   *fp gets their machine, NULL when they are on more than one. */
static double canary_median(const struct history_series *s, size_t a, size_t b,
			    const char **fp)
{
	double *v = malloc((b - a + 2) * sizeof *v), m = NAN;
	size_t k = 0;

	*fp = a <= b && a < s->n ? s->pt[a].fingerprint : NULL;
	if (!v)
		return NAN;
	for (size_t i = a; i <= b && i < s->n; i++) {
		if (!(s->pt[i].canary_ns > 0) || !isfinite(s->pt[i].canary_ns)) {
			k = 0;
			break;
		}
		if (!*fp || strcmp(*fp, s->pt[i].fingerprint))
			*fp = NULL;
		v[k++] = s->pt[i].canary_ns;
	}
	if (k) {
		gsl_sort(v, 1, k);
		m = gsl_stats_median_from_sorted_data(v, 1, k);
	}
	free(v);
	return m;
}

double history_pace(const struct history_series *s, size_t i)
{
	double *v, m = NAN;
	size_t k = 0;

	if (i >= s->n || !(s->pt[i].canary_ns > 0) || !isfinite(s->pt[i].canary_ns) ||
	    !(v = malloc((s->n + 1) * sizeof *v)))
		return NAN;
	for (size_t j = 0; j < s->n; j++)
		if (s->pt[j].canary_ns > 0 && isfinite(s->pt[j].canary_ns) &&
		    !strcmp(s->pt[j].fingerprint, s->pt[i].fingerprint))
			v[k++] = s->pt[j].canary_ns;
	if (k >= HISTORY_PACE_RUNS) {
		gsl_sort(v, 1, k);
		m = s->pt[i].canary_ns / gsl_stats_median_from_sorted_data(v, 1, k);
	}
	free(v);
	return m;
}

double history_step_host(const struct history_series *s, const struct stats_cp_step *st)
{
	const struct stats_cp *cp = &s->cp;
	size_t j = 0, first, last;
	const char *fb, *fa;

	while (j < cp->nstep && &cp->step[j] != st)
		j++;
	if (j == cp->nstep)
		return NAN;
	/* the two segments the step joins */
	first = j ? cp->step[j - 1].at : 0;
	last = j + 1 < cp->nstep ? cp->step[j + 1].prev : s->n - 1;
	double before = canary_median(s, first, st->prev, &fb);
	double after = canary_median(s, st->at, last, &fa);

	if (!fb || !fa || strcmp(fb, fa) || !(before > 0) || !(after > 0))
		return NAN;
	return after / before;
}

int history_step_host_explains(const struct history_experiment *e,
			       const struct history_series *s, const struct stats_cp_step *st)
{
	double hr = history_step_host(s, st), change;

	if (e->dir == HISTORY_DIR_NONE || !isfinite(hr) || !(fabs(log(hr)) > HISTORY_HOST_BAND) ||
	    !(st->before > 0) || !(st->after > 0))
		return 0;
	/* as a time ratio: > 1 is slower, whichever way the probe counts */
	change = e->dir == HISTORY_DIR_RATE ? st->before / st->after : st->after / st->before;
	return (change > 1) == (hr > 1) && fabs(log(change)) <= HISTORY_HOST_REACH * fabs(log(hr));
}

int history_regressed(const struct history_experiment *e, const struct history_series *s)
{
	const struct stats_cp *cp = &s->cp;
	const struct stats_cp_step *last;

	if (e->dir == HISTORY_DIR_NONE || cp->nstep == 0 || cp->nseg < 2)
		return 0;
	/* the newest run with an estimate is in the last segment, which the
	   last real step starts: no later step has undone it.  A step the
	   machine's own pace explains is not the code's. */
	last = &cp->step[cp->nstep - 1];
	return strcmp(history_step_word(e->dir, last->delta), "slower") == 0 &&
	       !history_step_host_explains(e, s, last);
}

double history_display(const struct history_series *s, char *label, size_t len)
{
	double *v = malloc((s->n + 1) * sizeof *v), typical = NAN;
	size_t k = 0;

	if (v) {
		for (size_t i = 0; i < s->n; i++)
			if (isfinite(s->pt[i].est))
				v[k++] = s->pt[i].est;
		if (k) {
			gsl_sort(v, 1, k);
			typical = gsl_stats_median_from_sorted_data(v, 1, k);
		}
		free(v);
	}
	return units_display(s->unit, isfinite(typical) ? typical : 1, label, len, NULL);
}

void history_time(char *buf, size_t len, double t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!isfinite(t) || !gmtime_r(&tt, &tm)) {
		strf(buf, len, "?");
		return;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* Four significant digits (the tables' three cannot show a 0.5 % step
   beside its interval), no exponent for a large count. */
static void num(char *buf, size_t len, double v, double scale)
{
	v *= scale;
	if (!isfinite(v))
		strf(buf, len, "n/a");
	else if (fabs(v) >= 1e4)
		strf(buf, len, "%.0f", v);
	else
		strf(buf, len, "%.4g", v);
}

void history_number(char *buf, size_t len, double v, double scale)
{
	num(buf, len, v, scale);
}

void history_step_reason(char *buf, size_t len, const struct stats_cp_step *st, double scale,
			 const char *label)
{
	char b[32], bl[32], bh[32], a[32], al[32], ah[32], d[32], th[32], sc[32], why[96];
	double floor = 0.02 * fabs(st->before);

	num(b, sizeof b, st->before, scale);
	num(bl, sizeof bl, st->before_lo, scale);
	num(bh, sizeof bh, st->before_hi, scale);
	num(a, sizeof a, st->after, scale);
	num(al, sizeof al, st->after_lo, scale);
	num(ah, sizeof ah, st->after_hi, scale);
	num(d, sizeof d, fabs(st->delta), scale);
	num(th, sizeof th, st->threshold, scale);
	num(sc, sizeof sc, st->scatter, scale);
	/* which term of max(2 % of the level, k x scatter) set the threshold */
	if (isfinite(st->scatter) && st->scatter > 0 && st->threshold > floor)
		strf(why, sizeof why, "%.0f x the run-to-run scatter %s %s",
		     st->threshold / st->scatter, sc, label);
	else
		strf(why, sizeof why, "2 %% of the level");
	strf(buf, len, "%s [%s, %s] -> %s [%s, %s] %s, %s both intervals; step %s %s (%+.1f %%) "
	     "%s threshold %s %s (%s)",
	     b, bl, bh, a, al, ah, label, (st->why & STATS_STEP_OVERLAP) ? "within" : "outside",
	     d, label, 100 * st->rel, (st->why & STATS_STEP_SMALL) ? "<=" : ">", th, label, why);
}

/* The step starting at run index i, or NULL. */
static const struct stats_cp_step *step_at(const struct stats_cp *cp, size_t i)
{
	for (size_t j = 0; j < cp->nstep; j++)
		if (cp->step[j].at == i)
			return &cp->step[j];
	return NULL;
}

void history_step_host_text(char *buf, size_t len, const struct history_experiment *e,
			    const struct history_series *s, const struct stats_cp_step *st)
{
	double hr = history_step_host(s, st);

	if (!isfinite(hr) || !(fabs(log(hr)) > HISTORY_HOST_BAND))
		strf(buf, len, "%s", "");
	else if (history_step_host_explains(e, s, st))
		strf(buf, len, "the machine itself ran %.2fx %s in the runs after it (its canary): "
		     "put down to the host, not called a %s", hr > 1 ? hr : 1 / hr,
		     hr > 1 ? "slower" : "faster", hr > 1 ? "regression" : "speed-up");
	else if (e->dir == HISTORY_DIR_NONE)
		strf(buf, len, "the machine itself ran %.2fx %s in the runs after it (its canary)",
		     hr > 1 ? hr : 1 / hr, hr > 1 ? "slower" : "faster");
	else if ((hr > 1) == (strcmp(history_step_word(e->dir, st->delta), "slower") == 0))
		strf(buf, len, "the machine itself ran %.2fx %s in the runs after it (its canary): "
		     "too little to explain this step", hr > 1 ? hr : 1 / hr,
		     hr > 1 ? "slower" : "faster");
	else
		strf(buf, len, "the machine itself ran %.2fx %s in the runs after it (its canary): "
		     "the step is in spite of it", hr > 1 ? hr : 1 / hr, hr > 1 ? "slower" : "faster");
}

void history_pace_text(char *buf, size_t len, const struct history_series *s, size_t i)
{
	double pace = history_pace(s, i);

	if (!isfinite(pace))
		strf(buf, len, "-");
	else
		strf(buf, len, "%.2fx%s", pace,
		     fabs(log(pace)) > HISTORY_HOST_BAND ? pace > 1 ? " slow" : " fast" : "");
}

/*
 * Every string the text shows came from a store, which anyone may have
 * written (a shared PostgreSQL, a run folder imported from elsewhere): a
 * host name holding ESC[31m, a newline or a right-to-left override would
 * drive the terminal, break its row or turn the text around.  They are
 * shown escaped (text_escape: \x1b, \x0a, \u202e), so a row stays one line
 * and the terminal only ever gets printable text.
 */
enum { SHOWN_RUN, SHOWN_HOST, SHOWN_KERNEL, SHOWN_FLAGS, SHOWN_STATUS, SHOWN_N };

/* s escaped for the terminal, malloc'd; NULL when out of memory. */
static char *shown(const char *s)
{
	size_t n = 4 * strlen(s ? s : "") + 1;
	char *b = malloc(n);

	if (b)
		text_escape(s ? s : "", b, n);
	return b;
}

static const char *or_q(const char *s)
{
	return s ? s : "?";
}

/* The strings of point p as the text shows them, into v[SHOWN_N]. */
static void shown_point(const struct history_point *p, char **v)
{
	v[SHOWN_RUN] = shown(p->run_id);
	v[SHOWN_HOST] = shown(p->host);
	v[SHOWN_KERNEL] = shown(p->kernel);
	v[SHOWN_FLAGS] = shown(p->flags);
	v[SHOWN_STATUS] = shown(p->status);
}

static void print_series(FILE *f, const struct history_experiment *e,
			 const struct history_series *s)
{
	char label[32], t[32], est[32], lo[32], hi[32], ci[80], why[512], host[256], pace[32];
	double scale = history_display(s, label, sizeof label);
	size_t wid = 3, wh = 4, wk = 6;
	char **v = calloc(s->n * SHOWN_N + 1, sizeof *v), *name = shown(e->name),
	     *key = shown(s->key), *unit = shown(label);

	for (size_t i = 0; v && i < s->n; i++) {
		char **w = v + i * SHOWN_N;

		shown_point(&s->pt[i], w);
		wid = strlen(or_q(w[SHOWN_RUN])) > wid ? strlen(or_q(w[SHOWN_RUN])) : wid;
		wh = strlen(or_q(w[SHOWN_HOST])) > wh ? strlen(or_q(w[SHOWN_HOST])) : wh;
		wk = strlen(or_q(w[SHOWN_KERNEL])) > wk ? strlen(or_q(w[SHOWN_KERNEL])) : wk;
	}
	fprintf(f, "\n%s %s  (%zu run%s, %s)\n", or_q(name),
		*s->key ? or_q(key) : "(its only point)", s->n, s->n == 1 ? "" : "s", or_q(unit));
	fprintf(f, "  %-*s  %-19s  %-*s  %-*s  %10s  %-22s  %-10s  %s\n", (int)wid, "run",
		"started (UTC)", (int)wh, "host", (int)wk, "kernel", "estimate", "95% CI", "canary",
		"flags");
	for (size_t i = 0; i < s->n; i++) {
		const struct history_point *p = &s->pt[i];
		const struct stats_cp_step *st = step_at(&s->cp, i);
		char *const *w = v ? v + i * SHOWN_N : (char *[SHOWN_N]){ NULL };

		if (st) {
			history_step_reason(why, sizeof why, st, scale, or_q(unit));
			history_step_host_text(host, sizeof host, e, s, st);
			fprintf(f, "  -- change point: %s from here: %s%s%s\n",
				history_step_word(e->dir, st->delta), why, *host ? "; " : "", host);
		}
		history_time(t, sizeof t, p->started);
		num(est, sizeof est, p->est, scale);
		num(lo, sizeof lo, p->lo, scale);
		num(hi, sizeof hi, p->hi, scale);
		if (isfinite(p->lo) && isfinite(p->hi))
			strf(ci, sizeof ci, "[%s, %s]", lo, hi);
		else
			strf(ci, sizeof ci, "-");
		/* a run that did not complete (interrupted, failed points) says so */
		int odd = *p->status && strcmp(p->status, "ok") && strcmp(p->status, "complete");

		history_pace_text(pace, sizeof pace, s, i);
		/* no padding after the last column when the flags are empty */
		fprintf(f, "  %-*s  %-19s  %-*s  %-*s  %10s  %-22s  %-*s%s%s%s%s\n", (int)wid,
			or_q(w[SHOWN_RUN]), t, (int)wh, or_q(w[SHOWN_HOST]), (int)wk,
			or_q(w[SHOWN_KERNEL]), est, ci, *p->flags || odd ? 10 : 0, pace,
			*p->flags || odd ? "  " : "", *p->flags ? or_q(w[SHOWN_FLAGS]) : "",
			odd ? " status=" : "", odd ? or_q(w[SHOWN_STATUS]) : "");
	}
	for (size_t i = 0; v && i < s->n * SHOWN_N; i++)
		free(v[i]);
	free(v);
	free(name);
	free(key);
	free(unit);
	if (s->cp.nstep == 0)
		fprintf(f, "  no change point%s\n",
			s->cp.nseg < 2 && s->n < 2 ? " (one run: nothing to compare)" : "");
	else
		fprintf(f, "  %zu change point%s; newest run: %s\n", s->cp.nstep,
			s->cp.nstep == 1 ? "" : "s",
			history_regressed(e, s) ? "SLOWER than before its last change point"
			: history_step_host_explains(e, s, &s->cp.step[s->cp.nstep - 1])
				? "not a regression (the machine's own pace explains its last step)"
				: "not a regression");
}

void history_print(FILE *f, const struct history_experiment *e)
{
	char *name = shown(e->name);

	fprintf(f, "%s: %zu point%s; direction: %s (%s)\n", or_q(name), e->n, e->n == 1 ? "" : "s",
		e->dir == HISTORY_DIR_TIME ? "bigger is slower"
		: e->dir == HISTORY_DIR_RATE ? "bigger is faster" : "unknown (steps are up/down)",
		e->dir_source ? e->dir_source : "");
	free(name);
	for (size_t i = 0; i < e->n; i++)
		print_series(f, e, &e->s[i]);
}
