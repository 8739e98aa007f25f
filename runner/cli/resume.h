/*
 * resume.h - `runner resume RUN` (private to cli/): an interrupted run
 * continued in its own folder.  resume_main checks the run and replays its
 * options as rerun does, then hands the saved specs to run_main with
 * cli_opts.resume set; run.c calls the hooks below so that every round
 * already measured is kept and only the missing ones run, each with the
 * seed it would have had in an uninterrupted run.
 */
#ifndef SYSMETER_RESUME_H
#define SYSMETER_RESUME_H

#include <stddef.h>
#include <jansson.h>

#include "cli/cli.h"

struct spec;
struct loaded_probe;
struct plan_point;
struct point_result;

struct cli_resume {
	const char *dir;		/* the run folder */
	json_t *manifest;		/* as saved: the run goes on with it */
	json_t *record;			/* appended to the manifest's "resumed" at the end */
};

int resume_main(const char *run_dir, int force, const struct cli_opts *base);

/* The k-th experiment in run order must be the manifest's k-th, from the
   same spec text: else the saved specs no longer plan that run.  0, or -1
   (said). */
int resume_check_experiment(const struct cli_resume *rs, size_t k, const struct spec *s);

/* The k-th experiment's saved result, if any, into *result, and each
   point's finished rounds into rounds[p][0..n_rounds[p]).  Returns 1 when
   the experiment had finished (nothing to run), 0 when it goes on (or
   never started: *result stays NULL), -1 when the saved result does not fit
   the plan (said). */
int resume_experiment(struct cli_resume *rs, size_t k, const struct spec *s,
		      const struct loaded_probe *lp, const struct plan_point *pts, size_t n_pts,
		      int planned, struct point_result **rounds, size_t *n_rounds, json_t **result);

/* A round measured by the resume (recorded in the manifest). */
void resume_measured(struct cli_resume *rs, const char *experiment, size_t point, int round);

/* The record of this resume onto the manifest's "resumed" list. */
/* Before the resumed part starts its own NFS server: the manifest's `nfs`
   (the server the kept points read from) is kept in the resume's record as
   `nfs_before`, since the manifest's entry is about to describe the new one. */
void resume_servers(struct cli_resume *rs, const json_t *manifest);

void resume_end(struct cli_resume *rs, json_t *manifest, int exit_code);

#endif
