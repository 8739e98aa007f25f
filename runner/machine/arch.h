/*
 * arch.h - the machine reader's architecture-specific part, all of it in
 * arch.c: the CPUID instruction and the instruction chains that time the
 * core clock.  Elsewhere in machine/ nothing depends on the architecture:
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

/* The method in words, or NULL where there is none; why there is none. */
const char *machine_arch_add_method(void);
const char *machine_arch_mul_method(void);
const char *machine_arch_why_not(void);

#endif
