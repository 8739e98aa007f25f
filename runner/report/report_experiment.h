/*
 * report_experiment.h - one experiment's part of the view model (part of
 * the report, report.h; docs/templates.md): its result file turned into
 * title, status, method, tables, findings and chart.
 */
#ifndef SYSMETER_REPORT_EXPERIMENT_H
#define SYSMETER_REPORT_EXPERIMENT_H

#include <jansson.h>

#include "report/report_model.h"

/* The view of the experiment mexp (its manifest entry), with its chart
   written (and drawn), and its rows appended to summary.  An experiment
   without a result file (an interrupted run) gets a view that says so.
   Returns NULL with rm->err set on a broken result file or a chart that
   could not be written. */
json_t *report_experiment_view(struct report_model *rm, json_t *mexp, json_t *summary);

#endif
