/* fleet.h - `runner fleet --ansible INVENTORY | --slurm ... SPEC...`: the
   same run on many hosts through an existing engine (ansible-playbook,
   sbatch), gathered into one `merge --hosts` folder (private to cli/). */
#ifndef SYSMETER_FLEET_H
#define SYSMETER_FLEET_H

#include <stddef.h>
#include "cli/options.h"

int fleet_main(char **specs, size_t n, struct cli_opts *o);

/* --nodes N, --time-limit S: 0, or EXIT_USAGE (said). */
int fleet_opt_nodes(struct cli_opts *o, const char *arg);
int fleet_opt_time_limit(struct cli_opts *o, const char *arg);

#endif
