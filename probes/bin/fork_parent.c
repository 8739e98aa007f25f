/*
 * fork_parent - the small process task_create's process methods fork from
 * (parameter parent: minimal).  fork copies the parent's page tables and
 * marks its private pages copy-on-write, so its cost grows with the
 * parent's mappings and resident size; the point's own process is a fork
 * of the runner (about 185 mappings, 7 MiB resident), while lmbench's
 * lat_proc forks from a small program (about 23 mappings, 1.4 MiB).  This
 * program is that small parent.
 *
 * Usage: fork_parent PARENT_PID [SPAWN_PATH]
 * Requests (struct tf_request, task_fork.h) arrive on fd 3; each is run as
 * the probe would run it (tf_run: this process's size from /proc/self,
 * then the timed operations with probe_time.h's counter) and answered with
 * a struct tf_reply on fd 4.  A first reply, before any request, says the
 * program is ready.  SPAWN_PATH is the program posix_spawn starts.
 *
 * It dies with its parent: PR_SET_PDEATHSIG(SIGKILL), set before the ready
 * reply, and it exits at once when its parent is not PARENT_PID any more
 * (the parent died before the death signal was set); it also ends at the
 * end of its requests (the probe closed fd 3).  It stays in the point's
 * process group, so the runner's kill of the group on a timeout kills it
 * and the children it made.
 *
 * Linked statically (as every probes/bin program, by the Makefile): no
 * dynamic loader and no shared libc, so its address space is its own
 * segments, a heap, the stack, vdso and vvar (about 10 mappings and a few
 * hundred KiB resident), the smallest a C program has.  It allocates
 * nothing and uses no stdio stream, so the process measured is the
 * process that forks, as small as it starts.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../task_fork.h"

/* Read exactly n bytes: 1, 0 at a clean end of input, -1 on an error or a
   torn message. */
static int read_full(int fd, void *buf, size_t n)
{
	size_t have = 0;

	while (have < n) {
		ssize_t r = read(fd, (char *)buf + have, n - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 && have == 0 ? 0 : -1;
		have += (size_t)r;
	}
	return 1;
}

static int write_full(int fd, const void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(fd, (const char *)buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct tf_reply rep;	/* static: nothing on the heap */
	struct tf_state st = { 0 };
	struct tf_request req;
	char *end;
	long parent;
	int rc;

	if (argc < 2 || argc > 3) {
		static const char usage[] = "usage: fork_parent PARENT_PID [SPAWN_PATH]\n";
		(void)!write(2, usage, sizeof usage - 1);
		return 2;
	}
	parent = strtol(argv[1], &end, 10);
	if (*end || parent <= 1)
		return 2;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != (pid_t)parent)
		return 1;
	st.spawn_path = argc > 2 ? argv[2] : NULL;
	rep.magic = TF_WIRE_MAGIC;
	if (write_full(TF_REP_FD, &rep, sizeof rep) < 0)
		return 1;
	while ((rc = read_full(TF_REQ_FD, &req, sizeof req)) > 0) {
		if (req.magic != TF_WIRE_MAGIC)
			return 1;
		memset(&rep, 0, sizeof rep);
		rep.magic = TF_WIRE_MAGIC;
		rc = tf_run(&st, (enum tf_method)req.method, req.iterations, req.hz, &rep.sums,
			    rep.msg, sizeof rep.msg);
		if (rc < 0) {
			rep.err = -rc;
			tf_cleanup(&st);
		}
		if (write_full(TF_REP_FD, &rep, sizeof rep) < 0)
			break;
	}
	tf_cleanup(&st);
	return rc < 0 ? 1 : 0;
}
