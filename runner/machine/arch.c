/*
 * arch.c - CPUID and the core-clock chains (arch.h): the one place in
 * machine/ that knows the architecture.  x86-64 only for now; the aarch64
 * port (MIDR_EL1 from /sys/devices/system/cpu/cpu0/regs/identification,
 * and an add chain in its assembly) goes here too.
 *
 * The chains are inline assembly so that the compiler can neither fold
 * nor reorder them: `add %reg, %acc` with a register operand (an add of an
 * immediate may be executed at rename on Intel's Golden Cove and later,
 * faster than one per cycle; a register-register add is not), 100 per
 * loop iteration, each depending on the one before.
 */
#include <string.h>

#include "machine/arch.h"

#if defined(__x86_64__)
#include <cpuid.h>

int machine_arch_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	unsigned a, b, c, d;

	__cpuid_count(leaf, subleaf, a, b, c, d);
	r[0] = a;
	r[1] = b;
	r[2] = c;
	r[3] = d;
	return 0;
}

int machine_arch_add_chain(uint64_t n)
{
	uint64_t acc = 1, one = 1;

	if (n == 0)
		return 0;
	__asm__ volatile("1:\n\t"
			 ".rept 100\n\t"
			 "add %[one], %[acc]\n\t"
			 ".endr\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [acc] "+r"(acc), [n] "+r"(n)
			 : [one] "r"(one)
			 : "cc");
	return 0;
}

int machine_arch_mul_chain(uint64_t n)
{
	uint64_t acc = 1, three = 3;

	if (n == 0)
		return 0;
	__asm__ volatile("1:\n\t"
			 ".rept 100\n\t"
			 "imul %[three], %[acc]\n\t"
			 ".endr\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [acc] "+r"(acc), [n] "+r"(n)
			 : [three] "r"(three)
			 : "cc");
	return 0;
}

const char *machine_arch_add_method(void)
{
	return "dependent 64-bit register adds (add %reg, %acc: 1 cycle each), 100 per loop iteration";
}

const char *machine_arch_mul_method(void)
{
	return "dependent 64-bit register multiplies (imul %reg, %acc: 3 cycles each), 100 per loop iteration";
}

const char *machine_arch_why_not(void)
{
	return NULL;
}

#else

int machine_arch_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	(void)leaf;
	(void)subleaf;
	memset(r, 0, 4 * sizeof r[0]);
	return -1;
}

int machine_arch_add_chain(uint64_t n)
{
	(void)n;
	return -1;
}

int machine_arch_mul_chain(uint64_t n)
{
	(void)n;
	return -1;
}

const char *machine_arch_add_method(void)
{
	return NULL;
}

const char *machine_arch_mul_method(void)
{
	return NULL;
}

const char *machine_arch_why_not(void)
{
	return "not an x86-64 build: no CPUID, and no instruction chain of known latency "
	       "written for this architecture yet";
}

#endif
