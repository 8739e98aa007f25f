/*
 * task_create - the cost of creating a task: a process (fork, vfork,
 * posix_spawn of a program) or a thread (pthread_create), with or without
 * waiting for the new task to finish.
 *
 * Unit: us per created task.
 *
 * Method: every operation is timed on its own with the serialised TSC
 * (probe_time.h) and the per-op times are summed; the value of a sample is
 * the sum divided by `iterations`.  What falls inside the timed region:
 *
 *   fork              fork() until it returns in the parent.  The child
 *                     _exit(0)s at once; the parent reaps it with
 *                     waitpid() after the timer stopped.
 *   fork_wait         fork() through the child's exit being reaped by
 *                     waitpid(): the whole life of a trivial process.
 *   vfork             vfork() until it returns in the parent, i.e. after the
 *                     child (which shares the parent's memory and suspends
 *                     it) has called _exit(0).  Reaping is outside.
 *   posix_spawn       posix_spawn() of probe_dir/bin/spawn_true through
 *                     waitpid(): creation, the exec, the helper's run (the
 *                     dynamic loader mapping libc: the Makefile links
 *                     probes/bin/ dynamically) and its exit, like fork_wait.
 *   pthread           pthread_create() until it returns; the thread returns
 *                     at once and is joined after the timer stopped.
 *   pthread_join      pthread_create() through pthread_join().
 *
 * Why posix_spawn is timed through waitpid() and not through its return:
 * glibc (>= 2.24) implements it with clone(CLONE_VM|CLONE_VFORK), so it
 * returns once the child has exec'd the helper; but on one CPU the woken
 * parent then races the freshly exec'd helper, and whether the helper runs
 * to its end before posix_spawn() returns is the scheduler's choice (in
 * trials here: 6 % of the spawns in one run, 88 % in the next), which makes
 * "through the return" bimodal.  The whole life is well defined; compare it
 * with fork_wait (posix_spawn - fork_wait ~ exec + dynamic loading - the
 * page-table copy that CLONE_VM avoids).
 *
 * Every sample ends with all its children reaped and its threads joined;
 * teardown reaps whatever a failed sample left.  The runner kills the
 * point's process group on a timeout: forked and spawned children are in
 * that group, and zombies left by the killed probe go to the runner.
 *
 * Secondary value child_done: the share of operations in which the new task
 * had already finished when the timed call returned (1 by construction for
 * fork_wait, posix_spawn and pthread_join).  For fork and pthread the new
 * task inherits the creator's CPU affinity; when the scheduler lets it
 * preempt the creator before the call returns, its whole run (and, for a
 * process, its exit) lands inside the timed region.  A child_done near 0
 * means a clean "creator's side only" figure; a mixed value means a bimodal
 * sample.  For vfork it tells whether the child had also finished exiting
 * (not only called _exit) when the parent resumed.
 *
 * Confounders: fork copies the parent's page tables and marks its private
 * pages copy-on-write, so its cost grows with the parent's resident size
 * (here the runner's child: the runner, its libraries and this probe); the
 * child's and parent's CoW faults after fork are not timed for fork but are
 * for fork_wait.  vfork copies nothing (the child borrows the parent's
 * memory), so it measures the fixed part.  On a VM, a new task woken on an
 * idle vCPU costs a hypervisor wake-up (tens of us) that a pinned run avoids:
 * pin (`cpu:`) so that the new task starts on the creator's CPU.  glibc keeps
 * a cache of thread stacks, so pthread_create reuses a stack instead of
 * mapping one: the figure is the steady state of a program that creates
 * threads repeatedly.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "probe_time.h"

#define HELPER_NAME "spawn_true"

enum tc_method {
	TC_FORK, TC_FORK_WAIT, TC_VFORK, TC_SPAWN, TC_PTHREAD, TC_PTHREAD_JOIN,
};

struct tc_state {
	enum tc_method m;
	char helper[PATH_MAX];
	pid_t pending;			/* a child not reaped yet, 0 if none */
	atomic_int thread_done;		/* set by the new thread as it ends */
};

struct tc_cfg {
	int method;			/* enum tc_method */
};

static const struct probe_param tc_params[] = {
	PROBE_PARAM_CHOICE(struct tc_cfg, method, "fork",
		"what is created and how much of its life is timed",
		{ "fork", TC_FORK }, { "fork_wait", TC_FORK_WAIT }, { "vfork", TC_VFORK },
		{ "posix_spawn", TC_SPAWN }, { "pthread", TC_PTHREAD },
		{ "pthread_join", TC_PTHREAD_JOIN }),
	PROBE_PARAM_END,
};

static const struct probe_metric tc_metrics[] = {
	{ "child_done", "ratio",
	  "share of ops where the new task had finished before the timed call returned" },
	{ 0 }
};

/* Wait for child `pid`.  Returns 1 when reaped with exit status 0, 0 when
   nohang and still running, or a negative errno with a message. */
static int tc_reap(struct tc_state *s, pid_t pid, int nohang, char *err, size_t errlen)
{
	int status;
	pid_t r;

	do
		r = waitpid(pid, &status, nohang ? WNOHANG : 0);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0) {
		int e = errno;
		snprintf(err, errlen, "waitpid %d: %s", (int)pid, strerror(e));
		if (e == ECHILD)
			s->pending = 0;	/* nothing left to reap */
		return -e;
	}
	s->pending = 0;
	if (WIFSIGNALED(status)) {
		snprintf(err, errlen, "child %d killed by signal %d", (int)pid,
			 WTERMSIG(status));
		return -ECHILD;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "child %d exited with status %d", (int)pid,
			 WEXITSTATUS(status));
		return -ECHILD;
	}
	return 1;
}

/* vfork in a frame of its own: the child only calls _exit(), so nothing the
   parent keeps in registers or on the stack is disturbed. */
static __attribute__((noinline)) pid_t tc_vfork(void)
{
	pid_t pid = vfork();

	if (pid == 0)
		_exit(0);
	return pid;
}

static void *tc_thread(void *arg)
{
	atomic_store_explicit((atomic_int *)arg, 1, memory_order_release);
	return NULL;
}

/* Find probe_dir/bin/spawn_true; probe_dir may be a colon-separated list. */
static int tc_find_helper(const char *dirs, char *out, size_t outlen)
{
	const char *p = dirs;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int n = snprintf(out, outlen, "%.*s/bin/" HELPER_NAME, (int)len, p);

		if (n > 0 && (size_t)n < outlen && access(out, X_OK) == 0)
			return 0;
		p = end ? end + 1 : NULL;
	}
	return -1;
}

static int tc_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	struct tc_state *s = state;

	s->m = (enum tc_method)((const struct tc_cfg *)cfg)->method;
	if (s->m == TC_SPAWN) {
		if (!h->probe_dir || tc_find_helper(h->probe_dir, s->helper,
						    sizeof s->helper) < 0) {
			snprintf(err, errlen, "helper '" HELPER_NAME "' not found in %s/bin "
				 "(make probes)", h->probe_dir ? h->probe_dir : "(no probe dir)");
			return -ENOENT;
		}
	}
	return 0;
}

static int tc_calibrate(void *state, uint64_t *iterations, char *err, size_t errlen)
{
	const struct tc_state *s = state;

	(void)err; (void)errlen;
	*iterations = s->m >= TC_PTHREAD ? 64 : 8;
	return 0;
}

/* One operation: create (and maybe wait); *ticks gets the timed part,
   *done whether the new task had finished when the timed call returned. */
static int tc_op(struct tc_state *s, double hz, uint64_t *ticks, int *done, char *err,
		 size_t errlen)
{
	static char *const argv[] = { HELPER_NAME, NULL };
	static char *const envp[] = { NULL };
	uint64_t t0 = 0, t1 = 0;
	pthread_t thr;
	pid_t pid = 0;
	int rc = 0, e;

	*done = 0;
	switch (s->m) {
	case TC_FORK:
	case TC_FORK_WAIT:
		t0 = pt_begin(hz);
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0 && s->m == TC_FORK_WAIT) {
			s->pending = pid;
			rc = tc_reap(s, pid, 0, err, errlen);
		}
		t1 = pt_end(hz);
		if (pid < 0) {
			rc = -errno;
			snprintf(err, errlen, "fork: %s", strerror(errno));
			return rc;
		}
		break;
	case TC_VFORK:
		t0 = pt_begin(hz);
		pid = tc_vfork();
		t1 = pt_end(hz);
		if (pid < 0) {
			rc = -errno;
			snprintf(err, errlen, "vfork: %s", strerror(errno));
			return rc;
		}
		break;
	case TC_SPAWN:
		t0 = pt_begin(hz);
		e = posix_spawn(&pid, s->helper, NULL, NULL, argv, envp);
		if (e == 0) {
			s->pending = pid;
			rc = tc_reap(s, pid, 0, err, errlen);
		}
		t1 = pt_end(hz);
		if (e != 0) {
			snprintf(err, errlen, "posix_spawn %s: %s", s->helper, strerror(e));
			return -e;
		}
		break;
	case TC_PTHREAD:
	case TC_PTHREAD_JOIN:
		atomic_store_explicit(&s->thread_done, 0, memory_order_relaxed);
		t0 = pt_begin(hz);
		rc = pthread_create(&thr, NULL, tc_thread, &s->thread_done);
		if (rc == 0 && s->m == TC_PTHREAD_JOIN)
			rc = pthread_join(thr, NULL);
		t1 = pt_end(hz);
		if (rc != 0) {
			snprintf(err, errlen, "pthread_%s: %s",
				 s->m == TC_PTHREAD ? "create" : "create/join", strerror(rc));
			return -rc;
		}
		*done = atomic_load_explicit(&s->thread_done, memory_order_acquire);
		if (s->m == TC_PTHREAD) {
			rc = pthread_join(thr, NULL);
			if (rc != 0) {
				snprintf(err, errlen, "pthread_join: %s", strerror(rc));
				return -rc;
			}
		}
		*ticks = t1 - t0;
		return 0;
	}
	if (rc < 0)			/* the timed wait failed */
		return rc;
	*ticks = t1 - t0;
	if (s->m == TC_FORK_WAIT || s->m == TC_SPAWN) {
		*done = 1;
		return 0;
	}
	/* Reap outside the timed region; a first non-blocking look tells
	   whether the child had already run to its end. */
	s->pending = pid;
	rc = tc_reap(s, pid, 1, err, errlen);
	if (rc == 0)
		rc = tc_reap(s, pid, 0, err, errlen);
	else
		*done = 1;
	return rc < 0 ? rc : 0;
}

static int tc_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct tc_state *s = state;
	uint64_t sum = 0, ndone = 0;
	double hz = pt_clock_hz(h->tsc_hz);

	if (iterations == 0)
		iterations = 1;
	for (uint64_t i = 0; i < iterations; i++) {
		uint64_t ticks = 0;
		int done, rc = tc_op(s, hz, &ticks, &done, err, errlen);

		if (rc < 0)
			return rc;
		sum += ticks;
		ndone += (uint64_t)done;
	}
	out->value = (hz > 0 ? pt_ticks_to_ns(sum, hz) : (double)sum) / (double)iterations / 1000.0;
	out->extra[0] = (double)ndone / (double)iterations;
	return 0;
}

static void tc_teardown(void *state)
{
	struct tc_state *s = state;

	if (s->pending > 0) {		/* a sample failed between fork and reap */
		kill(s->pending, SIGKILL);
		while (waitpid(s->pending, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "task_create",
	.version = "1.0",
	.summary = "process and thread creation: fork, vfork, posix_spawn, pthread_create",
	.unit = "us",
	.bigger_is_better = 0,
	.params = tc_params,
	.metrics = tc_metrics,
	.config_size = sizeof(struct tc_cfg),
	.state_size = sizeof(struct tc_state),
	.setup = tc_setup,
	.calibrate = tc_calibrate,
	.sample = tc_sample,
	.teardown = tc_teardown,
};
