/*
 * models_run.h - one run folder judged by the current specs (private to
 * models/).
 */
#ifndef SYSMETER_MODELS_RUN_H
#define SYSMETER_MODELS_RUN_H

#include <stddef.h>
#include <jansson.h>

#include "models/models_specs.h"
#include "machine/machine.h"

/* Read run (its manifest and result files, untrusted: results.h's
   readers), give every point of every experiment that has a spec in ms
   that spec's prediction now, evaluate the formulas over the run's machine
   and results (results_predict), and add each point to the host of the
   run's machine in hosts (an array; the host is added when it is new):
   to its "judged" list when it is ok with a positive finite ratio, else to
   "not_judged" with why.  Nothing is written to the folder.  0, or -1 with
   "PATH: what" in err when the folder cannot be read.  facts (NULL: none)
   are applied to the run's machine first, in memory. */
int models_run_judge(const char *run, const struct models_specs *ms,
		     const struct machine_facts *facts, json_t *hosts, char *err, size_t errlen);

#endif
