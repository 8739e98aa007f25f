/*
 * supervise.h - the one child supervisor: start a child in its own process
 * group, wait for it (a deadline, an interrupt flag, the caller's fds),
 * kill its whole group, reap it and say how it ended.
 *
 *	struct supervise c;
 *	struct supervise_end end;
 *
 *	if (supervise_spawn(&c, child_fn, arg) < 0)
 *		... fork failed: errno, nothing to reap ...
 *	for (;;) {
 *		int ev = supervise_wait(&c, fds, nfds, deadline, interrupted);
 *		if (ev < 0 || (ev & (SUPERVISE_TIMEOUT | SUPERVISE_INTERRUPTED)))
 *			break;			// the group is killed already
 *		if (ev & SUPERVISE_READABLE)
 *			... read the fds whose revents are set ...
 *		if (ev & SUPERVISE_EXITED)
 *			break;
 *	}
 *	supervise_reap(&c, &end);		// kills the group, reaps, says how
 *
 * The child leads its own process group from its first instruction (both
 * sides call setpgid, so no window exists where killing the group misses
 * it), and a timeout, an interrupt or the reap kills that group: every
 * task the child started dies with it unless it left the group (setsid).
 * The terminal's Ctrl-C does not reach the group; the caller's SIGINT
 * handler sets its flag and supervise_wait ends the child.  The wait uses a
 * pidfd of the child where the kernel has pidfd_open (so an ended child is
 * seen even while a grandchild holds the caller's pipe), else it looks at
 * the child every 20 ms.
 */
#ifndef SYSMETER_SUPERVISE_H
#define SYSMETER_SUPERVISE_H

#include <poll.h>
#include <signal.h>
#include <sys/types.h>

/* One supervised child.  Filled by supervise_spawn or supervise_adopt;
   the fields are for reading. */
struct supervise {
	pid_t pid;		/* the child, leader of its own process group */
	int pidfd;		/* its pidfd once a wait opened one, else -1 */
	int pidfd_tried;	/* pidfd_open was tried (it fails on old kernels) */
	int exited;		/* a wait saw it end (a zombie until reaped) */
	int killed;		/* SUPERVISE_TIMEOUT / SUPERVISE_INTERRUPTED: why a wait
				   killed it, else 0 */
};

/* What supervise_wait saw: a mask of these. */
enum {
	SUPERVISE_READABLE = 1 << 0,	/* one of the caller's fds has revents */
	SUPERVISE_EXITED = 1 << 1,	/* the child ended (reported once) */
	SUPERVISE_TIMEOUT = 1 << 2,	/* the deadline passed: the group is killed */
	SUPERVISE_INTERRUPTED = 1 << 3,	/* *interrupted was set: the group is killed */
};

/* How the child ended. */
enum supervise_how {
	SUPERVISE_END_EXIT = 1,		/* it exited: code is its exit status */
	SUPERVISE_END_SIGNAL,		/* a signal ended it: code is the signal (also
					   SIGKILL from supervise_kill or the reap) */
	SUPERVISE_END_TIMEOUT,		/* killed at the deadline by supervise_wait */
	SUPERVISE_END_INTERRUPT,	/* killed by supervise_wait on *interrupted */
};

struct supervise_end {
	enum supervise_how how;
	int code;		/* exit status (EXIT) or signal (SIGNAL), else 0 */
	int status;		/* the wait status as waitpid gave it */
};

/* The most fds supervise_wait watches besides the child. */
#define SUPERVISE_MAX_FDS 8

/* Fork a child that runs fn(arg) in its own process group and _exit(127)s
   if fn returns; stdio is flushed first, so that nothing buffered is
   written twice (the child may call exit()).  The child starts with the
   caller's signal handlers and mask: fn resets what it needs.  0, or -1
   with errno when fork failed (nothing to reap). */
int supervise_spawn(struct supervise *c, void (*fn)(void *arg), void *arg);

/* Supervise a child forked elsewhere (leading its own group, not reaped). */
void supervise_adopt(struct supervise *c, pid_t pid);

/* Wait until something happens, and return what as a mask of SUPERVISE_*:
   one of fds (nfds <= SUPERVISE_MAX_FDS; an fd < 0 is skipped, as poll
   does) has revents (set in fds), the child ended, the deadline (a
   monotonic_s() time, 0: none) passed or *interrupted (NULL: none) was
   set; for these two the child's group has been killed (SIGKILL).
   SIGINT and SIGTERM are blocked during the call except inside the poll
   (whatever the caller's mask), so a handler that sets the flag cannot
   slip between its check and the wait.  After the child ended, waits on
   the fds alone (none given: returns SUPERVISE_EXITED at once).  -1 with
   errno when poll fails (the child runs on: kill or reap it). */
int supervise_wait(struct supervise *c, struct pollfd *fds, nfds_t nfds, double deadline,
		   volatile sig_atomic_t *interrupted);

/* Has the child ended?  Looks without waiting and without reaping. */
int supervise_exited(struct supervise *c);

/* SIGKILL the child's process group, and the child itself in case it
   could not lead one. */
void supervise_kill(struct supervise *c);

/* Kill what is left of the group, reap the child and then every child of
   the caller still in the group (the orphans a child subreaper inherits:
   PR_SET_CHILD_SUBREAPER is the caller's to set), for 5 s at most; close
   the pidfd.  end (may be NULL): how the child ended.  0, or -1 with errno
   when the child could not be reaped (not the caller's). */
int supervise_reap(struct supervise *c, struct supervise_end *end);

#endif
