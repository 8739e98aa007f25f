/*
 * arch.h - the machine reader's architecture-specific part, all of it in
 * arch.c: the CPUID instruction.  Elsewhere in machine/ nothing depends on the architecture:
 * it asks here and says "n/a" with machine_arch_why_not() when the answer
 * is no.  Private to machine/.
 */
#ifndef SYSMETER_MACHINE_ARCH_H
#define SYSMETER_MACHINE_ARCH_H

#include <stdint.h>

/* CPUID (leaf, subleaf) into r = {eax, ebx, ecx, edx}: 0, or -1 where the
   instruction does not exist (r zeroed). */
int machine_arch_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

/* Why there is no CPUID here: NULL where there is. */
const char *machine_arch_why_not(void);

#endif
