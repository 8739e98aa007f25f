/*
 * core_clock.c - the core clock, measured (machine.h), as lmbench's mhz
 * does it: a chain of dependent instructions whose latency is known (one
 * cycle for a register add) runs for a window of about a millisecond,
 * timed against CLOCK_MONOTONIC_RAW, and the chain's length over the time
 * is the clock the core ran at.  The TSC is read around the same window,
 * so the ratio of core cycles to TSC ticks needs no calibration of its own.
 * A second chain of multiplies (three cycles each) checks the first: two
 * instructions of different latency agreeing on one clock is the evidence
 * that neither was executed faster than its latency (an add of an
 * immediate can be, on recent Intel cores: see arch.c).
 *
 * Limits: the median of a few windows, on whatever CPU the runner is on
 * (recorded); a window in which the thread lost its CPU reads slow, and a
 * vCPU's stolen time is invisible from inside, so the spread is recorded
 * beside the median.
 */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonutil.h"
#include "machine/arch.h"
#include "machine/machine.h"
#include "probe_time.h"

#define MAX_REPEATS 64

struct win {
	double hz, ratio;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof v[0], cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef int (*chain_fn)(uint64_t);

/* One window: core Hz from the chain, and core cycles per TSC tick.
   Returns 1 when the thread was off its CPU for more than 2 % of it (its
   CPU time against the wall time): such a window times another task, not
   the chain; -1 when there is no chain. */
static int window(chain_fn chain, int latency, uint64_t iters, struct win *w)
{
	uint64_t c0 = pt_thread_cpu_ns(), n0 = pt_clock_ns(), t0 = pt_start();

	if (chain(iters) < 0)
		return -1;
	uint64_t t1 = pt_stop(), n1 = pt_clock_ns(), c1 = pt_thread_cpu_ns();
	double cycles = (double)iters * MACHINE_ARCH_LINKS * latency;

	if (n1 <= n0)
		return -1;
	w->hz = cycles * 1e9 / (double)(n1 - n0);
	w->ratio = PT_HAVE_TSC && t1 > t0 ? cycles / (double)(t1 - t0) : NAN;
	return c0 && c1 && (double)(c1 - c0) < 0.98 * (double)(n1 - n0);
}

/* Iterations for a window of window_s: a pilot of 1000 iterations (some
   100k cycles, tens of microseconds), scaled; the pilot is retried when
   the thread lost its CPU during it. */
static uint64_t size_window(chain_fn chain, int latency, double window_s)
{
	struct win w = { NAN, NAN };
	double it;
	int r = 1;

	for (int i = 0; i < 10 && r == 1; i++)
		r = window(chain, latency, 1000, &w);
	if (r < 0 || !(w.hz > 0))
		return 0;
	it = window_s * w.hz / (MACHINE_ARCH_LINKS * latency);
	return it < 100 ? 100 : (uint64_t)it;
}

/* What run() found. */
struct runstat {
	double hz;		/* median of the windows kept */
	double ratio;		/* median of their core cycles per TSC tick */
	double lo, hi;		/* slowest and fastest window kept */
	double q1, q3;		/* their quartiles */
	int kept, lost;
};

/* The p-quantile of sorted v[0..n-1], interpolated. */
static double quantile(const double *v, int n, double p)
{
	double x = p * (n - 1);
	int i = (int)x;

	return i + 1 < n ? v[i] + (x - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* `repeats` windows of chain in which the thread kept its CPU, out of at
   most 8 x repeats tried.  Returns the windows kept; -2 when fewer than 3
   were, with hz the fastest window of all tried (a lost CPU only makes a
   window slower: a lower bound of the clock); -1 when there is no
   chain. */
static int run(chain_fn chain, int latency, int repeats, double window_s, struct runstat *st)
{
	double hz[MAX_REPEATS], r[MAX_REPEATS], fastest = 0;
	struct win one;
	uint64_t iters = size_window(chain, latency, window_s);
	int n = 0, rc;

	*st = (struct runstat){ NAN, NAN, NAN, NAN, NAN, NAN, 0, 0 };
	if (!iters)
		return -1;
	for (int tries = 0; n < repeats && tries < 8 * repeats; tries++) {
		if ((rc = window(chain, latency, iters, &one)) < 0)
			return -1;
		if (one.hz > fastest)
			fastest = one.hz;
		if (rc == 0) {
			hz[n] = one.hz;
			r[n++] = one.ratio;
		} else {
			st->lost++;
		}
	}
	st->kept = n;
	if (n < 3 && n < repeats) {
		st->hz = fastest;
		return -2;
	}
	st->hz = median(hz, n);		/* sorts hz */
	st->ratio = isnan(r[0]) ? NAN : median(r, n);
	st->lo = hz[0];
	st->hi = hz[n - 1];
	st->q1 = quantile(hz, n, 0.25);
	st->q3 = quantile(hz, n, 0.75);
	return n;
}

/* The fastest and slowest cores of the last twenty years run between
   these; outside them the chain was not what it was taken for. */
#define HZ_MIN 2e8
#define HZ_MAX 1e10

int machine_core_clock(struct machine_core_clock *c, int repeats, double window_s)
{
	struct runstat st, ck;
	int cpu0 = sched_getcpu(), n;

	memset(c, 0, sizeof *c);
	c->hz = c->min_hz = c->max_hz = c->spread = c->iqr = c->tsc_ratio = c->check_hz = NAN;
	c->cpu = -1;
	c->repeats = repeats < 1 ? 1 : repeats > MAX_REPEATS ? MAX_REPEATS : repeats;
	c->window_s = window_s;
	c->method = machine_arch_add_method();
	if (!c->method) {
		c->repeats = 0;
		c->why_not = machine_arch_why_not();
		return -1;
	}
	n = run(machine_arch_add_chain, MACHINE_ARCH_ADD_LATENCY, c->repeats, window_s, &st);
	c->lost = st.lost;
	c->repeats = st.kept;
	if (n == -2) {
		c->hz = st.hz;
		c->why_not = "the thread kept losing its CPU (a busy host): hz is the fastest window, "
			     "a lower bound of the clock";
		return 0;
	}
	if (n < 0) {
		c->why_not = "the clock did not advance across the chain";
		return -1;
	}
	c->hz = st.hz;
	c->tsc_ratio = st.ratio;
	c->min_hz = st.lo;
	c->max_hz = st.hi;
	c->spread = (st.hi - st.lo) / st.hz;
	c->iqr = (st.q3 - st.q1) / st.hz;
	c->check_method = machine_arch_mul_method();
	if (c->check_method &&
	    run(machine_arch_mul_chain, MACHINE_ARCH_MUL_LATENCY, c->repeats, window_s, &ck) > 0) {
		c->check_hz = ck.hz;
		c->check_agrees = fabs(ck.hz - c->hz) <= MACHINE_CORE_CHECK_TOL * c->hz;
	}
	if (sched_getcpu() == cpu0)
		c->cpu = cpu0;
	if (!(c->hz >= HZ_MIN && c->hz <= HZ_MAX))
		c->why_not = "the measured clock is outside 0.2-10 GHz: the chain did not run at one "
			     "link per cycle";
	else if (!isnan(c->check_hz) && !c->check_agrees)
		c->why_not = "the add and multiply chains disagree by more than 10 %: one of them did "
			     "not run at its documented latency, or the clock moved between them";
	else if (c->iqr > MACHINE_CORE_IQR_MAX)
		c->why_not = "the middle half of the windows spread by more than 5 %: the clock "
			     "moved while it was measured, or the vCPU lost time to the host";
	c->holds = c->why_not == NULL;
	return 0;
}

double machine_core_hz(double *spread)
{
	struct runstat st;

	if (spread)
		*spread = NAN;
	if (!machine_arch_add_method() ||
	    run(machine_arch_add_chain, MACHINE_ARCH_ADD_LATENCY, 5, 0.001, &st) < 0)
		return NAN;
	if (spread)
		*spread = (st.hi - st.lo) / st.hz;
	return st.hz;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *machine_core_clock_json(const struct machine_core_clock *c)
{
	json_t *j = json_object(), *check = json_null();

	if (c->check_method && isfinite(c->check_hz)) {
		check = json_object();
		jsonutil_set(check, "method", jsonutil_text(c->check_method));
		jsonutil_set(check, "hz", num(c->check_hz));
		jsonutil_set(check, "agrees", json_boolean(c->check_agrees));
		jsonutil_set(check, "tolerance", json_real(MACHINE_CORE_CHECK_TOL));
	}
	jsonutil_set(j, "hz", num(c->hz));
	jsonutil_set(j, "min_hz", num(c->min_hz));
	jsonutil_set(j, "max_hz", num(c->max_hz));
	jsonutil_set(j, "spread", num(c->spread));
	jsonutil_set(j, "iqr", num(c->iqr));
	jsonutil_set(j, "tsc_ratio", num(c->tsc_ratio));
	jsonutil_set(j, "holds", json_boolean(c->holds));
	jsonutil_set(j, "method", c->method ? jsonutil_text(c->method) : json_null());
	jsonutil_set(j, "timed_against", c->method ? jsonutil_text(PT_HAVE_TSC ?
		"CLOCK_MONOTONIC_RAW, and the TSC for tsc_ratio" : "CLOCK_MONOTONIC_RAW") : json_null());
	jsonutil_set(j, "repeats", json_integer(c->repeats));
	jsonutil_set(j, "lost", json_integer(c->lost));
	jsonutil_set(j, "window_s", json_real(c->window_s));
	jsonutil_set(j, "cpu", c->cpu >= 0 ? json_integer(c->cpu) : json_null());
	jsonutil_set(j, "check", check);
	jsonutil_set(j, "why_not", c->why_not ? jsonutil_text(c->why_not) : json_null());
	return j;
}
