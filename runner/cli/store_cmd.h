/*
 * store_cmd.h - `runner store import|check` and the baseline of `runner
 * compare --baseline-store` (store_cmd.c), over store/store.h.
 */
#ifndef SYSMETER_CLI_STORE_CMD_H
#define SYSMETER_CLI_STORE_CMD_H

#include <stddef.h>

struct cli_opts;

/* `runner store import RUN...` | `runner store check`: EXIT_OK, EXIT_FAILED
   (a run not recorded, a mismatch), EXIT_USAGE (bad operands, not a run
   folder, no store there). */
int store_cmd_main(char **ops, size_t nops, const struct cli_opts *o);

/* The folder of RUN's baseline in the store (the newest earlier run on the
   same machine with an experiment of RUN's), malloc'd; NULL after saying
   why (*rc: EXIT_USAGE, which compare also gives for a run it cannot read). */
char *store_cmd_baseline(const char *run, const struct cli_opts *o, int *rc);

#endif
