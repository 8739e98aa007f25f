/*
 * arch.c - CPUID, the core-clock chains and the user-space counter's
 * check (arch.h): the one place in machine/ that knows the architecture.
 * x86-64: CPUID, add and imul chains.  aarch64: no CPUID (the CPU's
 * identity is MIDR_EL1, which the kernel shows in files: midr.c), an add
 * chain, and the check that user space may read the generic timer's
 * counter (cntvct_el0).
 *
 * The chains are inline assembly so that the compiler can neither fold
 * nor reorder them: `add %reg, %acc` with a register operand (an add of an
 * immediate may be executed at rename on Intel's Golden Cove and later,
 * faster than one per cycle; a register-register add is not), 100 per
 * loop iteration, each depending on the one before.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* n loops of 100 copies of one two-operand register instruction, each on
   the result of the last ("INSN %src, %acc"): the chain's length in cycles
   is 100 n times the instruction's latency. */
#define DEPENDENT_CHAIN(INSN, COUNT, SRC)                                    \
	do {                                                                \
		uint64_t acc_ = 1, k_ = (SRC), n_ = (COUNT);                \
		__asm__ volatile("1:\n\t"                                    \
				 ".rept 100\n\t" INSN " %[k], %[acc]\n\t"      \
				 ".endr\n\t"                                     \
				 "dec %[n]\n\t"                                  \
				 "jnz 1b"                                         \
				 : [acc] "+r"(acc_), [n] "+r"(n_)                 \
				 : [k] "r"(k_)                                    \
				 : "cc");                                         \
	} while (0)

int machine_arch_add_chain(uint64_t n)
{
	if (n)
		DEPENDENT_CHAIN("add", n, 1);
	return 0;
}

int machine_arch_mul_chain(uint64_t n)
{
	if (n)
		DEPENDENT_CHAIN("imul", n, 3);
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

int machine_arch_counter_check(const char **why)
{
	*why = NULL;
	return 0;
}

#elif defined(__aarch64__)

int machine_arch_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	(void)leaf;
	(void)subleaf;
	memset(r, 0, 4 * sizeof r[0]);
	return -1;
}

/* `add xA, xA, xB`: a register-register add, one cycle of latency on every
   ARMv8-A core (Cortex-A53/A55/A72/A76/A78/X1 and Neoverse N1/N2/V1/V2
   Software Optimization Guides, "ALU, basic": latency 1; Apple's cores
   likewise), and not fused or eliminated: each link waits for the last. */
int machine_arch_add_chain(uint64_t n)
{
	uint64_t acc = 1, one = 1;

	if (n == 0)
		return 0;
	__asm__ volatile("1:\n\t"
			 ".rept 100\n\t"
			 "add %[acc], %[acc], %[one]\n\t"
			 ".endr\n\t"
			 "subs %[n], %[n], #1\n\t"
			 "b.ne 1b"
			 : [acc] "+r"(acc), [n] "+r"(n)
			 : [one] "r"(one)
			 : "cc");
	return 0;
}

/* No multiply check on aarch64: a 64-bit MUL's latency differs by core (2
   cycles on Neoverse N1, 3 on Cortex-A72 and A76, 4 on Cortex-A53 for the
   X form: the cores' Software Optimization Guides), so a chain of them has
   no one known length in cycles. */
int machine_arch_mul_chain(uint64_t n)
{
	(void)n;
	return -1;
}

const char *machine_arch_add_method(void)
{
	return "dependent 64-bit register adds (add xA, xA, xB: 1 cycle each), 100 per loop "
	       "iteration";
}

const char *machine_arch_mul_method(void)
{
	return NULL;
}

const char *machine_arch_why_not(void)
{
	return "aarch64 has no CPUID instruction: the CPU is known by its MIDR_EL1, which the "
	       "kernel shows in sysfs and /proc/cpuinfo";
}

/* Reading cntvct_el0 or cntfrq_el0 at EL0 traps (SIGILL) when the kernel
   or hypervisor has cleared CNTKCTL_EL1.EL0VCTEN: try both in a child, so
   that the trap kills the child and not the runner. */
int machine_arch_counter_check(const char **why)
{
	const char *e = getenv("SYSMETER_COUNTER");
	int st;
	pid_t pid;

	*why = NULL;
	if (e && strcmp(e, "clock_gettime") == 0) {
		*why = "SYSMETER_COUNTER=clock_gettime was set: the counter was not used";
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		uint64_t v, f;

		__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tmrs %1, cntfrq_el0"
				 : "=r"(v), "=r"(f) : : "memory");
		_exit(v > 0 && f > 0 ? 0 : 1);
	}
	if (pid < 0) {
		*why = "could not fork to check the counter: it is used unchecked";
		return 0;
	}
	while (waitpid(pid, &st, 0) < 0)
		;
	if (WIFSIGNALED(st)) {
		*why = "user space may not read cntvct_el0 here (the read traps): timed with "
		       "clock_gettime(CLOCK_MONOTONIC_RAW) instead";
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		*why = "cntvct_el0 or cntfrq_el0 read as zero: timed with "
		       "clock_gettime(CLOCK_MONOTONIC_RAW) instead";
	} else {
		return 0;
	}
	setenv("SYSMETER_COUNTER", "clock_gettime", 1);
	return -1;
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
	return "neither an x86-64 nor an aarch64 build: no CPUID, and no instruction chain of "
	       "known latency written for this architecture yet";
}

int machine_arch_counter_check(const char **why)
{
	*why = "no user-space counter is read on this architecture: clock_gettime("
	       "CLOCK_MONOTONIC_RAW)";
	return -1;
}

#endif
