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
	int round;			/* the round (exec_ctx.round) it was taken in */
	char note[120];
};

enum point_status { PT_OK, PT_FAILED, PT_SKIPPED, PT_TIMEOUT, PT_INTERRUPTED, PT_PARTIAL };

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
	/* one round of a point (exec_ctx.round) */
	int round;
	double started_s;		/* set by the caller: seconds since the run started */
	int warmup_taken;		/* warmup samples taken (and discarded) */
	char warmup_reason[24];		/* fixed | steady | cap_count | cap_time | "" (never reached) */
};

struct exec_ctx {
	uint64_t seed;			/* per-point seed (already mixed) */
	const char *scratch_root;	/* a per-point dir is made below it */
	const char *peer;
	/* The peer's token file (--token, or the one --peer netns made): read
	   in the point's child by probe_host.peer_sign, never handed to probe
	   code; NULL = none. */
	const char *peer_token;
	/* The run's NFS server (--nfs): probe_host.nfs_url, nfs_local_dir,
	   nfs_label, nfs_error as they reach the probe (serve/nfs.h). */
	const char *nfs_url, *nfs_local_dir, *nfs_label, *nfs_error;
	int nfs_cpu;			/* the namespace server's CPU, -1 */
	double tsc_hz;
	uint64_t llc_bytes;		/* probe_host.llc_bytes: 0 unknown or implausible */
	int quick, verbose;
	const char *probe_dir;
	/* The round this call measures (0-based) of `rounds`: a round takes
	   its share of the spec's repetitions (exec_round_share).  iterations:
	   0 = calibrate (round 0), else reuse what round 0 found, so every
	   round times the same work. */
	int round, rounds;
	unsigned long long iterations;
	/* Set by the runner's SIGINT/SIGTERM handler: stop now, keep samples. */
	volatile sig_atomic_t *interrupted;
	/* Called in the parent after each sample arrives (progress display);
	   may be NULL. */
	void (*on_sample)(void *arg, const struct point_result *sofar);
	void *arg;
	/* The run folder (out/<id>), where a command's kept output goes
	   (output/<experiment>/); NULL: nothing is kept. */
	const char *run_dir;
};

/* The rounds a point of s runs: the spec's `rounds`, at most one per
   repetition (repetitions.min when adaptive). */
int exec_rounds(const struct spec *s);

/* Round `round`'s share of a total split over `rounds` rounds: the
   shares differ by at most one and add up to the total (at least 1 each). */
int exec_round_share(int total, int rounds, int round);

/* The `warmup: auto` rule (exec.c): the window of recent samples looked at,
   and the caps beyond it. */
#define EXEC_WARMUP_WINDOW_MIN 5
#define EXEC_WARMUP_WINDOW_MAX 8
#define EXEC_WARMUP_MAX_SAMPLES 30
#define EXEC_WARMUP_MAX_TIME 1.0	/* seconds */
#define EXEC_WARMUP_ALPHA 0.05
#define EXEC_WARMUP_MIN_REL 0.02

/* Run one round of one point.  Always fills *out (status + reason); returns 0, or -1 on
   an internal error of the runner itself (fork/pipe failed). */
int exec_point(const struct exec_ctx *ctx, const struct spec *s,
	       const struct loaded_probe *lp, const struct plan_point *pt,
	       struct point_result *out);

void exec_result_free(struct point_result *r);

const char *exec_status_name(enum point_status st);

/* A cgroup per point (point_cgroup.c): why there is none on this machine,
   or NULL when points get one (their tasks all die with them). */
const char *exec_point_cgroup_unavailable(void);
/* Clean what a runner killed by SIGKILL left: its points' processes and
   its scratch folders under tmpdir (one line per thing to `report`).
   Returns how many. */
int exec_clean_stale(const char *tmpdir, void (*report)(const char *line));
/* Mark a scratch folder as this runner's, for exec_clean_stale. */
int exec_mark_scratch(const char *dir);

#endif
