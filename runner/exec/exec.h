/*
 * exec.h - run one point in a forked child (design §5.4): pin, priority,
 * setup, calibrate iterations, warm up, take samples (fixed or adaptive),
 * teardown.  Samples stream to the parent over a pipe; the parent enforces
 * the timeout, survives any death of the child, and records why a point
 * failed.  The child leads its own process group, so a timeout or Ctrl-C
 * kills every task a probe made.
 */
#ifndef SYSMETER_EXEC_H
#define SYSMETER_EXEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "exec/loader.h"
#include "plan/plan.h"
#include "spec/spec.h"

struct sample_rec {
	double value;
	double extra[PROBE_MAX_EXTRA];
	int warmup;			/* taken and discarded */
	int valid;			/* !(flags & PROBE_SAMPLE_INVALID) */
	int outlier;			/* set later by stats */
	char note[120];
};

enum point_status { PT_OK, PT_FAILED, PT_SKIPPED, PT_TIMEOUT, PT_INTERRUPTED };

struct point_result {
	enum point_status status;
	char reason[512];		/* why not ok, "" when ok */
	unsigned long long iterations;
	struct sample_rec *samples; size_t n_samples;	/* malloc'd, in order */
	/* placement, as requested and as applied */
	int cpu_requested;		/* -1 = none */
	int cpu;			/* where the sampling thread ran, -1 unknown */
	int pinned;
	int has_prio_req, prio_requested, priority, prio_applied;
	char placement_note[256];	/* "setpriority(-20): Permission denied" */
	int sanity_failed; char sanity_msg[256];	/* probe->sanity() */
	double elapsed_s;
};

struct exec_ctx {
	uint64_t seed;			/* per-point seed (already mixed) */
	const char *scratch_root;	/* a per-point dir is made below it */
	const char *peer;
	double tsc_hz;
	int quick, verbose;
	const char *probe_dir;
	/* Set by the runner's SIGINT/SIGTERM handler: stop now, keep samples. */
	volatile sig_atomic_t *interrupted;
	/* Called in the parent after each sample arrives (progress display);
	   may be NULL. */
	void (*on_sample)(void *arg, const struct point_result *sofar);
	void *arg;
};

/* Run one point.  Always fills *out (status + reason); returns 0, or -1 on
   an internal error of the runner itself (fork/pipe failed). */
int exec_point(const struct exec_ctx *ctx, const struct spec *s,
	       const struct loaded_probe *lp, const struct plan_point *pt,
	       struct point_result *out);

void exec_result_free(struct point_result *r);

const char *exec_status_name(enum point_status st);

#endif
