/*
 * run.h - the `run` and `check` commands: load specs, resolve probes,
 * plan, execute every point, analyse, write the run folder.
 */
#ifndef SYSMETER_RUN_H
#define SYSMETER_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

struct run_opts {
	const char *out_dir;		/* default "out" */
	const char *run_id;		/* NULL = UTC time + hash */
	const char *templates;		/* NULL = default */
	const char *peer;		/* --peer host:port for network probes */
	char **sets; size_t n_sets;	/* --set EXP.KEY=VALUE */
	char **filters; size_t n_filters;
	int quick, no_report, quiet, verbose, check_only;
	int has_seed; uint64_t seed;
	int argc; char **argv;		/* recorded in the manifest */
	json_t *origin;			/* rerun: {run, run_id, changes}; borrowed */
};

/* Returns the process exit code (0, 1, 2, 3, 130). */
int run_main(char **paths, size_t npaths, const struct run_opts *o);

#endif
