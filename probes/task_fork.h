/*
 * task_fork.h - the timed process creations of the task_create probe, shared
 * by the probe itself (parent `runner`: the point's process forks) and by
 * probes/bin/fork_parent (parent `minimal`: a small exec'd program forks),
 * so that both parents time exactly the same code with the same timer; the
 * size of the process that forks (its mappings and resident bytes, from
 * /proc/self); and the messages the probe and fork_parent exchange.
 *
 * Static inline only: included by a probe (a shared object) and by a
 * static helper program, neither of which links anything of the other.
 * probe_time.h is included by a path relative to this file, because the
 * probes/bin programs are built without the probes' -Irunner.
 */
#ifndef SYSMETER_TASK_FORK_H
#define SYSMETER_TASK_FORK_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../runner/probe_time.h"

/* The process methods, in the order of task_create's method choices. */
enum tf_method { TF_FORK, TF_FORK_WAIT, TF_VFORK, TF_SPAWN };

#define TF_SPAWN_NAME "spawn_true"

struct tf_state {
	pid_t pending;			/* a child not reaped yet, 0 if none */
	const char *spawn_path;		/* posix_spawn's program (spawn_true) */
};

/* What one sample's timed loop yields. */
struct tf_sums {
	uint64_t ticks;			/* the timed parts, summed */
	uint64_t done;			/* ops whose child had finished when the call returned */
	int64_t mappings;		/* the forking process before the loop: lines of */
	int64_t rss_bytes;		/* /proc/self/maps, VmRSS; -1 when unreadable */
	/* minor faults over the loop (getrusage): the creator's own
	   (copy-on-write after fork) and its reaped children's (their
	   copy-on-write, or an exec'd program's loading); -1 unreadable */
	int64_t parent_faults, child_faults;
};

/*
 * The wire between the probe and fork_parent: the probe sends a request on
 * the helper's fd 3, the helper answers each with a reply on its fd 4 (and
 * one reply with iterations 0 as soon as it is ready, so that a helper that
 * could not start is an error at setup).  Both are smaller than PIPE_BUF:
 * a write arrives whole.
 */
#define TF_WIRE_MAGIC 0x74664b31u	/* "tfK1" */
#define TF_REQ_FD 3
#define TF_REP_FD 4

struct tf_request {
	uint32_t magic;
	int32_t method;			/* enum tf_method */
	uint64_t iterations;
	double hz;			/* pt_clock_hz(): > 0 = the counter, else ns */
};

struct tf_reply {
	uint32_t magic;
	int32_t err;			/* 0, or a positive errno with msg */
	struct tf_sums sums;
	char msg[200];
};

/* Count newlines of a /proc file (its lines) or find "VmRSS:" in it,
   with read() into a buffer on the stack: no stdio, no malloc, so the
   measuring adds no mapping to the process it measures. */
static inline int64_t tf_proc_lines(const char *path)
{
	char buf[4096];
	int64_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	close(fd);
	return r < 0 ? -1 : n;
}

static inline int64_t tf_proc_rss(void)
{
	char buf[8192];
	size_t have = 0;
	ssize_t r;
	const char *p;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (have < sizeof buf - 1 &&
	       ((r = read(fd, buf + have, sizeof buf - 1 - have)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			have += (size_t)r;
	close(fd);
	buf[have] = '\0';
	p = strstr(buf, "\nVmRSS:");
	if (!p)
		return -1;
	return (int64_t)strtoll(p + 7, NULL, 10) * 1024;	/* "VmRSS:  7204 kB" */
}

static inline void tf_self_size(struct tf_sums *s)
{
	s->mappings = tf_proc_lines("/proc/self/maps");
	s->rss_bytes = tf_proc_rss();
}

/* Wait for child `pid`.  Returns 1 when reaped with exit status 0, 0 when
   nohang and still running, or a negative errno with a message. */
static inline int tf_reap(struct tf_state *s, pid_t pid, int nohang, char *err, size_t errlen)
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
   parent keeps in registers or on the stack is disturbed.  (Not inline:
   gcc warns of an inline function declared noinline.) */
static __attribute__((noinline, unused)) pid_t tf_vfork(void)
{
	pid_t pid = vfork();

	if (pid == 0)
		_exit(0);
	return pid;
}

/* One operation: create (and maybe wait); *ticks gets the timed part,
   *done whether the new task had finished when the timed call returned. */
static inline int tf_op(struct tf_state *s, enum tf_method m, double hz, uint64_t *ticks,
			int *done, char *err, size_t errlen)
{
	static char *const argv[] = { TF_SPAWN_NAME, NULL };
	static char *const envp[] = { NULL };
	uint64_t t0 = 0, t1 = 0;
	pid_t pid = 0;
	int rc = 0, e;

	*done = 0;
	switch (m) {
	case TF_FORK:
	case TF_FORK_WAIT:
		t0 = pt_begin(hz);
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0 && m == TF_FORK_WAIT) {
			s->pending = pid;
			rc = tf_reap(s, pid, 0, err, errlen);
		}
		t1 = pt_end(hz);
		if (pid < 0) {
			rc = -errno;
			snprintf(err, errlen, "fork: %s", strerror(errno));
			return rc;
		}
		break;
	case TF_VFORK:
		t0 = pt_begin(hz);
		pid = tf_vfork();
		t1 = pt_end(hz);
		if (pid < 0) {
			rc = -errno;
			snprintf(err, errlen, "vfork: %s", strerror(errno));
			return rc;
		}
		break;
	case TF_SPAWN:
		if (!s->spawn_path) {
			snprintf(err, errlen, "no program to spawn");
			return -EINVAL;
		}
		t0 = pt_begin(hz);
		e = posix_spawn(&pid, s->spawn_path, NULL, NULL, argv, envp);
		if (e == 0) {
			s->pending = pid;
			rc = tf_reap(s, pid, 0, err, errlen);
		}
		t1 = pt_end(hz);
		if (e != 0) {
			snprintf(err, errlen, "posix_spawn %s: %s", s->spawn_path, strerror(e));
			return -e;
		}
		break;
	default:
		snprintf(err, errlen, "unknown method %d", (int)m);
		return -EINVAL;
	}
	if (rc < 0)			/* the timed wait failed */
		return rc;
	*ticks = t1 - t0;
	if (m == TF_FORK_WAIT || m == TF_SPAWN) {
		*done = 1;
		return 0;
	}
	/* Reap outside the timed region; a first non-blocking look tells
	   whether the child had already run to its end. */
	s->pending = pid;
	rc = tf_reap(s, pid, 1, err, errlen);
	if (rc == 0)
		rc = tf_reap(s, pid, 0, err, errlen);
	else
		*done = 1;
	return rc < 0 ? rc : 0;
}

/* One sample: the forking process's size, then `iterations` timed ops. */
static inline int tf_run(struct tf_state *s, enum tf_method m, uint64_t iterations, double hz,
			 struct tf_sums *out, char *err, size_t errlen)
{
	struct rusage self0, self1, kids0, kids1;
	int have;

	memset(out, 0, sizeof *out);
	tf_self_size(out);
	have = getrusage(RUSAGE_SELF, &self0) == 0 && getrusage(RUSAGE_CHILDREN, &kids0) == 0;
	for (uint64_t i = 0; i < iterations; i++) {
		uint64_t ticks = 0;
		int done, rc = tf_op(s, m, hz, &ticks, &done, err, errlen);

		if (rc < 0)
			return rc;
		out->ticks += ticks;
		out->done += (uint64_t)done;
	}
	have = have && getrusage(RUSAGE_SELF, &self1) == 0 && getrusage(RUSAGE_CHILDREN, &kids1) == 0;
	out->parent_faults = have ? (int64_t)(self1.ru_minflt - self0.ru_minflt) : -1;
	out->child_faults = have ? (int64_t)(kids1.ru_minflt - kids0.ru_minflt) : -1;
	return 0;
}

/* Kill and reap a child a failed op left. */
static inline void tf_cleanup(struct tf_state *s)
{
	if (s->pending > 0) {
		kill(s->pending, SIGKILL);
		while (waitpid(s->pending, NULL, 0) < 0 && errno == EINTR)
			;
		s->pending = 0;
	}
}

#endif
