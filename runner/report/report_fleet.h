/*
 * report_fleet.h - the view of a `runner merge --hosts` folder (part of the
 * report, report.h): every host's run under hosts/<name>/, set side by side
 * per experiment (a table of each point on each host, a chart with a series
 * per host, the hosts that differ clearly), the hosts' machines, and the
 * hosts that are missing with the reason.
 */
#ifndef SYSMETER_REPORT_FLEET_H
#define SYSMETER_REPORT_FLEET_H

#include <jansson.h>
#include "report/report_model.h"

/* view.fleet for the manifest man: null when man has no "hosts" (any
   other run), NULL with rm->err set on a host's run that cannot be read or
   a chart that cannot be written. */
json_t *report_fleet_view(struct report_model *rm, json_t *man);

#endif
