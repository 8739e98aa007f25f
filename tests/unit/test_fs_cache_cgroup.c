/*
 * test_fs_cache_cgroup.c - fs_cache's cgroup v2 delegation
 * (probes/fs_cache_cgroup.h) against the kernel's own rules, on a real v2
 * hierarchy: the process sits alone in a cgroup, as the probe sits in its
 * point's cgroup; moving into a child first lets the parent delegate a
 * controller, every ancestor that lacks it gets it top-down, the child then
 * has the controller's files, and leaving takes it all back.  A cgroup that
 * holds another process refuses to delegate: skipped with the reason, and
 * nothing is left changed.
 *
 * The controller is the one the probe needs, "memory", where the v2
 * hierarchy offers it; on a v1 machine whose memory controller is bound to
 * v1, another domain controller of the "unified" mount (hugetlb) obeys the
 * same rules.  Needs root and a v2 hierarchy: else every check is a skip.
 */
#include "tap.h"
#include "../../probes/fs_cache_cgroup.h"

#include <signal.h>
#include <sys/wait.h>

static const char *const roots[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
static const char *const ctls[] = { "memory", "hugetlb", "pids" };

/* This process's cgroup below root (v2: "0::/path"). */
static void own_cgroup(const char *root, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s%s", root, strcmp(line + 3, "/") ? line + 3 : "");
		}
	fclose(f);
}

/* Does dir hold a file named "<ctl>.<something>" (the controller's files)? */
static int has_files_of(const char *dir, const char *ctl)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		found = strncmp(e->d_name, ctl, strlen(ctl)) == 0 && e->d_name[strlen(ctl)] == '.';
	closedir(d);
	return found;
}

static int is_dir(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static void skip_all(const char *why)
{
	printf("ok 1 - cgroup v2 delegation # skip %s\n", why);
	printf("1..1\n");
}

int main(void)
{
	const char *root = NULL, *ctl = NULL;
	char orig[4096], top[4096], pt[4096], here[4096], err[512];
	int root_given = 0, rc;
	struct fcg g;

	if (geteuid() != 0) {
		skip_all("needs root");
		return 0;
	}
	for (size_t i = 0; i < 2 && !root; i++) {
		char p[256];

		snprintf(p, sizeof p, "%s/cgroup.controllers", roots[i]);
		if (access(p, F_OK) != 0)
			continue;
		for (size_t j = 0; j < sizeof ctls / sizeof ctls[0] && !ctl; j++)
			if (fcg_lists(roots[i], "cgroup.controllers", ctls[j]))
				ctl = ctls[j], root = roots[i];
	}
	if (!root) {
		skip_all("no cgroup v2 hierarchy with memory, hugetlb or pids here");
		return 0;
	}
	own_cgroup(root, orig, sizeof orig);
	/* the root must delegate it (a systemd machine's does; the v1
	   machine's "unified" mount is given it for the test, then not) */
	if (!fcg_lists(root, "cgroup.subtree_control", ctl)) {
		char cmd[20];

		snprintf(cmd, sizeof cmd, "+%s", ctl);
		if (fcg_write(root, "cgroup.subtree_control", cmd) != 0) {
			skip_all("the cgroup root does not delegate a controller, nor lets us");
			return 0;
		}
		root_given = 1;
	}
	/* top plays the runner's .../sysmeter (no process, not delegating),
	   pt the point's cgroup, with this process alone in it */
	snprintf(top, sizeof top, "%s/sysmeter-unit-%d", root, (int)getpid());
	snprintf(pt, sizeof pt, "%s/pt", top);
	if (mkdir(top, 0755) != 0 || mkdir(pt, 0755) != 0 || fcg_move(pt) != 0) {
		skip_all("cannot make and enter a cgroup of our own");
		rmdir(pt), rmdir(top);
		return 0;
	}
	printf("# %s, controller %s, from %s\n", root, ctl, orig);

	memset(&g, 0, sizeof g);
	g.v2 = 1;
	snprintf(g.root, sizeof g.root, "%s", root);
	snprintf(g.parent, sizeof g.parent, "%s", pt);
	snprintf(g.dir, sizeof g.dir, "%s/sysmeter-%ld" FCG_SUFFIX, pt, (long)getpid());
	ok(mkdir(g.dir, 0755) == 0, "the probe's child cgroup is made below the point's");
	ok(!has_files_of(g.dir, ctl), "undelegated, it has no %s files", ctl);
	rc = fcg_v2_delegate(&g, ctl, err, sizeof err);
	ok(rc == 0, "delegated down to it (%s)", rc ? err : "0");
	ok(has_files_of(g.dir, ctl), "then it has the %s files", ctl);
	ok(fcg_lists(top, "cgroup.subtree_control", ctl) && fcg_lists(pt, "cgroup.subtree_control", ctl),
	   "both ancestors below the root delegate it now");
	ok(g.enabled_from == strlen(top), "the highest one given it is remembered (%zu, %zu)",
	   g.enabled_from, strlen(top));
	own_cgroup(root, here, sizeof here);
	is_str(here, g.dir, "the process is in the child");
	fcg_leave(&g);
	own_cgroup(root, here, sizeof here);
	is_str(here, pt, "leaving: back in the point's cgroup");
	ok(!is_dir(g.dir), "leaving: the child is removed");
	ok(!fcg_lists(top, "cgroup.subtree_control", ctl) && !fcg_lists(pt, "cgroup.subtree_control", ctl),
	   "leaving: neither ancestor delegates it any more");

	/* another process in the point's cgroup: the kernel refuses the
	   delegation (no internal processes); a skip with the reason, undone */
	pid_t other = fork();

	if (other == 0) {
		pause();
		_exit(0);
	}
	memset(&g, 0, sizeof g);
	g.v2 = 1;
	snprintf(g.root, sizeof g.root, "%s", root);
	snprintf(g.parent, sizeof g.parent, "%s", pt);
	snprintf(g.dir, sizeof g.dir, "%s/sysmeter-%ld" FCG_SUFFIX, pt, (long)getpid());
	mkdir(g.dir, 0755);
	err[0] = 0;
	rc = fcg_v2_delegate(&g, ctl, err, sizeof err);
	ok(rc == PROBE_SKIP, "with another process beside it: skipped (%d)", rc);
	ok(strstr(err, "holds processes of its own") && strstr(err, pt), "the reason names the cgroup: %s",
	   err);
	fcg_leave(&g);
	own_cgroup(root, here, sizeof here);
	is_str(here, pt, "and the process is back where it was");
	ok(!is_dir(g.dir), "the child is removed");
	ok(!fcg_lists(top, "cgroup.subtree_control", ctl), "the ancestor given it is given it no more");
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);

	fcg_move(orig[0] ? orig : root);
	rmdir(pt);
	rmdir(top);
	if (root_given) {
		char cmd[20];

		snprintf(cmd, sizeof cmd, "-%s", ctl);
		(void)fcg_write(root, "cgroup.subtree_control", cmd);
	}
	return done_testing();
}
