/*
 * test_drift.c - the run's drift check: stats_drift (stats/drift.c) on
 * canary series, steady and drifting, and canary_verdict (engine/canary.c)
 * naming the passes of rounds a drifting timing brackets.  The series are
 * shaped on real runs: a steady host's canary varies 1-4 % over a run; the
 * slow phase this check was made for ran loops 1.8x slower.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/canary.h"
#include "stats/stats.h"
#include "tap.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct drift_case {
	const char *name;
	double c[12]; size_t n;
	double want_ref, want_spread;
	int want_off[12];
};

static const struct drift_case cases[] = {
	{ "steady (3.7 % over the run): nothing off", { 3.49, 3.48, 3.39, 3.37, 3.40, 3.37 }, 6,
	  3.395, 3.49 / 3.37, { 0, 0, 0, 0, 0, 0 } },
	{ "a slow phase in the first two passes (1.8x)", { 5.4, 5.3, 3.0, 3.0, 3.1, 3.0 }, 6,
	  3.05, 5.4 / 3.0, { 1, 1, 0, 0, 0, 0 } },
	{ "faster at the end (the host calmed down)", { 3.0, 3.0, 3.0, 3.0, 2.0, 2.0 }, 6,
	  3.0, 1.5, { 0, 0, 0, 0, 1, 1 } },
	{ "just inside 10 % is not off, just outside is", { 1.0, 1.0, 1.0, 1.099, 0.90 }, 5,
	  1.0, 1.099 / 0.90, { 0, 0, 0, 0, 1 } },
};

static void drift_cases(void)
{
	for (size_t i = 0; i < N_OF(cases); i++) {
		const struct drift_case *k = &cases[i];
		int off[12];
		double ref, spread = stats_drift(k->c, k->n, CANARY_THRESHOLD, &ref, off);
		int same = 1;

		is_num(ref, k->want_ref, 1e-9, k->name);
		is_num(spread, k->want_spread, 1e-9, k->name);
		for (size_t j = 0; j < k->n; j++)
			same &= off[j] == k->want_off[j];
		ok(same, "%s: the timings off the median", k->name);
	}
	double ref;
	ok(isnan(stats_drift(NULL, 0, CANARY_THRESHOLD, &ref, NULL)) && isnan(ref),
	   "no timing: no verdict");
}

/* A series as the engine takes it: before passes 0..4, then after. */
static json_t *verdict_of(const double *ms, size_t n, int passes, int *drifted)
{
	struct canary c = { .iterations = 1, .cpu = 0, .cap = n };

	c.ms = calloc(n, sizeof *c.ms);
	c.before = calloc(n, sizeof *c.before);
	for (size_t i = 0; i < n; i++) {
		c.ms[i] = ms[i];
		c.before[i] = i + 1 == n ? -1 : (int)i;
	}
	c.n = n;
	json_t *v = canary_verdict(&c, passes, drifted);
	canary_free(&c);
	return v;
}

static void verdicts(void)
{
	static const double slow_start[] = { 5.4, 5.3, 3.0, 3.0, 3.1, 3.0 };
	static const double steady[] = { 3.49, 3.48, 3.39, 3.37, 3.40, 3.37 };
	static const double slow_end[] = { 3.0, 3.0, 3.0, 3.0, 3.0, 6.0 };
	int d[5];
	json_t *v;

	v = verdict_of(slow_start, 6, 5, d);
	ok(!strcmp(json_string_value(json_object_get(v, "verdict")), "drifted"),
	   "a slow start is a drifted run");
	/* timings 0 and 1 (before passes 0 and 1) are off: passes 0 and 1 */
	ok(d[0] && d[1] && !d[2] && !d[3] && !d[4], "the passes it touched: 0 and 1 (%d%d%d%d%d)",
	   d[0], d[1], d[2], d[3], d[4]);
	ok(json_array_size(json_object_get(v, "drifted_rounds")) == 2, "drifted_rounds lists 2");
	json_decref(v);

	v = verdict_of(steady, 6, 5, d);
	ok(!strcmp(json_string_value(json_object_get(v, "verdict")), "steady"), "steady is steady");
	ok(!d[0] && !d[1] && !d[2] && !d[3] && !d[4], "no pass drifted");
	json_decref(v);

	/* only the timing after the last pass is off: the last pass ended slow */
	v = verdict_of(slow_end, 6, 5, d);
	ok(!d[0] && !d[1] && !d[2] && !d[3] && d[4], "the timing after the end names the last pass");
	json_decref(v);

	v = verdict_of(steady, 1, 0, d);
	ok(!strcmp(json_string_value(json_object_get(v, "verdict")), "not measured"),
	   "one timing (an interrupted run): not measured");
	json_decref(v);
}

/* Mid-run, as adaptive rounds ask before each pass: the passes so far
   that the timings so far bracket. */
static void drifted_so_far(void)
{
	struct canary c = { .iterations = 1, .cpu = 0 };
	double ms[] = { 3.0, 3.0, 3.0, 6.0 };
	int d[4] = { 9, 9, 9, 9 };

	c.ms = ms;
	c.before = (int[]){ 0, 1, 2, 3 };
	c.n = 2;
	ok(canary_drifted(&c, 1, d) == 0 && d[0] == 0, "two steady timings: no pass drifted");
	c.n = 4;	/* the timing before pass 3 is off: pass 2 ran slow */
	ok(canary_drifted(&c, 3, d) == 1 && !d[0] && !d[1] && d[2], "the pass before a slow timing");
	c.before[3] = -1;
	canary_last(&c);
	ok(c.before[3] == -1, "canary_last relabels the last timing as after the last pass");
}

int main(void)
{
	drift_cases();
	verdicts();
	drifted_so_far();
	return done_testing();
}
