/*
 * canary.c - the drift check's workload (canary.h): a chain of dependent
 * multiply-adds, one after another, so its time is the core's latency for
 * that chain and nothing else: no memory, no system call, no branch to
 * mispredict.  It moves with the core's clock and with time stolen from the
 * vCPU, the two ways a host changes speed under a run.  Pinned to the CPU
 * the points use by default, and timed against CLOCK_MONOTONIC_RAW.
 */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/canary.h"
#include "engine/wake.h"
#include "lib/jsonutil.h"
#include "machine/machine.h"
#include "spec/spec.h"
#include "stats/stats.h"

/* Timings per take.  Kept: the mean of all but the longest.  Not the
   median: the scheduler shares a CPU in slices longer than one timing (4 ms
   seen, against 2 ms), so beside a busy loop each timing is either whole
   (2 ms) or cut by one of its slices (6 ms), about half of each, and a
   median of 7 came out at 2 ms in half the takes: blind to a CPU shared
   half and half.  The mean sees the share; leaving out the longest timing
   keeps one stray preemption from moving it. */
#define CANARY_REPS 7
#define CANARY_TARGET_S 0.002		/* one timing */

static double raw_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t chain(uint64_t n)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));	/* one link at a time, never folded */
	}
	return x;
}

static double mean_but_longest(const double *t, int n)
{
	double sum = 0, longest = t[0];

	for (int i = 0; i < n; i++) {
		sum += t[i];
		longest = t[i] > longest ? t[i] : longest;
	}
	return n > 1 ? (sum - longest) / (n - 1) : sum;
}

static double time_chain(uint64_t n)
{
	double t0 = raw_s();
	uint64_t x = chain(n);

	__asm__ volatile("" : : "r"(x));
	return raw_s() - t0;
}

/* On the canary's CPU for the duration, then back where the runner was. */
static int pin(const struct canary *c, cpu_set_t *old)
{
	cpu_set_t one;

	if (c->cpu < 0 || sched_getaffinity(0, sizeof *old, old) < 0)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(c->cpu, &one);
	return sched_setaffinity(0, sizeof one, &one) == 0;
}

/* A comma-separated list of positive numbers from the environment (a
   test's script), or NULL. */
static double *load_list(const char *name, size_t *n)
{
	const char *env = getenv(name);
	size_t cap = 1;
	double *v;
	char *end;

	*n = 0;
	if (!env || !*env)
		return NULL;
	for (const char *p = env; *p; p++)
		cap += *p == ',';
	if (!(v = calloc(cap, sizeof *v)))
		return NULL;
	for (const char *p = env; *p && *n < cap; p = *end ? end + 1 : end) {
		double x = strtod(p, &end);
		if (end == p || !(x > 0))
			break;
		v[(*n)++] = x;
	}
	if (!*n) {
		free(v);
		v = NULL;
	}
	return v;
}

/* SYSMETER_CANARY_MS (timings, ms) and SYSMETER_WAKE_US (round trips, us). */
static void load_script(struct canary *c)
{
	c->script = load_list("SYSMETER_CANARY_MS", &c->n_script);
	c->wake_script = load_list("SYSMETER_WAKE_US", &c->n_wake_script);
}

/* Exchanges per wake-up figure: about 1 ms at tens of microseconds each. */
#define WAKE_EXCHANGES 15
#define WAKE_WORK "a one-byte round trip over two pipes to a thread on another CPU, " \
	"the median of 15"

int canary_init(struct canary *c)
{
	cpu_set_t old;
	int pinned;

	*c = (struct canary){.iterations = 1024, .cpu = SPEC_DEFAULT_CPU};
	load_script(c);
	if (c->script) {
		c->cap = 16;
		c->ms = calloc(c->cap, sizeof *c->ms);
		c->before = calloc(c->cap, sizeof *c->before);
		c->core_hz = calloc(c->cap, sizeof *c->core_hz);
		c->wake_us = calloc(c->cap, sizeof *c->wake_us);
		return c->ms && c->before && c->core_hz && c->wake_us ? 0 : -1;
	}
	pinned = pin(c, &old);
	if (!pinned)
		c->cpu = -1;
	while (c->iterations < (1ULL << 40) && time_chain(c->iterations) < CANARY_TARGET_S / 4)
		c->iterations *= 2;
	c->iterations *= 4;
	if (pinned)
		sched_setaffinity(0, sizeof old, &old);
	c->cap = 16;
	c->ms = calloc(c->cap, sizeof *c->ms);
	c->before = calloc(c->cap, sizeof *c->before);
	c->core_hz = calloc(c->cap, sizeof *c->core_hz);
	c->wake_us = calloc(c->cap, sizeof *c->wake_us);
	return c->ms && c->before && c->core_hz && c->wake_us ? 0 : -1;
}

double canary_take(struct canary *c, int round)
{
	double t[CANARY_REPS], ms;
	cpu_set_t old;
	int pinned;

	if (!c->ms || !c->before || !c->core_hz || !c->wake_us)
		return NAN;
	if (c->n == c->cap) {
		double *m = realloc(c->ms, 2 * c->cap * sizeof *m);

		if (!m)
			return NAN;
		c->ms = m;
		int *b = realloc(c->before, 2 * c->cap * sizeof *b);
		if (!b)
			return NAN;
		c->before = b;
		double *h = realloc(c->core_hz, 2 * c->cap * sizeof *h);
		if (!h)
			return NAN;
		c->core_hz = h;
		double *w = realloc(c->wake_us, 2 * c->cap * sizeof *w);
		if (!w)
			return NAN;
		c->wake_us = w;
		c->cap *= 2;
	}
	if (c->script) {
		ms = c->script[c->n < c->n_script ? c->n : c->n_script - 1];
		c->core_hz[c->n] = NAN;
		c->wake_us[c->n] = c->wake_script ? c->wake_script[c->n < c->n_wake_script
								    ? c->n : c->n_wake_script - 1]
						  : NAN;
	} else {
		pinned = pin(c, &old);
		for (int i = 0; i < CANARY_REPS; i++)
			t[i] = time_chain(c->iterations);
		c->core_hz[c->n] = machine_core_hz(NULL);
		c->wake_us[c->n] = pinned ? wake_round_trip_us(c->cpu, &old, WAKE_EXCHANGES) : NAN;
		if (pinned)
			sched_setaffinity(0, sizeof old, &old);
		ms = 1e3 * mean_but_longest(t, CANARY_REPS);
	}
	c->ms[c->n] = ms;
	c->before[c->n] = round;
	c->n++;
	return ms;
}

/* The finite values of a[0..n) (a may be NULL: none) in a new array,
   their count in *k and their range in *lo, *hi; NULL when out of memory.
   A take whose side measurement failed is NaN and counts for nothing. */
static double *finite_takes(const double *a, size_t n, size_t *k, double *lo, double *hi)
{
	double *v = calloc(n + 1, sizeof *v);

	*k = 0;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; v && a && i < n; i++)
		if (isfinite(a[i])) {
			v[(*k)++] = a[i];
			*lo = fmin(*lo, a[i]);
			*hi = fmax(*hi, a[i]);
		}
	return v;
}

/* The core clock over the run's takes: did it hold still? */
static json_t *core_clock_verdict(const struct canary *c)
{
	double lo, hi, med, spread, iqr;
	size_t k;
	double *v = finite_takes(c->core_hz, c->n, &k, &lo, &hi);
	json_t *o;

	if (!v)
		return json_null();
	if (k < 2) {
		free(v);
		return json_pack("{s:n,s:n,s:n,s:n,s:I,s:n}", "min_hz", "max_hz", "median_hz",
				 "spread", "takes", (json_int_t)k, "steady");
	}
	med = stats_quantile(v, k, 0.5);
	spread = (hi - lo) / med;
	/* the middle half, as the start-of-run clock's `holds` judges its
	   windows: one take of 5 ms caught in a boost or a preemption (seen:
	   one take of six at 2.96 GHz among 2.45-2.52, the canary beside it
	   within 8 %) does not decide */
	iqr = (stats_quantile(v, k, 0.75) - stats_quantile(v, k, 0.25)) / med;
	o = json_pack("{s:f,s:f,s:f,s:f,s:f,s:I,s:b,s:f}", "min_hz", lo, "max_hz", hi, "median_hz",
		      med, "spread", spread, "iqr", iqr, "takes", (json_int_t)k, "steady",
		      iqr <= CANARY_CORE_STEADY, "threshold", CANARY_CORE_STEADY);
	free(v);
	return o;
}

/* The wake-up round trips over the run's takes: the run's level of it
   (the median) is what the store compares between runs. */
static json_t *wake_verdict(const struct canary *c)
{
	double lo, hi;
	size_t k;
	double *v = finite_takes(c->wake_us, c->n, &k, &lo, &hi);
	json_t *o;

	if (!v)
		return json_null();
	if (k == 0)
		o = json_pack("{s:s,s:n,s:n,s:n,s:I}", "work", WAKE_WORK, "median_us", "min_us",
			      "max_us", "takes", (json_int_t)0);
	else
		o = json_pack("{s:s,s:f,s:f,s:f,s:I}", "work",
			      c->wake_script ? "scripted by SYSMETER_WAKE_US (a test)" : WAKE_WORK,
			      "median_us", stats_quantile(v, k, 0.5), "min_us", lo, "max_us", hi,
			      "takes", (json_int_t)k);
	free(v);
	return o;
}

void canary_last(struct canary *c)
{
	if (c->n)
		c->before[c->n - 1] = -1;
}

/* off[i] for every timing (stats_drift), and the passes they bracket: a
   timing off the median marks the pass after it and the one before. */
static int mark(const struct canary *c, int passes, int *off, int *drifted)
{
	int any = 0;

	for (int r = 0; r < passes; r++)
		drifted[r] = 0;
	if (!off || c->n < 2)
		return 0;
	double ref;
	stats_drift(c->ms, c->n, CANARY_THRESHOLD, &ref, off);
	for (size_t i = 0; i < c->n; i++) {
		if (!off[i])
			continue;
		int after = c->before[i] < 0 ? passes : c->before[i];
		if (after < passes)
			drifted[after] = 1;
		if (after > 0 && after - 1 < passes)
			drifted[after - 1] = 1;
	}
	for (int r = 0; r < passes; r++)
		any += drifted[r];
	return any;
}

int canary_drifted(const struct canary *c, int passes, int *drifted)
{
	int *off = calloc(c->n + 1, sizeof *off);
	int n;

	if (!off) {
		for (int r = 0; r < passes; r++)
			drifted[r] = 0;
		return 0;
	}
	n = mark(c, passes, off, drifted);
	free(off);
	return n;
}

json_t *canary_verdict(const struct canary *c, int rounds, int *drifted)
{
	json_t *d = json_object(), *timings = json_array(), *dr = json_array();
	int *off = calloc(c->n + 1, sizeof *off);
	double ref = NAN, spread = NAN;
	int any;

	if (off && c->n >= 2)
		spread = stats_drift(c->ms, c->n, CANARY_THRESHOLD, &ref, off);
	any = mark(c, rounds, off, drifted) > 0;
	for (size_t i = 0; i < c->n; i++)
		jsonutil_append(timings, json_pack("{s:o,s:f,s:b,s:o,s:o}", "before_round",
			c->before[i] < 0 ? json_null() : json_integer(c->before[i]), "ms", c->ms[i],
			"off", off && c->n >= 2 && off[i], "core_hz",
			c->core_hz && isfinite(c->core_hz[i]) ? json_real(c->core_hz[i]) : json_null(),
			"wake_us",
			c->wake_us && isfinite(c->wake_us[i]) ? json_real(c->wake_us[i]) : json_null()));
	for (int r = 0; r < rounds; r++)
		if (drifted[r])
			jsonutil_append(dr, json_integer(r));
	jsonutil_set(d, "canary", json_pack("{s:s,s:I,s:o,s:f}", "work",
		c->script ? "scripted by SYSMETER_CANARY_MS (a test): no workload was timed"
			  : "a chain of dependent 64-bit multiply-adds, timed 7 times, the mean of all but the longest kept",
		"iterations", (json_int_t)c->iterations, "cpu", c->cpu < 0 ? json_null() : json_integer(c->cpu),
		"threshold", CANARY_THRESHOLD));
	jsonutil_set(d, "timings", timings);
	jsonutil_set(d, "reference_ms", isfinite(ref) ? json_real(ref) : json_null());
	jsonutil_set(d, "spread", isfinite(spread) ? json_real(spread) : json_null());
	jsonutil_set(d, "verdict", jsonutil_text(c->n < 2 ? "not measured" : any ? "drifted"
							: "steady"));
	jsonutil_set(d, "drifted_rounds", dr);
	jsonutil_set(d, "core_clock", core_clock_verdict(c));
	jsonutil_set(d, "wake", wake_verdict(c));
	free(off);
	return d;
}

void canary_free(struct canary *c)
{
	free(c->ms);
	free(c->before);
	free(c->core_hz);
	free(c->wake_us);
	free(c->script);
	free(c->wake_script);
	c->ms = NULL;
	c->before = NULL;
	c->core_hz = NULL;
	c->wake_us = NULL;
	c->script = NULL;
	c->wake_script = NULL;
}
