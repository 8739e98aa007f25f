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
 * aarch64: the generic timer's virtual counter (cntvct_el0) behind an isb,
 * or CLOCK_MONOTONIC_RAW where the kernel does not let user space read it.
 * Elsewhere: clock_gettime(CLOCK_MONOTONIC_RAW) in ns (pt_hz() == 1e9).
 * This file is the one place that knows how each architecture reads its
 * counter; the compiler and CPU barriers are in probe_barrier.h.
 *
 * Convert ticks with host->tsc_hz (calibrated by the runner against
 * CLOCK_MONOTONIC_RAW), never with a nominal frequency.
 */
#ifndef SYSMETER_PROBE_TIME_H
#define SYSMETER_PROBE_TIME_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* The counter in use, by name, for the machine description and messages;
   pt_counter_hz(): its architected frequency, or 0 where there is none
   (x86: the runner calibrates the TSC against CLOCK_MONOTONIC_RAW).
   PT_HAVE_RDTSCP: the timer probe's "rdtscp" clock exists here. */
#if defined(__x86_64__)
#define PT_HAVE_TSC 1
#define PT_HAVE_RDTSCP 1
#define PT_COUNTER_NAME "tsc"
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

/* The bare rdtscp (waits for earlier instructions, not for later ones). */
static inline uint64_t pt_rdtscp_raw(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return ((uint64_t)hi << 32) | lo;
}

static inline double pt_counter_hz(void) { return 0; }
static inline int pt_counter_off(void) { return 0; }
#elif defined(__aarch64__)
/* The generic timer's virtual counter.  Linux lets EL0 read it (and
   CNTFRQ_EL0) unless a kernel or hypervisor traps it; then the read is
   SIGILL, the runner finds that once in a child (machine/arch.c) and sets
   SYSMETER_COUNTER=clock_gettime in its environment, which every probe's
   child inherits: pt_start/pt_stop then return CLOCK_MONOTONIC_RAW's ns
   and the calibrated rate is 1e9.  The check of that variable is one
   predictable branch on a value cached per object file, before the isb. */
#define PT_HAVE_TSC 1
#define PT_HAVE_RDTSCP 0
#define PT_COUNTER_NAME "cntvct_el0"
static inline int pt_counter_off(void)
{
	static int off = -1;	/* per object file: -1 not yet known */
	int v = __atomic_load_n(&off, __ATOMIC_RELAXED);

	if (__builtin_expect(v < 0, 0)) {
		const char *e = getenv("SYSMETER_COUNTER");

		v = e && strcmp(e, "clock_gettime") == 0;
		__atomic_store_n(&off, v, __ATOMIC_RELAXED);
	}
	return v;
}

/* isb: every earlier instruction has completed before the counter is read
   (as lfence before rdtsc). */
static inline uint64_t pt_start(void)
{
	uint64_t v;

	if (pt_counter_off())
		return pt_clock_ns();
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* isb; mrs; isb: the timed work has completed, and later work cannot start
   before the read (as rdtscp; lfence). */
static inline uint64_t pt_stop(void)
{
	uint64_t v;

	if (pt_counter_off())
		return pt_clock_ns();
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
	return v;
}

/* Unserialised read, for the timer probe's comparison only. */
static inline uint64_t pt_rdtsc_raw(void)
{
	uint64_t v;

	if (pt_counter_off())
		return pt_clock_ns();
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static inline uint64_t pt_rdtscp_raw(void) { return pt_rdtsc_raw(); }

/* CNTFRQ_EL0: the counter's frequency as firmware set it (often 24, 25,
   50, 54 or 1000 MHz: one tick is then 1 to 42 ns). */
static inline double pt_counter_hz(void)
{
	uint64_t f;

	if (pt_counter_off())
		return 1e9;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return (double)f;
}
#else
#define PT_HAVE_TSC 0
#define PT_HAVE_RDTSCP 0
#define PT_COUNTER_NAME "CLOCK_MONOTONIC_RAW"
static inline uint64_t pt_start(void) { return pt_clock_ns(); }
static inline uint64_t pt_stop(void) { return pt_clock_ns(); }
static inline uint64_t pt_rdtsc_raw(void) { return pt_clock_ns(); }
static inline uint64_t pt_rdtscp_raw(void) { return pt_clock_ns(); }
static inline double pt_counter_hz(void) { return 1e9; }
static inline int pt_counter_off(void) { return 1; }
#endif

/* The clock pt_start/pt_stop read in this process. */
static inline const char *pt_counter_name(void)
{
	return pt_counter_off() ? "CLOCK_MONOTONIC_RAW" : PT_COUNTER_NAME;
}

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

#include "probe_barrier.h"

#endif
