/*
 * drift.c - did the host change speed during a run (stats.h)?  A fixed
 * canary workload timed between passes of rounds measures the host, not
 * the system under test: where its timings split into phases, the rounds
 * of a phase ran on another host, in effect.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

double stats_drift(const double *c, size_t n, double threshold, double *reference, int *off)
{
	double lo = INFINITY, hi = -INFINITY, ref, band = log1p(threshold);

	if (n == 0) {
		*reference = NAN;
		return NAN;
	}
	ref = stats_quantile(c, n, 0.5);
	*reference = ref;
	for (size_t i = 0; i < n; i++) {
		off[i] = !(fabs(log(c[i] / ref)) <= band);
		lo = c[i] < lo ? c[i] : lo;
		hi = c[i] > hi ? c[i] : hi;
	}
	return hi / lo;
}
