/*
 * main.c - parse the command line and dispatch (docs/cli.md).  Nothing
 * else happens here; every command lives in its own module.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/compare.h"
#include "cli/info.h"
#include "exec/loader.h"
#include "report/report.h"
#include "cli/rerun.h"
#include "cli/run.h"

static void usage(FILE *f)
{
	fputs("usage: runner [OPTIONS] SPEC_OR_DIR...       run experiments\n"
	      "       runner check SPEC_OR_DIR...           validate only\n"
	      "       runner list                           probes and their parameters\n"
	      "       runner probe-help NAME                one probe's parameters\n"
	      "       runner report RUN [--format md,tex,pdf] [--templates DIR]\n"
	      "       runner rerun RUN [--force]\n"
	      "       runner compare RUN_A RUN_B\n"
	      "options: -o/--out DIR, --run-id ID, --probe-dir DIRS, --templates DIR,\n"
	      "         --set EXP.KEY=VALUE, --filter GLOB, --quick, --seed N, --peer HOST:PORT,\n"
	      "         --no-report, -q/--quiet, -v/--verbose, -h/--help\n", f);
}

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

enum { O_RUNID = 256, O_PROBEDIR, O_TEMPLATES, O_SET, O_FILTER, O_QUICK, O_SEED,
       O_NOREPORT, O_FORMAT, O_FORCE, O_PEER };

/* One option; returns -1 to go on, or an exit code (help, bad usage). */
static int handle_opt(int c, struct run_opts *o, const char **format, int *force)
{
	switch (c) {
	case 'o': o->out_dir = optarg; break;
	case O_RUNID:
		if (!*optarg || strchr(optarg, '/') || strcmp(optarg, ".") == 0 ||
		    strcmp(optarg, "..") == 0) {
			fprintf(stderr, "runner: --run-id '%s': expected a plain folder name\n", optarg);
			return 2;
		}
		o->run_id = optarg;
		break;
	case O_PROBEDIR: loader_set_dir(optarg); break;
	case O_TEMPLATES: o->templates = optarg; break;
	case O_SET: o->sets[o->n_sets++] = optarg; break;
	case O_FILTER: o->filters[o->n_filters++] = optarg; break;
	case O_QUICK: o->quick = 1; break;
	case O_SEED: {
		char *end;
		errno = 0;
		o->seed = strtoull(optarg, &end, 0);
		if (errno || *end || !*optarg) {
			fprintf(stderr, "runner: --seed '%s': expected an unsigned integer\n", optarg);
			return 2;
		}
		o->has_seed = 1;
		break;
	}
	case O_PEER: o->peer = optarg; break;
	case O_NOREPORT: o->no_report = 1; break;
	case O_FORMAT: *format = optarg; break;
	case O_FORCE: *force = 1; break;
	case 'q': o->quiet = 1; break;
	case 'v': o->verbose = 1; break;
	case 'h': usage(stdout); return 0;
	default: usage(stderr); return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"out", required_argument, 0, 'o'},
		{"run-id", required_argument, 0, O_RUNID},
		{"probe-dir", required_argument, 0, O_PROBEDIR},
		{"templates", required_argument, 0, O_TEMPLATES},
		{"set", required_argument, 0, O_SET},
		{"filter", required_argument, 0, O_FILTER},
		{"quick", no_argument, 0, O_QUICK},
		{"seed", required_argument, 0, O_SEED},
		{"peer", required_argument, 0, O_PEER},
		{"no-report", no_argument, 0, O_NOREPORT},
		{"format", required_argument, 0, O_FORMAT},
		{"force", no_argument, 0, O_FORCE},
		{"quiet", no_argument, 0, 'q'},
		{"verbose", no_argument, 0, 'v'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct run_opts o = {.out_dir = "out", .argc = argc, .argv = argv};
	const char *format = NULL;
	int force = 0, c;

	/* GSL's default handler aborts; stats.c checks every result instead. */
	gsl_set_error_handler_off();
	o.sets = calloc((size_t)argc + 1, sizeof *o.sets);
	o.filters = calloc((size_t)argc + 1, sizeof *o.filters);
	int rc = -1;
	char **ops = calloc((size_t)argc + 1, sizeof *ops);
	size_t nops = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, "+o:qvh", longopts, NULL)) != -1)
		rc = handle_opt(c, &o, &format, &force);
	if (rc >= 0)
		goto out;
	/* Subcommands may be followed by more options: getopt stopped at the
	   first operand ('+'), so parse again after it. */
	const char *cmd = optind < argc ? argv[optind] : NULL;
	static const char *const cmds[] = {"run", "check", "list", "probe-help", "report",
					   "rerun", "compare"};
	int is_cmd = 0;
	for (size_t i = 0; cmd && i < sizeof cmds / sizeof cmds[0]; i++)
		if (strcmp(cmd, cmds[i]) == 0)
			is_cmd = 1;
	if (!is_cmd)
		cmd = "run";
	else
		optind++;
	/* Gather operands, allowing options between them. */
	while (optind < argc) {
		if (argv[optind][0] != '-' || strcmp(argv[optind], "-") == 0) {
			ops[nops++] = argv[optind++];
			continue;
		}
		int save = optind;
		c = getopt_long(argc, argv, "+o:qvh", longopts, NULL);
		if (c == -1) {
			optind = save + 1;
			if (strcmp(argv[save], "--") == 0)
				while (optind < argc)
					ops[nops++] = argv[optind++];
			continue;
		}
		if ((rc = handle_opt(c, &o, &format, &force)) >= 0)
			goto out;
	}

	char err[4096];
	if (strcmp(cmd, "run") == 0 || strcmp(cmd, "check") == 0) {
		if (nops == 0) {
			fprintf(stderr, "runner: %s: no spec or directory given\n", cmd);
			usage(stderr);
			rc = 2;
		} else {
			o.check_only = strcmp(cmd, "check") == 0;
			rc = run_main(ops, nops, &o);
		}
	} else if (strcmp(cmd, "list") == 0) {
		rc = info_list();
	} else if (strcmp(cmd, "probe-help") == 0) {
		if (nops != 1) {
			fprintf(stderr, "runner: probe-help: expected one probe name\n");
			rc = 2;
		} else {
			rc = info_probe_help(ops[0]);
		}
	} else if (strcmp(cmd, "report") == 0) {
		unsigned f = format ? parse_formats(format)
				    : REPORT_MD | REPORT_TEX | REPORT_PDF | REPORT_CHARTS;
		if (nops != 1) {
			fprintf(stderr, "runner: report: expected one run folder\n");
			rc = 2;
		} else if (!f) {
			fprintf(stderr, "runner: --format '%s': expected a list of md, tex, pdf\n", format);
			rc = 2;
		} else {
			int r = report_render(ops[0], o.templates ? o.templates : report_default_templates(),
					      f, o.verbose, err, sizeof err);
			if (r < 0)
				fprintf(stderr, "runner: %s\n", err);
			/* A bad run folder or template is bad input; a failed
			   write or tool is an internal error. */
			rc = r == 0 ? 0 : r == REPORT_EINPUT ? 2 : 3;
		}
	} else if (strcmp(cmd, "rerun") == 0) {
		if (nops != 1) {
			fprintf(stderr, "runner: rerun: expected one run folder\n");
			rc = 2;
		} else {
			rc = rerun_main(ops[0], force, &o);
		}
	} else {
		if (nops != 2) {
			fprintf(stderr, "runner: compare: expected two run folders\n");
			rc = 2;
		} else {
			rc = compare_main(ops[0], ops[1]);
		}
	}
out:
	free(ops);
	free(o.sets);
	free(o.filters);
	return rc;
}
