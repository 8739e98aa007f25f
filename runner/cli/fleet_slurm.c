/* fleet_slurm.c - `runner fleet --slurm` (see fleet.c). */
#include <stdio.h>
#include "cli/fleet_run.h"
#include "lib/exitcode.h"

int fleet_slurm(char **specs, size_t n, struct cli_opts *o, const char *stage, const char *fleet_id)
{
	(void)specs; (void)n; (void)o; (void)stage; (void)fleet_id;
	fprintf(stderr, "runner: fleet: --slurm: not built yet\n");
	return EXIT_INTERNAL;
}
