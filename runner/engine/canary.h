/*
 * canary.h - the run's drift check (private to engine/): a small fixed
 * workload timed before every pass of rounds and after the last, so that a
 * host that changes speed during a run (a slow phase of a VM's host, a
 * clock that drops) is seen, and the rounds it touched are named.
 */
#ifndef SYSMETER_ENGINE_CANARY_H
#define SYSMETER_ENGINE_CANARY_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* A timing more than this far from the run's median (on the log scale)
   marks a phase: 10 %, several times the canary's own spread on a calm
   host (docs/methodology.md). */
#define CANARY_THRESHOLD 0.10

/* The core clock, measured again beside each canary timing, has held
   still over the run when the middle half of its takes lies within this
   of their median: the report's cycle columns are then core cycles. */
#define CANARY_CORE_STEADY 0.05

struct canary {
	uint64_t iterations;		/* of the dependent chain: about 2 ms */
	int cpu;			/* where it runs: the points' default CPU, or -1 */
	double *ms;			/* timings, one per call of canary_take */
	int *before;			/* before which pass (round) each was taken; -1: after the last */
	double *core_hz;		/* the core clock beside each timing, NAN where not measured */
	double *wake_us;		/* a cross-CPU wake-up round trip beside each
					   timing (wake.h), NAN where not measured */
	size_t n, cap;
	/* SYSMETER_CANARY_MS="3.4,3.4,6.8": the timings the canary reports
	   in turn instead of measuring (the last repeats), for tests of what
	   the run does when the host drifts; the verdict says so. */
	double *script; size_t n_script;
	/* SYSMETER_WAKE_US: the same for the wake-up round trip; with a
	   scripted canary and none, the wake-up is not measured either */
	double *wake_script; size_t n_wake_script;
};

/* Size the workload; 0, or -1 (out of memory). */
int canary_init(struct canary *c);

/* Time the workload now (the median of a few repetitions), measure the
   core clock (machine_core_hz) on the same CPU, and record both as taken
   before pass `round` (-1: after the last).  Returns the time in ms, or
   NaN. */
double canary_take(struct canary *c, int round);

/* The last timing was taken after the last pass (not before pass n). */
void canary_last(struct canary *c);

/* drifted[r] = 1 for each pass r in 0..passes-1 that a timing off the
   median of every timing so far brackets (the verdict's rule, mid-run).
   Returns how many; 0 with fewer than 2 timings. */
int canary_drifted(const struct canary *c, int passes, int *drifted);

/* The verdict over every timing so far, for the manifest's "drift":
   {canary{work, cpu, iterations, threshold}, timings[{before_round, ms}],
   reference_ms, spread, verdict steady|drifted|not measured,
   drifted_rounds[], core_clock{min_hz, max_hz, median_hz, spread, iqr,
   takes, steady}, wake{median_us, min_us, max_us, takes}}: each timing also
   carries the core clock (core_hz) and the wake-up round trip (wake_us)
   measured just after it.  drifted[r] = 1 for each pass r (0..rounds) that a
   timing off the median brackets. */
json_t *canary_verdict(const struct canary *c, int rounds, int *drifted);

void canary_free(struct canary *c);

#endif
