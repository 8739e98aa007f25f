/*
 * point_cgroup.c - a cgroup per point (point_cgroup.h).
 */
#include "exec/point_cgroup.h"
#include "exec/exec.h"
#include "lib/monotonic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KILL_BUDGET_S 2.0	/* a task that outlives SIGKILL this long is stuck in the kernel */
#define MAX_SEEN 4096		/* tasks remembered for reaping */

static char base[256];		/* ".../sysmeter", "" when none */
static int base_v2;
static char why_not[320];
static int probed;

/* The hierarchy to use: v2 (pure, or the "unified" mount beside v1), whose
   cgroup.kill kills atomically; else v1's pids hierarchy. */
static void probe_base(void)
{
	static const struct { const char *root, *marker; int v2; } where[] = {
		{ "/sys/fs/cgroup", "/sys/fs/cgroup/cgroup.controllers", 1 },
		{ "/sys/fs/cgroup/unified", "/sys/fs/cgroup/unified/cgroup.procs", 1 },
		{ "/sys/fs/cgroup/pids", "/sys/fs/cgroup/pids/cgroup.procs", 0 },
	};
	if (probed)
		return;
	probed = 1;
	snprintf(why_not, sizeof why_not, "no cgroup file system mounted at /sys/fs/cgroup");
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
		if (access(where[i].marker, F_OK) != 0)
			continue;
		char dir[256];

		snprintf(dir, sizeof dir, "%s/sysmeter", where[i].root);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			snprintf(why_not, sizeof why_not, "cannot create %s: %s", dir, strerror(errno));
			continue;
		}
		snprintf(base, sizeof base, "%s", dir);
		base_v2 = where[i].v2;
		return;
	}
}

const char *point_cgroup_unavailable(void)
{
	probe_base();
	return base[0] ? NULL : why_not;
}

void point_cgroup_make(struct point_cgroup *g)
{
	static unsigned seq;
	char kill_path[600];

	memset(g, 0, sizeof *g);
	probe_base();
	if (!base[0])
		return;
	for (int tries = 0; tries < 100; tries++) {
		snprintf(g->path, sizeof g->path, "%s/%d-%u", base, (int)getpid(), seq++);
		if (mkdir(g->path, 0755) == 0)
			break;
		if (errno != EEXIST) {
			g->path[0] = '\0';
			return;
		}
	}
	snprintf(kill_path, sizeof kill_path, "%s/cgroup.kill", g->path);
	g->v2 = base_v2 && access(kill_path, W_OK) == 0;
}

static int write_file(const char *dir, const char *file, const char *text)
{
	char p[600];
	int fd, rc = 0;
	size_t n = strlen(text);

	snprintf(p, sizeof p, "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, text, n) != (ssize_t)n)
		rc = -1;
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

int point_cgroup_enter(const struct point_cgroup *g)
{
	if (!g->path[0])
		return 0;
	return write_file(g->path, "cgroup.procs", "0\n");	/* 0: the writer */
}

/* The pids in dir/cgroup.procs into out[] (at most max); -1 when the file
   cannot be read (the cgroup is gone). */
static int read_procs(const char *dir, pid_t *out, int max)
{
	char p[600];
	FILE *f;
	int n = 0;
	long v;

	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	if (!(f = fopen(p, "re")))
		return -1;
	while (n < max && fscanf(f, "%ld", &v) == 1)
		out[n++] = (pid_t)v;
	fclose(f);
	return n;
}

/* Kill and reap the tasks of cgroup dir and of every cgroup below it (a
   probe may make its own, as fs_cache does for a memory limit on cgroup v2,
   and move tasks there: a killed point never removed them, and the point's
   cgroup cannot go while a child cgroup is left), remove them all, deepest
   first.  Returns how many distinct tasks were found, or -1 when some
   outlived the budget. */
static int kill_dir(const char *dir, int v2)
{
	pid_t seen[MAX_SEEN];
	pid_t now[512];
	int nseen = 0, n, below = 0;
	double t0 = monotonic_s();
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		char sub[1024];

		while ((e = readdir(d))) {
			if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
			n = kill_dir(sub, v2);
			if (n < 0) {
				closedir(d);
				return -1;
			}
			below += n;
		}
		closedir(d);
	}

	/* who is there is read before the kill: cgroup.kill empties the
	   cgroup at once, and the killed must be counted and reaped */
	while ((n = read_procs(dir, now, (int)(sizeof now / sizeof now[0]))) > 0) {
		for (int i = 0; i < n; i++) {
			int known = 0;

			for (int j = 0; j < nseen && !known; j++)
				known = seen[j] == now[i];
			if (!known && nseen < MAX_SEEN)
				seen[nseen++] = now[i];
			if (!v2)
				kill(now[i], SIGKILL);
		}
		if (v2)
			write_file(dir, "cgroup.kill", "1\n");
		/* the runner is the subreaper: the killed become its zombies */
		for (int j = 0; j < nseen; j++)
			waitpid(seen[j], NULL, WNOHANG);
		if (monotonic_s() - t0 > KILL_BUDGET_S)
			return -1;
		usleep(1000);
	}
	for (int j = 0; j < nseen; j++)
		while (waitpid(seen[j], NULL, 0) < 0 && errno == EINTR)
			;
	for (int tries = 0; rmdir(dir) < 0 && errno == EBUSY && tries < 200; tries++)
		usleep(1000);
	return below + nseen;
}

int point_cgroup_kill(struct point_cgroup *g)
{
	int n;

	if (!g->path[0])
		return 0;
	n = kill_dir(g->path, g->v2);
	if (n >= 0)
		g->path[0] = '\0';
	return n;
}

/* This process's own cgroup directory in each v1 hierarchy it is in
   (/proc/self/cgroup "N:memory:/path" -> /sys/fs/cgroup/memory/path; the
   v2 line "0::" is not one: there a probe's cgroups lie below the point's
   and go with it).  Returns how many, at most max. */
static int v1_own_dirs(char (*dirs)[600], int max)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024];
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof line, f)) {
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;

		if (!path || path == ctl + 1)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		ctl++;
		if (strncmp(ctl, "name=", 5) == 0)
			ctl += 5;
		snprintf(dirs[n], sizeof dirs[n], "/sys/fs/cgroup/%s%s", ctl,
			 strcmp(path, "/") ? path : "");
		if (access(dirs[n], F_OK) == 0)
			n++;
	}
	fclose(f);
	return n;
}

static int gone(pid_t pid, unsigned long long started);

/* The cgroups a point's process made below its own in a v1 hierarchy
   (probe.h: named sysmeter-PID-..., PID its own): of the process pid, or
   with pid 0 of every such process that is gone.  A killed point (timeout,
   Ctrl-C, crash) never ran its teardown, and on v1 they lie outside the
   point's cgroup.  Their tasks are killed (they can only be the point's),
   the cgroups removed; each is reported.  Returns how many. */
static int clean_probe_cgroups(pid_t pid, void (*report)(const char *line))
{
	char dirs[16][600], p[1200], line[1400];
	int nd = v1_own_dirs(dirs, 16), cleaned = 0;

	for (int i = 0; i < nd; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		if (!d)
			continue;
		while ((e = readdir(d))) {
			int owner, end = 0;

			if (e->d_type != DT_DIR ||
			    sscanf(e->d_name, "sysmeter-%d-%n", &owner, &end) != 1 || !end ||
			    owner <= 0 || (pid ? owner != (int)pid : !gone(owner, 0)))
				continue;
			snprintf(p, sizeof p, "%s/%s", dirs[i], e->d_name);
			int n = kill_dir(p, 0);

			if (report) {
				if (n > 0)
					snprintf(line, sizeof line, "killed %d process%s left in %s by point "
						 "process %d, which is gone", n, n == 1 ? "" : "es", p, owner);
				else
					snprintf(line, sizeof line, "removed %s, left by point process %d, "
						 "which is gone", p, owner);
				report(line);
			}
			cleaned++;
		}
		closedir(d);
	}
	return cleaned;
}

int point_cgroup_clean_probe(pid_t pid)
{
	return pid > 0 ? clean_probe_cgroups(pid, NULL) : 0;
}

/* Start time of pid in clock ticks since boot (field 22 of its stat), 0
   when it is gone: with the pid it names one process across pid reuse.
   Read from its main thread's stat (/proc/PID/task/PID/stat, the same
   field): qemu-user answers a process's own /proc/PID/stat with a made-up
   one whose start time is not the kernel's, and a native runner reading
   the real file would take an emulated runner for gone and remove its
   scratch folder. */
static unsigned long long start_time(pid_t pid)
{
	char p[64], buf[1024], *s;
	unsigned long long t = 0;
	FILE *f;

	snprintf(p, sizeof p, "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	if (!(f = fopen(p, "re")))
		return 0;
	if (fgets(buf, sizeof buf, f) && (s = strrchr(buf, ')'))) {
		s++;
		for (int field = 3; s && field < 22; field++)
			s = strchr(s + 1, ' ');
		if (s)
			t = strtoull(s + 1, NULL, 10);
	}
	fclose(f);
	return t;
}

int point_cgroup_mark_owner(const char *dir)
{
	char p[4200], text[64];

	snprintf(p, sizeof p, "%s/.owner", dir);
	snprintf(text, sizeof text, "%d %llu\n", (int)getpid(), start_time(getpid()));
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* A runner pid that is no longer running (0 = unknown: treat as alive). */
static int gone(pid_t pid, unsigned long long started)
{
	if (pid <= 0)
		return 0;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	return started && start_time(pid) != started;
}

int point_cgroup_clean_stale(const char *tmpdir, void (*report)(const char *line))
{
	char line[900], p[4400];
	struct dirent *e;
	DIR *d;
	int cleaned = 0;

	probe_base();
	if (base[0] && (d = opendir(base))) {
		while ((e = readdir(d))) {
			int pid;
			unsigned seq;

			if (sscanf(e->d_name, "%d-%u", &pid, &seq) != 2 || pid == (int)getpid() ||
			    !gone(pid, 0))
				continue;
			snprintf(p, sizeof p, "%s/%s", base, e->d_name);
			char kill_path[4500];
			snprintf(kill_path, sizeof kill_path, "%s/cgroup.kill", p);
			int n = kill_dir(p, base_v2 && access(kill_path, W_OK) == 0);
			if (report) {
				if (n > 0)
					snprintf(line, sizeof line,
						 "killed %d process%s left in %s by runner %d, which is gone", n,
						 n == 1 ? "" : "es", p, pid);
				else
					snprintf(line, sizeof line, "removed %s, left by runner %d, which is gone",
						 p, pid);
				report(line);
			}
			cleaned++;
		}
		closedir(d);
	}
	cleaned += clean_probe_cgroups(0, report);
	if (tmpdir && (d = opendir(tmpdir))) {
		while ((e = readdir(d))) {
			int pid = 0;
			unsigned long long started = 0;
			FILE *f;

			if (strncmp(e->d_name, "sysmeter.", 9) != 0)
				continue;
			snprintf(p, sizeof p, "%s/%s/.owner", tmpdir, e->d_name);
			if (!(f = fopen(p, "re")))
				continue;	/* not ours to judge: no owner recorded */
			if (fscanf(f, "%d %llu", &pid, &started) != 2)
				pid = 0;
			fclose(f);
			if (pid == (int)getpid() || !gone(pid, started))
				continue;
			snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
			nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
			if (report) {
				snprintf(line, sizeof line, "removed %s, left by runner %d, which is gone", p,
					 pid);
				report(line);
			}
			cleaned++;
		}
		closedir(d);
	}
	return cleaned;
}

const char *exec_point_cgroup_unavailable(void)
{
	return point_cgroup_unavailable();
}

int exec_clean_stale(const char *tmpdir, void (*report)(const char *line))
{
	return point_cgroup_clean_stale(tmpdir, report);
}

int exec_mark_scratch(const char *dir)
{
	return point_cgroup_mark_owner(dir);
}
