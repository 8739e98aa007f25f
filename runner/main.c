/*
 * main.c - find the command, parse its arguments against its own option
 * table and dispatch through cli_commands[] (cli/cli.h, docs/cli.md).
 * Nothing else happens here; every command lives in cli/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"

/* `runner -q list`: an option before a command's name would make the
   default command take the name as a spec.  The first operand, skipping
   the values of the default command's options. */
static const char *command_after_options(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int takes_arg = 0;

		if (!strcmp(argv[i], "--"))
			return NULL;
		if (argv[i][0] != '-' || !argv[i][1])
			return cli_command_find(argv[i]) ? argv[i] : NULL;
		if (argv[i][1] == '-' && !strchr(argv[i], '=') &&
		    cli_options_has(cli_commands[0].options, argv[i], &takes_arg) && takes_arg)
			i++;
		else if (argv[i][1] != '-' && !argv[i][2] &&
			 cli_options_has(cli_commands[0].options, argv[i], &takes_arg) && takes_arg)
			i++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd = &cli_commands[0];
	struct cli_opts o;
	char **ops = calloc((size_t)argc + 1, sizeof *ops);
	const char *late;
	size_t nops = 0;
	int first = 1, rc;

	/* GSL's default handler aborts; stats.c checks every result instead. */
	gsl_set_error_handler_off();
	if (!ops || cli_opts_init(&o, argc, argv) < 0) {
		fprintf(stderr, "runner: out of memory\n");
		return EXIT_INTERNAL;
	}
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
	if (argc > 1 && cli_command_find(argv[1])) {
		cmd = cli_command_find(argv[1]);
		first = 2;
	} else if (argc > 1 && argv[1][0] == '-' && (late = command_after_options(argc, argv))) {
		fprintf(stderr, "runner: options go after the command: runner %s [OPTIONS] ...\n",
			late);
		cli_command_usage(stderr, cli_command_find(late));
		rc = EXIT_USAGE;
		goto out;
	}
	rc = cli_options_parse(cmd->name, cmd->options, argc - first, argv + first, &o, ops, &nops,
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
	cli_opts_free(&o);
	return rc;
}
