/*
 * models.h - `runner models` (issue 34): the prediction models judged over
 * recorded run folders of every host kind at once.  Each point of each run
 * gets the prediction the CURRENT spec files give it (not the one recorded
 * in the folder), evaluated by results_predict over that run's machine and
 * results; then, per host, how many ok points land within +/-25 % and
 * within a factor 2 of their prediction, the median error, and per
 * experiment the median ratio measured/predicted and the worst point.
 * The run folders are only read: every change is made in memory.  With
 * --machine FILE, each run's machine gets those facts first (as `runner
 * --machine` gives them to a run): the models then predict that machine
 * from the primitives the runs measured.
 */
#ifndef SYSMETER_MODELS_H
#define SYSMETER_MODELS_H

#include <stddef.h>

struct models_request {
	const char *specs_dir;		/* the current specs (default "specs") */
	char *const *runs; size_t n_runs;	/* run folders */
	int json;			/* the figures as JSON (sysmeter.models/1) */
	const char *machine_file;	/* --machine FILE: judge the models for that machine */
};

/* Judge the models over rq's run folders and print the tables (or the
   JSON) on standard output.  EXIT_OK; EXIT_USAGE for a broken spec, a
   spec folder without specs or a probe that does not bind (said); EXIT_FAILED
   when a run folder cannot be read (said, nothing printed). */
int models_main(const struct models_request *rq);

#endif
