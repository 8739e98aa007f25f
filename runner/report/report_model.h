/*
 * report_model.h - the view model of a run (part of the report, report.h;
 * documented for template authors in docs/templates.md): one JSON object
 * built from manifest.json and results/<experiment>.json alone, in which
 * every number is already a string in a readable unit, so that templates
 * only place text and the same view fills report.md and report.tex.
 *
 * Building the view also writes each experiment's chart files and, when
 * gnuplot is there, draws them: the view says which pictures exist.
 */
#ifndef SYSMETER_REPORT_MODEL_H
#define SYSMETER_REPORT_MODEL_H

#include <stddef.h>
#include <jansson.h>

#include "report/report_tools.h"

struct report_model {
	/* set by the caller */
	const char *run;		/* run folder, as given (for messages) */
	unsigned formats;		/* REPORT_*: which charts to write and draw */
	const char *const *dirs;	/* template search path (chart.gp) */
	int have_gnuplot;		/* draw the charts, not only write them */
	struct report_tools *tools;	/* runs gnuplot */
	char *err;			/* where a fatal error is said */
	size_t errlen;
	/* set by report_model_build */
	double tsc_hz;			/* the manifest's, NAN when unknown */
	double cycle_hz;		/* what cycle columns count (report_env_cycle_clock) */
	int cycles_core;		/* 1: core cycles, else TSC ticks */
	json_t *bases;			/* chart file stems already used */
	char chart_msg[1024];		/* the first chart that could not be drawn */
	json_t *machine;		/* the manifest's machine (borrowed) */
	json_t *by_name;		/* {experiment: result} of the run, for prediction
					   formulas that read other results (loaded once) */
};

/* The view of the run whose parsed manifest.json is man (already checked
   to be a sysmeter.manifest with an experiments array).  A chart gnuplot
   could not draw does not stop it: rm->chart_msg says so.  Returns NULL with
   rm->err set on a broken result file ("run 'x': cannot read ...") or a
   chart that could not be written ("template 'chart.gp':3: ...",
   "chart 'x': ..."). */
json_t *report_model_build(struct report_model *rm, json_t *man);

#endif
