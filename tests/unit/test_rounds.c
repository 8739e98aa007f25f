/*
 * test_rounds.c - a point's interval from its rounds (stats_rounds_interval)
 * and the adaptive-rounds rule (stats_rounds_decide, stats_rounds_overall,
 * stats/rounds.c): when a point takes another round, when it stops and
 * why.  Rule of the cases: min 3, max 8, target 5 %, no budget unless said.
 */
#include <math.h>
#include <string.h>

#include "stats/stats.h"
#include "tap.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define X NAN

struct rounds_case {
	const char *name;
	double est[10]; size_t n;
	unsigned char drifted[10];	/* all 0: none */
	enum stats_rounds_stop want;
	int want_drift;
};

static const struct rounds_case cases[] = {
	{ "3 rounds that agree (their range +-0.75 %): target met", { 100, 101, 99.5 }, 3, {0},
	  STATS_ROUNDS_TARGET, 0 },
	{ "3 rounds that disagree: another round", { 100, 130, 80 }, 3, {0}, STATS_ROUNDS_MORE, 0 },
	{ "still wide at max (8): max reached", { 100, 130, 80, 120, 90, 70, 125, 100 }, 8, {0},
	  STATS_ROUNDS_MAX, 0 },
	{ "fewer than min rounds: always another", { 100, 100 }, 2, {0}, STATS_ROUNDS_MORE, 0 },
	{ "agreeing rounds, but round 0 ran in a drifted pass: another (2 clean < min 3)",
	  { 100, 101, 99.5 }, 3, {1, 0, 0}, STATS_ROUNDS_MORE, 1 },
	{ "... and with a 4th, clean round: target met", { 100, 101, 99.5, 100.2 }, 4, {1, 0, 0, 0},
	  STATS_ROUNDS_TARGET, 0 },
	{ "drifted passes up to max: max reached, for the drift", { 100, 100, 100, 100, 100, 100, 100, 100 },
	  8, {1, 1, 1, 1, 1, 1, 0, 0}, STATS_ROUNDS_MAX, 1 },
	{ "one round with an estimate: no estimate (failing rounds would fail again)", { X, 100, X }, 3,
	  {0}, STATS_ROUNDS_NO_ESTIMATE, 0 },
	{ "a median of 0: never within a relative target", { -1, 0, 1 }, 3, {0}, STATS_ROUNDS_MORE, 0 },
	{ "5 rounds: the range, exactly 5 % either side: target met", { 95, 100, 100, 100, 105 }, 5,
	  {0}, STATS_ROUNDS_TARGET, 0 },
	{ "5 rounds: the range, 5.5 % either side: another", { 94, 100, 100, 100, 105 }, 5, {0},
	  STATS_ROUNDS_MORE, 0 },
	{ "9 rounds: [x(2), x(8)], the far ends do not count", { 50, 99, 100, 100, 100, 100, 100, 101, 200 },
	  9, {0}, STATS_ROUNDS_TARGET, 0 },
};

static const struct stats_rounds_rule rule = { 3, 8, 0.05, 0 };

static void decide_cases(void)
{
	for (size_t i = 0; i < N_OF(cases); i++) {
		const struct rounds_case *k = &cases[i];
		struct stats_rounds_point p = { .est = k->est, .drifted = k->drifted, .n = k->n,
						.cost_s = 1 };
		size_t more = stats_rounds_decide(&p, 1, &rule, 0);

		ok(p.stop == k->want && more == (k->want == STATS_ROUNDS_MORE),
		   "%s (got %s, %zu wanting)", k->name, stats_rounds_stop_name(p.stop), more);
		ok(p.drift == k->want_drift, "%s: drift %d", k->name, p.drift);
	}
	/* the relative half-width recorded: half the rounds' range over
	   their median (no t-interval, 2.5 times as wide here) */
	double e[] = { 100, 101, 99.5 };
	struct stats_rounds_point p = { .est = e, .n = 3 };
	stats_rounds_decide(&p, 1, &rule, 0);
	is_num(p.rel_half, 0.75 / 100, 1e-9, "rel_half of 3 rounds: half their range over the median");
}

static void budget_cases(void)
{
	double noisy[] = { 100, 130, 80 }, two[] = { 100, 130 };
	struct stats_rounds_rule b = { 3, 8, 0.05, 5.0 };
	struct stats_rounds_point p[2];
	size_t more;

	memset(p, 0, sizeof p);
	p[0] = (struct stats_rounds_point){ .est = noisy, .n = 3, .cost_s = 1 };
	p[1] = (struct stats_rounds_point){ .est = noisy, .n = 3, .cost_s = 1 };
	more = stats_rounds_decide(p, 2, &b, 3.0);
	ok(more == 2 && p[0].stop == STATS_ROUNDS_MORE && p[1].stop == STATS_ROUNDS_MORE,
	   "3 s spent + 2 s wanted = the 5 s budget: both take another round");
	more = stats_rounds_decide(p, 2, &b, 3.5);
	ok(more == 0 && p[0].stop == STATS_ROUNDS_BUDGET && p[1].stop == STATS_ROUNDS_BUDGET,
	   "3.5 s spent + 2 s wanted > 5 s: both stop at the budget");
	p[1] = (struct stats_rounds_point){ .est = two, .n = 2, .cost_s = 1 };
	more = stats_rounds_decide(p, 2, &b, 10.0);
	ok(more == 1 && p[0].stop == STATS_ROUNDS_BUDGET && p[1].stop == STATS_ROUNDS_MORE,
	   "the budget never cuts a point's first min rounds");
	b.budget_s = 0;
	more = stats_rounds_decide(p, 2, &b, 1e9);
	ok(more == 2, "budget 0: no limit");
}

static void overall_cases(void)
{
	enum stats_rounds_stop a[] = { STATS_ROUNDS_TARGET, STATS_ROUNDS_MAX, STATS_ROUNDS_TARGET };
	enum stats_rounds_stop b[] = { STATS_ROUNDS_TARGET, STATS_ROUNDS_BUDGET, STATS_ROUNDS_MAX };
	enum stats_rounds_stop c[] = { STATS_ROUNDS_NO_ESTIMATE, STATS_ROUNDS_TARGET };
	enum stats_rounds_stop d[] = { STATS_ROUNDS_NO_ESTIMATE };
	enum stats_rounds_stop e[] = { STATS_ROUNDS_MAX, STATS_ROUNDS_INTERRUPTED };

	is_str(stats_rounds_stop_name(stats_rounds_overall(a, 3)), "max reached", "target and max: max reached");
	is_str(stats_rounds_stop_name(stats_rounds_overall(b, 3)), "budget", "budget before max");
	is_str(stats_rounds_stop_name(stats_rounds_overall(c, 2)), "target met",
	       "a point with no estimate does not hide the others' target");
	is_str(stats_rounds_stop_name(stats_rounds_overall(d, 1)), "no estimate", "none had one");
	is_str(stats_rounds_stop_name(stats_rounds_overall(e, 2)), "interrupted", "interrupted first");
	is_str(stats_rounds_stop_name(STATS_ROUNDS_FIXED), "fixed", "rounds: N is fixed");
}

static void interval_cases(void)
{
	double five[] = { 3, 1, 2, 5, 4 }, three[] = { 1, 2, 4 }, one[] = { 7, X };
	double lo, hi, cv, level, med;
	const char *method;
	size_t k;

	med = stats_rounds_interval(five, 5, &lo, &hi, &k, &cv, &method, &level);
	ok(med == 3 && lo == 1 && hi == 5 && k == 5 && !strcmp(method, "median_rounds") &&
	   level == 0.9375, "5 rounds: median, range, 93.75 %%");
	med = stats_rounds_interval(three, 3, &lo, &hi, &k, &cv, &method, &level);
	ok(med == 2 && lo == 1 && hi == 4 && !strcmp(method, "median_rounds") && level == 0.75,
	   "3 rounds: median, their range, 75 %%");
	double two[] = { 10, 30 };
	med = stats_rounds_interval(two, 2, &lo, &hi, &k, &cv, &method, &level);
	ok(med == 20 && lo == 10 && hi == 30 && level == 0.5 && lo > 0,
	   "2 rounds: their range at 50 %%, never below zero (t: 20 +- 127)");
	med = stats_rounds_interval(one, 2, &lo, &hi, &k, &cv, &method, &level);
	ok(med == 7 && k == 1 && !method && isnan(lo), "1 finite round: an estimate, no interval");
}

int main(void)
{
	decide_cases();
	budget_cases();
	overall_cases();
	interval_cases();
	return done_testing();
}
