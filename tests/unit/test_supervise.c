/*
 * test_supervise.c - lib/supervise.c, the one child supervisor: a child
 * that exits 3, one a signal ends, one that overruns its deadline (its
 * grandchild in the same process group dies with it, and no zombie is
 * left), one that writes to a pipe the caller watches, one whose
 * grandchild keeps that pipe open after it exited, one interrupted by the
 * caller's SIGINT flag, and the 20 ms fallback without a pidfd.
 * Table-driven: each row is a child body and what the supervisor must say.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "lib/monotonic.h"
#include "lib/supervise.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* ---- child bodies: arg is the write end of the pipe the caller watches */

static void say(int fd, const char *fmt, long v)
{
	char buf[64];
	int n = snprintf(buf, sizeof buf, fmt, v);

	if (write(fd, buf, (size_t)n) != n)
		_exit(120);
}

/* A grandchild in the child's group that sleeps until killed; its pid
   goes down the pipe as "G<pid>\n". */
static void grandchild(int fd)
{
	pid_t g = fork();

	if (g < 0)
		_exit(121);
	if (g == 0)
		for (;;)
			pause();
	say(fd, "G%ld\n", (long)g);
}

static void exits_3(void *arg)
{
	(void)arg;
	_exit(3);
}

static void signalled(void *arg)
{
	(void)arg;
	signal(SIGUSR1, SIG_DFL);
	raise(SIGUSR1);
	_exit(0);
}

static void overruns(void *arg)
{
	grandchild(*(int *)arg);
	for (;;)
		pause();
}

static void writes(void *arg)
{
	say(*(int *)arg, "hello %ld\n", 42);
	_exit(0);
}

/* exits at once, its grandchild holding the pipe's write end */
static void leaves_holder(void *arg)
{
	grandchild(*(int *)arg);
	_exit(0);
}

static void interrupts_parent(void *arg)
{
	(void)arg;
	kill(getppid(), SIGINT);
	for (;;)
		pause();
}

/* ---- the table */

struct scase {
	const char *name;
	void (*fn)(void *arg);
	double deadline_s;	/* 0: none */
	int subreaper;		/* the test process is a child subreaper meanwhile */
	int no_pidfd;		/* force the fallback: look every 20 ms */
	int use_flag;		/* pass &interrupted */
	int want_events;	/* every SUPERVISE_* the waits must have seen */
	int not_events;		/* ... and those they must not */
	enum supervise_how how;
	int code;
	const char *want_read;	/* the pipe's text (NULL: not checked) */
	int has_grandchild;	/* the text is "G<pid>\n": that task must be dead */
};

static const struct scase cases[] = {
	{"exits 3", exits_3, 5, 0, 0, 0, SUPERVISE_EXITED, SUPERVISE_TIMEOUT,
	 SUPERVISE_END_EXIT, 3, "", 0},
	{"exits 3, no pidfd (20 ms fallback)", exits_3, 5, 0, 1, 0, SUPERVISE_EXITED,
	 SUPERVISE_TIMEOUT, SUPERVISE_END_EXIT, 3, "", 0},
	{"killed by SIGUSR1", signalled, 5, 0, 0, 0, SUPERVISE_EXITED, SUPERVISE_TIMEOUT,
	 SUPERVISE_END_SIGNAL, SIGUSR1, "", 0},
	{"overruns its deadline, grandchild in its group", overruns, 0.3, 0, 0, 0,
	 SUPERVISE_TIMEOUT, SUPERVISE_EXITED, SUPERVISE_END_TIMEOUT, 0, NULL, 1},
	{"overruns its deadline, as a subreaper's child", overruns, 0.3, 1, 0, 0,
	 SUPERVISE_TIMEOUT, SUPERVISE_EXITED, SUPERVISE_END_TIMEOUT, 0, NULL, 1},
	{"overruns its deadline, no pidfd", overruns, 0.3, 0, 1, 0, SUPERVISE_TIMEOUT,
	 SUPERVISE_EXITED, SUPERVISE_END_TIMEOUT, 0, NULL, 1},
	{"writes to the watched pipe", writes, 5, 0, 0, 0, SUPERVISE_READABLE | SUPERVISE_EXITED,
	 SUPERVISE_TIMEOUT, SUPERVISE_END_EXIT, 0, "hello 42\n", 0},
	{"ends while a grandchild holds the pipe", leaves_holder, 5, 0, 0, 0, SUPERVISE_EXITED,
	 SUPERVISE_TIMEOUT, SUPERVISE_END_EXIT, 0, NULL, 1},
	{"the caller's SIGINT flag", interrupts_parent, 5, 0, 0, 1, SUPERVISE_INTERRUPTED,
	 SUPERVISE_TIMEOUT | SUPERVISE_EXITED, SUPERVISE_END_INTERRUPT, 0, NULL, 0},
};

/* Is task pid gone, or a zombie (dead, waiting for its reaper)?  Looks
   for up to 1 s: SIGKILL takes a moment to land. */
static int dead(pid_t pid)
{
	for (int i = 0; i < 1000; i++) {
		char path[64], buf[512], *p;
		FILE *f;
		int zombie = 0;

		snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
		if (!(f = fopen(path, "r")))
			return 1;
		if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')))
			zombie = p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
		fclose(f);
		if (zombie)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void drain(int fd, char *buf, size_t cap, size_t *have, int *eof)
{
	for (;;) {
		ssize_t r = read(fd, buf + *have, cap - 1 - *have);

		if (r > 0) {
			*have += (size_t)r;
			buf[*have] = '\0';
			continue;
		}
		if (r == 0)
			*eof = 1;
		return;	/* EAGAIN: nothing more now */
	}
}

/* Whether this process could become a child subreaper (not under qemu-user
   7.2, which refuses PR_SET_CHILD_SUBREAPER with EINVAL). */
static int subreaper_ok = 1;

static void run_case(const struct scase *t)
{
	struct supervise c;
	struct supervise_end end;
	char text[256] = "";
	size_t have = 0;
	int pfd[2], seen = 0, eof = 0, ev = 0;
	double t0, waited;

	interrupted = 0;
	subreaper_ok = 1;
	if (t->subreaper)
		subreaper_ok = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 || errno != EINVAL ||
			       !getenv("SYSMETER_EMULATED");
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK) != 0) {
		ok(0, "%s: pipe: %s", t->name, strerror(errno));
		return;
	}
	if (!ok(supervise_spawn(&c, t->fn, &pfd[1]) == 0, "%s: spawned", t->name))
		return;
	close(pfd[1]);
	if (t->no_pidfd)
		c.pidfd_tried = 1;	/* as on a kernel without pidfd_open */
	ok(getpgid(c.pid) == c.pid, "%s: the child leads its own process group", t->name);

	t0 = monotonic_s();
	for (;;) {
		struct pollfd p = { .fd = eof ? -1 : pfd[0], .events = POLLIN };

		ev = supervise_wait(&c, &p, 1, t->deadline_s > 0 ? t0 + t->deadline_s : 0,
				    t->use_flag ? &interrupted : NULL);
		if (ev < 0)
			break;
		seen |= ev;
		if (ev & SUPERVISE_READABLE)
			drain(pfd[0], text, sizeof text, &have, &eof);
		if (ev & (SUPERVISE_EXITED | SUPERVISE_TIMEOUT | SUPERVISE_INTERRUPTED))
			break;
	}
	waited = monotonic_s() - t0;
	ok(ev >= 0, "%s: the wait did not fail (%s)", t->name, ev < 0 ? strerror(errno) : "ok");
	ok((seen & t->want_events) == t->want_events && !(seen & t->not_events),
	   "%s: the waits saw 0x%x (want 0x%x, none of 0x%x)", t->name, seen, t->want_events,
	   t->not_events);
	if (t->want_events & SUPERVISE_TIMEOUT)
		ok(waited >= t->deadline_s - 0.002 && waited < t->deadline_s + 1.0,
		   "%s: ended at its deadline (%.3f s for %.3f s)", t->name, waited, t->deadline_s);

	ok(supervise_reap(&c, &end) == 0, "%s: reaped", t->name);
	ok(end.how == t->how && end.code == t->code, "%s: ended how=%d code=%d (want %d %d)",
	   t->name, (int)end.how, end.code, (int)t->how, t->code);
	ok(c.pid == 0 && c.pidfd == -1, "%s: nothing of the child kept", t->name);
	drain(pfd[0], text, sizeof text, &have, &eof);
	close(pfd[0]);
	if (t->want_read) {
		char name[128];

		snprintf(name, sizeof name, "%s: the pipe carried what the child wrote", t->name);
		is_str(text, t->want_read, name);
	}
	if (t->has_grandchild) {
		long g = 0;

		if (ok(sscanf(text, "G%ld", &g) == 1 && g > 0, "%s: the grandchild sent its pid",
		       t->name))
			if (!ok(dead((pid_t)g), "%s: grandchild %ld died with the group", t->name, g))
				kill((pid_t)g, SIGKILL);	/* no stray of a failed test */
	}
	if (t->subreaper && !subreaper_ok) {
		ok(1, "# skip emulated CPU: no PR_SET_CHILD_SUBREAPER here (qemu-user 7.2 refuses it)");
	} else if (t->subreaper) {
		/* the orphaned grandchild came back to us: reaped, not a zombie */
		long g = 0;

		sscanf(text, "G%ld", &g);
		ok(g > 0 && kill((pid_t)g, 0) < 0 && errno == ESRCH,
		   "%s: the orphan was reaped by supervise_reap", t->name);
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	}
	if (t->use_flag)
		ok(interrupted, "%s: the flag was set by the handler", t->name);
}

int main(void)
{
	struct sigaction sa;
	struct supervise c;
	struct supervise_end end;
	int st;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART, as the runner's */

	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i]);

	/* supervise_exited looks without reaping; the reap then gives the
	   status the child ended with, not the SIGKILL it sends the group */
	if (ok(supervise_spawn(&c, exits_3, NULL) == 0, "spawned for supervise_exited")) {
		int seen = 0;

		for (int i = 0; i < 2000 && !(seen = supervise_exited(&c)); i++)
			usleep(1000);
		ok(seen, "supervise_exited saw it end");
		ok(supervise_exited(&c), "... and still sees it (not reaped)");
		int rc = supervise_reap(&c, &end);

		ok(rc == 0 && end.how == SUPERVISE_END_EXIT && end.code == 3,
		   "reaped after supervise_exited: exit 3 (how=%d code=%d)", (int)end.how, end.code);
	}
	/* adopt: a child forked elsewhere, stopped at its deadline */
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	supervise_adopt(&c, pid);
	ok(supervise_wait(&c, NULL, 0, monotonic_s() + 0.05, NULL) == SUPERVISE_TIMEOUT,
	   "adopted: a wait with no fds ends at the deadline");
	ok(supervise_reap(&c, &end) == 0 && end.how == SUPERVISE_END_TIMEOUT,
	   "adopted: reaped, ended by the timeout");
	ok(supervise_reap(&c, &end) < 0 && errno == ECHILD, "a second reap: ECHILD");

	ok(waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD, "no child and no zombie is left");
	return done_testing();
}
