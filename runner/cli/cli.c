/*
 * cli.c - the command table (cli.h) and the commands small enough to need
 * no file of their own: operand checks, then a call into the module that
 * does the work.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/info.h"
#include "cli/merge.h"
#include "cli/nfs_serve.h"
#include "cli/rerun.h"
#include "cli/resume.h"
#include "cli/run.h"
#include "lib/version.h"
#include "report/report.h"
#include "results/results.h"
#include "serve/serve.h"
#include "lib/jsonutil.h"

/* --nfs is "netns" or nfs://HOST/EXPORT; 0, or EXIT_USAGE (said). */
static int check_nfs(const struct cli_opts *o)
{
	if (o->nfs && !serve_nfs_valid(o->nfs)) {
		fprintf(stderr, "runner: --nfs '%s': expected netns or nfs://HOST/EXPORT\n", o->nfs);
		return EXIT_USAGE;
	}
	return 0;
}

static int run_or_check(const char *cmd, char **ops, size_t nops, struct cli_opts *o)
{
	if (nops == 0) {
		fprintf(stderr, "runner: %s: no spec or directory given\n", cmd);
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	o->check_only = strcmp(cmd, "check") == 0;
	return run_main(ops, nops, o);
}

static int cmd_run(char **ops, size_t nops, struct cli_opts *o)
{
	if (o->token)	/* the probes read the --peer's token file from here */
		setenv("SYSMETER_PEER_TOKEN", o->token, 1);
	if (check_nfs(o))
		return EXIT_USAGE;
	return run_or_check("run", ops, nops, o);
}

static int cmd_serve(char **ops, size_t nops, struct cli_opts *o)
{
	struct serve_opts so = {.listen = o->listen, .token_file = o->token,
				.ready_file = o->ready_file, .quiet = o->quiet};

	if (nops != 0) {
		fprintf(stderr, "runner: serve: no operand expected ('%s')\n", ops[0]);
		return EXIT_USAGE;
	}
	return serve_main(&so);
}

static int cmd_nfs_serve(char **ops, size_t nops, struct cli_opts *o)
{
	if (nops != 0) {
		fprintf(stderr, "runner: nfs-serve: no operand expected ('%s')\n", ops[0]);
		return EXIT_USAGE;
	}
	return nfs_serve_main(o->ready_file, o->quiet);
}

static int cmd_check(char **ops, size_t nops, struct cli_opts *o)
{
	return run_or_check("check", ops, nops, o);
}

static int cmd_list(char **ops, size_t nops, struct cli_opts *o)
{
	(void)ops; (void)nops; (void)o;
	return info_list();
}

static int cmd_probe_help(char **ops, size_t nops, struct cli_opts *o)
{
	(void)o;
	if (nops != 1) {
		fprintf(stderr, "runner: probe-help: expected one probe name\n");
		return EXIT_USAGE;
	}
	return info_probe_help(ops[0]);
}

/* "md,tex" -> REPORT_* flags; 0 for a word that is none of md, tex, pdf. */
static unsigned parse_formats(const char *s)
{
	unsigned f = 0;
	char *copy = strdup(s), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "md") == 0)
			f |= REPORT_MD | REPORT_CHARTS;
		else if (strcmp(t, "tex") == 0)
			f |= REPORT_TEX | REPORT_CHARTS;
		else if (strcmp(t, "pdf") == 0)
			f |= REPORT_TEX | REPORT_PDF | REPORT_CHARTS;
		else {
			free(copy);
			return 0;
		}
	}
	free(copy);
	return f;
}

void cli_front_matter(json_t *fm, const struct cli_opts *o)
{
	if (o->title)
		jsonutil_set(fm, "title", jsonutil_text(o->title));
	if (o->author)
		jsonutil_set(fm, "author", jsonutil_text(o->author));
	if (o->course)
		jsonutil_set(fm, "course", jsonutil_text(o->course));
}

/* `runner report RUN --title T --author A --course C`: the front matter is
   the run's (its manifest's "report"), so a later render keeps it. */
static int set_front_matter(const char *run, const struct cli_opts *o)
{
	char path[4096], err[512];
	json_t *m, *fm;
	int rc;

	if (!o->title && !o->author && !o->course)
		return 0;
	snprintf(path, sizeof path, "%s/manifest.json", run);
	if (!(m = results_manifest_read(run, err, sizeof err))) {
		fprintf(stderr, "runner: report: %s\n", err);
		return EXIT_USAGE;
	}
	fm = json_object_get(m, "report");
	if (!json_is_object(fm)) {
		fm = json_object();
		jsonutil_set(m, "report", fm);
	}
	cli_front_matter(fm, o);
	rc = results_write_json(path, m, err, sizeof err);
	json_decref(m);
	if (rc < 0) {
		fprintf(stderr, "runner: report: %s\n", err);
		return EXIT_INTERNAL;
	}
	return 0;
}

static volatile sig_atomic_t report_interrupted;

static void on_report_signal(int sig)
{
	(void)sig;
	report_interrupted = 1;
}

static int cmd_report(char **ops, size_t nops, struct cli_opts *o)
{
	unsigned f = o->format ? parse_formats(o->format)
			       : REPORT_MD | REPORT_TEX | REPORT_PDF | REPORT_CHARTS;
	char err[4096];

	if (nops != 1) {
		fprintf(stderr, "runner: report: expected one run folder\n");
		return EXIT_USAGE;
	}
	if (!f) {
		fprintf(stderr, "runner: --format '%s': expected a list of md, tex, pdf\n", o->format);
		return EXIT_USAGE;
	}
	int fmrc = set_front_matter(ops[0], o);
	if (fmrc)
		return fmrc;
	/* Ctrl-C: the tool the report is running (its own process group, out
	   of the terminal's reach) is killed, and the exit is 130 */
	struct sigaction sa, old_int, old_term;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_report_signal;
	sigemptyset(&sa.sa_mask);
	report_interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	report_set_interrupt(&report_interrupted);
	int r = report_render(ops[0], o->templates ? o->templates : report_default_templates(), f,
			      o->verbose, err, sizeof err);
	report_set_interrupt(NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (r < 0)
		fprintf(stderr, "runner: %s\n", err);
	if (report_interrupted)
		return EXIT_INTERRUPTED;
	/* A bad run folder or template is bad input; a failed write or tool
	   is an internal error. */
	return r == 0 ? EXIT_OK : r == REPORT_EINPUT ? EXIT_USAGE : EXIT_INTERNAL;
}

static int cmd_rerun(char **ops, size_t nops, struct cli_opts *o)
{
	if (nops != 1) {
		fprintf(stderr, "runner: rerun: expected one run folder\n");
		return EXIT_USAGE;
	}
	if (check_nfs(o))
		return EXIT_USAGE;
	return rerun_main(ops[0], o->force, o);
}

static int cmd_resume(char **ops, size_t nops, struct cli_opts *o)
{
	if (nops != 1) {
		fprintf(stderr, "runner: resume: expected one run folder\n");
		return EXIT_USAGE;
	}
	if (check_nfs(o))
		return EXIT_USAGE;
	return resume_main(ops[0], o->force, o);
}

static int cmd_merge(char **ops, size_t nops, struct cli_opts *o)
{
	if (nops < 2) {
		fprintf(stderr, "runner: merge: expected two or more run folders\n");
		return EXIT_USAGE;
	}
	return merge_main(ops, nops, o);
}

static int cmd_compare(char **ops, size_t nops, struct cli_opts *o)
{
	struct compare_args a = { o->threshold, o->fail_on, o->json_out };

	if (nops != 2) {
		fprintf(stderr, "runner: compare: expected two run folders\n");
		return EXIT_USAGE;
	}
	return compare_main(ops[0], ops[1], &a);
}

const struct cli_command cli_commands[] = {
	{"run", cmd_run, "[OPTIONS] SPEC_OR_DIR...", "run experiments"},
	{"check", cmd_check, "SPEC_OR_DIR...", "validate only"},
	{"list", cmd_list, "", "probes and their parameters"},
	{"probe-help", cmd_probe_help, "NAME", "one probe's parameters"},
	{"report", cmd_report, "RUN [--format md,tex,pdf] [--templates DIR]",
	 "render a run's report again from its JSON"},
	{"rerun", cmd_rerun, "RUN [--force]", "run a saved run again, exactly"},
	{"resume", cmd_resume, "RUN [--force]",
	 "finish an interrupted run in its folder: the missing points, same seed"},
	{"merge", cmd_merge, "RUN RUN... [--run-id ID]",
	 "one report from several runs: each experiment's newest result"},
	{"compare", cmd_compare,
	 "RUN_A RUN_B [--threshold PCT] [--fail-on regression|change] [--json FILE]",
	 "is B slower or faster than A: per point, overall, exit 1 on --fail-on"},
	{"serve", cmd_serve, "[--listen ADDR:PORT] [--token FILE]",
	 "the peer of the network probes, until Ctrl-C"},
	{"nfs-serve", cmd_nfs_serve, "[--ready-file FILE]",
	 "the --nfs netns server on its own (root), until Ctrl-C"},
	{NULL, NULL, NULL, NULL},
};

void cli_usage(FILE *f)
{
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		char line[256];
		/* The default command goes without its name. */
		snprintf(line, sizeof line, "runner %s%s%s", c == cli_commands ? "" : c->name,
			 c == cli_commands || !*c->synopsis ? "" : " ", c->synopsis);
		fprintf(f, "%s%-38s", c == cli_commands ? "usage: " : "       ", line);
		if (strlen(line) >= 38)
			fprintf(f, "\n%45s", "");
		fprintf(f, "%s\n", c->help);
	}
	fputs("options: -o/--out DIR, --run-id ID, --probe-dir DIRS, --templates DIR,\n"
	      "         --set EXP.KEY=VALUE, --filter GLOB, --quick, --seed N, --peer HOST:PORT|netns,\n"
	      "         --nfs netns|nfs://HOST/EXPORT, --token FILE, --ready-file FILE,\n"
	      "         --title TEXT, --author TEXT, --course TEXT,\n"
	      "         --no-report, -q/--quiet, -v/--verbose, -h/--help, --version\n", f);
}

void cli_version(FILE *f)
{
	char *commit = version_git_commit();
	fprintf(f, "runner (sysmeter) %s\n", SYSMETER_VERSION);
	if (commit)
		fprintf(f, "commit %s\n", commit);
	free(commit);
}
