/*
 * ctx_switch - the cost of a context switch between two processes or two
 * threads, lmbench's lat_ctx method made explicit.
 *
 * Unit: ns per switch.
 *
 * Method: the sampling task (A) and a partner task (B), both pinned to the
 * same CPU (`placement: same`), pass a one-byte token back and forth
 * `iterations` times: A writes it into pipe 1 and blocks reading pipe 2; B,
 * blocked reading pipe 1, wakes, reads it, writes it into pipe 2 and blocks
 * again.  One round trip = 2 switches + 2 pipe writes + 2 pipe reads.  In
 * the same sample A alone writes one byte into a third pipe and reads it back
 * `iterations` times (half before the round trips, half after, so that drift
 * cancels): that is the cost of a write+read pair when nothing blocks.  The
 * value of the sample is
 *
 *     switch = (round_trip - 2 * pipe) / 2
 *
 * with round_trip and pipe per iteration; both are kept as secondary values
 * (round_trip_ns, pipe_ns).  What remains in "switch" is everything a
 * blocking hand-off adds to a plain write+read: the wake-up of the other task,
 * the block, the scheduler's pick and the switch of register state, and for
 * processes of address space (CR3 write, TLB refill, PCID permitting).
 *
 * `mechanism: futex` replaces the pipes by one futex word in memory both
 * tasks see (FUTEX_WAKE / FUTEX_WAIT; private ops for threads, shared ops on
 * a MAP_SHARED page for processes): the cheapest blocking hand-off the
 * kernel offers.  Its single-task overhead (futex_ns) is a FUTEX_WAKE with no
 * waiter plus a FUTEX_WAIT whose value no longer matches (returns at once);
 * each side makes exactly one of each per round trip, whoever ran first.
 * The metric of the mechanism not in use is NaN (written as null).
 *
 * `mechanism: condvar` hands the turn over through a pthread condition
 * variable and its mutex, the textbook way two threads take turns: A locks,
 * sets turn = 1, signals B's condition variable and waits on its own until
 * turn == 0; B, waiting on its condition variable with the mutex, wakes,
 * sets turn = 0, signals A's and waits again.  The mutex and both condition
 * variables live on the shared page (PTHREAD_PROCESS_SHARED for processes).
 * Each signal is made with the mutex held, so a woken task on the same CPU
 * may find the mutex still taken and block on it once more: that is part of
 * what a condition-variable hand-off costs and shows in vcsw_a.  Its
 * single-task overhead (condvar_ns) is a lock, a pthread_cond_signal with no
 * waiter and an unlock of a second mutex and condition variable: the
 * non-blocking part of each side's turn.
 *
 * vcsw_a, vcsw_b: each task's voluntary context switches (getrusage
 * RUSAGE_THREAD: the times it blocked) per round trip.  On one CPU a task
 * woken by a write is run at once (wake-up preemption), so its partner is
 * preempted rather than blocked and a clean hand-off shows between 0.5 and
 * 1 per task; a condition variable signalled under the mutex shows the
 * extra block on the mutex.
 *
 * `placement: cross` puts B on another CPU: then nothing is switched on
 * either CPU and the value is a one-way cross-CPU hand-off (a wake-up IPI
 * and, on a VM, possibly the wake-up of an idle vCPU: tens of us).  It is
 * offered to show why same-CPU placement matters, not as a switch cost.
 *
 * Sanity: at the end of each sample both tasks report their CPU
 * (sched_getcpu(), secondary values cpu_a and cpu_b) and B reports how many
 * tokens it handled.  A sample whose tasks did not share the CPU (same) or
 * did (cross), or whose token count is not `iterations`, is flagged invalid
 * and never averaged in.
 *
 * The partner is created in setup and lives across samples; teardown stops
 * it (SIGKILL and waitpid for a process, a quit message and pthread_join for
 * a thread).  A partner process also has PR_SET_PDEATHSIG(SIGKILL) and is in
 * the point's process group, so it dies with a killed probe.  Should it die
 * first, A's next pipe write fails with EPIPE (SIGPIPE is blocked in A) or
 * its read sees end of file and the sample fails with that message; with
 * the futex mechanism A waits until the point's timeout (a FUTEX_WAIT
 * timeout would add a timer to every measured switch).
 *
 * Confounders: the pipe cost subtracted is that of a non-blocking pair, so
 * the wake-up work attributed to the switch includes what a wake-up costs in
 * the pipe code; the working set is tiny (no cache pollution between
 * switches, unlike lat_ctx's `size` > 0, so this is the lower bound); a
 * third runnable task on the CPU (any other load) inflates round trips; on a
 * VM the guest's scheduler tick and host preemption add rare long samples
 * (hence a robust estimator in the spec).
 */
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "probe_time.h"

enum { TOK = 't', REPORT = 'q', QUIT = 'x' };	/* pipe messages */
enum { CMD_TOKEN, CMD_REPORT, CMD_QUIT };	/* futex commands */

/* What B answers to a report request. */
struct cs_report {
	uint64_t count;			/* tokens handled since the last report */
	int32_t cpu;			/* where B runs */
	int32_t pad;
	int64_t vcsw;			/* B's voluntary context switches so far, -1 unknown */
};

/* Memory both tasks see: a MAP_SHARED page for processes. */
struct cs_shared {
	_Atomic uint32_t turn;		/* 0: A's turn, 1: B's turn */
	_Atomic uint32_t cmd;		/* CMD_*: read by B when it gets the turn */
	struct cs_report rep;		/* written by B on CMD_REPORT */
	char pad[64];
	_Atomic uint32_t self;		/* A's single-task word, always 0 */
	/* condvar mechanism: `turn` and `cmd` under `mx`; A waits on cv_a,
	   B on cv_b; self_mx/self_cv for A's single-task overhead. */
	pthread_mutex_t mx, self_mx;
	pthread_cond_t cv_a, cv_b, self_cv;
};

struct cs_state {
	int process;			/* kind: process (1) or thread (0) */
	int futex;			/* mechanism: futex or condvar (1), pipe (0) */
	int condvar;			/* mechanism: condvar (1) */
	int cross;			/* placement: cross (1) or same (0) */
	int cpu_a, cpu_b;
	int ab[2], ba[2], self[2];	/* pipes A->B, B->A, A->A */
	struct cs_shared *sh;		/* mmap'd */
	pid_t pid;			/* partner process, 0 if none */
	pthread_t thr; int have_thr;	/* partner thread */
	int restore; cpu_set_t orig;	/* A's affinity before setup */
	int64_t vcsw_b;			/* B's count at the last report, -1 unknown */
	int masked; sigset_t oldmask;	/* SIGPIPE blocked in A since setup */
};

enum cs_kind { CS_PROCESS, CS_THREAD };
enum cs_mechanism { CS_PIPE, CS_FUTEX, CS_CONDVAR };
enum cs_placement { CS_SAME, CS_CROSS };

struct cs_cfg {
	int kind, mechanism, placement;	/* enum cs_kind, cs_mechanism, cs_placement */
};

static const struct probe_param cs_params[] = {
	PROBE_PARAM_CHOICE(struct cs_cfg, kind, "process", "what the two tasks are",
		{ "process", CS_PROCESS }, { "thread", CS_THREAD }),
	PROBE_PARAM_CHOICE(struct cs_cfg, mechanism, "pipe",
		"how the token travels: lmbench's pipes, a futex word, or a pthread "
		"condition variable and mutex",
		{ "pipe", CS_PIPE }, { "futex", CS_FUTEX }, { "condvar", CS_CONDVAR }),
	PROBE_PARAM_CHOICE(struct cs_cfg, placement, "same",
		"same: both tasks on one CPU (a switch); cross: on two CPUs (a hand-off)",
		{ "same", CS_SAME }, { "cross", CS_CROSS }),
	PROBE_PARAM_END,
};

static const struct probe_metric cs_metrics[] = {
	{ "round_trip_ns", "ns", "one token round trip A->B->A (2 switches + 2 sends + 2 receives)" },
	{ "pipe_ns", "ns", "single-task 1-byte pipe write+read (pipe mechanism; null otherwise)" },
	{ "futex_ns", "ns", "single-task FUTEX_WAKE + non-blocking FUTEX_WAIT (futex mechanism; null otherwise)" },
	{ "cpu_a", "cpu", "CPU of the sampling task at the end of the sample" },
	{ "cpu_b", "cpu", "CPU of the partner task at the end of the sample" },
	{ "condvar_ns", "ns", "single-task mutex lock + pthread_cond_signal (no waiter) + unlock (condvar mechanism; null otherwise)" },
	{ "vcsw_a", "switches", "voluntary context switches (blocks) of the sampling task per round trip (getrusage)" },
	{ "vcsw_b", "switches", "voluntary context switches (blocks) of the partner task per round trip (getrusage)" },
	{ 0 }
};

enum { X_RT, X_PIPE, X_FUTEX, X_CPU_A, X_CPU_B, X_CONDVAR, X_VCSW_A, X_VCSW_B };

static inline double cs_ns(double hz, uint64_t t)
{
	return hz > 0 ? pt_ticks_to_ns(t, hz) : (double)t;
}

static inline long cs_futex(_Atomic uint32_t *w, int op, uint32_t val, int shared)
{
	return syscall(SYS_futex, (uint32_t *)w, shared ? op : op | FUTEX_PRIVATE_FLAG,
		       val, NULL, NULL, 0);
}

static int cs_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t r = write(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* Returns 0, or -1 with errno set (0 at end of file). */
static int cs_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The calling thread's voluntary context switches so far, -1 if unknown. */
static long cs_vcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw : -1;
}

/* B over pipes: echo tokens, answer reports, stop on QUIT or end of file. */
static void cs_pipe_partner(int rfd, int wfd)
{
	uint64_t count = 0;
	char c;

	for (;;) {
		ssize_t r = read(rfd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1 || c == QUIT)
			return;
		if (c == TOK) {
			count++;
			if (write(wfd, &c, 1) != 1)
				return;
		} else if (c == REPORT) {
			struct cs_report rep = { count, sched_getcpu(), 0, cs_vcsw() };

			count = 0;
			if (cs_write_all(wfd, &rep, sizeof rep) < 0)
				return;
		} else {
			return;
		}
	}
}

/* B's side of a turn through shared memory (futex and condvar partners):
   count a token, or answer REPORT with the count, the CPU and the blocks so
   far; 1 on QUIT. */
static int cs_shared_command(struct cs_shared *sh, uint64_t *count)
{
	switch (atomic_load(&sh->cmd)) {
	case CMD_QUIT:
		return 1;
	case CMD_REPORT:
		sh->rep.count = *count;
		sh->rep.cpu = sched_getcpu();
		sh->rep.vcsw = cs_vcsw();
		*count = 0;
		atomic_store(&sh->cmd, CMD_TOKEN);
		return 0;
	default:
		(*count)++;
		return 0;
	}
}

/* B over a futex: wait for its turn, handle the command, hand the turn back.
   Exactly one FUTEX_WAIT and one FUTEX_WAKE per round trip. */
static void cs_futex_partner(struct cs_shared *sh, int shared)
{
	uint64_t count = 0;

	for (;;) {
		do
			cs_futex(&sh->turn, FUTEX_WAIT, 0, shared);
		while (atomic_load(&sh->turn) == 0);
		if (cs_shared_command(sh, &count))
			return;
		atomic_store(&sh->turn, 0);
		cs_futex(&sh->turn, FUTEX_WAKE, 1, shared);
	}
}

/* B over a condition variable: the same protocol as the futex partner, the
   turn guarded by the mutex.  B holds the mutex except while it waits. */
static void cs_condvar_partner(struct cs_shared *sh)
{
	uint64_t count = 0;
	int quit = 0;

	pthread_mutex_lock(&sh->mx);
	while (!quit) {
		while (atomic_load(&sh->turn) == 0)
			pthread_cond_wait(&sh->cv_b, &sh->mx);
		quit = cs_shared_command(sh, &count);
		atomic_store(&sh->turn, 0);
		pthread_cond_signal(&sh->cv_a);
	}
	pthread_mutex_unlock(&sh->mx);
}

static void *cs_thread_main(void *arg)
{
	struct cs_state *s = arg;

	if (s->condvar)
		cs_condvar_partner(s->sh);
	else if (s->futex)
		cs_futex_partner(s->sh, 0);
	else
		cs_pipe_partner(s->ab[0], s->ba[1]);
	return NULL;
}

/* One futex round trip from A's side. */
static inline void cs_futex_rt(struct cs_shared *sh, int shared)
{
	atomic_store(&sh->turn, 1);
	cs_futex(&sh->turn, FUTEX_WAKE, 1, shared);
	do
		cs_futex(&sh->turn, FUTEX_WAIT, 1, shared);
	while (atomic_load(&sh->turn) == 1);
}

/* One condition-variable round trip from A's side. */
static inline void cs_condvar_rt(struct cs_shared *sh)
{
	pthread_mutex_lock(&sh->mx);
	atomic_store(&sh->turn, 1);
	pthread_cond_signal(&sh->cv_b);
	while (atomic_load(&sh->turn) == 1)
		pthread_cond_wait(&sh->cv_a, &sh->mx);
	pthread_mutex_unlock(&sh->mx);
}

/* Ask B for its token count and CPU (untimed). */
static int cs_report(struct cs_state *s, struct cs_report *rep, char *err, size_t errlen)
{
	if (s->futex) {
		atomic_store(&s->sh->cmd, CMD_REPORT);
		if (s->condvar)
			cs_condvar_rt(s->sh);
		else
			cs_futex_rt(s->sh, s->process);
		*rep = s->sh->rep;
		return 0;
	}
	char c = REPORT;

	if (cs_write_all(s->ab[1], &c, 1) < 0 || cs_read_all(s->ba[0], rep, sizeof *rep) < 0) {
		snprintf(err, errlen, "partner report: %s",
			 errno ? strerror(errno) : "partner is gone");
		return errno ? -errno : -EPIPE;
	}
	return 0;
}

static int cs_pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof set, &set);
}

/* Close every descriptor from 3 up except keep1 and keep2 (-1: none). */
static void cs_close_others(int keep1, int keep2)
{
	int lo = keep1 < keep2 ? keep1 : keep2, hi = keep1 < keep2 ? keep2 : keep1;
	unsigned from = 3;

	if (lo >= 3) {
		if ((unsigned)lo > from)
			close_range(from, (unsigned)lo - 1, 0);
		from = (unsigned)lo + 1;
	}
	if (hi >= 3) {
		if ((unsigned)hi > from)
			close_range(from, (unsigned)hi - 1, 0);
		from = (unsigned)hi + 1;
	}
	close_range(from, ~0u, 0);
}

static int cs_start_partner(struct cs_state *s, char *err, size_t errlen)
{
	if (!s->process) {
		pthread_attr_t attr;
		cpu_set_t set;
		int rc;

		CPU_ZERO(&set);
		CPU_SET(s->cpu_b, &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof set, &set);
		rc = pthread_create(&s->thr, &attr, cs_thread_main, s);
		pthread_attr_destroy(&attr);
		if (rc != 0) {
			snprintf(err, errlen, "pthread_create: %s", strerror(rc));
			return -rc;
		}
		s->have_thr = 1;
		return 0;
	}

	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0) {
		int e = errno;
		snprintf(err, errlen, "fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		/* B: die with the probe's process, keep only what B uses. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		if (s->cross && cs_pin(0, s->cpu_b) < 0)
			_exit(1);
		if (s->condvar) {
			cs_close_others(-1, -1);
			cs_condvar_partner(s->sh);
		} else if (s->futex) {
			cs_close_others(-1, -1);
			cs_futex_partner(s->sh, 1);
		} else {
			cs_close_others(s->ab[0], s->ba[1]);
			cs_pipe_partner(s->ab[0], s->ba[1]);
		}
		_exit(0);
	}
	s->pid = pid;
	if (!s->futex) {		/* A keeps only its own ends */
		close(s->ab[0]);
		close(s->ba[1]);
		s->ab[0] = s->ba[1] = -1;
	}
	return 0;
}

static void cs_teardown(void *state)
{
	struct cs_state *s = state;

	if (s->have_thr) {		/* ask B to stop; a process is killed */
		if (s->condvar) {
			pthread_mutex_lock(&s->sh->mx);
			atomic_store(&s->sh->cmd, CMD_QUIT);
			atomic_store(&s->sh->turn, 1);
			pthread_cond_signal(&s->sh->cv_b);
			pthread_mutex_unlock(&s->sh->mx);
		} else if (s->futex) {
			atomic_store(&s->sh->cmd, CMD_QUIT);
			atomic_store(&s->sh->turn, 1);
			cs_futex(&s->sh->turn, FUTEX_WAKE, 1, s->process);
		} else if (s->ab[1] >= 0) {
			char c = QUIT;
			(void)cs_write_all(s->ab[1], &c, 1);
		}
	}
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (s->have_thr)
		pthread_join(s->thr, NULL);
	for (int i = 0; i < 2; i++) {
		if (s->ab[i] >= 0) close(s->ab[i]);
		if (s->ba[i] >= 0) close(s->ba[i]);
		if (s->self[i] >= 0) close(s->self[i]);
	}
	if (s->sh) {
		/* a killed partner process may have left the shared mutex
		   taken: the objects are not destroyed, only unmapped (their
		   memory goes with the page) */
		munmap(s->sh, sizeof *s->sh);
	}
	if (s->restore)
		sched_setaffinity(0, sizeof s->orig, &s->orig);
	if (s->masked) {		/* drop a SIGPIPE a dead partner caused */
		sigset_t pipe_set;
		struct timespec zero = { 0, 0 };

		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
			;
		pthread_sigmask(SIG_SETMASK, &s->oldmask, NULL);
	}
}

/* The mutexes and condition variables on the shared page; process-shared
   for processes.  0 or an errno. */
static int cs_condvar_init(struct cs_shared *sh, int process)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int rc;

	if ((rc = pthread_mutexattr_init(&ma)) != 0)
		return rc;
	if ((rc = pthread_condattr_init(&ca)) != 0) {
		pthread_mutexattr_destroy(&ma);
		return rc;
	}
	if (process && ((rc = pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED)) != 0 ||
			(rc = pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED)) != 0))
		goto out;
	if ((rc = pthread_mutex_init(&sh->mx, &ma)) != 0 ||
	    (rc = pthread_mutex_init(&sh->self_mx, &ma)) != 0 ||
	    (rc = pthread_cond_init(&sh->cv_a, &ca)) != 0 ||
	    (rc = pthread_cond_init(&sh->cv_b, &ca)) != 0 ||
	    (rc = pthread_cond_init(&sh->self_cv, &ca)) != 0)
		goto out;
out:
	pthread_condattr_destroy(&ca);
	pthread_mutexattr_destroy(&ma);
	return rc;
}

static int cs_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct cs_cfg *c = cfg;
	struct cs_state *s = state;
	struct cs_report rep;
	int rc;

	for (int i = 0; i < 2; i++)
		s->ab[i] = s->ba[i] = s->self[i] = -1;
	s->process = c->kind == CS_PROCESS;
	s->condvar = c->mechanism == CS_CONDVAR;
	s->futex = c->mechanism == CS_FUTEX || s->condvar;
	s->cross = c->placement == CS_CROSS;

	/* Where: A on the runner's CPU (else the first allowed one), B on the
	   same one or the next allowed one. */
	if (sched_getaffinity(0, sizeof s->orig, &s->orig) < 0) {
		rc = -errno;
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return rc;
	}
	s->cpu_a = -1;
	if (h->cpu >= 0 && h->cpu < CPU_SETSIZE && CPU_ISSET(h->cpu, &s->orig))
		s->cpu_a = h->cpu;
	for (int c = 0; s->cpu_a < 0 && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s->orig))
			s->cpu_a = c;
	if (s->cpu_a < 0) {
		snprintf(err, errlen, "no CPU in the affinity mask");
		return -EINVAL;
	}
	s->cpu_b = s->cpu_a;
	if (s->cross) {
		/* The runner may have pinned this thread already, so its mask
		   says nothing of the other CPUs: try each online CPU in turn. */
		s->cpu_b = -1;
		for (int i = 1; s->cpu_b < 0 && i < h->ncpus && i < CPU_SETSIZE; i++) {
			int c = (s->cpu_a + i) % h->ncpus;
			if (cs_pin(0, c) == 0)
				s->cpu_b = c;
		}
		if (s->cpu_b < 0) {
			sched_setaffinity(0, sizeof s->orig, &s->orig);
			snprintf(err, errlen, "placement 'cross' needs a second CPU "
				 "(only CPU %d is usable)", s->cpu_a);
			return PROBE_SKIP;
		}
	}
	if (cs_pin(0, s->cpu_a) < 0) {
		rc = -errno;
		snprintf(err, errlen, "pin to CPU %d: %s", s->cpu_a, strerror(errno));
		return rc;
	}
	s->restore = 1;

	/* A write to a dead partner's pipe fails with EPIPE instead of killing
	   the point with SIGPIPE. */
	{
		sigset_t pipe_set;

		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		if (pthread_sigmask(SIG_BLOCK, &pipe_set, &s->oldmask) == 0)
			s->masked = 1;
	}
	if (pipe(s->self) < 0) {
		rc = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return rc;
	}
	s->sh = mmap(NULL, sizeof *s->sh, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->sh == MAP_FAILED) {
		s->sh = NULL;
		rc = -errno;
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		return rc;
	}
	if (s->condvar && (rc = cs_condvar_init(s->sh, s->process)) != 0) {
		snprintf(err, errlen, "pthread condition variable: %s", strerror(rc));
		return -rc;
	}
	if (!s->futex && (pipe(s->ab) < 0 || pipe(s->ba) < 0)) {
		rc = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return rc;
	}
	rc = cs_start_partner(s, err, errlen);
	if (rc < 0)
		return rc;
	/* B is up, where it should be, and its count starts at zero. */
	rc = cs_report(s, &rep, err, errlen);
	if (rc < 0)
		return rc;
	if (rep.cpu != s->cpu_b) {
		snprintf(err, errlen, "partner runs on CPU %d, not on CPU %d",
			 (int)rep.cpu, s->cpu_b);
		return -EINVAL;
	}
	s->vcsw_b = rep.vcsw;
	return 0;
}

/* A alone: n non-blocking send+receive pairs of the mechanism. */
static int cs_overhead(struct cs_state *s, double hz, uint64_t n, uint64_t *ticks,
		       char *err, size_t errlen)
{
	uint64_t t0, t1;
	char c = TOK;

	if (s->condvar) {
		t0 = pt_begin(hz);
		for (uint64_t i = 0; i < n; i++) {
			pthread_mutex_lock(&s->sh->self_mx);
			pthread_cond_signal(&s->sh->self_cv);
			pthread_mutex_unlock(&s->sh->self_mx);
		}
		t1 = pt_end(hz);
	} else if (s->futex) {
		t0 = pt_begin(hz);
		for (uint64_t i = 0; i < n; i++) {
			cs_futex(&s->sh->self, FUTEX_WAKE, 1, s->process);
			cs_futex(&s->sh->self, FUTEX_WAIT, 1, s->process);
		}
		t1 = pt_end(hz);
	} else {
		t0 = pt_begin(hz);
		for (uint64_t i = 0; i < n; i++) {
			if (write(s->self[1], &c, 1) != 1 || read(s->self[0], &c, 1) != 1)
				goto fail;
		}
		t1 = pt_end(hz);
	}
	*ticks = t1 - t0;
	return 0;
fail:
	snprintf(err, errlen, "single-task pipe: %s", strerror(errno));
	return -errno;
}

/* A with B: n round trips. */
static int cs_round_trips(struct cs_state *s, double hz, uint64_t n, uint64_t *ticks,
			  char *err, size_t errlen)
{
	uint64_t t0, t1;
	char c = TOK;

	if (s->condvar) {
		atomic_store(&s->sh->cmd, CMD_TOKEN);
		t0 = pt_begin(hz);
		for (uint64_t i = 0; i < n; i++)
			cs_condvar_rt(s->sh);
		t1 = pt_end(hz);
	} else if (s->futex) {
		atomic_store(&s->sh->cmd, CMD_TOKEN);
		t0 = pt_begin(hz);
		for (uint64_t i = 0; i < n; i++)
			cs_futex_rt(s->sh, s->process);
		t1 = pt_end(hz);
	} else {
		t0 = pt_begin(hz);
		for (uint64_t i = 0; i < n; i++) {
			if (write(s->ab[1], &c, 1) != 1 || read(s->ba[0], &c, 1) != 1)
				goto fail;
		}
		t1 = pt_end(hz);
		if (c != TOK) {
			snprintf(err, errlen, "token came back as 0x%02x", (unsigned char)c);
			return -EPROTO;
		}
	}
	*ticks = t1 - t0;
	return 0;
fail:
	snprintf(err, errlen, "token pipe: %s", errno ? strerror(errno) : "partner is gone");
	return errno ? -errno : -EPIPE;
}

static int cs_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct cs_state *s = state;
	uint64_t n = iterations ? iterations : 1, half = n / 2;
	uint64_t ov1 = 0, ov2 = 0, rt = 0;
	struct cs_report rep;
	double rt_ns, ov_ns, hz = pt_clock_hz(h->tsc_hz);
	long vcsw0, vcsw1;
	int rc, cpu_a;

	errno = 0;
	if ((rc = cs_overhead(s, hz, half, &ov1, err, errlen)) < 0)
		return rc;
	vcsw0 = cs_vcsw();
	if ((rc = cs_round_trips(s, hz, n, &rt, err, errlen)) < 0)
		return rc;
	vcsw1 = cs_vcsw();
	if ((rc = cs_overhead(s, hz, n - half, &ov2, err, errlen)) < 0)
		return rc;
	cpu_a = sched_getcpu();
	rc = cs_report(s, &rep, err, errlen);
	if (rc < 0)
		return rc;

	rt_ns = cs_ns(hz, rt) / (double)n;
	ov_ns = cs_ns(hz, ov1 + ov2) / (double)n;
	out->value = (rt_ns - 2.0 * ov_ns) / 2.0;
	out->extra[X_RT] = rt_ns;
	out->extra[X_PIPE] = s->futex ? NAN : ov_ns;
	out->extra[X_FUTEX] = s->futex && !s->condvar ? ov_ns : NAN;
	out->extra[X_CONDVAR] = s->condvar ? ov_ns : NAN;
	out->extra[X_VCSW_A] = vcsw0 >= 0 && vcsw1 >= 0 ? (double)(vcsw1 - vcsw0) / (double)n : NAN;
	/* B's blocks between the last report and this one: the round trips
	   and this report's own hand-off (one block), not counted */
	out->extra[X_VCSW_B] = s->vcsw_b >= 0 && rep.vcsw >= 0
		? (double)(rep.vcsw - s->vcsw_b - 1) / (double)n : NAN;
	s->vcsw_b = rep.vcsw;
	out->extra[X_CPU_A] = cpu_a;
	out->extra[X_CPU_B] = rep.cpu;

	if (rep.count != n) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof out->note,
			 "token count mismatch: partner handled %llu of %llu",
			 (unsigned long long)rep.count, (unsigned long long)n);
	} else if (!s->cross && (cpu_a != rep.cpu || cpu_a != s->cpu_a)) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof out->note,
			 "tasks ran on CPUs %d and %d, not both on CPU %d",
			 cpu_a, (int)rep.cpu, s->cpu_a);
	} else if (s->cross && cpu_a == rep.cpu) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof out->note,
			 "placement cross but both tasks ran on CPU %d", cpu_a);
	}
	return 0;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "ctx_switch",
	.version = "1.1",
	.summary = "context switch between two processes or threads on one CPU (pipe, futex or condvar)",
	.unit = "ns",
	.bigger_is_better = 0,
	.params = cs_params,
	.metrics = cs_metrics,
	.config_size = sizeof(struct cs_cfg),
	.state_size = sizeof(struct cs_state),
	.iterations_hint = 512,
	.setup = cs_setup,
	.sample = cs_sample,
	.teardown = cs_teardown,
};
