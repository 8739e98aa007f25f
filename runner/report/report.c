/*
 * report.c - render a saved run: charts, report.md, report.tex, report.pdf,
 * report.html (design §8-§9; report.h).
 *
 * This file only puts the steps in order and says what went wrong: the view
 * model is built by report_model.c (with each experiment's chart written by
 * chart.c and drawn by gnuplot), the templates are filled by template.c,
 * and gnuplot and latexmk/pdflatex are run by report_tools.c.
 */
#include "report/report.h"
#include "report/report_model.h"
#include "report/report_tools.h"
#include "report/report_view.h"
#include "report/chart.h"
#include "lib/html.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "report/template.h"
#include "results/results.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The templates beside the runner binary, found through /proc/self/exe so
 * that no install prefix is compiled in: ../templates from a build tree
 * (build/runner), ../share/sysmeter/templates from PREFIX/bin/runner.  The
 * first that holds report.md wins; neither: the installed location, whose
 * absence the caller then reports.
 */
const char *report_default_templates(void)
{
	static const char *const rel[] = { "../templates", "../share/sysmeter/templates" };
	static char dir[PATH_MAX];
	char exe[PATH_MAX], probe[PATH_MAX + 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0)
		return "/usr/local/share/sysmeter/templates";
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (size_t i = 0; slash && i < sizeof rel / sizeof *rel; i++) {
		char *real;

		strf(probe, sizeof probe, "%s/%s/report.md", exe, rel[i]);
		if (access(probe, R_OK) != 0)
			continue;
		strf(probe, sizeof probe, "%s/%s", exe, rel[i]);
		real = realpath(probe, NULL);
		strf(dir, sizeof dir, "%s", real ? real : probe);
		free(real);
		return dir;
	}
	strf(dir, sizeof dir, "%s/%s", exe, rel[1]);
	return dir;
}

/* The template search path: the user's folder (when given), then the
   default set, unless the two are the same folder.  *user_templates: the
   first is not the default set.  Returns REPORT_EINPUT when templates_dir
   is not a folder. */
static int template_dirs(const char *templates_dir, const char *dirs[3], int *user_templates,
			 char *err, size_t errlen)
{
	const char *def = report_default_templates();
	struct stat st;
	int n = 0;

	*user_templates = 0;
	if (templates_dir) {
		if (stat(templates_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
			strf(err, errlen, "templates '%s': %s", templates_dir,
			     stat(templates_dir, &st) < 0 ? strerror(errno) : "not a directory");
			return REPORT_EINPUT;
		}
		dirs[n++] = templates_dir;
		/* main passes the default set explicitly when there is no
		   --templates: only another folder is the user's */
		*user_templates = strcmp(templates_dir, def) != 0;
	}
	if (!templates_dir || strcmp(templates_dir, def) != 0)
		dirs[n++] = def;
	dirs[n] = NULL;
	return 0;
}

static int render_one(const char *run, int verbose, json_t *view, const char *tname,
		      enum template_format fmt, const char *const *dirs, char *err, size_t errlen)
{
	char *text = template_render_file(tname, view, fmt, dirs, err, errlen);

	if (!text)
		return REPORT_EINPUT;
	if (chart_write_file(run, tname, text, strlen(text)) < 0) {
		strf(err, errlen, "run '%s': cannot write %s: %s", run, tname, strerror(errno));
		free(text);
		return REPORT_EFAIL;
	}
	if (verbose)
		fprintf(stderr, "runner: report: wrote %s/%s\n", run, tname);
	free(text);
	return 0;
}

/* report.tex -> report.pdf when a LaTeX is installed (else a note). */
static int render_pdf(struct report_tools *tools, const char *run_dir, int verbose,
		      int user_templates, char *err, size_t errlen)
{
	int use_latexmk = report_tools_found("latexmk");
	char msg[1024];

	if (!use_latexmk && !report_tools_found("pdflatex")) {
		fprintf(stderr, "runner: note: pdflatex not found; install texlive-latex-base "
			"texlive-latex-recommended texlive-fonts-recommended lmodern latexmk "
			"(make deps) to get report.pdf from %s/report.tex\n", run_dir);
	} else if (report_tools_pdf(tools, use_latexmk, msg, sizeof msg) < 0) {
		/* with the user's templates, most likely the user's TeX */
		strf(err, errlen, "run '%s': %s", run_dir, msg);
		return user_templates ? REPORT_EINPUT : REPORT_EFAIL;
	} else if (verbose) {
		fprintf(stderr, "runner: report: wrote %s/report.pdf\n", run_dir);
	}
	return 0;
}

int report_render(const char *run_dir, const char *templates_dir, unsigned formats,
		  int verbose, char *err, size_t errlen)
{
	struct report_model rm;
	struct report_tools tools;
	const char *dirs[3];
	json_t *man = NULL, *view = NULL;
	char path[PATH_MAX], msg[1024];
	int ret = 0, user_templates;

	memset(&rm, 0, sizeof rm);
	rm.run = run_dir;
	rm.formats = formats ? formats : REPORT_ALL;
	if (rm.formats & REPORT_PDF)
		rm.formats |= REPORT_TEX;
	rm.dirs = dirs;
	rm.tools = &tools;
	rm.err = err;
	rm.errlen = errlen;
	report_tools_init(&tools, run_dir, verbose);
	if (template_dirs(templates_dir, dirs, &user_templates, err, errlen) < 0)
		return REPORT_EINPUT;

	/* checked: a run folder is untrusted input (names, result paths) */
	man = results_manifest_read(run_dir, msg, sizeof msg);
	if (!man) {
		strf(err, errlen, "run '%s': %s", run_dir, msg);
		return REPORT_EINPUT;
	}

	rm.have_gnuplot = report_tools_found("gnuplot");
	if (rm.formats & REPORT_CHARTS) {
		strf(path, sizeof path, "%s/charts", run_dir);
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			strf(err, errlen, "run '%s': cannot create charts/: %s", run_dir, strerror(errno));
			ret = REPORT_EFAIL;
			goto out;
		}
		if (!rm.have_gnuplot)
			fprintf(stderr, "runner: note: gnuplot not found; install gnuplot-nox (make deps) "
				"to get the charts (their scripts are in %s/charts)\n", run_dir);
	}
	view = report_model_build(&rm, man);
	if (!view) {
		/* a broken template or result file is the user's input; a chart
		   that cannot be written ("chart 'x': cannot write ...") is not */
		ret = strncmp(err, "template", 8) == 0 || strncmp(err, "run", 3) == 0 ?
			REPORT_EINPUT : REPORT_EFAIL;
		goto out;
	}
	if (jsonutil_build_failure()) {
		strf(err, errlen, "run '%s': the report's data could not be built (%s)", run_dir,
		     jsonutil_build_failure());
		ret = REPORT_EFAIL;
		goto out;
	}
	report_view_put(view, "charts_drawn", json_boolean(rm.have_gnuplot && (rm.formats & REPORT_CHARTS)));
	report_view_put(view, "html_csp", report_view_str(HTML_CSP));

	if ((rm.formats & REPORT_MD) &&
	    (ret = render_one(run_dir, verbose, view, "report.md", TEMPLATE_MD, dirs, err, errlen)) < 0)
		goto out;
	if ((rm.formats & REPORT_TEX) &&
	    (ret = render_one(run_dir, verbose, view, "report.tex", TEMPLATE_TEX, dirs, err, errlen)) < 0)
		goto out;
	if ((rm.formats & REPORT_HTML) &&
	    (ret = render_one(run_dir, verbose, view, "report.html", TEMPLATE_HTML, dirs, err,
			      errlen)) < 0)
		goto out;
	if ((rm.formats & REPORT_PDF) &&
	    (ret = render_pdf(&tools, run_dir, verbose, user_templates, err, errlen)) < 0)
		goto out;
	if (rm.chart_msg[0]) {
		strf(err, errlen, "run '%s': %s", run_dir, rm.chart_msg);
		ret = user_templates ? REPORT_EINPUT : REPORT_EFAIL;
	}
out:
	report_tools_close(&tools);
	json_decref(view);
	json_decref(man);
	return ret;
}
