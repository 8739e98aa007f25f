/*
 * timer - the cost of reading a clock once.
 *
 * What:   one read of the chosen clock (`clock`):
 *           rdtsc              the bare, unserialised rdtsc instruction (on
 *                              aarch64: a bare read of cntvct_el0, no isb)
 *           rdtscp             the bare rdtscp instruction (waits for earlier
 *                              instructions, not for later ones; no lfence);
 *                              x86-64 only, skipped elsewhere
 *           clock_gettime      clock_gettime(CLOCK_MONOTONIC): glibc -> vDSO
 *           clock_gettime_raw  clock_gettime(CLOCK_MONOTONIC_RAW): same path
 *         The serialised pair every sample is timed with (lfence;rdtsc ...
 *         rdtscp;lfence) is the null probe's figure.
 * Unit:   ns per read.
 * Method: `iterations` reads back to back, unrolled by 8, each result sunk
 *         (pt_sink_u64) so none can be dropped or merged; one timed region
 *         around them; ticks / iterations through host->tsc_hz.  Reads do
 *         not depend on each other, so this is the amortised (throughput)
 *         cost the way a timed loop pays it, not the latency of one isolated
 *         read.  After the timed region, untimed, 4096 consecutive reads
 *         give two secondary metrics, `resolution_ns` (the smallest nonzero
 *         step between consecutive reads) and `step_median_ns` (their
 *         median nonzero step: the clock's granularity or the cost of a
 *         read, whichever is larger), and check that the clock never goes
 *         backwards (reported by sanity()).  The two differ where a clock
 *         advances in coarse steps but never returns the same value twice:
 *         an AMD EPYC KVM guest's TSC steps by 26 ticks (10 ns) and shows
 *         1-tick steps between reads inside one step.
 * Confounders: rdtsc/rdtscp are microcoded (tens of core cycles on Zen);
 *         their cost is in core cycles while the figure is converted with
 *         the constant TSC rate, so it moves with boost.  Under KVM they
 *         do not exit (hardware TSC offset/scaling) unless the host traps
 *         them; clock_gettime stays in the vDSO only while the guest's
 *         clocksource is tsc (or kvm-clock with a stable TSC): with another
 *         clocksource it becomes a real system call, ten times slower.
 *         Interrupts and steal time land in some samples (outliers).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe.h"
#include "probe_time.h"

/* Consecutive reads per sample for resolution and monotonicity (untimed). */
#define TIMER_CHECK_READS 4096

enum timer_clock { CLK_RDTSC, CLK_RDTSCP, CLK_MONO, CLK_MONO_RAW };

struct timer_state {
	enum timer_clock clk;
	uint64_t backwards;		/* consecutive reads that went back */
	uint64_t checked;		/* reads checked for that */
	uint64_t first_back_prev, first_back_cur;
	uint64_t steps[TIMER_CHECK_READS];	/* nonzero steps of one check */
};

struct timer_cfg {
	int clock;			/* enum timer_clock */
};

static const struct probe_param timer_params[] = {
	PROBE_PARAM_CHOICE(struct timer_cfg, clock, "rdtscp",
		"clock read: bare rdtsc, bare rdtscp, or clock_gettime(CLOCK_MONOTONIC[_RAW])",
		{ "rdtsc", CLK_RDTSC }, { "rdtscp", CLK_RDTSCP }, { "clock_gettime", CLK_MONO },
		{ "clock_gettime_raw", CLK_MONO_RAW }),
	PROBE_PARAM_END,
};

static const struct probe_metric timer_metrics[] = {
	{ .name = "resolution_ns", .unit = "ns",
	  .help = "smallest nonzero step between consecutive reads" },
	{ .name = "step_median_ns", .unit = "ns",
	  .help = "median nonzero step between consecutive reads (granularity or read cost)" },
	{ .name = NULL },
};

static inline uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* One read of clock `c`, in its own unit (counter ticks or ns).  Always
   inlined with a constant `c`, so every loop below has a single kind of read. */
static inline __attribute__((always_inline)) uint64_t read_clock(enum timer_clock c)
{
	struct timespec ts;

	switch (c) {
	case CLK_RDTSC:
		return pt_rdtsc_raw();
	case CLK_RDTSCP:
		return pt_rdtscp_raw();	/* where there is none, setup skips */
	case CLK_MONO:
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return timespec_ns(&ts);
	case CLK_MONO_RAW:
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		return timespec_ns(&ts);
	}
	return 0;
}

/* `n` reads back to back, unrolled by 8; returns the ticks they took. */
static inline __attribute__((always_inline)) uint64_t timed_reads(enum timer_clock c,
								  uint64_t n)
{
	uint64_t t0 = pt_start();

	for (uint64_t q = n / 8; q > 0; q--) {
		pt_sink_u64(read_clock(c));
		pt_sink_u64(read_clock(c));
		pt_sink_u64(read_clock(c));
		pt_sink_u64(read_clock(c));
		pt_sink_u64(read_clock(c));
		pt_sink_u64(read_clock(c));
		pt_sink_u64(read_clock(c));
		pt_sink_u64(read_clock(c));
	}
	for (uint64_t r = n % 8; r > 0; r--)
		pt_sink_u64(read_clock(c));
	return pt_stop() - t0;
}

/* Untimed: TIMER_CHECK_READS consecutive reads; their nonzero steps go to
   st->steps (the count is returned) and steps that went backwards are
   counted in the state. */
static inline __attribute__((always_inline)) size_t check_reads(enum timer_clock c,
								struct timer_state *st)
{
	uint64_t prev = read_clock(c);
	size_t n = 0;

	for (int k = 0; k < TIMER_CHECK_READS; k++) {
		uint64_t cur = read_clock(c);

		if (cur < prev) {
			if (st->backwards++ == 0) {
				st->first_back_prev = prev;
				st->first_back_cur = cur;
			}
		} else if (cur > prev) {
			st->steps[n++] = cur - prev;
		}
		prev = cur;
	}
	st->checked += TIMER_CHECK_READS;
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A step of clock `c` in ns (TSC ticks at hz); NaN for "no step seen". */
static double step_to_ns(const struct timer_state *st, double hz, uint64_t step)
{
	if (step == 0)
		return NAN;
	if (st->clk == CLK_RDTSC || st->clk == CLK_RDTSCP)
		return pt_ticks_to_ns(step, hz);
	return (double)step;
}

static int timer_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		       size_t errlen)
{
	struct timer_state *st = state;
	enum timer_clock clk = (enum timer_clock)((const struct timer_cfg *)cfg)->clock;

	(void)h, (void)err, (void)errlen;
	if (clk == CLK_RDTSCP && !PT_HAVE_RDTSCP) {
		snprintf(err, errlen, "rdtscp exists on x86-64 only");
		return PROBE_SKIP;
	}
	st->clk = clk;
	return 0;
}

static int timer_sample(void *state, uint64_t iterations, const struct probe_host *h,
			struct probe_sample *out, char *err, size_t errlen)
{
	struct timer_state *st = state;
	uint64_t ticks = 0;
	size_t nsteps = 0;

	(void)err, (void)errlen;
	switch (st->clk) {
	case CLK_RDTSC:
		ticks = timed_reads(CLK_RDTSC, iterations);
		nsteps = check_reads(CLK_RDTSC, st);
		break;
	case CLK_RDTSCP:
		ticks = timed_reads(CLK_RDTSCP, iterations);
		nsteps = check_reads(CLK_RDTSCP, st);
		break;
	case CLK_MONO:
		ticks = timed_reads(CLK_MONO, iterations);
		nsteps = check_reads(CLK_MONO, st);
		break;
	case CLK_MONO_RAW:
		ticks = timed_reads(CLK_MONO_RAW, iterations);
		nsteps = check_reads(CLK_MONO_RAW, st);
		break;
	}
	out->value = pt_ticks_to_ns(ticks, h->tsc_hz) / (double)iterations;
	/* The clock never moving in 4096 reads gives NaN (null in the JSON). */
	qsort(st->steps, nsteps, sizeof(st->steps[0]), cmp_u64);
	out->extra[0] = step_to_ns(st, h->tsc_hz, nsteps ? st->steps[0] : 0);
	out->extra[1] = step_to_ns(st, h->tsc_hz, nsteps ? st->steps[nsteps / 2] : 0);
	return 0;
}

static int timer_sanity(void *state, char *err, size_t errlen)
{
	const struct timer_state *st = state;

	if (st->backwards == 0)
		return 0;
	snprintf(err, errlen,
		 "clock went backwards %llu times in %llu consecutive reads (first: %llu -> %llu)",
		 (unsigned long long)st->backwards, (unsigned long long)st->checked,
		 (unsigned long long)st->first_back_prev,
		 (unsigned long long)st->first_back_cur);
	return -ERANGE;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "timer",
	.version = "1.0",
	.summary = "cost of one clock read (rdtsc, rdtscp, clock_gettime), amortised",
	.unit = "ns",
	.bigger_is_better = 0,
	.params = timer_params,
	.metrics = timer_metrics,
	.config_size = sizeof(struct timer_cfg),
	.state_size = sizeof(struct timer_state),
	.needs_counter_hz = 1,
	.setup = timer_setup,
	.sample = timer_sample,
	.sanity = timer_sanity,
};
