/*
 * report_tools.c - running gnuplot and latexmk/pdflatex for the report
 * (report_tools.h).
 */
#include "report/report_tools.h"
#include "report/report.h"
#include "lib/monotonic.h"
#include "lib/strf.h"
#include "lib/supervise.h"
#include "lib/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define REPORT_GNUPLOT_TIMEOUT 60.0	/* s, per chart */
#define REPORT_LATEX_TIMEOUT 300.0	/* s, for the whole PDF */
#define REPORT_TEX_DIR ".report-tex"	/* latexmk's scratch folder in the run */

void report_tools_init(struct report_tools *t, const char *run, int verbose)
{
	t->run = run;
	t->verbose = verbose;
	t->log_fd = -1;
}

void report_tools_close(struct report_tools *t)
{
	if (t->log_fd >= 0)
		close(t->log_fd);
	t->log_fd = -1;
}

int report_tools_found(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, full[PATH_MAX];
	int found = 0;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	copy = strdup(path);
	if (!copy)
		return 0;
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		struct stat st;

		strf(full, sizeof full, "%s/%s", *dir ? dir : ".", prog);
		found = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

static int open_log(struct report_tools *t)
{
	char path[PATH_MAX];

	if (t->log_fd >= 0)
		return 0;
	strf(path, sizeof path, "%s/report.log", t->run);
	t->log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return t->log_fd < 0 ? -1 : 0;
}

/* "$ gnuplot x.gp" into report.log (best effort), and on stderr with -v. */
static void say_command(struct report_tools *t, char *const argv[], char *msg)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	int i;

	fputs("$", f);
	for (i = 0; argv[i]; i++)
		fprintf(f, " %s", argv[i]);
	fputs("\n", f);
	fclose(f);
	if (write(t->log_fd, line, strlen(line)) < 0)
		msg[0] = '\0';	/* the log is best effort */
	free(line);
	if (t->verbose) {
		fprintf(stderr, "runner: report: running");
		for (i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
	}
}

static volatile sig_atomic_t *interrupt_flag;

void report_set_interrupt(volatile sig_atomic_t *flag)
{
	interrupt_flag = flag;
}

/* What the tool's child needs. */
struct tool_start {
	const struct report_tools *t;
	char *const *argv;
};

/* In the child: stdin from /dev/null, output to report.log, in the run. */
static void tool_exec(void *arg)
{
	const struct tool_start *a = arg;
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0)
		dup2(null, 0);
	dup2(a->t->log_fd, 1);
	dup2(a->t->log_fd, 2);
	if (chdir(a->t->run) == 0)
		execvp(a->argv[0], a->argv);
	dprintf(2, "runner: cannot run %s: %s\n", a->argv[0], strerror(errno));
	_exit(127);
}

/*
 * Run argv in the run folder with its output appended to report.log, for
 * at most timeout_s.  The child leads its own process group (lib/supervise)
 * so that a timeout kills what it started too (latexmk runs pdflatex).
 * Returns 0 when it exited 0, else -1 with why in msg.
 */
static int run_tool(struct report_tools *t, char *const argv[], double timeout_s, char *msg,
		    size_t msglen)
{
	struct tool_start start = { .t = t, .argv = argv };
	struct supervise c;
	struct supervise_end end;
	int ev;

	if (open_log(t) < 0) {
		strf(msg, msglen, "cannot write %s/report.log: %s", t->run, strerror(errno));
		return -1;
	}
	say_command(t, argv, msg);
	if (supervise_spawn(&c, tool_exec, &start) < 0) {
		strf(msg, msglen, "fork: %s", strerror(errno));
		return -1;
	}
	/* the tool leads its own group: Ctrl-C reaches only the runner, which
	   must end the tool itself (the wait does, on the interrupt flag) */
	ev = supervise_wait(&c, NULL, 0, monotonic_s() + timeout_s, interrupt_flag);
	if (ev < 0)
		strf(msg, msglen, "waitpid: %s", strerror(errno));
	/* a finished tool may leave children behind (it should not): the reap
	   ends them */
	supervise_reap(&c, &end);
	if (ev < 0)
		return -1;
	if (end.how == SUPERVISE_END_EXIT && end.code == 0)
		return 0;
	if (end.how == SUPERVISE_END_INTERRUPT)
		strf(msg, msglen, "interrupted while %s ran", argv[0]);
	else if (end.how == SUPERVISE_END_TIMEOUT)
		strf(msg, msglen, "%s timed out after %.0f s", argv[0], timeout_s);
	else if (end.how == SUPERVISE_END_EXIT)
		strf(msg, msglen, "%s exited with status %d", argv[0], end.code);
	else
		strf(msg, msglen, "%s killed by signal %d (%s)", argv[0], end.code,
		     strsignal(end.code));
	return -1;
}

int report_tools_nonempty(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* The pictures of a chart: extension, gnuplot variable, mask bit. */
static const struct { const char *ext, *var; unsigned bit; } pictures[] = {
	{"png", "png_out", REPORT_TOOLS_PNG},
	{"pdf", "pdf_out", REPORT_TOOLS_PDF},
	{"svg", "svg_out", REPORT_TOOLS_SVG},
};
#define N_PICTURES (sizeof pictures / sizeof pictures[0])

/* Into temporary names, then renamed. */
int report_tools_chart(struct report_tools *t, const char *base, unsigned want,
		       unsigned *drawn, char *msg, size_t msglen)
{
	char script[PATH_MAX], vars[N_PICTURES * PATH_MAX], tmp[N_PICTURES][PATH_MAX];
	char dst[N_PICTURES][PATH_MAX];
	char *argv[] = { "gnuplot", "-e", vars, script, NULL };
	size_t k, off = 0;

	strf(script, sizeof script, "charts/%s.gp", base);
	vars[0] = '\0';
	for (k = 0; k < N_PICTURES; k++) {
		strf(tmp[k], sizeof tmp[k], "%s/charts/.%s.%s.tmp", t->run, base, pictures[k].ext);
		strf(dst[k], sizeof dst[k], "%s/charts/%s.%s", t->run, base, pictures[k].ext);
		unlink(tmp[k]);
		/* base is a safe name (report_view_safe_name): no quote can occur in it */
		if ((want & pictures[k].bit) && off < sizeof vars)
			off += (size_t)snprintf(vars + off, sizeof vars - off, "%s='charts/.%s.%s.tmp'; ",
						pictures[k].var, base, pictures[k].ext);
	}
	if (run_tool(t, argv, REPORT_GNUPLOT_TIMEOUT, msg, msglen) < 0) {
		for (k = 0; k < N_PICTURES; k++)
			unlink(tmp[k]);
		return -1;
	}
	for (k = 0; k < N_PICTURES; k++) {
		if (!(want & pictures[k].bit))
			continue;
		if (!report_tools_nonempty(tmp[k])) {
			strf(msg, msglen, "gnuplot drew no charts/%s.%s (does chart.gp set output %s?)",
			     base, pictures[k].ext, pictures[k].var);
			for (; k < N_PICTURES; k++)
				unlink(tmp[k]);
			return -1;
		}
		if (rename(tmp[k], dst[k]) < 0) {
			strf(msg, msglen, "cannot rename %s: %s", tmp[k], strerror(errno));
			for (; k < N_PICTURES; k++)
				unlink(tmp[k]);
			return -1;
		}
		*drawn |= pictures[k].bit;
	}
	return 0;
}

int report_tools_gnuplot(struct report_tools *t, const char *script, char *msg, size_t msglen)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };

	return run_tool(t, argv, REPORT_GNUPLOT_TIMEOUT, msg, msglen);
}

static void remove_tree_flat(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		strf(path, sizeof path, "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* The first error pdflatex reported, from its log ("report.tex:12: ..."). */
static void latex_error(const char *logpath, char *out, size_t len)
{
	FILE *f = fopen(logpath, "r");
	char line[1024];

	strf(out, len, "see the log");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, "report.tex:");

		line[strcspn(line, "\n")] = '\0';
		if ((p && p[11] >= '0' && p[11] <= '9') || line[0] == '!') {
			size_t n;

			/* it may quote the text ("Unicode character X"): shown
			   escaped, never raw on a terminal */
			text_escape(p ? p : line + 2, out, len);
			n = strlen(out);
			if (n && out[n - 1] == '.')	/* our messages end without one */
				out[n - 1] = '\0';
			break;
		}
	}
	fclose(f);
}

/* report.tex -> report.pdf with latexmk (else pdflatex, run until the
   cross references settle), in a scratch folder, then renamed.  The
   scratch folder goes whatever happens (a LaTeX error, a timeout, Ctrl-C):
   what the tool said is in the run's report.log, which the message names. */
int report_tools_pdf(struct report_tools *t, int use_latexmk, char *msg, size_t msglen)
{
	char outdir[PATH_MAX], pdf[PATH_MAX], dst[PATH_MAX], logpath[PATH_MAX], why[512];
	char *latexmk[] = { "latexmk", "-norc", "-pdf", "-interaction=nonstopmode", "-halt-on-error",
			    "-file-line-error", "-no-shell-escape", "-outdir=" REPORT_TEX_DIR,
			    "report.tex", NULL };
	char *pdflatex[] = { "pdflatex", "-interaction=nonstopmode", "-halt-on-error",
			     "-file-line-error", "-no-shell-escape",
			     "-output-directory=" REPORT_TEX_DIR, "report.tex", NULL };
	int rc_tool = 0, pass, rc = -1;
	struct stat st;

	strf(outdir, sizeof outdir, "%s/" REPORT_TEX_DIR, t->run);
	strf(pdf, sizeof pdf, "%s/report.pdf", outdir);
	strf(dst, sizeof dst, "%s/report.pdf", t->run);
	strf(logpath, sizeof logpath, "%s/report.log", outdir);
	/* a folder left by a killed runner is emptied; anything else by that
	   name (a symbolic link in a run folder from elsewhere) is only
	   unlinked, never followed */
	if (lstat(outdir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			remove_tree_flat(outdir);
		else
			unlink(outdir);
	}
	if (mkdir(outdir, 0755) < 0) {
		strf(msg, msglen, "cannot create %s: %s", outdir, strerror(errno));
		return -1;
	}
	unlink(pdf);
	if (use_latexmk) {
		rc_tool = run_tool(t, latexmk, REPORT_LATEX_TIMEOUT, msg, msglen);
	} else {
		for (pass = 0; pass < 4 && rc_tool == 0; pass++) {
			FILE *f;
			char line[1024];
			int again = 0;

			rc_tool = run_tool(t, pdflatex, REPORT_LATEX_TIMEOUT / 4, msg, msglen);
			f = rc_tool == 0 ? fopen(logpath, "r") : NULL;
			while (f && fgets(line, sizeof line, f))
				/* not just "Rerun": the rerunfilecheck banner has it */
				if (strstr(line, "Rerun to get") || strstr(line, "Rerun LaTeX") ||
				    strstr(line, "Label(s) may have changed"))
					again = 1;
			if (f)
				fclose(f);
			if (!again)
				break;
		}
	}
	if (rc_tool < 0) {
		latex_error(logpath, why, sizeof why);
		strf(msg + strlen(msg), msglen - strlen(msg), ": %s (see %s/report.log)", why, t->run);
	} else if (!report_tools_nonempty(pdf)) {
		strf(msg, msglen, "%s wrote no report.pdf (see %s/report.log)",
			 use_latexmk ? "latexmk" : "pdflatex", t->run);
	} else if (rename(pdf, dst) < 0) {
		strf(msg, msglen, "cannot rename %s: %s", pdf, strerror(errno));
	} else {
		rc = 0;
	}
	remove_tree_flat(outdir);
	return rc;
}
