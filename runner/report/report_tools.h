/*
 * report_tools.h - the external programs the report runs (part of the
 * report, report.h): gnuplot for the charts, latexmk or pdflatex for
 * report.pdf.  They are run with fork+execvp and argument vectors, never
 * through a shell, in the run folder, under a time limit, with their
 * output appended to <run>/report.log; what they draw goes to temporary
 * names and is renamed into place only when complete.
 */
#ifndef SYSMETER_REPORT_TOOLS_H
#define SYSMETER_REPORT_TOOLS_H

#include <stddef.h>

struct report_tools {
	const char *run;		/* run folder: the tools' working directory */
	int verbose;			/* say on stderr what is run */
	int log_fd;			/* report.log, opened when a tool first runs */
};

/* Set up t for the run folder run; nothing is opened yet. */
void report_tools_init(struct report_tools *t, const char *run, int verbose);

/* Close report.log if a tool was run. */
void report_tools_close(struct report_tools *t);

/* Whether prog is an executable file in a $PATH directory. */
int report_tools_found(const char *prog);

/* Whether path is a regular file with something in it. */
int report_tools_nonempty(const char *path);

/* The pictures of a chart, as bits of a mask. */
enum {
	REPORT_TOOLS_PNG = 1,	/* charts/<base>.png, gnuplot variable png_out */
	REPORT_TOOLS_PDF = 2,	/* charts/<base>.pdf, pdf_out */
	REPORT_TOOLS_SVG = 4,	/* charts/<base>.svg, svg_out */
};

/* Run gnuplot on charts/<base>.gp (base: a safe name, report_view_safe_name) to
   draw the pictures in the mask want; *drawn gets the mask of those drawn
   (renamed into place).  Returns 0, or -1 with why in msg. */
int report_tools_chart(struct report_tools *t, const char *base, unsigned want,
		       unsigned *drawn, char *msg, size_t msglen);

/* gnuplot on `script` (a file in the folder t->run), in that folder: for
   a script that names its own output.  0, or -1 with why in msg. */
int report_tools_gnuplot(struct report_tools *t, const char *script, char *msg, size_t msglen);

/* report.tex -> report.pdf with latexmk (use_latexmk) or pdflatex, in a
   scratch folder removed on success.  Returns 0, or -1 with why in msg
   ("pdflatex exited with status 1: report.tex:12: ... (see <run>/report.log)"). */
int report_tools_pdf(struct report_tools *t, int use_latexmk, char *msg, size_t msglen);

#endif
