/*
 * report_discussion.h - the discussion generated from an experiment's data
 * (part of the report, report.h; docs/templates.md `generated_discussion`):
 * whether the prediction held and by how much, what the sanity flags that
 * fired mean, and comparisons with the other experiments of the run.  Every
 * sentence is built from numbers in the run's results and worded by
 * comparing them ("faster" or "slower"; "about the same" when the
 * intervals overlap within 5 %, else a difference the rounds did not
 * resolve); a comparison whose other experiment is not in the run is left
 * out.
 */
#ifndef SYSMETER_REPORT_DISCUSSION_H
#define SYSMETER_REPORT_DISCUSSION_H

#include <jansson.h>

#include "report/report_unit.h"

/* The paragraphs, [{text}], for experiment `name` whose result is res, in
   the run folder run (where the other experiments' results are read);
   an empty list when the data gives nothing to say. */
json_t *report_discussion_view(const char *run, const char *name, json_t *res,
			       const struct report_unit *d);

#endif
