/*
 * fs_cache_cgroup.h - the memory cgroup of fs_cache's `limit`: a child of
 * the probe's own cgroup named sysmeter-PID-fs (the name probe.h asks for,
 * so the runner removes it after a killed point), the probe's process moved
 * into it, removed again at teardown.
 *
 * cgroup v1: the memory hierarchy's child has memory.limit_in_bytes as soon
 * as it is made.  cgroup v2: a child's memory files appear only where its
 * parent delegates the controller ("memory" in the parent's
 * cgroup.subtree_control), only a cgroup whose own parent delegates it may
 * delegate it further (top-down), and a non-root cgroup may delegate only
 * while it holds no process of its own.  The runner puts each point in a
 * fresh cgroup of its own (…/sysmeter/PID-N), where the probe is the only
 * process: so the probe moves into the child first, then enables the
 * controller on each ancestor that lacks it, from the top down, and undoes
 * that at teardown (the kernel refuses to take it from a cgroup whose child
 * still uses it, so a parallel run keeps its own).  Where that is refused (a
 * cgroup holding other processes, a root that does not offer the
 * controller), the point is skipped with the reason.  A point killed before
 * its teardown (a timeout, Ctrl-C) leaves the child inside its point's
 * cgroup, which the runner kills and removes with everything below it; on
 * v1 the runner removes it by its name after the point, or, when the
 * runner itself was killed, at the start of the next run.
 */
#ifndef SYSMETER_FS_CACHE_CGROUP_H
#define SYSMETER_FS_CACHE_CGROUP_H

#include "fs_common.h"

#define FCG_SUFFIX "-fs"

struct fcg {
	char dir[4096];		/* the probe's cgroup, "" when none */
	char parent[4096];	/* the cgroup it came from */
	char root[64];		/* the hierarchy's mount point */
	int v2, moved;
	char ctl[16];		/* v2: the controller delegated ("memory"; a test's own) */
	size_t enabled_from;	/* v2: strlen of the highest cgroup given "+memory" by us
				   (it and those below it, down to parent); 0 = none */
};

static inline int fcg_write(const char *dir, const char *file, const char *text)
{
	char p[4200];
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* The word ctl in dir/file (cgroup.controllers, cgroup.subtree_control). */
static inline int fcg_lists(const char *dir, const char *file, const char *ctl)
{
	char p[4200], line[512], *w, *save;
	FILE *f;
	int found = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	if (!(f = fopen(p, "re")))
		return 0;
	if (fgets(line, sizeof(line), f))
		for (w = strtok_r(line, " \n", &save); w && !found; w = strtok_r(NULL, " \n", &save))
			found = strcmp(w, ctl) == 0;
	fclose(f);
	return found;
}

/* The memory controller's directory of this process's cgroup (v1, else a
   v2 hierarchy with the memory controller), or -ENOENT. */
static inline int fcg_base(struct fcg *g)
{
	static const char *const v2roots[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096], rel1[4096] = "", rel2[4096] = "";
	struct stat sb;

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (!b)
			continue;
		b[strcspn(b, "\n")] = 0;
		if (strncmp(a, ":memory:", 8) == 0 || strstr(a, ",memory:") ||
		    strstr(a, ":memory,"))
			snprintf(rel1, sizeof(rel1), "%s", b + 1);
		else if (strncmp(line, "0::", 3) == 0)
			snprintf(rel2, sizeof(rel2), "%s", b + 1);
	}
	fclose(f);
	if (rel1[0] && stat("/sys/fs/cgroup/memory/memory.limit_in_bytes", &sb) == 0) {
		g->v2 = 0;
		snprintf(g->root, sizeof(g->root), "/sys/fs/cgroup/memory");
		snprintf(g->parent, sizeof(g->parent), "%s%s", g->root, strcmp(rel1, "/") ? rel1 : "");
		return 0;
	}
	for (int i = 0; i < 2 && rel2[0]; i++)
		if (fcg_lists(v2roots[i], "cgroup.controllers", "memory")) {
			g->v2 = 1;
			snprintf(g->root, sizeof(g->root), "%s", v2roots[i]);
			snprintf(g->parent, sizeof(g->parent), "%s%s", g->root,
				 strcmp(rel2, "/") ? rel2 : "");
			return 0;
		}
	return -ENOENT;
}

static inline int fcg_move(const char *dir)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", (long)getpid());
	return fcg_write(dir, "cgroup.procs", num);
}

/* v2: take the controller back from the cgroups we gave it to, parent
   first (each only once its child no longer delegates it). */
static inline void fcg_v2_undelegate(struct fcg *g)
{
	char p[4096], cmd[20];
	size_t n = strlen(g->parent);

	if (!g->enabled_from)
		return;
	snprintf(cmd, sizeof(cmd), "-%s", g->ctl);
	snprintf(p, sizeof(p), "%s", g->parent);
	for (;;) {
		(void)fcg_write(p, "cgroup.subtree_control", cmd);
		if (n <= g->enabled_from)
			break;
		while (n > g->enabled_from && p[n - 1] != '/')
			n--;
		p[--n] = 0;
	}
	g->enabled_from = 0;
}

/* v2: the probe in g->dir (moved there first: its parent may then
   delegate), "+ctl" in every cgroup.subtree_control from below the root
   down to g->parent that lacks it.  0, or PROBE_SKIP with the reason; what
   it did is undone by fcg_leave either way. */
static inline int fcg_v2_delegate(struct fcg *g, const char *ctl, char *err, size_t errlen)
{
	size_t rootlen = strlen(g->root), n;
	char p[4096], cmd[20];
	int rc;

	snprintf(g->ctl, sizeof(g->ctl), "%s", ctl);
	snprintf(cmd, sizeof(cmd), "+%s", ctl);
	if (!fcg_lists(g->root, "cgroup.subtree_control", ctl)) {
		snprintf(err, errlen, "cgroup v2: the root cgroup does not delegate the %s "
			 "controller (%s/cgroup.subtree_control); limit=0 measures the whole machine",
			 ctl, g->root);
		return PROBE_SKIP;
	}
	if ((rc = fcg_move(g->dir)) != 0) {
		snprintf(err, errlen, "move into '%s': %s", g->dir, strerror(-rc));
		return PROBE_SKIP;
	}
	g->moved = 1;
	/* each ancestor below the root, the highest first */
	for (n = rootlen + 1; n <= strlen(g->parent); n++) {
		if (g->parent[n] != '/' && g->parent[n] != 0)
			continue;
		snprintf(p, sizeof(p), "%.*s", (int)n, g->parent);
		if (fcg_lists(p, "cgroup.subtree_control", ctl))
			continue;
		if ((rc = fcg_write(p, "cgroup.subtree_control", cmd)) != 0) {
			snprintf(err, errlen, "cgroup v2: cannot delegate the %s controller below "
				 "'%s': %s%s; limit=0 measures the whole machine", ctl, p,
				 strerror(-rc), rc == -EBUSY ? " (it holds processes of its own)" : "");
			return PROBE_SKIP;
		}
		if (!g->enabled_from)
			g->enabled_from = n;
	}
	return 0;
}

/* Back to the parent cgroup, the child removed (safe after a partial enter). */
static inline void fcg_leave(struct fcg *g)
{
	if (!g->dir[0])
		return;
	fcg_v2_undelegate(g);
	if (g->moved)
		(void)fcg_move(g->parent);
	g->moved = 0;
	rmdir(g->dir);
	g->dir[0] = 0;
}

/* Make the cgroup, set its limit, move the probe into it.  0; PROBE_SKIP
   with the reason where the machine offers no such cgroup; a negative
   errno with the message on a failure. */
static inline int fcg_enter(struct fcg *g, uint64_t limit, char *err, size_t errlen)
{
	char p[4200], num[32];
	int rc;

	memset(g, 0, sizeof(*g));
	if (fcg_base(g) != 0) {
		snprintf(err, errlen, "no cgroup memory controller (v1 or v2) for a memory limit: "
			 "set limit=0 to measure the whole machine");
		return PROBE_SKIP;
	}
	snprintf(g->dir, sizeof(g->dir), "%s/sysmeter-%ld" FCG_SUFFIX, g->parent, (long)getpid());
	if (mkdir(g->dir, 0755) != 0 && errno != EEXIST) {
		rc = errno;
		snprintf(err, errlen, "cannot create cgroup '%s' for the memory limit: %s (needs "
			 "root; limit=0 measures the whole machine)", g->dir, strerror(rc));
		g->dir[0] = 0;
		return PROBE_SKIP;
	}
	snprintf(p, sizeof(p), "%s/memory.max", g->dir);
	if (g->v2 && access(p, F_OK) != 0 && (rc = fcg_v2_delegate(g, "memory", err, errlen)) != 0) {
		fcg_leave(g);
		return rc;
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)limit);
	if ((rc = fcg_write(g->dir, g->v2 ? "memory.max" : "memory.limit_in_bytes", num)) != 0) {
		snprintf(err, errlen, "write %s to '%s/%s': %s", num, g->dir,
			 g->v2 ? "memory.max" : "memory.limit_in_bytes", strerror(-rc));
		fcg_leave(g);
		return rc;
	}
	if (!g->moved && (rc = fcg_move(g->dir)) != 0) {
		snprintf(err, errlen, "move pid %ld into '%s': %s", (long)getpid(), g->dir,
			 strerror(-rc));
		fcg_leave(g);
		return rc;
	}
	g->moved = 1;
	return 0;
}

#endif
