/*
 * probe_barrier.h - the barriers and "do not optimise" helpers probes use
 * around measured work: compiler barriers (no instruction), and the few
 * CPU hints whose instruction differs by architecture (a spin-wait hint,
 * a fence after streaming stores).  This file is the one place that knows
 * those instructions; probes call the pt_* names and carry no #ifdef of
 * their own.  Inline only (installed beside probe.h; probe_time.h
 * includes it).
 */
#ifndef SYSMETER_PROBE_BARRIER_H
#define SYSMETER_PROBE_BARRIER_H

#include <stdint.h>

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


/* Inside a spin-wait loop: tell the core we spin (x86 pause, aarch64
   yield), so a sibling hyperthread or the memory system is not flooded. */
static inline void pt_cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause" : : : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" : : : "memory");
#else
	__asm__ volatile("" : : : "memory");
#endif
}

/* After non-temporal (streaming) stores, before the clock stops: they are
   globally visible, i.e. done (x86 sfence).  Elsewhere there are no
   streaming stores a probe issues, and ordinary stores need no fence for
   the time to include them: a compiler barrier. */
static inline void pt_store_fence(void)
{
#if defined(__x86_64__)
	__asm__ volatile("sfence" : : : "memory");
#else
	__asm__ volatile("" : : : "memory");
#endif
}

#endif
