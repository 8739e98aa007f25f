/*
 * cli.c - the command table (cli.h), each command's option table, and the
 * commands small enough to need no file of their own: operand checks, then
 * a call into the module that does the work.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/history.h"
#include "cli/info.h"
#include "cli/merge.h"
#include "cli/merge_hosts.h"
#include "cli/fleet.h"
#include "cli/nfs_serve.h"
#include "cli/rerun.h"
#include "cli/resume.h"
#include "cli/store_cmd.h"
#include "engine/engine.h"
#include "lib/jsonutil.h"
#include "lib/version.h"
#include "models/models.h"
#include "report/report.h"
#include "results/results.h"
#include "serve/serve.h"

/* --nfs is "netns" or nfs://HOST/EXPORT; 0, or EXIT_USAGE (said). */
static int check_nfs(const struct cli_opts *o)
{
	if (o->nfs && !serve_nfs_valid(o->nfs)) {
		fprintf(stderr, "runner: --nfs '%s': expected netns or nfs://HOST/EXPORT\n", o->nfs);
		return EXIT_USAGE;
	}
	return 0;
}

/* `runner [run] SPECS...` and `runner check SPECS...`: the operands and
   options as an engine request. */
static int run_or_check(const char *cmd, char **ops, size_t nops, struct cli_opts *o)
{
	struct engine_request rq = {.paths = ops, .n_paths = nops, .has_seed = o->has_seed,
				    .seed = o->seed};

	if (nops == 0) {
		fprintf(stderr, "runner: %s: no spec or directory given\n", cmd);
		cli_command_usage(stderr, cli_command_find(cmd));
		return EXIT_USAGE;
	}
	cli_engine_options(o, &rq.opt);
	return strcmp(cmd, "check") == 0 ? engine_check(&rq) : engine_run(&rq);
}

static int cmd_run(char **ops, size_t nops, struct cli_opts *o)
{
	if (check_nfs(o))
		return EXIT_USAGE;
	return run_or_check("run", ops, nops, o);
}

static int cmd_check(char **ops, size_t nops, struct cli_opts *o)
{
	return run_or_check("check", ops, nops, o);
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

/* "md,tex" -> REPORT_* flags; 0 for a word that is none of md, tex, pdf,
   html. */
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
		else if (strcmp(t, "html") == 0)
			f |= REPORT_HTML | REPORT_CHARTS;
		else {
			free(copy);
			return 0;
		}
	}
	free(copy);
	return f;
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
	unsigned f = o->format ? parse_formats(o->format) : REPORT_ALL;
	char err[4096];

	if (nops != 1) {
		fprintf(stderr, "runner: report: expected one run folder\n");
		return EXIT_USAGE;
	}
	if (!f) {
		fprintf(stderr, "runner: --format '%s': expected a list of md, tex, pdf, html\n", o->format);
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
	return rerun_main(ops[0], o);
}

static int cmd_resume(char **ops, size_t nops, struct cli_opts *o)
{
	if (nops != 1) {
		fprintf(stderr, "runner: resume: expected one run folder\n");
		return EXIT_USAGE;
	}
	if (check_nfs(o))
		return EXIT_USAGE;
	return resume_main(ops[0], o);
}

static int cmd_merge(char **ops, size_t nops, struct cli_opts *o)
{
	if (o->hosts_file && !o->hosts) {
		fprintf(stderr, "runner: merge: --hosts-file goes with --hosts\n");
		return EXIT_USAGE;
	}
	if (o->hosts) {
		if (nops < 1) {
			fprintf(stderr, "runner: merge: --hosts: expected one or more run folders\n");
			return EXIT_USAGE;
		}
		return merge_hosts_main(ops, nops, o->hosts_file, o);
	}
	if (nops < 2) {
		fprintf(stderr, "runner: merge: expected two or more run folders\n");
		return EXIT_USAGE;
	}
	return merge_main(ops, nops, o);
}

static int cmd_fleet(char **ops, size_t nops, struct cli_opts *o)
{
	if (nops < 1) {
		fprintf(stderr, "runner: fleet: expected one or more specs\n");
		return EXIT_USAGE;
	}
	return fleet_main(ops, nops, o);
}

static int cmd_compare(char **ops, size_t nops, struct cli_opts *o)
{
	struct compare_args a = { o->threshold, o->fail_on, o->json_out };

	if (o->baseline_store) {
		int rc;
		char *base;

		if (nops != 1) {
			fprintf(stderr, "runner: compare --baseline-store: expected one run folder\n");
			return EXIT_USAGE;
		}
		if (!(base = store_cmd_baseline(ops[0], o, &rc)))
			return rc;
		rc = compare_main(base, ops[0], &a);
		free(base);
		return rc;
	}
	if (o->store) {
		fprintf(stderr, "runner: compare: --store is for --baseline-store\n");
		return EXIT_USAGE;
	}

	if (nops != 2) {
		fprintf(stderr, "runner: compare: expected two run folders\n");
		return EXIT_USAGE;
	}
	return compare_main(ops[0], ops[1], &a);
}

static int cmd_history(char **ops, size_t nops, struct cli_opts *o)
{
	return history_main(ops, nops, o);
}

static int cmd_models(char **ops, size_t nops, struct cli_opts *o)
{
	struct models_request rq = {.specs_dir = o->specs_dir, .runs = ops, .n_runs = nops,
				    .json = o->json, .machine_file = o->machine};

	if (nops == 0) {
		fprintf(stderr, "runner: models: no run folder given\n");
		cli_command_usage(stderr, cli_command_find("models"));
		return EXIT_USAGE;
	}
	return models_main(&rq);
}

/* --- the option tables -------------------------------------------------- */

#define OPT_OUT CLI_TEXT("out", 'o', out_dir, "DIR", "results root (default out): runs go to DIR/<run-id>, DIR/latest")
#define OPT_RUN_ID CLI_CALL("run-id", 0, cli_opt_run_id, "ID", "the run folder's name instead of UTC time + hash")
#define OPT_PROBE_DIR CLI_CALL("probe-dir", 0, cli_opt_probe_dir, "DIRS", "colon-separated directories searched for probes first")
#define OPT_TEMPLATES CLI_TEXT("templates", 0, templates, "DIR", "the report's templates")
#define OPT_SET CLI_CALL("set", 0, cli_opt_set, "EXP.KEY=VALUE", "override a spec key (*.KEY: every spec)")
#define OPT_FILTER CLI_CALL("filter", 0, cli_opt_filter, "GLOB", "only the experiments whose name matches")
#define OPT_QUICK CLI_FLAG("quick", 0, quick, "smoke profile: 3 repetitions, short sweeps")
#define OPT_SEED CLI_CALL("seed", 0, cli_opt_seed, "N", "the run's seed (default: random, recorded)")
#define OPT_PEER CLI_TEXT("peer", 0, peer, "HOST:PORT|netns", "the runner serve peer of the network probes")
#define OPT_NFS CLI_TEXT("nfs", 0, nfs, "netns|nfs://HOST/EXPORT", "the NFS server of the NFS probes")
#define OPT_MACHINE CLI_TEXT("machine", 0, machine, "FILE", "machine facts given in a YAML file (docs/results-format.md)")
#define OPT_TOKEN CLI_TEXT("token", 0, token, "FILE", "the peer's shared secret")
#define OPT_TITLE CLI_TEXT("title", 0, title, "TEXT", "the report's title")
#define OPT_AUTHOR CLI_TEXT("author", 0, author, "TEXT", "the report's author(s)")
#define OPT_COURSE CLI_TEXT("course", 0, course, "TEXT", "the report's course or affiliation")
#define OPT_NO_REPORT CLI_FLAG("no-report", 0, no_report, "no charts and report at the end")
#define OPT_FORCE CLI_FLAG("force", 0, force, "go on although a probe binary changed since the run")
#define OPT_QUIET CLI_FLAG("quiet", 'q', quiet, "no progress")
#define OPT_VERBOSE CLI_FLAG("verbose", 'v', verbose, "say what is being done")
#define OPT_STORE CLI_TEXT("store", 0, store, "PATH|URL", "the results store: a SQLite file or postgresql://... (default DIR/sysmeter.db)")
#define OPT_NO_STORE CLI_FLAG("no-store", 0, no_store, "do not record the run in the results store")
#define OPT_READY_FILE CLI_TEXT("ready-file", 0, ready_file, "FILE", "written once the server answers")

static int cmd_store(char **ops, size_t nops, struct cli_opts *o)
{
	return store_cmd_main(ops, nops, o);
}

static const struct cli_option run_options[] = {
	OPT_OUT, OPT_RUN_ID, OPT_PROBE_DIR, OPT_TEMPLATES, OPT_SET, OPT_FILTER, OPT_QUICK,
	OPT_SEED, OPT_PEER, OPT_NFS, OPT_TOKEN, OPT_MACHINE, OPT_TITLE, OPT_AUTHOR, OPT_COURSE,
	OPT_NO_REPORT, OPT_STORE, OPT_NO_STORE, OPT_QUIET, OPT_VERBOSE, CLI_END,
};
static const struct cli_option check_options[] = {
	OPT_PROBE_DIR, OPT_SET, OPT_FILTER, OPT_QUICK, OPT_MACHINE, OPT_QUIET, OPT_VERBOSE, CLI_END,
};
static const struct cli_option probe_options[] = {	/* list, probe-help */
	OPT_PROBE_DIR, CLI_END,
};
static const struct cli_option report_options[] = {
	CLI_TEXT("format", 0, format, "md,tex,pdf,html", "the formats to render (default all)"),
	OPT_TEMPLATES, OPT_TITLE, OPT_AUTHOR, OPT_COURSE, OPT_QUIET, OPT_VERBOSE, CLI_END,
};
static const struct cli_option rerun_options[] = {
	OPT_OUT, OPT_RUN_ID, OPT_PROBE_DIR, OPT_TEMPLATES, OPT_FORCE, OPT_PEER, OPT_NFS,
	OPT_TOKEN, OPT_MACHINE, OPT_TITLE, OPT_AUTHOR, OPT_COURSE, OPT_NO_REPORT, OPT_STORE,
	OPT_NO_STORE, OPT_QUIET, OPT_VERBOSE, CLI_END,
};
static const struct cli_option resume_options[] = {
	OPT_PROBE_DIR, OPT_TEMPLATES, OPT_FORCE, OPT_PEER, OPT_NFS, OPT_TOKEN, OPT_NO_REPORT,
	OPT_STORE, OPT_NO_STORE, OPT_QUIET, OPT_VERBOSE, CLI_END,
};
#define OPT_HOSTS_FILE CLI_TEXT("hosts-file", 0, hosts_file, "FILE", "--hosts: the hosts' names and the missing hosts (sysmeter.hosts/1)")
static const struct cli_option merge_options[] = {
	OPT_OUT, OPT_RUN_ID, OPT_TEMPLATES, OPT_TITLE, OPT_AUTHOR, OPT_COURSE, OPT_NO_REPORT,
	CLI_FLAG("hosts", 0, hosts, "one run per host: all kept, side by side, per host"),
	OPT_HOSTS_FILE, OPT_STORE, OPT_QUIET, OPT_VERBOSE, CLI_END,
};
static const struct cli_option fleet_options[] = {
	CLI_TEXT("ansible", 0, ansible, "INVENTORY", "run on the inventory's hosts through ansible-playbook"),
	CLI_FLAG("slurm", 0, slurm, "run on cluster nodes through sbatch"),
	CLI_CALL("nodes", 0, fleet_opt_nodes, "N", "--slurm: this many nodes"),
	CLI_TEXT("nodelist", 0, slurm_nodelist, "LIST", "--slurm: these nodes"),
	CLI_TEXT("partition", 0, partition, "P", "--slurm: the partition"),
	CLI_TEXT("shared-dir", 0, shared_dir, "DIR", "--slurm: where the nodes write their runs (shared storage)"),
	CLI_CALL("time-limit", 0, fleet_opt_time_limit, "S", "each host's run ends after S seconds (default 3600)"),
	CLI_FLAG("pairs", 0, pairs, "--ansible: network experiments against another host of the fleet (runner serve there)"),
	OPT_OUT, OPT_RUN_ID, OPT_PROBE_DIR, OPT_TEMPLATES, OPT_SET, OPT_FILTER, OPT_QUICK, OPT_SEED,
	OPT_TITLE, OPT_AUTHOR, OPT_COURSE, OPT_NO_REPORT, OPT_STORE, OPT_NO_STORE, OPT_QUIET,
	OPT_VERBOSE, CLI_END,
};
static const struct cli_option compare_options[] = {
	CLI_TEXT("threshold", 0, threshold, "PCT", "the noise threshold (default 5%)"),
	CLI_TEXT("fail-on", 0, fail_on, "regression|change|never", "exit 1 when B has this"),
	CLI_TEXT("json", 0, json_out, "FILE", "the decision as JSON (- for stdout)"),
	CLI_FLAG("baseline-store", 0, baseline_store, "compare RUN with the newest earlier run of the store on this machine"),
	OPT_STORE, CLI_END,
};
static const struct cli_option store_options[] = {
	OPT_STORE, OPT_OUT, OPT_QUIET, CLI_END,
};
static const struct cli_option history_options[] = {
	CLI_CALL("where", 0, history_opt_where, "KEY=VALUE", "only points with this parameter value (repeatable)"),
	CLI_TEXT("host", 0, host, "HOST", "only runs made on this host"),
	CLI_TEXT("since", 0, since, "DATE", "only runs started at or after DATE (UTC, YYYY-MM-DD[THH:MM:SSZ])"),
	OPT_STORE,
	OPT_OUT,
	CLI_TEXT("chart", 0, chart, "FILE", "draw the series to FILE (.svg or .png)"),
	CLI_TEXT("fail-on", 0, fail_on, "regression|never", "exit 1 when a point's newest run stepped slower"),
	CLI_TEXT("html", 0, html, "DIR", "the history page DIR/index.html of the experiments named"),
	OPT_VERBOSE, CLI_END,
};
static const struct cli_option models_options[] = {
	CLI_TEXT("specs", 0, specs_dir, "DIR", "the specs whose predict: entries are judged (default specs)"),
	CLI_FLAG("json", 0, json, "the figures and every point as JSON (sysmeter.models/1)"),
	CLI_TEXT("machine", 0, machine, "FILE", "judge the models for the machine these facts describe"),
	OPT_PROBE_DIR, CLI_END,
};
static const struct cli_option serve_options[] = {
	CLI_TEXT("listen", 0, listen, "ADDR:PORT", "where to listen (default 127.0.0.1:7077)"),
	OPT_TOKEN, OPT_READY_FILE, OPT_QUIET, CLI_END,
};
static const struct cli_option nfs_serve_options[] = {
	OPT_READY_FILE, OPT_QUIET, CLI_END,
};

const struct cli_command cli_commands[] = {
	{"run", cmd_run, run_options, "SPEC_OR_DIR...", "run experiments"},
	{"check", cmd_check, check_options, "SPEC_OR_DIR...", "validate only"},
	{"list", cmd_list, probe_options, "", "probes and their parameters"},
	{"probe-help", cmd_probe_help, probe_options, "NAME", "one probe's parameters"},
	{"report", cmd_report, report_options, "RUN", "render a run's report again from its JSON"},
	{"rerun", cmd_rerun, rerun_options, "RUN", "run a saved run again, exactly"},
	{"resume", cmd_resume, resume_options, "RUN",
	 "finish an interrupted run in its folder: the missing points, same seed"},
	{"merge", cmd_merge, merge_options, "RUN RUN...",
	 "one report from several runs: each experiment's newest result"},
	{"fleet", cmd_fleet, fleet_options, "SPEC_OR_DIR...",
	 "the same run on many hosts (Ansible or Slurm), merged with --hosts"},
	{"compare", cmd_compare, compare_options, "RUN_A RUN_B | --baseline-store RUN",
	 "is B slower or faster than A: per point, overall, exit 1 on --fail-on"},
	{"store", cmd_store, store_options, "import RUN... | check",
	 "the results store: record old run folders; verify it against the folders"},
	{"history", cmd_history, history_options, "EXPERIMENT...",
	 "one experiment's figures over the stored runs, with change points"},
	{"models", cmd_models, models_options, "RUN...",
	 "the current specs' predictions judged over run folders, per host"},
	{"serve", cmd_serve, serve_options, "", "the peer of the network probes, until Ctrl-C"},
	{"nfs-serve", cmd_nfs_serve, nfs_serve_options, "",
	 "the --nfs netns server on its own (root), until Ctrl-C"},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_command *cli_command_find(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

const char *cli_command_taking(const char *option)
{
	int takes_arg;

	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (cli_options_has(c->options, option, &takes_arg))
			return c->name;
	return NULL;
}

/* "runner report [OPTIONS] RUN" (the default command without its name). */
static void usage_line(char *buf, size_t len, const struct cli_command *c)
{
	snprintf(buf, len, "runner %s%s[OPTIONS]%s%s", c == cli_commands ? "" : c->name,
		 c == cli_commands ? "" : " ", *c->synopsis ? " " : "", c->synopsis);
}

void cli_usage(FILE *f)
{
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		char line[256];

		usage_line(line, sizeof line, c);
		fprintf(f, "%s%-42s", c == cli_commands ? "usage: " : "       ", line);
		if (strlen(line) >= 42)
			fprintf(f, "\n%49s", "");
		fprintf(f, "%s\n", c->help);
	}
	fputs("       runner --version\n"
	      "`runner COMMAND --help` lists a command's options; `runner run --help` the run's.\n", f);
}

void cli_command_usage(FILE *f, const struct cli_command *c)
{
	char line[256];

	if (!c)
		return;
	usage_line(line, sizeof line, c);
	fprintf(f, "usage: %s\n       %s\noptions:\n", line, c->help);
	cli_options_usage(f, c->options);
}

void cli_version(FILE *f)
{
	char *commit = version_git_commit();
	fprintf(f, "runner (sysmeter) %s\n", SYSMETER_VERSION);
	if (commit)
		fprintf(f, "commit %s\n", commit);
	free(commit);
}
