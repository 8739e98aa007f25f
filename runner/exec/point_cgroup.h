/*
 * point_cgroup.h - a cgroup per point, so that every task a point starts
 * dies with it.
 *
 * A process group is not enough: a probe (or what it runs) that does
 * fork, setsid, fork leaves a process in another session that kill(-pgid)
 * never reaches.  A cgroup holds every descendant whatever it does to its
 * session or group.  Where the machine offers one the runner can write
 * (cgroup v2, pure or the v1 machine's "unified" mount: cgroup.kill; else
 * the v1 pids hierarchy: kill what cgroup.procs lists until it is empty),
 * each point runs in /sys/fs/cgroup/.../sysmeter/<runner pid>-<n>.  Where
 * none is writable (not root, no cgroupfs in a container) the point runs
 * without one and the run says so: stray processes are then not guaranteed
 * to be killed.
 */
#ifndef SYSMETER_POINT_CGROUP_H
#define SYSMETER_POINT_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

struct point_cgroup {
	char path[512];		/* "" when there is none */
	int v2;			/* cgroup.kill available */
};

/* Make the point's cgroup (g->path "" when none can be made: not an
   error).  Called in the runner before the point's child is forked. */
void point_cgroup_make(struct point_cgroup *g);

/* In the child, first thing: move the calling process into g.  0, or -1
   (errno) when the move failed: the child then goes on without it. */
int point_cgroup_enter(const struct point_cgroup *g);

/* Kill every task left in g, reap those that became our children (the
   runner is their subreaper), remove g.  Returns how many tasks were still
   there (0: the point left nothing behind), or -1 when some survived the
   budget (g then stays, for the next run to clean). */
int point_cgroup_kill(struct point_cgroup *g);

/* After the point whose process was pid: remove the cgroups that process
   made below its own in a v1 hierarchy (probe.h: sysmeter-PID-...), which
   a killed point leaves behind, empty or with its tasks (killed).  Returns
   how many. */
int point_cgroup_clean_probe(pid_t pid);

/* Why there is no point cgroup on this machine, or NULL when there is one
   (for the manifest and `runner -v`). */
const char *point_cgroup_unavailable(void);

/* Clean what a runner killed by SIGKILL left behind: point cgroups whose
   runner is gone (their tasks killed, the cgroups removed), a probe's v1
   cgroups (sysmeter-PID-...) whose point process is gone, and scratch
   folders (tmpdir/sysmeter.*) whose owner is gone.  Writes one line per
   thing cleaned to `report` (may be NULL).  Returns how many. */
int point_cgroup_clean_stale(const char *tmpdir, void (*report)(const char *line));

/* Mark dir (a scratch folder) as owned by this runner, so that a later run
   can tell it is stale once this runner is gone. */
int point_cgroup_mark_owner(const char *dir);

#endif
