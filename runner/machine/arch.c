/*
 * arch.c - CPUID (arch.h): the one place in machine/ that knows the
 * architecture.  x86-64 only for now; the aarch64 port (MIDR_EL1 from
 * /sys/devices/system/cpu/cpu0/regs/identification) goes here too.
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

const char *machine_arch_why_not(void)
{
	return "not an x86-64 build: no CPUID";
}

#endif
