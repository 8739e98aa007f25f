/*
 * report.h - render a saved run (design §8-§9): charts, report.md,
 * report.tex, report.pdf and report.html, from run_dir/manifest.json and
 * run_dir/results/<experiment>.json alone.
 *
 * Outputs, all in run_dir and each written to a temporary name and renamed:
 *   charts/<exp>.{gp,dat,png,pdf,svg}   report.md   report.tex   report.pdf
 *   report.html
 * plus report.log, the output of gnuplot and latexmk/pdflatex.
 */
#ifndef SYSMETER_REPORT_H
#define SYSMETER_REPORT_H

#include <signal.h>
#include <stddef.h>

enum {
	REPORT_MD = 1,		/* report.md (charts as PNG) */
	REPORT_TEX = 2,		/* report.tex (charts as PDF) */
	REPORT_PDF = 4,		/* report.pdf; implies report.tex */
	REPORT_CHARTS = 8,	/* (re)draw the charts the formats need; without
				   it, chart files already on disk are used */
	REPORT_HTML = 16,	/* report.html (charts as SVG), offline: one folder */
};

/* formats == 0 means everything: MD | TEX | PDF | HTML | CHARTS. */
#define REPORT_ALL (REPORT_MD | REPORT_TEX | REPORT_PDF | REPORT_HTML | REPORT_CHARTS)

/* Return values of report_render besides 0. */
#define REPORT_EINPUT (-1)	/* bad run folder or bad template: exit 2 */
#define REPORT_EFAIL (-2)	/* could not write, or a tool failed: exit 3 */

/*
 * Render the run in run_dir with the templates in templates_dir (NULL: the
 * defaults; a template missing from templates_dir is taken from the
 * defaults, so a user may override just one file).  verbose: say on stderr
 * what is being run.
 *
 * A missing gnuplot or pdflatex is not an error: what can be written is
 * written, a "runner: note: ..." line on stderr says how to get the rest,
 * and 0 is returned.  Errors come back in err without the "runner: " prefix:
 *   "template 'report.tex':12: unclosed section 'points'"
 *   "run 'out/x': cannot read manifest.json: No such file or directory"
 *   "run 'out/x': pdflatex failed: report.tex:120: Undefined control sequence (see out/x/report.log)"
 */
int report_render(const char *run_dir, const char *templates_dir, unsigned formats,
		  int verbose, char *err, size_t errlen);

/* A flag the caller's SIGINT/SIGTERM handler sets: a tool the report is
   running (gnuplot, latexmk and the pdflatex it starts) is then killed at
   once and report_render fails with "interrupted", instead of writing on
   into the run folder after the runner is gone.  NULL: none. */
void report_set_interrupt(volatile sig_atomic_t *flag);

/* The templates beside the runner binary: ../templates from build/runner,
   ../share/sysmeter/templates from an installed PREFIX/bin/runner. */
const char *report_default_templates(void);

/*
 * gnuplot as the report runs it, for a chart drawn outside a run folder
 * (`runner history`): report_gnuplot runs `gnuplot SCRIPT` in dir (no
 * shell, the report's time limit, the interrupt flag above), its output in
 * dir/report.log; the script names its own output file.  0, or -1 with why
 * in err (the log's last line when gnuplot failed).
 * report_gnuplot_string: s for the inside of a single-quoted gnuplot string
 * (the report's own escaping: a quote cannot end the string, no command
 * substitution, no newline); malloc'd, NULL when out of memory.
 * report_gnuplot_found: whether gnuplot is on $PATH.
 */
int report_gnuplot(const char *dir, const char *script, int verbose, char *err, size_t errlen);
char *report_gnuplot_string(const char *s);
int report_gnuplot_found(void);

#endif
