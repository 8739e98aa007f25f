/*
 * options.h - the command line's values and the option tables that fill
 * them (private to cli/).  Each command carries its own table (cli.c,
 * after git's parse-options): an option that a command does not take is an
 * error there, never silently accepted.
 */
#ifndef SYSMETER_CLI_OPTIONS_H
#define SYSMETER_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

/* Every value any command's options can set. */
struct cli_opts {
	const char *out_dir;		/* -o; default "out" */
	const char *run_id;		/* NULL = UTC time + hash */
	const char *templates;		/* NULL = default */
	const char *peer;		/* --peer host:port | netns */
	const char *nfs;		/* --nfs netns|nfs://HOST/EXPORT */
	const char *machine;		/* --machine FILE: given machine facts */
	const char *title, *author, *course;	/* the report's front matter, or NULL */
	const char *listen, *token, *ready_file;	/* serve --listen, --token (serve
					   and --peer), --ready-file */
	char **sets; size_t n_sets;	/* --set EXP.KEY=VALUE */
	char **filters; size_t n_filters;	/* --filter GLOB */
	int quick, no_report, quiet, verbose;
	int has_seed; uint64_t seed;
	const char *format;		/* report --format md,tex,pdf,html; NULL = all */
	int force;			/* rerun, resume --force */
	const char *threshold;		/* compare --threshold 3%; NULL = 5 % */
	const char *fail_on;		/* compare --fail-on regression|change|never */
	const char *json_out;		/* compare --json FILE ("-": stdout) */
	int hosts;			/* merge --hosts: one host per run, side by side */
	const char *hosts_file;		/* merge --hosts-file FILE (sysmeter.hosts/1) */
	const char *ansible, *slurm_nodelist, *partition, *shared_dir;	/* fleet */
	int slurm, slurm_nodes;		/* fleet --slurm, --nodes N */
	int pairs;			/* fleet --pairs: each host's network peer is another host */
	double time_limit;		/* fleet --time-limit S (per host) */
	const char *store;		/* --store PATH|URL; NULL: DIR/sysmeter.db */
	int no_store;			/* --no-store */
	int baseline_store;		/* compare --baseline-store */
	/* history: */
	char **wheres; size_t n_wheres;	/* --where KEY=VALUE */
	const char *host, *since;	/* --host H, --since DATE */
	const char *chart, *html;	/* --chart FILE, --html DIR */
	const char *specs_dir;		/* models --specs DIR; NULL: specs */
	int json;			/* models --json: the figures as JSON */
	int help;			/* -h/--help was given */
	int argc; char **argv;		/* recorded in the manifest: a copy with the
					   password of any postgresql:// URL removed */
};

enum cli_opt_kind {
	CLI_OPT_FLAG = 1,	/* sets an int field to 1 */
	CLI_OPT_TEXT,		/* sets a const char * field to the argument */
	CLI_OPT_CALL,		/* hands the argument to `call` */
};

/* One row of a command's option table. */
struct cli_option {
	const char *name;	/* long name, without "--"; NULL ends the table */
	int short_name;		/* 'o', or 0 */
	enum cli_opt_kind kind;
	size_t offset;		/* FLAG, TEXT: the field in struct cli_opts */
	/* CALL: check and store the argument; 0, or an exit code (said). */
	int (*call)(struct cli_opts *o, const char *arg);
	const char *arg;	/* the argument's name in usage ("DIR"); NULL: a flag */
	const char *help;	/* one line */
};

#define CLI_FLAG(l, s, field, h) \
	{ .name = l, .short_name = s, .kind = CLI_OPT_FLAG, \
	  .offset = offsetof(struct cli_opts, field), .help = h }
#define CLI_TEXT(l, s, field, a, h) \
	{ .name = l, .short_name = s, .kind = CLI_OPT_TEXT, \
	  .offset = offsetof(struct cli_opts, field), .arg = a, .help = h }
#define CLI_CALL(l, s, fn, a, h) \
	{ .name = l, .short_name = s, .kind = CLI_OPT_CALL, .call = fn, .arg = a, .help = h }
#define CLI_END { .name = NULL }

/* The values' defaults; sets and filters with room for argc entries.
   0, or -1 (out of memory). */
int cli_opts_init(struct cli_opts *o, int argc, char **argv);
void cli_opts_free(struct cli_opts *o);

/* Was -o given (even as "-o out"), or is o->out_dir the default? */
int cli_out_given(const struct cli_opts *o);

/* argv[0..argc) of command `cmd` against its table: options (also between
   operands; "--name=value", "--name value", "-o value", "-ovalue", "-qv";
   everything after "--" is an operand) into o, operands into ops[*nops].
   -h/--help is taken by every command (o->help).  Returns -1 when all is
   well, else an exit code: EXIT_USAGE after saying what is wrong (an
   unknown option with "did you mean", where it fits, from the command's own
   table; an option another command takes, named with that command through
   `elsewhere`, may be NULL).  The caller shows the command's usage. */
int cli_options_parse(const char *cmd, const struct cli_option *table, int argc, char **argv,
		      struct cli_opts *o, char **ops, size_t *nops,
		      const char *(*elsewhere)(const char *option));

/* Does the table take this option ("--name", "-x")?  1 with *takes_arg
   set, else 0. */
int cli_options_has(const struct cli_option *table, const char *option, int *takes_arg);

/* The table's options, one per line, for a command's usage. */
void cli_options_usage(FILE *f, const struct cli_option *table);

/* --title/--author/--course into a manifest's "report" object fm (the
   keys not given are left as they are). */
void cli_front_matter(json_t *fm, const struct cli_opts *o);

/* What the options ask of a run, for the engine's request. */
struct engine_options;
void cli_engine_options(const struct cli_opts *o, struct engine_options *eo);

/* Option handlers shared by several tables: 0, or EXIT_USAGE (said). */
int cli_opt_seed(struct cli_opts *o, const char *arg);		/* --seed N */
int cli_opt_run_id(struct cli_opts *o, const char *arg);	/* --run-id ID */
int cli_opt_probe_dir(struct cli_opts *o, const char *arg);	/* --probe-dir DIRS */
int cli_opt_set(struct cli_opts *o, const char *arg);		/* --set EXP.KEY=VALUE */
int cli_opt_filter(struct cli_opts *o, const char *arg);	/* --filter GLOB */

#endif
