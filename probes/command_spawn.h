/*
 * command_spawn.h - run one program for the command probe and account for
 * everything it started: a monotonic clock around vfork and wait4(), the
 * rusage of that child alone, the peak memory of a memory cgroup made for
 * the run, and, when it is over, every process it left behind killed and
 * reaped.  Included by command.c only (static functions).
 *
 * Why a cgroup: a child that calls setsid() leaves the process group, so a
 * kill of the group misses it; it cannot leave its cgroup.  Without a
 * cgroup (not root, no memory controller) the probe still kills the group
 * and every orphan that was reparented to it (the probe process is a child
 * subreaper), found by scanning /proc; only a process whose parent is
 * still alive outside the group could then escape, and that parent is
 * itself in the group or an orphan, so it goes first.
 */
#ifndef SYSMETER_COMMAND_SPAWN_H
#define SYSMETER_COMMAND_SPAWN_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CS_KILL_BUDGET 5.0	/* seconds to wait for the leftovers to die */

/* Where per-run memory cgroups are made: v1 (memory controller mount) or v2. */
struct cs_cgroup {
	int version;		/* 0: none (reason says why), 1, 2 */
	char parent[PATH_MAX];	/* our own cgroup's directory: runs go below it */
	char reason[160];
};

/* One spawn's outcome. */
struct cs_run {
	double wall_s;
	struct rusage ru;
	int status;		/* wait status */
	int timed_out;
	uint64_t peak;		/* bytes: cgroup peak, else ru_maxrss */
	int peak_exact;		/* from the cgroup */
	int exec_errno;		/* execvp failed: the program did not run */
};

static double cs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Our own cgroup's path for the memory controller: v1 "N:memory:/path"
   or v2 "0::/path" in /proc/self/cgroup. */
static int cs_own_path(int v2, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[PATH_MAX + 64];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof line, f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		*b = '\0';
		b[strcspn(b + 1, "\n") + 1] = '\0';
		if (v2 ? strcmp(a + 1, "") == 0 && strncmp(line, "0", 1) == 0
		       : strstr(a + 1, "memory") != NULL) {
			snprintf(out, len, "%s", b + 1);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static int cs_exists(const char *dir, const char *file)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/%s", dir, file);
	return access(p, F_OK) == 0;
}

/* Find where this process may make memory cgroups; try one to be sure. */
static void cs_cgroup_find(struct cs_cgroup *cg)
{
	static const char *v1 = "/sys/fs/cgroup/memory", *v2 = "/sys/fs/cgroup";
	char own[PATH_MAX], probe[PATH_MAX + 64];

	memset(cg, 0, sizeof *cg);
	if (cs_exists(v1, "memory.max_usage_in_bytes") && cs_own_path(0, own, sizeof own) == 0) {
		cg->version = 1;
		snprintf(cg->parent, sizeof cg->parent, "%s%s", v1, own);
	} else if (cs_exists(v2, "cgroup.controllers") && cs_own_path(1, own, sizeof own) == 0) {
		cg->version = 2;
		snprintf(cg->parent, sizeof cg->parent, "%s%s", v2, own);
	} else {
		snprintf(cg->reason, sizeof cg->reason, "no memory cgroup controller mounted");
		return;
	}
	snprintf(probe, sizeof probe, "%s/sysmeter-%d-check", cg->parent, (int)getpid());
	if (mkdir(probe, 0755) != 0) {
		snprintf(cg->reason, sizeof cg->reason, "cannot make a memory cgroup in %s: %s",
			 cg->parent, strerror(errno));
		cg->version = 0;
		return;
	}
	/* v2 shows memory.peak only when the parent delegates the controller */
	if (!cs_exists(probe, cg->version == 1 ? "memory.max_usage_in_bytes" : "memory.peak")) {
		snprintf(cg->reason, sizeof cg->reason,
			 "the memory controller is not enabled below %s", cg->parent);
		cg->version = 0;
	}
	rmdir(probe);
}

static int cs_read_u64(const char *dir, const char *file, uint64_t *out)
{
	char p[PATH_MAX + 64], buf[64];
	ssize_t n;
	int fd;

	snprintf(p, sizeof p, "%s/%s", dir, file);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*out = strtoull(buf, NULL, 10);
	return 0;
}

static int cs_is_zombie(pid_t pid)
{
	char p[64], buf[512], *rp;
	ssize_t n;
	int fd;

	snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;	/* gone */
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return !rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X';
}

/* SIGKILL every live process listed in the cgroup; how many there were. */
static int cs_kill_cgroup(const char *dir)
{
	char p[PATH_MAX + 64];
	FILE *f;
	int pid, live = 0;

	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	if (!(f = fopen(p, "re")))
		return 0;
	while (fscanf(f, "%d", &pid) == 1)
		if (!cs_is_zombie(pid) && kill(pid, SIGKILL) == 0)
			live++;
	fclose(f);
	return live;
}

/* SIGKILL every live child of ours (orphans reparented to the subreaper),
   and its group; how many there were. */
static int cs_kill_orphans(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();
	int live = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char p[300], buf[512], *rp;
		int pid = atoi(e->d_name), ppid, fd;
		ssize_t n;

		if (pid <= 0)
			continue;
		snprintf(p, sizeof p, "/proc/%d/stat", pid);
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		rp = strrchr(buf, ')');
		if (!rp || sscanf(rp + 2, "%*c %d", &ppid) != 1 || ppid != self)
			continue;
		if (rp[2] == 'Z' || rp[2] == 'X')
			continue;
		kill(-pid, SIGKILL);
		if (kill(pid, SIGKILL) == 0)
			live++;
	}
	closedir(d);
	return live;
}

/* Kill the run's process group, its cgroup's members and our orphans until
   none is left, reaping as they die.  0; -1 when something survived the
   budget. */
static int cs_kill_all(pid_t pgid, const char *cgdir)
{
	double t0 = cs_now();

	for (;;) {
		int live = 0;

		if (kill(-pgid, SIGKILL) == 0)
			live++;
		if (cgdir)
			live += cs_kill_cgroup(cgdir);
		else
			live += cs_kill_orphans();
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!live)
			return 0;
		if (cs_now() - t0 > CS_KILL_BUDGET)
			return -1;
		usleep(500);
	}
}

/* Remove a run's cgroup (its members are dead; the kernel may take a
   moment to let go of them). */
static void cs_cgroup_remove(const char *dir)
{
	double t0 = cs_now();

	while (rmdir(dir) != 0 && errno == EBUSY && cs_now() - t0 < CS_KILL_BUDGET) {
		cs_kill_cgroup(dir);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		usleep(1000);
	}
}

/*
 * Moving a task between cgroups takes a lock whose first writer after a
 * quiet spell waits for an RCU grace period (7-15 ms here); a writer soon
 * after finds it fast (microseconds).  So write ourselves into our own
 * cgroup (a no-op move) just before the clock starts, and the child's
 * move into the run's cgroup, which is timed, pays microseconds, not the
 * grace period.
 */
static void cs_prewarm(const struct cs_cgroup *cg)
{
	char p[PATH_MAX + 64];
	int fd;

	snprintf(p, sizeof p, "%s/cgroup.procs", cg->parent);
	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) < 0)
		return;
	if (write(fd, "0", 1) != 1) {
		/* only the timing suffers: the run is still in its cgroup */
	}
	close(fd);
}

/* What the run's stdio is: fds the child dup2()s onto 0, 1, 2. */
struct cs_stdio {
	int in, out, err;
};

/*
 * vfork, as posix_spawn does: no copy of our page tables, so what a spawn
 * costs does not grow with the size of the probe's process (the runner, a
 * sanitizer's shadow).  The child only makes system calls until execvp or
 * _exit, touching nothing of ours but its own locals; an exec failure's
 * errno goes to the parent through epw (close-on-exec).  A function of its
 * own, so that no variable of the caller lives across the vfork.
 */
static pid_t __attribute__((noinline)) cs_vfork_exec(const char *const *argv,
						     const struct cs_stdio *io, int cgfd, int epw)
{
	pid_t pid = vfork();

	if (pid == 0) {
		sigset_t none;
		int ce = 0;

		setpgid(0, 0);
		/* "0": the writer itself, in v1 and v2; before exec, so that
		   every page the program touches is charged to its cgroup */
		if (cgfd >= 0 && write(cgfd, "0", 1) != 1)
			ce = errno;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (!ce && (dup2(io->in, 0) < 0 || dup2(io->out, 1) < 0 || dup2(io->err, 2) < 0))
			ce = errno;
		if (!ce) {
			execvp(argv[0], (char *const *)argv);
			ce = errno;
		}
		if (write(epw, &ce, sizeof ce) < 0)
			_exit(126);
		_exit(127);
	}
	return pid;
}

/*
 * Run argv (execvp: no shell) with stdio, in a memory cgroup when cg has
 * one (run_tag names it), killed after timeout seconds (0: never).  Fills
 * *r.  0 when the program ran (whatever its exit status), -1 with a
 * message in err when it could not be started or its leftovers could not
 * be killed.
 */
static int cs_spawn(const char *const *argv, const struct cs_stdio *io, const struct cs_cgroup *cg,
		    const char *run_tag, double timeout, struct cs_run *r, char *err, size_t errlen)
{
	char cgdir[PATH_MAX + 64] = "", procs[PATH_MAX + 80];
	int cgfd = -1, ep[2], e = 0;
	pid_t pid;
	double t0;

	memset(r, 0, sizeof *r);
	if (cg->version) {
		snprintf(cgdir, sizeof cgdir, "%s/sysmeter-%d-%s", cg->parent, (int)getpid(), run_tag);
		snprintf(procs, sizeof procs, "%s/cgroup.procs", cgdir);
		if (mkdir(cgdir, 0755) != 0 || (cgfd = open(procs, O_WRONLY | O_CLOEXEC)) < 0) {
			snprintf(err, errlen, "cannot make the run's memory cgroup %s: %s", cgdir,
				 strerror(errno));
			rmdir(cgdir);
			return -1;
		}
	}
	if (cgfd >= 0)
		cs_prewarm(cg);
	if (pipe2(ep, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail_cg;
	}
	t0 = cs_now();
	pid = cs_vfork_exec(argv, io, cgfd, ep[1]);
	if (pid < 0) {
		snprintf(err, errlen, "vfork: %s", strerror(errno));
		close(ep[0]);
		close(ep[1]);
		goto fail_cg;
	}
	setpgid(pid, pid);	/* also here: no window where kill(-pid) misses */
	close(ep[1]);
	if (timeout > 0) {
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		double left;

		while (pfd >= 0 && (left = t0 + timeout - cs_now()) > 0) {
			int n = poll(&p, 1, (int)(left * 1000) + 1);

			if (n > 0 || (n < 0 && errno != EINTR))
				break;
		}
		if (pfd >= 0 && !(p.revents & POLLIN) && cs_now() - t0 >= timeout) {
			r->timed_out = 1;
			kill(-pid, SIGKILL);
			if (cgdir[0])
				cs_kill_cgroup(cgdir);
		}
		if (pfd >= 0)
			close(pfd);
	}
	while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
		;
	r->wall_s = cs_now() - t0;
	if (read(ep[0], &e, sizeof e) == (ssize_t)sizeof e)
		r->exec_errno = e;
	close(ep[0]);
	if (cgdir[0] && cs_read_u64(cgdir, cg->version == 1 ? "memory.max_usage_in_bytes"
							    : "memory.peak", &r->peak) == 0)
		r->peak_exact = 1;
	else
		r->peak = (uint64_t)r->ru.ru_maxrss * 1024;
	if (cs_kill_all(pid, cgdir[0] ? cgdir : NULL) < 0) {
		snprintf(err, errlen, "processes started by '%s' survived SIGKILL for %.0f s",
			 argv[0], CS_KILL_BUDGET);
		if (cgfd >= 0)
			close(cgfd);
		return -1;
	}
	if (cgfd >= 0) {
		close(cgfd);
		cs_cgroup_remove(cgdir);
	}
	if (r->exec_errno) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(r->exec_errno));
		return -1;
	}
	return 0;
fail_cg:
	if (cgfd >= 0) {
		close(cgfd);
		rmdir(cgdir);
	}
	return -1;
}

#endif
