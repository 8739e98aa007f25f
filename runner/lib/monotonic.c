/*
 * monotonic.c - the one monotonic clock (monotonic.h).
 */
#include "lib/monotonic.h"

#include <time.h>

double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
