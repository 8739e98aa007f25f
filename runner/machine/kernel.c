/*
 * kernel.c - PTI, PCID as the kernel uses it, clocksources and the TSC's
 * standing with the kernel (kernel.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonutil.h"
#include "machine/kernel.h"
#include "machine/machine_fs.h"

#define CS_DIR "/sys/devices/system/clocksource/clocksource0"

json_t *machine_kernel_pti(const char *flags)
{
	char *melt = machine_fs_line("/sys/devices/system/cpu/vulnerabilities/meltdown");
	int flag = flags && machine_fs_has_word(flags, "pti");
	int says = melt && strstr(melt, "PTI") != NULL;
	char ev[512];
	json_t *j;

	if (!flags && !melt)
		return json_pack("{s:n,s:s}", "state", "evidence",
				 "neither /proc/cpuinfo nor vulnerabilities/meltdown is readable");
	snprintf(ev, sizeof ev, "%s; %s%s",
		 !flags ? "/proc/cpuinfo unreadable" : flag ? "/proc/cpuinfo flag pti"
							    : "no pti flag in /proc/cpuinfo",
		 melt ? "vulnerabilities/meltdown: " : "vulnerabilities/meltdown unreadable",
		 melt ? melt : "");
	j = json_pack("{s:s,s:o}", "state", flag || says ? "on" : "off", "evidence",
		      jsonutil_text(ev));
	free(melt);
	return j;
}

json_t *machine_kernel_feature(int cpuid, const char *flags, const char *word)
{
	return json_pack("{s:o,s:o}", "cpuid", cpuid < 0 ? json_null() : json_boolean(cpuid),
			 "kernel", flags ? json_boolean(machine_fs_has_word(flags, word)) : json_null());
}

json_t *machine_kernel_clocksources(void)
{
	char *avail = machine_fs_line(CS_DIR "/available_clocksource"), *save = NULL, *w;
	json_t *a;

	if (!avail)
		return json_null();
	a = json_array();
	for (w = strtok_r(avail, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		jsonutil_append(a, jsonutil_text(w));
	free(avail);
	return a;
}

/* The kernel options that bear on the TSC and the clocksource, before
   the "--" that starts init's own arguments. */
static json_t *clock_options(const char *cmdline)
{
	json_t *a = json_array();
	char *copy, *save = NULL, *w;

	if (!cmdline || !(copy = strdup(cmdline)))
		return a;
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(w, "--"))
			break;
		if (!strncmp(w, "tsc=", 4) || !strncmp(w, "clocksource", 11) || !strcmp(w, "notsc") ||
		    !strncmp(w, "tsc_early_khz=", 14) || !strcmp(w, "nowatchdog"))
			jsonutil_append(a, jsonutil_text(w));
	}
	free(copy);
	return a;
}

json_t *machine_kernel_tsc_trust(const char *flags, const char *cmdline)
{
	static const char *tsc_flags[] = { "tsc", "constant_tsc", "nonstop_tsc", "tsc_known_freq",
					   "tsc_reliable", "rdtscp" };
	char *cur = machine_fs_line(CS_DIR "/current_clocksource");
	char *avail = machine_fs_line(CS_DIR "/available_clocksource");
	json_t *j = json_object(), *fl = json_array();
	char why[512];
	const char *verdict;
	int trusted;

	for (size_t n = avail ? strlen(avail) : 0; n > 0 && avail[n - 1] == ' '; n--)
		avail[n - 1] = '\0';	/* the kernel ends the list with a blank */
	for (size_t i = 0; i < sizeof tsc_flags / sizeof tsc_flags[0]; i++)
		if (flags && machine_fs_has_word(flags, tsc_flags[i]))
			jsonutil_append(fl, jsonutil_text(tsc_flags[i]));
	if (cur && !strcmp(cur, "tsc")) {
		trusted = 1;
		verdict = "in use";
		snprintf(why, sizeof why, "the kernel keeps time with the TSC (current clocksource)");
	} else if (avail && machine_fs_has_word(avail, "tsc")) {
		trusted = 1;
		verdict = "available, not in use";
		snprintf(why, sizeof why, "the TSC is an available clocksource (not marked unstable), "
			 "but the kernel keeps time with %s", cur ? cur : "another (unreadable)");
	} else if (avail || cur) {
		trusted = 0;
		verdict = "not trusted";
		snprintf(why, sizeof why, "the TSC is not among the available clocksources (%s): the "
			 "kernel marked it unstable (its watchdog, or tsc=unstable) or never "
			 "registered it", avail ? avail : "unreadable");
	} else {
		trusted = -1;
		verdict = "unknown";
		snprintf(why, sizeof why, "no clocksource files under %s", CS_DIR);
	}
	jsonutil_set(j, "trusted", trusted < 0 ? json_null() : json_boolean(trusted));
	jsonutil_set(j, "verdict", jsonutil_text(verdict));
	jsonutil_set(j, "why", jsonutil_text(why));
	jsonutil_set(j, "flags", flags ? fl : (json_decref(fl), json_null()));
	jsonutil_set(j, "cmdline", cmdline ? clock_options(cmdline) : json_null());
	free(cur);
	free(avail);
	return j;
}
