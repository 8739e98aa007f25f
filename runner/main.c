/*
 * main.c - find the command, parse its arguments (before and after its
 * name) against its own option table and dispatch through cli_commands[]
 * (cli/cli.h, docs/cli.md).
 * Nothing else happens here; every command lives in cli/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"

/* Does any command's option `opt` take an argument? */
static int takes_arg(const char *opt)
{
	int arg = 0;

	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (cli_options_has(c->options, opt, &arg))
			return arg;
	return 0;
}

/* `runner --probe-dir d list`: options may come before the command's name.
   The index of the first operand, skipping option values, when it names a
   command; else 0 (the default command). */
static int command_at(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (argv[i][0] != '-' || !argv[i][1])
			return cli_command_find(argv[i]) ? i : 0;
		if (!strchr(argv[i], '=') && (argv[i][1] == '-' || !argv[i][2]) && takes_arg(argv[i]))
			i++;
	}
	return 0;
}

/* The command line as /proc/PID/cmdline and ps show it for the whole run:
   each argument written over with what the manifest records of it
   (o->argv: a store URL's password gone), cut to the argument's length
   and padded with NULs, in place, as mysql's client does with -pPASSWORD.
   What is parsed is a copy (main), made before. */
static void scrub(int argc, char **argv, const struct cli_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *clean = o->argv[i] ? o->argv[i] : "";
		size_t n = strlen(argv[i]), k = strlen(clean);

		if (strcmp(argv[i], clean) == 0)
			continue;
		k = k < n ? k : n;
		memcpy(argv[i], clean, k);
		memset(argv[i] + k, 0, n - k);
	}
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd = &cli_commands[0];
	struct cli_opts o;
	char **ops = calloc((size_t)argc + 1, sizeof *ops);
	char **args = calloc((size_t)argc + 1, sizeof *args);	/* argv without the command */
	char **own = calloc((size_t)argc + 1, sizeof *own);	/* argv's copy, parsed */
	size_t nops = 0;
	int at, nargs = 0, rc, copied = 0;

	/* GSL's default handler aborts; stats.c checks every result instead. */
	gsl_set_error_handler_off();
	for (; own && copied < argc && (own[copied] = strdup(argv[copied])); copied++)
		;
	if (!ops || !args || copied < argc || cli_opts_init(&o, argc, own) < 0) {
		fprintf(stderr, "runner: out of memory\n");
		return EXIT_INTERNAL;
	}
	scrub(argc, argv, &o);
	argv = own;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_usage(stdout);
		rc = EXIT_OK;
		goto out;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		cli_version(stdout);
		rc = EXIT_OK;
		goto out;
	}
	/* the command's name out of the way: its options stand on both sides
	   (argv itself stays whole: the manifest records it) */
	if ((at = command_at(argc, argv)) > 0)
		cmd = cli_command_find(argv[at]);
	for (int i = 1; i < argc; i++)
		if (i != at)
			args[nargs++] = argv[i];
	rc = cli_options_parse(cmd->name, cmd->options, nargs, args, &o, ops, &nops,
			       cli_command_taking);
	if (rc >= 0) {
		cli_command_usage(stderr, cmd);
		goto out;
	}
	if (o.help) {
		cli_command_usage(stdout, cmd);
		rc = EXIT_OK;
		goto out;
	}
	rc = cmd->run(ops, nops, &o);
out:
	free(ops);
	free(args);
	cli_opts_free(&o);
	for (int i = 0; i < argc; i++)
		free(own[i]);
	free(own);
	return rc;
}
