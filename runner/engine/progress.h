/*
 * progress.h - what the engine says while it runs (private to engine/): the
 * progress line on a terminal, and one summary line per experiment.
 */
#ifndef SYSMETER_ENGINE_PROGRESS_H
#define SYSMETER_ENGINE_PROGRESS_H

#include <stddef.h>

#include "engine/experiments.h"

struct progress {
	int quiet;
	int tty;
	const struct experiment *x;
	size_t point, npoints;		/* this experiment */
	int round;
	size_t done_all, total_all;	/* whole run */
	double t0;
};

/* exec_ctx.on_sample: the progress line, redrawn after each sample. */
void progress_on_sample(void *arg, const struct point_result *sofar);

/* The experiment's line on stdout: status, estimate or range, findings. */
void progress_summary(const struct experiment *x);

#endif
