/*
 * main.c - parse the command line and dispatch through cli_commands[]
 * (cli/cli.h, docs/cli.md).  Nothing else happens here; every command
 * lives in cli/.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "exec/loader.h"

enum { O_RUNID = 256, O_PROBEDIR, O_TEMPLATES, O_SET, O_FILTER, O_QUICK, O_SEED,
       O_NOREPORT, O_FORMAT, O_FORCE, O_PEER, O_VERSION, O_THRESHOLD, O_FAIL_ON, O_JSON,
       O_NFS };

enum { O_LISTEN = 400, O_TOKEN, O_READY_FILE };	/* serve, --peer */
enum { O_TITLE = 500, O_AUTHOR, O_COURSE };		/* the report's front matter */

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
	{"nfs", required_argument, 0, O_NFS},
	{"listen", required_argument, 0, O_LISTEN},
	{"token", required_argument, 0, O_TOKEN},
	{"ready-file", required_argument, 0, O_READY_FILE},
	{"title", required_argument, 0, O_TITLE},
	{"author", required_argument, 0, O_AUTHOR},
	{"course", required_argument, 0, O_COURSE},
	{"no-report", no_argument, 0, O_NOREPORT},
	{"format", required_argument, 0, O_FORMAT},
	{"force", no_argument, 0, O_FORCE},
	{"threshold", required_argument, 0, O_THRESHOLD},
	{"fail-on", required_argument, 0, O_FAIL_ON},
	{"json", required_argument, 0, O_JSON},
	{"quiet", no_argument, 0, 'q'},
	{"verbose", no_argument, 0, 'v'},
	{"help", no_argument, 0, 'h'},
	{"version", no_argument, 0, O_VERSION},
	{0, 0, 0, 0},
};

/* One option; returns -1 to go on, or an exit code (help, version, bad usage). */
static int handle_opt(int c, struct cli_opts *o)
{
	switch (c) {
	case 'o': o->out_dir = optarg; break;
	case O_RUNID:
		if (!*optarg || strchr(optarg, '/') || strcmp(optarg, ".") == 0 ||
		    strcmp(optarg, "..") == 0) {
			fprintf(stderr, "runner: --run-id '%s': expected a plain folder name\n", optarg);
			return EXIT_USAGE;
		}
		o->run_id = optarg;
		break;
	case O_PROBEDIR: loader_add_dir(optarg); break;
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
			return EXIT_USAGE;
		}
		o->has_seed = 1;
		break;
	}
	case O_PEER: o->peer = optarg; break;
	case O_NFS: o->nfs = optarg; break;
	case O_LISTEN: o->listen = optarg; break;
	case O_TOKEN: o->token = optarg; break;
	case O_READY_FILE: o->ready_file = optarg; break;
	case O_TITLE: o->title = optarg; break;
	case O_AUTHOR: o->author = optarg; break;
	case O_COURSE: o->course = optarg; break;
	case O_NOREPORT: o->no_report = 1; break;
	case O_FORMAT: o->format = optarg; break;
	case O_FORCE: o->force = 1; break;
	case O_THRESHOLD: o->threshold = optarg; break;
	case O_FAIL_ON: o->fail_on = optarg; break;
	case O_JSON: o->json_out = optarg; break;
	case 'q': o->quiet = 1; break;
	case 'v': o->verbose = 1; break;
	case 'h': cli_usage(stdout); return EXIT_OK;
	case O_VERSION: cli_version(stdout); return EXIT_OK;
	default: cli_usage(stderr); return EXIT_USAGE;
	}
	return -1;
}

/* The operands from argv[optind] on, allowing options between them (and
   everything after "--" as operands).  Returns -1, or an exit code. */
static int gather(int argc, char **argv, struct cli_opts *o, char **ops, size_t *nops)
{
	int c, rc;

	while (optind < argc) {
		if (argv[optind][0] != '-' || strcmp(argv[optind], "-") == 0) {
			ops[(*nops)++] = argv[optind++];
			continue;
		}
		int save = optind;
		c = getopt_long(argc, argv, "+o:qvh", longopts, NULL);
		if (c == -1) {
			optind = save + 1;
			if (strcmp(argv[save], "--") == 0)
				while (optind < argc)
					ops[(*nops)++] = argv[optind++];
			continue;
		}
		if ((rc = handle_opt(c, o)) >= 0)
			return rc;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct cli_opts o = {.out_dir = "out", .argc = argc, .argv = argv};
	const struct cli_command *cmd = &cli_commands[0];
	char **ops = calloc((size_t)argc + 1, sizeof *ops);
	size_t nops = 0;
	int c, rc = -1;

	/* GSL's default handler aborts; stats.c checks every result instead. */
	gsl_set_error_handler_off();
	o.sets = calloc((size_t)argc + 1, sizeof *o.sets);
	o.filters = calloc((size_t)argc + 1, sizeof *o.filters);
	while (rc < 0 && (c = getopt_long(argc, argv, "+o:qvh", longopts, NULL)) != -1)
		rc = handle_opt(c, &o);
	if (rc >= 0)
		goto out;
	/* getopt stopped at the first operand ('+'): a command name, or the
	   default command's first operand.  Options may follow either. */
	for (const struct cli_command *k = cli_commands; optind < argc && k->name; k++)
		if (strcmp(argv[optind], k->name) == 0) {
			cmd = k;
			optind++;
			break;
		}
	rc = gather(argc, argv, &o, ops, &nops);
	if (rc < 0)
		rc = cmd->run(ops, nops, &o);
out:
	free(ops);
	free(o.sets);
	free(o.filters);
	return rc;
}
