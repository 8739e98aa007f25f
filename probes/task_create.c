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
 *                     waitpid(): creation, the exec, the helper's run (a
 *                     static program: the Makefile links probes/bin/
 *                     statically, so no dynamic loader runs) and its exit,
 *                     like fork_wait.
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
 * with fork_wait (posix_spawn - fork_wait ~ the exec and the small static
 * program's start - the page-table copy that CLONE_VM avoids).
 *
 * Which process creates (parameter parent, process methods only; the
 * pthread methods create threads in the point's process and ignore it):
 *
 *   minimal (default) setup starts probe_dir/bin/fork_parent, a small
 *                     static program (about 10 mappings, a few hundred KiB
 *                     resident, as lmbench's lat_proc forks from a small
 *                     program), and every sample is run there: the probe
 *                     sends the method and `iterations` over a socket, the
 *                     helper runs the very same loop (task_fork.h: tf_run,
 *                     the same serialised counter) and sends back the sums,
 *                     which become the sample exactly as here.  posix_spawn
 *                     and vfork run there too, so that one parameter says
 *                     which process every process method starts from
 *                     (posix_spawn copies no page tables, so it depends
 *                     little on the parent; vfork none at all).
 *   runner            the point's own process: a fork of the runner, its
 *                     libraries and this probe (about 185 mappings and
 *                     7 MiB resident), as before this parameter existed.
 *
 * fork's cost grows with the parent's page tables and private pages (by a
 * few us per mapping with anonymous pages), which is why it matters: the
 * secondary values parent_mappings (lines of /proc/PID/maps) and
 * parent_rss_bytes (VmRSS) are read in the creating process itself right
 * before each sample's timed loop, and a prediction can use them (they are
 * in the point's `extra`).
 *
 * Every sample ends with all its children reaped and its threads joined;
 * teardown reaps whatever a failed sample left and kills and reaps
 * fork_parent.  The helper also dies with the point by itself
 * (PR_SET_PDEATHSIG and the end of its requests), and the runner kills the
 * point's process group on a timeout: the helper, forked and spawned
 * children are in that group, and zombies left by the killed probe go to
 * the runner.
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
 * pages copy-on-write, so its cost grows with the parent's mappings and
 * resident size (parent above; recorded per point); the child's and
 * parent's CoW faults after fork are not timed for fork but are for
 * fork_wait.  vfork copies nothing (the child borrows the parent's
 * memory), so it measures the fixed part.  On a VM, a new task woken on an
 * idle vCPU costs a hypervisor wake-up (tens of us) that a pinned run avoids:
 * pin (`cpu:`) so that the new task starts on the creator's CPU.  glibc keeps
 * a cache of thread stacks, so pthread_create reuses a stack instead of
 * mapping one: the figure is the steady state of a program that creates
 * threads repeatedly.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "probe_time.h"
#include "task_fork.h"

#define HELPER_NAME "fork_parent"

/* The process methods are task_fork.h's (the same numbers), then threads. */
enum tc_method {
	TC_FORK = TF_FORK, TC_FORK_WAIT = TF_FORK_WAIT, TC_VFORK = TF_VFORK, TC_SPAWN = TF_SPAWN,
	TC_PTHREAD, TC_PTHREAD_JOIN,
};
enum tc_parent { TC_MINIMAL, TC_RUNNER };
enum { TC_M_DONE, TC_M_MAPPINGS, TC_M_RSS, TC_M_PFAULTS, TC_M_CFAULTS };

struct tc_state {
	enum tc_method m;
	int helper_up;			/* fork_parent runs: helper_pid, sock */
	pid_t helper_pid;
	int sock;			/* our end of the helper's fds 3 and 4 */
	char spawn[PATH_MAX];		/* probe_dir/bin/spawn_true */
	char helper[PATH_MAX];		/* probe_dir/bin/fork_parent */
	struct tf_state tf;		/* parent runner: this process forks */
	atomic_int thread_done;		/* set by the new thread as it ends */
};

struct tc_cfg {
	int method;			/* enum tc_method */
	int parent;			/* enum tc_parent */
};

static const struct probe_param tc_params[] = {
	PROBE_PARAM_CHOICE(struct tc_cfg, method, "fork",
		"what is created and how much of its life is timed",
		{ "fork", TC_FORK }, { "fork_wait", TC_FORK_WAIT }, { "vfork", TC_VFORK },
		{ "posix_spawn", TC_SPAWN }, { "pthread", TC_PTHREAD },
		{ "pthread_join", TC_PTHREAD_JOIN }),
	PROBE_PARAM_CHOICE(struct tc_cfg, parent, "minimal",
		"the process that creates processes: minimal (a small static program, "
		"bin/fork_parent, as lmbench's lat_proc) or runner (the point's own process, "
		"a fork of the runner); the pthread methods ignore it",
		{ "minimal", TC_MINIMAL }, { "runner", TC_RUNNER }),
	PROBE_PARAM_END,
};

static const struct probe_metric tc_metrics[] = {
	[TC_M_DONE] = { "child_done", "ratio",
	  "share of ops where the new task had finished before the timed call returned" },
	[TC_M_MAPPINGS] = { "parent_mappings", "count",
	  "mappings (lines of /proc/PID/maps) of the process that creates the tasks, "
	  "read before the timed loop" },
	[TC_M_RSS] = { "parent_rss_bytes", "bytes",
	  "resident size (VmRSS) of the process that creates the tasks, read before the timed loop" },
	[TC_M_PFAULTS] = { "parent_faults", "count",
	  "minor page faults the creating process took per created task (copy-on-write after "
	  "fork), over the whole loop, timed parts or not (getrusage)" },
	[TC_M_CFAULTS] = { "child_faults", "count",
	  "minor page faults each created process took in its life (its copy-on-write, or the "
	  "exec'd program's loading), from getrusage(RUSAGE_CHILDREN) over the loop; 0 for threads" },
	{ 0 }
};

static void *tc_thread(void *arg)
{
	atomic_store_explicit((atomic_int *)arg, 1, memory_order_release);
	return NULL;
}

/* Find probe_dir/bin/NAME; probe_dir may be a colon-separated list. */
static int tc_find_bin(const char *dirs, const char *name, char *out, size_t outlen)
{
	const char *p = dirs;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int n = snprintf(out, outlen, "%.*s/bin/%s", (int)len, p, name);

		if (n > 0 && (size_t)n < outlen && access(out, X_OK) == 0)
			return 0;
		p = end ? end + 1 : NULL;
	}
	return -1;
}

/* Read one whole reply from the helper; a short read is its death. */
static int tc_read_reply(struct tc_state *s, struct tf_reply *rep, char *err, size_t errlen)
{
	size_t have = 0;

	while (have < sizeof *rep) {
		ssize_t r = read(s->sock, (char *)rep + have, sizeof *rep - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EPIPE, status = 0;
			pid_t w;

			do
				w = waitpid(s->helper_pid, &status, 0);
			while (w < 0 && errno == EINTR);
			s->helper_up = 0;
			close(s->sock);
			if (w == s->helper_pid && WIFSIGNALED(status))
				snprintf(err, errlen, "helper '" HELPER_NAME "' killed by signal %d",
					 WTERMSIG(status));
			else if (w == s->helper_pid)
				snprintf(err, errlen, "helper '" HELPER_NAME "' (%s) ended with "
					 "status %d", s->helper, WEXITSTATUS(status));
			else
				snprintf(err, errlen, "helper '" HELPER_NAME "': %s", strerror(e));
			return -e;
		}
		have += (size_t)r;
	}
	if (rep->magic != TF_WIRE_MAGIC) {
		snprintf(err, errlen, "helper '" HELPER_NAME "' sent a bad reply");
		return -EPROTO;
	}
	return 0;
}

/* Start fork_parent with one end of a socket pair as its fds 3 and 4 and
   wait for its ready reply.  A socket, not pipes: a request sent with
   MSG_NOSIGNAL to a dead helper is an error here, not a SIGPIPE that would
   kill the point. */
static int tc_start_helper(struct tc_state *s, char *err, size_t errlen)
{
	char ppid[24];
	char *argv[] = { HELPER_NAME, ppid, s->spawn[0] ? s->spawn : NULL, NULL };
	struct tf_reply rep;
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		int e = errno;
		snprintf(err, errlen, "socketpair: %s", strerror(e));
		return -e;
	}
	snprintf(ppid, sizeof ppid, "%d", (int)getpid());
	pid = fork();
	if (pid == 0) {
		/* async-signal-safe calls only; F_DUPFD above 4 first, so that
		   sv[1] being 3 or 4 already cannot be clobbered */
		int fd = fcntl(sv[1], F_DUPFD_CLOEXEC, TF_REP_FD + 1);

		if (fd < 0 || dup2(fd, TF_REQ_FD) < 0 || dup2(fd, TF_REP_FD) < 0)
			_exit(127);
		closefrom(TF_REP_FD + 1);	/* nothing of the runner's leaks in */
		execv(s->helper, argv);
		_exit(127);
	}
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		snprintf(err, errlen, "fork of helper '" HELPER_NAME "': %s", strerror(e));
		return -e;
	}
	close(sv[1]);
	s->sock = sv[0];
	s->helper_pid = pid;
	s->helper_up = 1;
	return tc_read_reply(s, &rep, err, errlen);
}

static int tc_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct tc_cfg *c = cfg;
	struct tc_state *s = state;
	const char *dir = h->probe_dir ? h->probe_dir : "(no probe dir)";

	s->m = (enum tc_method)c->method;
	if (s->m == TC_SPAWN) {
		if (!h->probe_dir || tc_find_bin(h->probe_dir, TF_SPAWN_NAME, s->spawn,
						 sizeof s->spawn) < 0) {
			snprintf(err, errlen, "helper '" TF_SPAWN_NAME "' not found in %s/bin "
				 "(make probes)", dir);
			return -ENOENT;
		}
		s->tf.spawn_path = s->spawn;
	}
	if (s->m >= TC_PTHREAD || c->parent != TC_MINIMAL)
		return 0;
	if (!h->probe_dir || tc_find_bin(h->probe_dir, HELPER_NAME, s->helper,
					 sizeof s->helper) < 0) {
		snprintf(err, errlen, "helper '" HELPER_NAME "' not found in %s/bin (make probes)",
			 dir);
		return -ENOENT;
	}
	return tc_start_helper(s, err, errlen);
}

static int tc_calibrate(void *state, uint64_t *iterations, char *err, size_t errlen)
{
	const struct tc_state *s = state;

	(void)err; (void)errlen;
	*iterations = s->m >= TC_PTHREAD ? 64 : 8;
	return 0;
}

/* A thread's creation (and maybe join); *ticks gets the timed part, *done
   whether the thread had finished when the timed call returned. */
static int tc_thread_op(struct tc_state *s, double hz, uint64_t *ticks, int *done, char *err,
			size_t errlen)
{
	uint64_t t0, t1;
	pthread_t thr;
	int rc;

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

/* One sample in fork_parent: the same loop (tf_run), run there. */
static int tc_helper_run(struct tc_state *s, uint64_t iterations, double hz,
			 struct tf_sums *sums, char *err, size_t errlen)
{
	struct tf_request req = { .magic = TF_WIRE_MAGIC, .method = (int32_t)s->m,
				  .iterations = iterations, .hz = hz };
	struct tf_reply rep;
	int rc;

	if (!s->helper_up) {
		snprintf(err, errlen, "helper '" HELPER_NAME "' is not running");
		return -ECHILD;
	}
	if (send(s->sock, &req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req) {
		int e = errno;
		snprintf(err, errlen, "helper '" HELPER_NAME "': send: %s", strerror(e));
		return -e;
	}
	if ((rc = tc_read_reply(s, &rep, err, errlen)) < 0)
		return rc;
	if (rep.err) {
		rep.msg[sizeof rep.msg - 1] = '\0';
		snprintf(err, errlen, "%s", rep.msg);
		return -rep.err;
	}
	*sums = rep.sums;
	return 0;
}

static int tc_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct tc_state *s = state;
	struct tf_sums sums = { 0 };
	double hz = pt_clock_hz(h->tsc_hz);
	int rc = 0;

	if (iterations == 0)
		iterations = 1;
	if (s->m >= TC_PTHREAD) {
		struct rusage r0, r1;
		int have = getrusage(RUSAGE_SELF, &r0) == 0;

		tf_self_size(&sums);	/* the creator: this process */
		for (uint64_t i = 0; i < iterations && rc == 0; i++) {
			uint64_t ticks = 0;
			int done = 0;

			rc = tc_thread_op(s, hz, &ticks, &done, err, errlen);
			sums.ticks += ticks;
			sums.done += (uint64_t)done;
		}
		/* a thread's faults are its creator's: one process */
		sums.parent_faults = have && getrusage(RUSAGE_SELF, &r1) == 0
					     ? (int64_t)(r1.ru_minflt - r0.ru_minflt) : -1;
		sums.child_faults = 0;
	} else if (s->helper_up || s->helper[0]) {
		rc = tc_helper_run(s, iterations, hz, &sums, err, errlen);
	} else {
		rc = tf_run(&s->tf, (enum tf_method)s->m, iterations, hz, &sums, err, errlen);
	}
	if (rc < 0)
		return rc;
	out->value = (hz > 0 ? pt_ticks_to_ns(sums.ticks, hz) : (double)sums.ticks) /
		     (double)iterations / 1000.0;
	out->extra[TC_M_DONE] = (double)sums.done / (double)iterations;
	out->extra[TC_M_MAPPINGS] = sums.mappings > 0 ? (double)sums.mappings : NAN;
	out->extra[TC_M_RSS] = sums.rss_bytes > 0 ? (double)sums.rss_bytes : NAN;
	out->extra[TC_M_PFAULTS] = sums.parent_faults >= 0 ? (double)sums.parent_faults / (double)iterations : NAN;
	out->extra[TC_M_CFAULTS] = sums.child_faults >= 0 ? (double)sums.child_faults / (double)iterations : NAN;
	return 0;
}

/* Whatever a failed sample left is killed and reaped; fork_parent gets the
   end of its requests and a SIGKILL (it may be in the middle of a loop),
   and is reaped, so nothing of the point outlives it. */
static void tc_teardown(void *state)
{
	struct tc_state *s = state;

	tf_cleanup(&s->tf);
	if (s->helper_up) {
		close(s->sock);
		kill(s->helper_pid, SIGKILL);
		while (waitpid(s->helper_pid, NULL, 0) < 0 && errno == EINTR)
			;
		s->helper_up = 0;
	}
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "task_create",
	.version = "1.1",
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
