/*
 * experiments.h - the engine's experiments (private to engine/): each spec
 * of the request with its probe resolved, its points expanded and, as the
 * run goes, its rounds and its result.
 */
#ifndef SYSMETER_ENGINE_EXPERIMENTS_H
#define SYSMETER_ENGINE_EXPERIMENTS_H

#include <stddef.h>
#include <jansson.h>

#include "exec/exec.h"
#include "exec/loader.h"
#include "plan/plan.h"
#include "spec/spec.h"
#include "stats/stats.h"

struct engine_request;

/* One experiment of the run. */
struct experiment {
	struct spec spec;
	struct loaded_probe lp;
	int probe_ok;
	char probe_err[512];		/* loader message when !probe_ok */
	struct plan_point *pts;
	size_t n_pts;
	json_t *result;			/* filled as rounds finish */
	int planned;			/* rounds per point (exec_rounds); adaptive: the min */
	int max_rounds;			/* room per point: planned, or rounds.max if adaptive */
	int adaptive;			/* rounds: {min, max, target, budget} */
	/* per point: STATS_ROUNDS_MORE while it takes rounds, then why it
	   stopped; and its interval's relative half-width at the last decision */
	enum stats_rounds_stop *stop;
	double *rel_half;
	enum stats_rounds_stop stopped;	/* the experiment's, once finished */
	double extra_s, budget_s;	/* adaptive: what its extra rounds took, and could */
	struct point_result **rounds;	/* per point: its rounds so far */
	size_t *n_rounds;
	int finished;			/* status, findings and summary done */
	/* A run that goes on in its folder: the experiment was finished there
	   and is kept as it is (kept_whole), or each point's first
	   n_kept[p] rounds were measured before this run (NULL: none). */
	int kept_whole;
	size_t *n_kept;
};

/* The request's experiments, each with its probe resolved and its points
   expanded, and their run order (subtract: targets first) in *order:
   everything that can reject the input.  `check`: every spec and point is
   checked and every error said (runner check).  Returns EXIT_OK or
   EXIT_USAGE (said). */
int experiments_prepare(const struct engine_request *rq, int check, struct experiment **out,
			size_t *nout, size_t **order);

/* The experiment called `name`, or NULL. */
struct experiment *experiments_find(struct experiment *e, size_t n, const char *name);

/* Room for every round of every point of x (planned, max_rounds, adaptive
   set from the spec). */
void experiments_alloc_rounds(struct experiment *x);

void experiments_free(struct experiment *e, size_t n);

#endif
