/*
 * kernel.h - what the kernel says of the costs the CPU's flags set up: PTI
 * and the PCID it leaves in use, the clocksource and whether the kernel
 * trusts the TSC.  Every file is read under the machine root
 * (machine_fs.h).  Private to machine/.
 */
#ifndef SYSMETER_MACHINE_KERNEL_H
#define SYSMETER_MACHINE_KERNEL_H

#include <jansson.h>

/* {state: "on" | "off" | null, evidence}: PTI from /proc/cpuinfo's "pti"
   flag (set whenever the kernel isolates its page tables, pti=on on a CPU
   that does not need it included) and vulnerabilities/meltdown. flags is
   /proc/cpuinfo's flags line, NULL when unreadable. */
json_t *machine_kernel_pti(const char *flags);

/* {cpuid: bool | null, kernel: bool | null}: the CPU has the feature
   (cpuid: 1, 0, -1 unknown) and the kernel lists it in /proc/cpuinfo's
   flags (it clears those it will not use: nopcid, noinvpcid). */
json_t *machine_kernel_feature(int cpuid, const char *flags, const char *word);

/* The available clocksources, as an array; null when unreadable. */
json_t *machine_kernel_clocksources(void);

/* {trusted, verdict, why, flags, cmdline}: does the kernel trust the TSC
   (docs/results-format.md).  cmdline is /proc/cmdline, NULL when
   unreadable. */
json_t *machine_kernel_tsc_trust(const char *flags, const char *cmdline);

#endif
