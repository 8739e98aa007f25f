/*
 * monotonic.h - the one clock for deadlines, timeouts and elapsed times:
 * CLOCK_MONOTONIC (never stepped by settimeofday or NTP, so a deadline
 * cannot jump; slewed like the wall clock).  Measurements do not use it:
 * probes time with probe_time.h (the TSC, or CLOCK_MONOTONIC_RAW).
 */
#ifndef SYSMETER_MONOTONIC_H
#define SYSMETER_MONOTONIC_H

/* Seconds since an arbitrary moment (the boot), as a double. */
double monotonic_s(void);

/* The same clock in whole nanoseconds, for timestamps that must not lose
   resolution (the peer's per-frame spans). */
#include <stdint.h>
uint64_t monotonic_ns(void);

#endif
