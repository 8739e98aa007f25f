/*
 * report_env.c - the environment section (report_env.h).  The machine
 * table lists facts; this section says, per fact, what it does to the
 * numbers of this run, so a reader on a VM with PTI and no PCID learns why
 * getpid costs a microsecond before comparing it with a textbook.  Every
 * sentence is chosen by a recorded fact; nothing is said of a fact the run
 * did not record.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/jsonutil.h"
#include "report/report_env.h"
#include "report/report_view.h"
#include "results/results.h"

static void row(json_t *rows, json_t *fact, json_t *consequence)
{
	json_t *r = json_object();

	report_view_put(r, "fact", fact);
	report_view_put(r, "consequence", consequence);
	jsonutil_append(rows, r);
}

/* What waking an idle vCPU costs is this run's figure (the drift check's
   cross-CPU round trip), never a number from another machine. */
static void virtual_machine(json_t *rows, json_t *man)
{
	json_t *m = json_object_get(man, "machine");
	const char *v = jsonutil_str(m, "virtualization");
	double us = jsonutil_num(json_object_get(json_object_get(man, "drift"), "wake"), "median_us");

	if (!v || !strncmp(v, "none", 4))
		return;
	if (us > 0)
		row(rows, report_view_strf("A virtual machine: %s", v),
		    report_view_strf("Other guests share the host's cores, caches and memory: expect more "
				     "variation between runs than on bare metal. A one-byte round trip to a "
				     "thread on another, idle vCPU took %.3g µs in this run (the median of the "
				     "drift check's takes): cross-CPU figures include such wake-ups.", us));
	else
		row(rows, report_view_strf("A virtual machine: %s", v),
		    report_view_str("Other guests share the host's cores, caches and memory: expect more "
				    "variation between runs than on bare metal. Waking an idle vCPU is a "
				    "host's wake-up of a thread, which cross-CPU figures include."));
}

/* Kernel page-table isolation, and whether PCID spares the TLB (the
   machine's pti and pcid, else the meltdown line alone). */
static void pti(json_t *rows, json_t *m)
{
	const char *meltdown = jsonutil_str(json_object_get(m, "vulnerabilities"), "meltdown");
	const char *state = jsonutil_str(json_object_get(m, "pti"), "state");
	json_t *pcid = json_object_get(json_object_get(m, "pcid"), "kernel");
	int on;

	if (!json_is_object(json_object_get(m, "pcid")))
		pcid = json_object_get(m, "pcid");	/* a plain true/false */
	if (state)
		on = !strcmp(state, "on");
	else if (meltdown)
		on = strstr(meltdown, "PTI") != NULL;
	else
		return;
	if (!on) {
		/* the other mitigations the kernel lists still run on every entry */
		char names[256];
		double cycles = 0;
		size_t k = results_entry_mitigations(m, names, sizeof names, &cycles);

		if (k)
			row(rows, report_view_str("No kernel page-table isolation"),
			    report_view_strf("Entering the kernel switches no page tables, but the kernel's "
					     "other mitigations run on every entry and exit (%s: about %.0f "
					     "cycles in the model's table), so a system call costs more than the "
					     "hardware's entry and exit.", names, cycles));
		else
			row(rows, report_view_str("No kernel page-table isolation"),
			    report_view_str("Entering the kernel switches no page tables and the kernel "
					    "lists no other mitigation on its entry: system calls and process "
					    "switches cost what the hardware and kernel code cost."));
		return;
	}
	if (json_is_true(pcid))
		row(rows, report_view_str("Kernel page-table isolation (PTI), with PCID"),
		    report_view_str("Every kernel entry switches page tables; PCID keeps the TLB "
				    "entries, so system calls pay the switch but not a TLB refill."));
	else
		row(rows, report_view_strf("Kernel page-table isolation (PTI), %s",
					   json_is_false(pcid) ? "without PCID" : "PCID not known"),
		    report_view_str("Every kernel entry switches page tables and, without PCID, "
				    "flushes the TLB: system calls, process switches and page faults "
				    "cost several times what they cost without PTI, and memory access "
				    "right after them refills the TLB."));
}

static void clocksource(json_t *rows, json_t *m)
{
	const char *cs = jsonutil_str(m, "clocksource");

	if (!cs)
		return;
	if (!strcmp(cs, "tsc"))
		row(rows, report_view_str("The kernel's clock is the TSC"),
		    report_view_str("clock_gettime reads the TSC in the vDSO, without entering the "
				    "kernel: the timer costs tens of nanoseconds."));
	else if (!strcmp(cs, "kvm-clock") || !strcmp(cs, "xen") || !strcmp(cs, "hyperv_clocksource_tsc_page"))
		row(rows, report_view_strf("The kernel's clock is %s, not the TSC", cs),
		    report_view_str("clock_gettime reads the hypervisor's paravirtual clock in the "
				    "vDSO (the TSC scaled by the host's figures): a little dearer than "
				    "the TSC itself. The probes time with the TSC, calibrated at the "
				    "start of the run."));
	else
		row(rows, report_view_strf("The kernel's clock is %s", cs),
		    report_view_str("This clock cannot be read in the vDSO: clock_gettime enters the "
				    "kernel, so the timer and every probe timed with it cost about a "
				    "system call more."));
}

/* Why the core clock cannot stand for cycles in this run, or NULL. */
static const char *core_clock_refused(json_t *man)
{
	json_t *m = json_object_get(man, "machine"), *cc = json_object_get(m, "core_clock");
	json_t *run = json_object_get(json_object_get(man, "drift"), "core_clock");

	if (!(jsonutil_num(cc, "hz") > 0))
		return "the core clock was not measured";
	if (jsonutil_str(cc, "source") && !strcmp(jsonutil_str(cc, "source"), "given"))
		return "the core clock was given (--machine), not measured";
	if (!json_is_true(json_object_get(cc, "holds")))
		return "the core clock did not hold still while it was measured";
	if (json_is_false(json_object_get(run, "steady")))
		return "the core clock changed during the run";
	return NULL;
}

int report_env_cycle_clock(json_t *man, double *hz)
{
	json_t *m = json_object_get(man, "machine");
	double tsc = jsonutil_num(m, "tsc_hz");

	if (!core_clock_refused(man)) {
		*hz = jsonutil_num(json_object_get(m, "core_clock"), "hz");
		return 1;
	}
	*hz = tsc > 0 ? tsc : NAN;
	return tsc > 0 ? 0 : -1;
}

json_t *report_env_cycle_note(json_t *man)
{
	double hz;
	int k = report_env_cycle_clock(man, &hz);

	if (k == 1)
		return report_view_strf("Cycle counts in this report are core cycles: time x the "
					"core clock measured on this machine (%.3g GHz), which "
					"held still over the run.", hz / 1e9);
	if (k == 0)
		return report_view_strf("Counts in the ticks columns of this report are TSC ticks "
					"(time x the TSC's %.3g GHz), not core cycles: %s.", hz / 1e9,
					core_clock_refused(man));
	return json_null();
}

/* The core clock as measured against the TSC (machine.core_clock), and
   again between the run's passes (drift.core_clock). */
static void core_clock(json_t *rows, json_t *man)
{
	json_t *m = json_object_get(man, "machine"), *cc = json_object_get(m, "core_clock");
	json_t *run = json_object_get(json_object_get(man, "drift"), "core_clock");
	double core = jsonutil_num(cc, "hz"), tsc = jsonutil_num(m, "tsc_hz");
	double lo = jsonutil_num(run, "min_hz"), hi = jsonutil_num(run, "max_hz");
	char during[160] = "";

	if (!(tsc > 0))
		return;
	if (lo > 0 && hi > 0)
		snprintf(during, sizeof during, "; between passes %.3g-%.3g GHz", lo / 1e9, hi / 1e9);
	if (!(core > 0) || !json_is_true(json_object_get(cc, "holds"))) {
		const char *why = jsonutil_str(cc, "why_not");
		const char *src = jsonutil_str(cc, "source");
		row(rows, report_view_strf("TSC at %.3g GHz; the core clock %s%s", tsc / 1e9,
					   src && !strcmp(src, "given") ? "was given, not measured"
					   : core > 0 ? "did not hold still while it was measured"
						    : "was not measured", during),
		    report_view_strf("The ticks columns of this report are TSC ticks (time x TSC "
				     "frequency), not core cycles%s%s.", why ? ": " : "",
				     why ? why : ""));
		return;
	}
	double r = core / tsc;
	json_t *fact = report_view_strf("Core clock %.3g GHz measured, TSC %.3g GHz (%.2fx)%s",
					core / 1e9, tsc / 1e9, r, during);
	if (json_is_false(json_object_get(run, "steady")))
		row(rows, fact, report_view_strf("The core clock moved between passes of the run "
						 "(the middle half of its takes spread %.0f %%): no one "
						 "clock turns these times into cycles, so the report "
						 "counts TSC ticks (time x TSC frequency) instead.",
						 100 * (isfinite(jsonutil_num(run, "iqr"))
							? jsonutil_num(run, "iqr")
							: jsonutil_num(run, "spread"))));
	else
		row(rows, fact, fabs(r - 1) <= 0.03
			? report_view_str("The core ran at the TSC's rate: a TSC tick is a core cycle "
					  "here, within 3 %; the cycle columns count core cycles.")
			: report_view_strf("A TSC tick is not a core cycle here (one core cycle lasts "
					   "%.2f ticks): the cycle columns count core cycles, time x the "
					   "measured core clock, not TSC ticks.", 1 / r));
}

/* The run's level against the earlier runs on this machine (the
   manifest's drift.history): the canary and the core clock over the
   whole run, which a within-run check cannot compare. */
static void history(json_t *rows, json_t *h)
{
	const char *v = jsonutil_str(h, "verdict");
	long long runs = (long long)json_integer_value(json_object_get(h, "runs"));
	char ratios[128];

	if (!v)
		return;
	results_level_ratios(h, ratios, sizeof ratios);
	if (!strcmp(v, "same level"))
		row(rows, report_view_strf("Against %lld earlier runs on this machine: the same "
					   "speed (%s their median)", runs, ratios),
		    report_view_str("The host ran this run at the speed it ran the earlier ones: a "
				    "difference from them is not the host's speed."));
	else if (!strcmp(v, "shifted"))
		row(rows, report_view_strf("Against %lld earlier runs on this machine: another "
					   "speed (%s their median)", runs, ratios),
		    report_view_str("The whole run ran faster or slower than the earlier ones, "
				    "steady or not inside: its points move with the host, and a "
				    "comparison with those runs shows the host as much as the "
				    "system."));
	else if (!strcmp(v, "too few runs"))
		row(rows, report_view_strf("Against earlier runs on this machine: %lld recorded, "
					   "too few to compare with", runs),
		    report_view_str("A run that ran wholly faster or slower than usual cannot be "
				    "told here: from three runs on, each is compared with the "
				    "median of them."));
}

static void drift(json_t *rows, json_t *man)
{
	json_t *d = json_object_get(man, "drift");
	const char *v = jsonutil_str(d, "verdict");

	if (!v)
		return;
	if (!strcmp(v, "steady"))
		row(rows, report_view_strf("Drift check: steady (a fixed canary workload varied "
					   "%.2fx over the run)", jsonutil_num(d, "spread")),
		    report_view_str("The host's CPU speed held during the run: it does not explain "
				    "the spread between rounds (a slower disk or a busier memory bus "
				    "would not show here)."));
	else if (!strcmp(v, "drifted"))
		row(rows, report_view_strf("Drift check: the host changed speed (the canary varied "
					   "%.2fx)", jsonutil_num(d, "spread")),
		    report_view_strf("%lld points measured while it did carry the flag host_drift: "
				     "their intervals may hold the host's change, and a comparison "
				     "with another run should not rest on them.",
				     (long long)json_integer_value(json_object_get(d, "flagged_points"))));
	history(rows, json_object_get(d, "history"));
}

static void load(json_t *rows, json_t *m)
{
	json_t *la = json_object_get(m, "load_avg");
	double l1 = json_number_value(json_array_get(la, 0));
	double cpus = (double)json_integer_value(json_object_get(m, "cpus_online"));

	if (!json_is_number(json_array_get(la, 0)) || !(cpus > 0))
		return;
	if (l1 >= 0.5 * cpus)
		row(rows, report_view_strf("Load average %.2f on %.0f CPUs at the start", l1, cpus),
		    report_view_str("Other work was running: it competes for the CPUs, caches and "
				    "memory the points use, and widens their intervals."));
	else
		row(rows, report_view_strf("Load average %.2f on %.0f CPUs at the start", l1, cpus),
		    report_view_str("Little other work was running when the run began (by the "
				    "one-minute load average; a later burst would show in the drift "
				    "check)."));
}

static void smt(json_t *rows, json_t *m)
{
	json_t *s = json_object_get(m, "smt");

	if (json_is_true(json_object_get(s, "active")))
		row(rows, report_view_str("SMT (hyperthreading) is on"),
		    report_view_str("Two CPUs may be one core: a sibling's work slows a measurement, "
				    "and two threads placed on siblings share one core's caches and "
				    "ports."));
}

static void governor(json_t *rows, json_t *m)
{
	const char *g = jsonutil_str(m, "governor");

	if (g && !strcmp(g, "performance"))
		return;
	row(rows, report_view_str(g ? g : "CPU frequency governor unknown (no cpufreq here)"),
	    report_view_str(g ? "The core clock may change with the load during the run; a "
				"measured core clock and the drift check, where the run has them, "
				"say whether it did."
			      : "The clock may change under the run without the guest knowing; a "
				"measured core clock and the drift check, where the run has them, "
				"say whether it did."));
}

size_t report_env_cmdline_options(const char *c, char *out, size_t len, size_t *nwords)
{
	static const char *const keys[] = { "mitigations", "pti", "nopti", "clocksource", "tsc",
					    "isolcpus", "nohz", "nohz_full", "idle", "intel_idle",
					    "processor.max_cstate", "nosmt", "spectre_v2" };
	char word[256];
	size_t off = 0, kept = 0;

	*nwords = 0;
	if (len)
		*out = '\0';
	while (c && *c) {
		c += strspn(c, " ");
		size_t n = strcspn(c, " ");

		if (!n)
			break;
		snprintf(word, sizeof word, "%.*s", (int)n, c);
		if (!strcmp(word, "--"))
			break;	/* what follows is init's, not the kernel's */
		(*nwords)++;
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			size_t kl = strlen(keys[k]);
			if (!strncmp(word, keys[k], kl) && (word[kl] == '=' || !word[kl]) &&
			    off < len) {
				off += (size_t)snprintf(out + off, len - off, "%s%s",
							off ? " " : "", word);
				kept++;
				break;
			}
		}
		c += n;
	}
	return kept;
}

/* The kernel command line's options that change measurements. */
static void cmdline(json_t *rows, json_t *m)
{
	char out[1024];
	size_t nwords;

	if (report_env_cmdline_options(jsonutil_str(m, "cmdline"), out, sizeof out, &nwords))
		row(rows, report_view_strf("Kernel options: %s", out),
		    report_view_str("These change what the kernel does on the paths the probes time "
				    "(mitigations, page-table isolation, the clock, idle states, "
				    "isolated CPUs); the whole command line is in manifest.json."));
}

json_t *report_env_rows(json_t *man)
{
	json_t *rows = json_array(), *m = json_object_get(man, "machine");

	virtual_machine(rows, man);
	pti(rows, m);
	clocksource(rows, m);
	core_clock(rows, man);
	drift(rows, man);
	load(rows, m);
	smt(rows, m);
	governor(rows, m);
	cmdline(rows, m);
	return rows;
}
