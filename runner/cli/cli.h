/*
 * cli.h - the commands (design §5): run, check, list, probe-help, report,
 * rerun, resume, merge, compare, history, serve, nfs-serve.  Each row of
 * cli_commands[] carries the command's handler, its own option table and
 * its usage line; main.c finds the command, parses its arguments against
 * that table (cli/options.h) and dispatches.  A new command is a file in
 * cli/ and a row in that table (cli.c).  Every handler returns an exit code
 * (lib/exitcode.h) and prints its own messages.
 */
#ifndef SYSMETER_CLI_H
#define SYSMETER_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "cli/options.h"
#include "lib/exitcode.h"

struct cli_command {
	const char *name;
	/* ops: the operands after the command name (options removed). */
	int (*run)(char **ops, size_t nops, struct cli_opts *o);
	const struct cli_option *options;	/* the options it takes */
	const char *synopsis;		/* its operands, for usage */
	const char *help;		/* one line */
};

/* The commands, ending with a row whose name is NULL.  The first is the
   default: `runner specs/` is `runner run specs/`. */
extern const struct cli_command cli_commands[];

/* The command called `name`, or NULL. */
const struct cli_command *cli_command_find(const char *name);

/* The command that takes `option` ("--threshold"), other than the default
   one's, for "it is an option of ..."; NULL when none does. */
const char *cli_command_taking(const char *option);

/* The usage text: every command, one line each. */
void cli_usage(FILE *f);

/* One command's usage line and its options. */
void cli_command_usage(FILE *f, const struct cli_command *c);

/* `runner --version`: "runner (sysmeter) VERSION", and the commit when the
   runner runs from a git checkout. */
void cli_version(FILE *f);

#endif
