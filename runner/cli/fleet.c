#include <stdio.h>
#include <stdlib.h>
#include "cli/fleet.h"
#include "lib/exitcode.h"
int fleet_opt_nodes(struct cli_opts *o, const char *arg) { o->slurm_nodes = atoi(arg); return 0; }
int fleet_opt_time_limit(struct cli_opts *o, const char *arg) { o->time_limit = atof(arg); return 0; }
int fleet_main(char **specs, size_t n, struct cli_opts *o) { (void)specs; (void)n; (void)o; return EXIT_INTERNAL; }
