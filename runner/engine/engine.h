/*
 * engine.h - the one run engine: a run request in, a run folder out.
 *
 * Every command that measures (run, rerun, resume) builds a request: the
 * specs, the options, the seed, and where the folder is; a run that goes on
 * in an existing folder also hands over the results saved there, whose
 * finished rounds are kept.  The engine plans, loads the probes, starts the
 * servers the probes talk to (serve/), measures every point in rounds
 * (exec/), writes the results and the manifest as it goes (results/) and
 * renders the report.  It knows nothing of why a request was made: a rerun
 * is a request with a fixed seed and an origin, a resume one with a folder
 * and saved results.
 *
 * Signals: from the start of engine_run, SIGINT and SIGTERM stop the run
 * (the point in progress is killed, what finished is kept) and stay caught
 * until the process exits, so a late signal can never make the exit status
 * contradict the manifest already written.
 */
#ifndef SYSMETER_ENGINE_H
#define SYSMETER_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* What a run is asked to do, whichever command asks. */
struct engine_options {
	const char *out_dir;		/* the results root; out/latest lives here */
	const char *run_id;		/* NULL = UTC time + hash */
	const char *templates;		/* the report's templates; NULL = default */
	char *const *sets; size_t n_sets;	/* --set EXP.KEY=VALUE */
	char *const *filters; size_t n_filters;	/* --filter GLOB */
	int quick, no_report, quiet, verbose;
	const char *peer;		/* --peer HOST:PORT | netns; NULL */
	const char *nfs;		/* --nfs netns | nfs://HOST/EXPORT; NULL */
	const char *token;		/* --token FILE: the peer's secret; NULL */
	const char *machine_file;	/* --machine FILE: facts given (machine.h,
					   machine_facts_load); NULL */
	int machine_file_copy;		/* it is a run folder's copy (rerun): a
					   symbolic link is refused */
	const char *title, *author, *course;	/* the report's front matter; NULL */
	int argc; char *const *argv;	/* the command line, recorded */
	const char *store;		/* --store PATH|URL; NULL: out_dir/sysmeter.db */
	int no_store;			/* --no-store: the run is not recorded */
};

struct engine_request {
	char *const *paths; size_t n_paths;	/* spec files and directories */
	struct engine_options opt;
	int has_seed; uint64_t seed;	/* else a random seed, recorded */
	const json_t *origin;		/* the manifest's "origin" (the run this one
					   repeats), or NULL */
	/* Where the folder is: NULL = a new folder opt.out_dir/<run id>.  Else
	   the run goes on in `dir` (which the caller holds locked), with its
	   saved `manifest`, whose experiments must be the plan's, in order. */
	const char *dir;
	json_t *manifest;
	/* With `dir`: the rounds already kept.  Experiment name -> its saved
	   result (results/<name>.json); an experiment the manifest lists as
	   finished is kept as it is, the finished rounds of any other are kept
	   and only the missing rounds run, each with the seed it would have had
	   in one uninterrupted run.  NULL = none. */
	const json_t *kept;
	/* With `dir`: an account of this run, filled in with what was kept
	   ("kept") and measured ("measured"), when it finished and its exit
	   code, and appended to the manifest's list `account_key`. */
	json_t *account;
	const char *account_key;
};

/* Run the request.  Returns the exit code: EXIT_OK, EXIT_FAILED (some
   experiments failed, the rest is saved), EXIT_USAGE (bad input, nothing
   written), EXIT_INTERNAL, EXIT_INTERRUPTED. */
int engine_run(const struct engine_request *rq);

/* `runner check`: plan and check every spec and point of the request
   (paths, sets, filters, quick), print one "ok" line per experiment, write
   nothing.  EXIT_OK or EXIT_USAGE (every error said). */
int engine_check(const struct engine_request *rq);

#endif
