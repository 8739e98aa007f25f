/*
 * run.h - the `run` and `check` commands (private to cli/): load specs,
 * resolve probes, plan, execute every point, analyse, write the run folder.
 */
#ifndef SYSMETER_RUN_H
#define SYSMETER_RUN_H

#include <stddef.h>
#include "cli/cli.h"

/* Returns the process exit code (EXIT_OK ... EXIT_INTERRUPTED). */
int run_main(char **paths, size_t npaths, const struct cli_opts *o);

#endif
