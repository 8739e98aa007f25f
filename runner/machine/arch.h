/*
 * arch.h - the machine reader's architecture-specific part, all of it in
 * arch.c: the CPUID instruction, the instruction chains that time the
 * core clock, and the check of the user-space counter.  Elsewhere in machine/ nothing depends on the architecture:
 * it asks here and says "n/a" with machine_arch_why_not() when the answer
 * is no.  Private to machine/.
 */
#ifndef SYSMETER_MACHINE_ARCH_H
#define SYSMETER_MACHINE_ARCH_H

#include <stdint.h>

/* Links of a chain per loop iteration: the loop's own counter and branch
   run beside the chain, off its critical path, so an iteration costs
   MACHINE_ARCH_LINKS times one link's latency. */
#define MACHINE_ARCH_LINKS 100

/* CPUID (leaf, subleaf) into r = {eax, ebx, ecx, edx}: 0, or -1 where the
   instruction does not exist (r zeroed). */
int machine_arch_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

/* n iterations of MACHINE_ARCH_LINKS dependent register-register adds
   (one cycle of latency each); 0, or -1 where there is no such chain
   here. */
int machine_arch_add_chain(uint64_t n);

/* The same with dependent 64-bit register multiplies (three cycles each on
   the x86-64 cores of the last fifteen years): an independent check of
   the add chain. */
int machine_arch_mul_chain(uint64_t n);

/* Cycles of latency of one link of each chain. */
#define MACHINE_ARCH_ADD_LATENCY 1
#define MACHINE_ARCH_MUL_LATENCY 3

/* Whether the timing counter of probe_time.h (pt_start/pt_stop) may be
   read here: 0 yes; -1 no, with *why, after setting SYSMETER_COUNTER=
   clock_gettime in the environment so that this process and every child
   (the probes) time with CLOCK_MONOTONIC_RAW instead.  Call it before the
   first pt_start().  *why may be set with 0 too (an unchecked counter). */
int machine_arch_counter_check(const char **why);

/* The method in words, or NULL where there is none; why there is none. */
const char *machine_arch_add_method(void);
const char *machine_arch_mul_method(void);
const char *machine_arch_why_not(void);

#endif
