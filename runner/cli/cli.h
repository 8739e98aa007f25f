/*
 * cli.h - the commands (design §5): run, check, list, probe-help, report,
 * rerun, compare.  main.c parses the options into struct cli_opts and
 * dispatches through cli_commands[]; a new command is a file in cli/ and
 * a row in that table (cli.c).  Every handler returns an exit code
 * (lib/exitcode.h) and prints its own messages.
 */
#ifndef SYSMETER_CLI_H
#define SYSMETER_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "lib/exitcode.h"

struct cli_resume;

struct cli_opts {
	const char *out_dir;		/* default "out" */
	const char *run_id;		/* NULL = UTC time + hash */
	const char *templates;		/* NULL = default */
	const char *peer;		/* --peer host:port for network probes */
	const char *nfs;		/* --nfs netns|nfs://HOST/EXPORT for NFS probes */
	const char *title, *author, *course;	/* the report's front matter, or NULL */
	const char *listen, *token, *ready_file;	/* serve --listen, --token (serve
					   and --peer), --ready-file */
	char **sets; size_t n_sets;	/* --set EXP.KEY=VALUE */
	char **filters; size_t n_filters;
	int quick, no_report, quiet, verbose, check_only;
	int has_seed; uint64_t seed;
	const char *format;		/* report --format md,tex,pdf; NULL = all */
	int force;			/* rerun --force */
	const char *threshold;		/* compare --threshold 3%; NULL = 5 % */
	const char *fail_on;		/* compare --fail-on regression|change|never */
	const char *json_out;		/* compare --json FILE ("-": stdout) */
	int argc; char **argv;		/* recorded in the manifest */
	json_t *origin;			/* rerun: {run, run_id, changes}; borrowed */
	struct cli_resume *resume;	/* resume: the run being continued (resume.h); NULL */
};

struct cli_command {
	const char *name;
	/* ops: the operands after the command name (options removed). */
	int (*run)(char **ops, size_t nops, struct cli_opts *o);
	const char *synopsis;		/* operands and command options, for usage */
	const char *help;		/* one line */
};

/* The commands, ending with a row whose name is NULL.  The first is the
   default: `runner specs/` is `runner run specs/`. */
extern const struct cli_command cli_commands[];

/* The usage text, built from cli_commands[] and the options. */
void cli_usage(FILE *f);

/* --title/--author/--course into a manifest's "report" object fm (the
   keys not given are left as they are). */
void cli_front_matter(json_t *fm, const struct cli_opts *o);

/* `runner --version`: "runner (sysmeter) VERSION", and the commit when the
   runner runs from a git checkout. */
void cli_version(FILE *f);

#endif
