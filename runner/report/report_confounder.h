/*
 * report_confounder.h - which recorded confounder can account for a
 * prediction's miss (part of the generated discussion,
 * report_discussion.c): a virtual machine, the kernel's mitigations, the
 * wake-up of an idle CPU, an implausible last-level cache, the device the
 * model did not know, a core clock that did not hold.  Each is named only
 * when the run recorded it, with its number, and only when the model's
 * terms use what it slows (docs/methodology.md, "The discussion").
 */
#ifndef SYSMETER_REPORT_CONFOUNDER_H
#define SYSMETER_REPORT_CONFOUNDER_H

#include <jansson.h>
#include <stdio.h>

struct report_confounder_in {
	const char *run;	/* the run folder: its manifest and other results */
	json_t *names;		/* the names and @references the model's terms use */
	json_t *pred;		/* the worst point's prediction (its sources) */
	int cross;		/* the worst point runs across CPUs (placement=cross) */
	int slower;		/* the measurement is slower than the model (more time,
				   a smaller rate); else faster */
};

/* Appends to f one sentence: the recorded confounders that can account
   for the miss, each with its number, or that the miss is unexplained. */
void report_confounder_say(FILE *f, const struct report_confounder_in *in);

#endif
