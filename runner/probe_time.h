/*
 * probe_time.h - the timing primitives every probe (and the runner) uses,
 * so that everything is timed the same way.  Inline only: no link-time
 * dependency on the runner.
 *
 * x86-64: serialised TSC reads.  pt_start() = lfence; rdtsc (earlier work
 * may not drift into the timed region); pt_stop() = rdtscp; lfence (the
 * timed work has completed, later work cannot start early).  On this
 * project's machines the TSC is constant and non-stop (invariant); its
 * ticks are not core cycles when the core clock varies.
 * aarch64: the virtual counter (cntvct_el0) behind an isb.
 * Elsewhere: clock_gettime(CLOCK_MONOTONIC_RAW) in ns (pt_hz() == 1e9).
 *
 * Convert ticks with host->tsc_hz (calibrated by the runner against
 * CLOCK_MONOTONIC_RAW), never with a nominal frequency.
 */
#ifndef SYSMETER_PROBE_TIME_H
#define SYSMETER_PROBE_TIME_H

#include <stdint.h>
#include <time.h>

/* Strict ISO C (cc -std=c11, no _GNU_SOURCE) hides the POSIX clocks in
   <time.h>; an out-of-tree probe built that way still gets them, with
   Linux's values (the same declaration and macros glibc makes). */
#if defined(__linux__) && !defined(CLOCK_MONOTONIC_RAW)
extern int clock_gettime(int clk, struct timespec *ts);
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_MONOTONIC_RAW 4
#endif

static inline uint64_t pt_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread, in ns (0 if unavailable).  Compared with
   the wall time of a sample it tells how long the thread was off its CPU:
   another task or the host ran there, and the sample's time is not ours. */
static inline uint64_t pt_thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
#define PT_HAVE_TSC 1
static inline uint64_t pt_start(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t pt_stop(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Unserialised read, for the timer probe's comparison only. */
static inline uint64_t pt_rdtsc_raw(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
#define PT_HAVE_TSC 1
static inline uint64_t pt_start(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}
static inline uint64_t pt_stop(void) { return pt_start(); }
static inline uint64_t pt_rdtsc_raw(void) { return pt_start(); }
#else
#define PT_HAVE_TSC 0
static inline uint64_t pt_start(void) { return pt_clock_ns(); }
static inline uint64_t pt_stop(void) { return pt_clock_ns(); }
static inline uint64_t pt_rdtsc_raw(void) { return pt_clock_ns(); }
#endif

/* Ticks to nanoseconds with the runner's calibrated frequency (host->tsc_hz). */
static inline double pt_ticks_to_ns(uint64_t ticks, double hz)
{
	return hz > 0 ? (double)ticks * 1e9 / hz : (double)ticks;
}

/* A sample's clock, chosen once per sample: the counter at hz (the host's
   calibrated host->tsc_hz) where there is one, else clock_gettime's ns
   (hz 0).  pt_ticks_to_ns converts either. */
static inline double pt_clock_hz(double tsc_hz) { return PT_HAVE_TSC ? tsc_hz : 0; }
static inline uint64_t pt_begin(double hz) { return hz > 0 ? pt_start() : pt_clock_ns(); }
static inline uint64_t pt_end(double hz) { return hz > 0 ? pt_stop() : pt_clock_ns(); }

/* Compiler barrier: memory may not be cached in registers across it. */
#define pt_barrier() __asm__ volatile("" : : : "memory")

/* "Do not optimise": the value is considered used. */
static inline void pt_sink_u64(uint64_t v) { __asm__ volatile("" : : "r"(v)); }
static inline void pt_sink_ptr(const void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

/* The compiler must assume *p may have been read and written here. */
static inline void pt_escape(void *p) { __asm__ volatile("" : : "g"(p) : "memory"); }

/* Launder a value: the compiler cannot know what comes out. */
static inline uint64_t pt_opaque_u64(uint64_t v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

#endif
