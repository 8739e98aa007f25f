/*
 * report_chart_view.c - one chart of the report (report_chart_view.h).
 */
#include "report/report_chart_view.h"
#include "report/report.h"
#include "report/report_tools.h"
#include "report/report_view.h"
#include "report/chart.h"
#include "lib/strf.h"

#include <limits.h>

json_t *report_chart_view(struct report_model *rm, json_t *res, const char *base, const char *what,
			  const struct report_unit *d, int can_draw)
{
	json_t *c = json_object();
	char png[PATH_MAX], pdf[PATH_MAX], svg[PATH_MAX], msg[1024];
	unsigned want = (rm->formats & REPORT_MD ? REPORT_TOOLS_PNG : 0) |
			(rm->formats & REPORT_TEX ? REPORT_TOOLS_PDF : 0) |
			(rm->formats & REPORT_HTML ? REPORT_TOOLS_SVG : 0);
	unsigned drawn = 0;

	strf(png, sizeof png, "%s/charts/%s.png", rm->run, base);
	strf(pdf, sizeof pdf, "%s/charts/%s.pdf", rm->run, base);
	strf(svg, sizeof svg, "%s/charts/%s.svg", rm->run, base);
	if (can_draw && (rm->formats & REPORT_CHARTS)) {
		struct chart_request rq = {
			rm->run, base, res, d->label, d->scale, !!(want & REPORT_TOOLS_PNG),
			!!(want & REPORT_TOOLS_PDF), !!(want & REPORT_TOOLS_SVG), rm->dirs };
		int w = chart_write(&rq, rm->err, rm->errlen);

		if (w < 0) {
			json_decref(c);
			return NULL;
		}
		if (w > 0 && rm->have_gnuplot &&
		    report_tools_chart(rm->tools, base, want, &drawn, msg, sizeof msg) < 0 &&
		    !rm->chart_msg[0])
			strf(rm->chart_msg, sizeof rm->chart_msg, "chart '%s': %s (see %s/report.log)",
			     what, msg, rm->run);
	} else if (can_draw) {
		/* not redrawn: use what an earlier rendering left */
		drawn = (report_tools_nonempty(png) ? REPORT_TOOLS_PNG : 0) |
			(report_tools_nonempty(pdf) ? REPORT_TOOLS_PDF : 0) |
			(report_tools_nonempty(svg) ? REPORT_TOOLS_SVG : 0);
	}
	report_view_put(c, "png", report_view_strf("charts/%s.png", base));
	report_view_put(c, "pdf", report_view_strf("charts/%s.pdf", base));
	report_view_put(c, "svg", report_view_strf("charts/%s.svg", base));
	report_view_put(c, "script", report_view_strf("charts/%s.gp", base));
	report_view_put(c, "has_png", json_boolean(drawn & REPORT_TOOLS_PNG));
	report_view_put(c, "has_pdf", json_boolean(drawn & REPORT_TOOLS_PDF));
	report_view_put(c, "has_svg", json_boolean(drawn & REPORT_TOOLS_SVG));
	return c;
}
