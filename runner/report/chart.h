/*
 * chart.h - one experiment's chart (design §9): the data file and the
 * gnuplot script, rendered from templates/chart.gp.  Running gnuplot on
 * the script is report_tools.c's job (it owns the tool runner and the
 * log).
 *
 * The script draws charts/<base>.png (pngcairo, for Markdown),
 * charts/<base>.pdf (pdfcairo, for LaTeX) and/or charts/<base>.svg (svg,
 * for HTML), to the names in the gnuplot variables png_out, pdf_out and
 * svg_out when they are set on the command line
 * (`gnuplot -e "png_out='...'" charts/<base>.gp`), so the caller can draw
 * to temporary names and rename.  Run it with the run folder as the
 * working directory.
 */
#ifndef SYSMETER_CHART_H
#define SYSMETER_CHART_H

#include <stddef.h>
#include <jansson.h>

struct chart_request {
	const char *run_dir;
	const char *base;		/* file stem in charts/, safe for a file name */
	json_t *result;			/* results/<experiment>.json */
	const char *unit;		/* unit the report shows values in ("µs") */
	double scale;			/* probe unit -> that unit */
	int png, pdf, svg;		/* which pictures the script draws */
	const char *const *template_dirs;	/* where chart.gp is looked up */
};

/* Write charts/<base>.dat and charts/<base>.gp.  Returns 1 when written,
   0 when there is nothing to draw (no point has a value), -1 on error with
   a message in err ("template 'chart.gp':3: ...", "chart 'x': ..."). */
int chart_write(const struct chart_request *rq, char *err, size_t errlen);

/* Write `len` bytes to dir/name through a temporary file in dir and a
   rename, so that no reader ever sees half a file.  Returns 0, or -1 with
   errno set. */
int chart_write_file(const char *dir, const char *name, const char *data, size_t len);

#endif
