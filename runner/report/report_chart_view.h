/*
 * report_chart_view.h - one chart of the report (private to report/): its
 * gnuplot script written and drawn in the formats the report is made in,
 * and the view that says which pictures exist.  An experiment's chart and
 * the fleet report's per-host chart are both made here.
 */
#ifndef SYSMETER_REPORT_CHART_VIEW_H
#define SYSMETER_REPORT_CHART_VIEW_H

#include <jansson.h>

#include "report/report_model.h"
#include "report/report_unit.h"

/* charts/BASE.* drawn from res when the report draws charts and can_draw
   (there is something to draw); when it does not draw, what an earlier
   rendering left (can_draw still needed).  The view: {png, pdf, svg,
   script, has_png, has_pdf, has_svg}.  A gnuplot failure is remembered in
   rm (chart_msg, naming `what`) and does not stop the report; NULL (rm->err
   set) when the chart's script cannot be written. */
json_t *report_chart_view(struct report_model *rm, json_t *res, const char *base, const char *what,
			  const struct report_unit *d, int can_draw);

#endif
