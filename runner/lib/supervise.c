/*
 * supervise.c - the one child supervisor (supervise.h).
 */
#include "lib/supervise.h"
#include "lib/monotonic.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REAP_BUDGET 5.0		/* seconds to wait for the group's killed orphans */
#define NO_PIDFD_NAP 0.02	/* without a pidfd: look at the child this often */

int supervise_spawn(struct supervise *c, void (*fn)(void *arg), void *arg)
{
	pid_t pid;

	memset(c, 0, sizeof *c);
	c->pidfd = -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		fn(arg);
		_exit(127);
	}
	setpgid(pid, pid);	/* also here: no window where kill(-pid) misses */
	c->pid = pid;
	return 0;
}

void supervise_adopt(struct supervise *c, pid_t pid)
{
	memset(c, 0, sizeof *c);
	c->pidfd = -1;
	c->pid = pid;
}

static void open_pidfd(struct supervise *c)
{
	if (c->pidfd_tried)
		return;
	c->pidfd_tried = 1;
#ifdef SYS_pidfd_open
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
#endif
}

int supervise_exited(struct supervise *c)
{
	siginfo_t si;

	if (c->exited)
		return 1;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno == ECHILD;
	return si.si_pid == c->pid;
}

void supervise_kill(struct supervise *c)
{
	if (c->pid <= 0)
		return;
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
}

/* Stop the child for a wait: why is SUPERVISE_TIMEOUT or _INTERRUPTED. */
static int kill_for(struct supervise *c, int why)
{
	supervise_kill(c);
	c->killed = why;
	return why;
}

/* One poll of fds and the pidfd for at most `left` seconds (< 0: no
   limit); the events it saw, 0 for none, -1 on error. */
static int poll_once(struct supervise *c, struct pollfd *fds, nfds_t nfds, double left,
		     const sigset_t *mask)
{
	struct pollfd all[SUPERVISE_MAX_FDS + 1];
	struct timespec ts, *tsp = NULL;
	nfds_t n = nfds;
	int ev = 0, watch_child = !c->exited;

	if (nfds)
		memcpy(all, fds, nfds * sizeof *fds);
	if (watch_child && c->pidfd >= 0)
		all[n++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
	else if (watch_child && (left < 0 || left > NO_PIDFD_NAP))
		left = NO_PIDFD_NAP;
	if (left >= 0) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		tsp = &ts;
	}
	if (ppoll(all, n, tsp, mask) < 0)
		return errno == EINTR ? 0 : -1;
	for (nfds_t i = 0; i < nfds; i++) {
		fds[i].revents = all[i].revents;
		if (fds[i].fd >= 0 && fds[i].revents)
			ev |= SUPERVISE_READABLE;
	}
	if (watch_child && (c->pidfd >= 0 ? all[nfds].revents != 0 : supervise_exited(c))) {
		c->exited = 1;
		ev |= SUPERVISE_EXITED;
	}
	return ev;
}

int supervise_wait(struct supervise *c, struct pollfd *fds, nfds_t nfds, double deadline,
		   volatile sig_atomic_t *interrupted)
{
	sigset_t block, old, during;
	int ev = 0, open_fds = 0;

	if (nfds > SUPERVISE_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	for (nfds_t i = 0; i < nfds; i++)
		open_fds += fds[i].fd >= 0;
	if (c->exited && !open_fds)
		return SUPERVISE_EXITED;	/* nothing left to wait for */
	open_pidfd(c);
	/* SIGINT and SIGTERM come in only inside the poll: a handler that sets
	   *interrupted cannot slip between its check and the wait */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	during = old;
	sigdelset(&during, SIGINT);
	sigdelset(&during, SIGTERM);
	while (!ev) {
		double left = deadline > 0 ? deadline - monotonic_s() : -1;

		if (interrupted && *interrupted)
			ev = kill_for(c, SUPERVISE_INTERRUPTED);
		else if (deadline > 0 && left <= 0)
			ev = kill_for(c, SUPERVISE_TIMEOUT);
		else
			ev = poll_once(c, fds, nfds, left, &during);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ev;
}

int supervise_reap(struct supervise *c, struct supervise_end *end)
{
	int st = 0, x, rc = 0, err = 0;
	double t0;

	if (end)
		*end = (struct supervise_end){ .how = SUPERVISE_END_EXIT };
	if (c->pid <= 0) {
		errno = ECHILD;
		return -1;
	}
	supervise_kill(c);
	while (waitpid(c->pid, &st, 0) < 0) {
		if (errno != EINTR) {
			rc = -1;
			err = errno;
			st = 0;
			break;
		}
	}
	/* the orphans of the group that came back to a subreaper */
	t0 = monotonic_s();
	for (;;) {
		pid_t r = waitpid(-c->pid, &x, WNOHANG);

		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r < 0 || monotonic_s() - t0 > REAP_BUDGET)
			break;	/* ECHILD: none left */
		kill(-c->pid, SIGKILL);
		usleep(1000);
	}
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	if (end) {
		end->status = st;
		if (c->killed == SUPERVISE_TIMEOUT)
			end->how = SUPERVISE_END_TIMEOUT;
		else if (c->killed == SUPERVISE_INTERRUPTED)
			end->how = SUPERVISE_END_INTERRUPT;
		else if (WIFSIGNALED(st))
			end->how = SUPERVISE_END_SIGNAL, end->code = WTERMSIG(st);
		else
			end->how = SUPERVISE_END_EXIT, end->code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	}
	c->pid = 0;
	if (rc < 0)
		errno = err;
	return rc;
}
