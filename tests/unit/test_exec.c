/*
 * test_exec.c - loader and exec against the deliberately broken fixture
 * probes (tests/fixtures/probes, built to <build>/fixtures/probes): every
 * loader message exactly, crash / hang / early exit / failing setup / skip,
 * the process-group kill leaving no stray or zombie, fixed and adaptive
 * repetitions, pinning and priority, interruption.  Specs and plan points
 * are built by hand; no spec parser is involved.
 *
 * The fixture directory is $FIXTURE_DIR, else ../fixtures/probes beside this
 * binary (build/tests/test_exec -> build/fixtures/probes).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/loader.h"
#include "tap.h"

static char fixdir[PATH_MAX + 64];
static char scratch_root[PATH_MAX];

/* The loader records a probe's real path; compare against the same. */
static void canonical_fixdir(void)
{
	char *real = realpath(fixdir, NULL);

	if (real)
		snprintf(fixdir, sizeof fixdir, "%s", real);
	free(real);
}
static volatile sig_atomic_t interrupted;
static int samples_seen;
static int notify_fd = -1;	/* written once when samples_seen reaches notify_at */
static int notify_at;

static void count_sample(void *arg, const struct point_result *sofar)
{
	(void)arg;
	(void)sofar;
	samples_seen++;
	if (notify_fd >= 0 && samples_seen >= notify_at) {
		if (write(notify_fd, "s", 1) != 1)
			perror("write");
		close(notify_fd);
		notify_fd = -1;
	}
}

static void find_fixture_dir(void)
{
	const char *env = getenv("FIXTURE_DIR");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(fixdir, sizeof fixdir, "%s", env);
		canonical_fixdir();
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		snprintf(fixdir, sizeof fixdir, "build/fixtures/probes");
		canonical_fixdir();
		return;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(fixdir, sizeof fixdir, "%s/../fixtures/probes", exe);
	canonical_fixdir();
}

/* ------------------------------------------------------------- loader */

struct load_case {
	const char *name;	/* as given to loader_open */
	const char *want;	/* %1$s = fixture dir */
};

static void test_loader_messages(void)
{
	static const struct load_case cases[] = {
		{ "nope", "probe 'nope': not found in %1$s" },
		{ "bad_abi", "probe 'bad_abi': ABI version 999, runner expects 5" },
		{ "no_symbol",
		  "probe 'no_symbol': %1$s/no_symbol.so does not export the symbol 'sysmeter_probe'" },
		{ "name_mismatch",
		  "probe 'name_mismatch': declares name 'other', expected 'name_mismatch' "
		  "(the file stem)" },
		{ "no_sample", "probe 'no_sample': required hook 'sample' missing" },
		{ "unresolved",
		  "probe 'unresolved': cannot load %1$s/unresolved.so: %1$s/unresolved.so: "
		  "undefined symbol: sysmeter_fixture_missing" },
	};
	char err[1024], want[4 * PATH_MAX], name[64];
	struct loaded_probe lp;

	unsetenv("SYSMETER_PROBE_DIR");
	loader_add_dir(fixdir);
	ok(strncmp(loader_dir(), fixdir, strlen(fixdir)) == 0,
	   "loader_dir() starts with what loader_add_dir() added: %s", loader_dir());
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc;

		err[0] = '\0';
		rc = loader_open(cases[i].name, &lp, err, sizeof err);
		snprintf(want, sizeof want, cases[i].want, fixdir);
		snprintf(name, sizeof name, "loader: %s refused", cases[i].name);
		ok(rc == -1 && lp.dl == NULL && lp.path == NULL, "%s", name);
		snprintf(name, sizeof name, "loader: %s message", cases[i].name);
		is_str(err, want, name);
	}

	/* a name containing '/' is a path; its stem is the name */
	snprintf(name, sizeof name, "%s", "bad_abi");
	{
		char path[PATH_MAX + 128];

		snprintf(path, sizeof path, "%s/bad_abi.so", fixdir);
		ok(loader_open(path, &lp, err, sizeof err) == -1,
		   "loader: path to bad_abi refused");
		is_str(err, "probe 'bad_abi': ABI version 999, runner expects 5",
		       "loader: path form names the stem");
		snprintf(path, sizeof path, "%s/ghost.so", fixdir);
		ok(loader_open(path, &lp, err, sizeof err) == -1, "loader: missing path refused");
		snprintf(want, sizeof want, "probe 'ghost': %s: No such file or directory", path);
		is_str(err, want, "loader: missing path message");
	}
}

static void test_loader_ok(void)
{
	char err[1024] = "", dirs[2 * PATH_MAX + 256], want[4 * PATH_MAX], sha[65];
	char tmp[] = "/tmp/test_exec-list-XXXXXX", path[PATH_MAX + 32];
	struct loaded_probe lp;
	char **names = NULL;
	size_t n = 0;
	int sorted = 1, dup = 0, has_garbage = 0, has_ok = 0;
	FILE *f;

	/* several directories: the missing one is skipped */
	snprintf(dirs, sizeof dirs, "/nonexistent-sysmeter::%s", fixdir);
	loader_clear_dirs();
	loader_add_dir(dirs);
	ok(loader_open("ok_fixed", &lp, err, sizeof err) == 0, "loader: ok_fixed opens (%s)", err);
	snprintf(want, sizeof want, "%s/ok_fixed.so", fixdir);
	is_str(lp.path, want, "loader: path of ok_fixed");
	ok(lp.p && strcmp(lp.p->name, "ok_fixed") == 0, "loader: the struct is found");
	ok(lp.n_params == 2 && lp.n_metrics == 1, "loader: 2 params, 1 metric (%zu, %zu)",
	   lp.n_params, lp.n_metrics);
	ok(loader_sha256_file(want, sha) == 0 && strcmp(sha, lp.sha256) == 0 &&
	   strlen(lp.sha256) == 64, "loader: sha256 of the .so recorded");
	loader_close(&lp);
	ok(lp.dl == NULL && lp.path == NULL, "loader_close clears");
	ok(loader_open("nope", &lp, err, sizeof err) == -1, "loader: nope not found");
	snprintf(want, sizeof want, "probe 'nope': not found in %s", dirs);
	is_str(err, want, "loader: not-found names every directory");

	/* sha256 of a known text */
	ok(mkdtemp(tmp) != NULL, "temp dir for the list test");
	snprintf(path, sizeof path, "%s/abc.txt", tmp);
	f = fopen(path, "w");
	fputs("abc", f);
	fclose(f);
	ok(loader_sha256_file(path, sha) == 0, "sha256 of a file");
	is_str(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "sha256(\"abc\")");

	/* a file that is not a shared object; a duplicate of ok_fixed */
	snprintf(path, sizeof path, "%s/garbage.so", tmp);
	f = fopen(path, "w");
	for (int i = 0; i < 8; i++)	/* longer than an ELF header */
		fputs("this is not an ELF file, only text\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/ok_fixed.so", tmp);
	f = fopen(path, "w");
	fclose(f);
	snprintf(dirs, sizeof dirs, "%s:%s", tmp, fixdir);
	loader_clear_dirs();
	loader_add_dir(dirs);
	ok(loader_open("garbage", &lp, err, sizeof err) == -1, "loader: garbage refused");
	snprintf(path, sizeof path, "%s/garbage.so", tmp);
	snprintf(want, sizeof want, "probe 'garbage': cannot load %s: ", path);
	ok(strncmp(err, want, strlen(want)) == 0 && strstr(err, "invalid ELF header"),
	   "loader: cannot load message (%s)", err);
	ok(loader_open("ok_fixed", &lp, err, sizeof err) == -1 &&
	   strstr(err, "cannot load") && strstr(err, tmp),
	   "loader: the first directory wins");

	ok(loader_list(&names, &n) == 0, "loader_list");
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && strcmp(names[i - 1], names[i]) > 0)
			sorted = 0;
		if (i > 0 && strcmp(names[i - 1], names[i]) == 0)
			dup = 1;
		has_garbage |= strcmp(names[i], "garbage") == 0;
		has_ok |= strcmp(names[i], "ok_fixed") == 0;
	}
	ok(n >= 14 && sorted && !dup && has_garbage && has_ok,
	   "loader_list: %zu names, sorted, no duplicate, across directories", n);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);

	snprintf(path, sizeof path, "%s/abc.txt", tmp);
	unlink(path);
	snprintf(path, sizeof path, "%s/garbage.so", tmp);
	unlink(path);
	snprintf(path, sizeof path, "%s/ok_fixed.so", tmp);
	unlink(path);
	rmdir(tmp);

	/* --probe-dir, then the environment, then the runner's own: each adds */
	loader_clear_dirs();
	loader_add_dir("/x");
	loader_add_dir("/y");
	setenv("SYSMETER_PROBE_DIR", "/a:/b", 1);
	ok(strncmp(loader_dir(), "/x:/y:/a:/b", 11) == 0,
	   "loader_dir: --probe-dirs in order, then $SYSMETER_PROBE_DIR (%s)", loader_dir());
	unsetenv("SYSMETER_PROBE_DIR");
	loader_clear_dirs();
	loader_add_dir(fixdir);
}

/* --------------------------------------------------------------- exec */

static struct spec base_spec(void)
{
	struct spec s;

	memset(&s, 0, sizeof s);
	s.name = "t";
	s.reps.min = s.reps.max = 3;
	s.warmup = 1;
	s.iterations = 0;
	s.min_sample_time = 0.001;
	s.outliers = OUT_NONE;
	s.estimate = EST_MEDIAN;
	s.cpu = -1;
	s.timeout = 20;
	return s;
}

static struct exec_ctx base_ctx(void)
{
	struct exec_ctx c;

	memset(&c, 0, sizeof c);
	c.seed = 42;
	c.scratch_root = scratch_root;
	c.interrupted = &interrupted;
	c.on_sample = count_sample;
	return c;
}

/* Run probe `name` with `vals` (table order; may be NULL for none). */
static int run(const char *name, const struct spec *s, const struct exec_ctx *ctx,
	       const struct spec_val **vals, struct point_result *out)
{
	struct loaded_probe lp;
	struct plan_point pt = { .index = 0, .vals = vals };
	char err[1024];
	int rc;

	if (loader_open(name, &lp, err, sizeof err) != 0) {
		ok(0, "load %s: %s", name, err);
		memset(out, 0, sizeof *out);
		out->status = PT_FAILED;
		return -1;
	}
	samples_seen = 0;
	rc = exec_point(ctx, s, &lp, &pt, out);
	loader_close(&lp);
	return rc;
}

static int scratch_empty(void)
{
	DIR *d = opendir(scratch_root);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n == 0;
}

/* The last CPU this process may run on (so pinning is not CPU 0 by luck). */
static int allowed_cpu(void)
{
	cpu_set_t set;
	int last = 0;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			last = i;
	return last;
}

static void test_ok_fixed(void)
{
	struct spec s = base_spec();
	struct exec_ctx ctx = base_ctx();
	struct spec_val base = { "100", 100 }, noise = { "0.01", 0.01 };
	const struct spec_val *vals[] = { &base, &noise };
	struct point_result r, r2;
	int in_range = 1, same = 1, extra_ok = 1;

	s.reps.min = s.reps.max = 5;
	s.warmup = 2;
	ok(run("ok_fixed", &s, &ctx, vals, &r) == 0, "ok_fixed: exec_point returns 0");
	is_str(exec_status_name(r.status), "ok", "ok_fixed: status ok");
	is_str(r.reason, "", "ok_fixed: no reason");
	ok(r.n_samples == 7, "ok_fixed: 2 warmups + 5 samples (%zu)", r.n_samples);
	ok(samples_seen == 7, "ok_fixed: on_sample called per sample (%d)", samples_seen);
	ok(r.n_samples == 7 && r.samples[0].warmup && r.samples[1].warmup && !r.samples[2].warmup &&
	   !r.samples[6].warmup, "ok_fixed: warmups marked, first");
	for (size_t i = 0; i < r.n_samples; i++) {
		if (!(r.samples[i].value >= 99 && r.samples[i].value <= 101) || !r.samples[i].valid)
			in_range = 0;
		if (r.samples[i].extra[0] != (double)r.iterations)
			extra_ok = 0;
	}
	ok(in_range, "ok_fixed: values within base * (1 +- noise), all valid");
	ok(extra_ok, "ok_fixed: secondary value carried (= iterations)");
	ok(r.iterations > 1000, "ok_fixed: auto iterations calibrated past the hint (%llu)",
	   r.iterations);
	ok(!r.pinned && r.cpu_requested == -1 && r.cpu >= 0, "ok_fixed: not pinned, cpu known");
	ok(!r.sanity_failed, "ok_fixed: sanity passed");
	ok(r.elapsed_s > 0 && r.elapsed_s < 20, "ok_fixed: elapsed %.3fs", r.elapsed_s);
	ok(scratch_empty(), "ok_fixed: scratch dir removed");

	exec_result_free(&r);
	ok(r.samples == NULL && r.n_samples == 0, "exec_result_free clears");

	/* same seed, same values (fixed iterations: calibration samples would
	   draw from the sequence a timing-dependent number of times) */
	s.iterations = 1000;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(run("ok_fixed", &s, &ctx, vals, &r2) == 0 && r2.n_samples == r.n_samples,
	   "ok_fixed: second run");
	for (size_t i = 0; i < r.n_samples && i < r2.n_samples; i++)
		if (r.samples[i].value != r2.samples[i].value)
			same = 0;
	ok(same, "ok_fixed: same seed, same values");
	exec_result_free(&r2);
	ctx.seed = 43;
	run("ok_fixed", &s, &ctx, vals, &r2);
	ok(r.n_samples > 0 && r2.n_samples > 0 && r2.samples[0].value != r.samples[0].value,
	   "ok_fixed: another seed, other values");
	exec_result_free(&r);
	exec_result_free(&r2);
	ctx.seed = 42;

	/* fixed iterations from the spec; pinning to the last CPU we may use;
	   a nice value above ours (always permitted) */
	s.iterations = 500;
	s.reps.min = s.reps.max = 2;
	s.warmup = 0;
	s.cpu = allowed_cpu();
	s.has_priority = 1;
	errno = 0;
	s.priority = getpriority(PRIO_PROCESS, 0) + 1;
	if (s.priority > 19)
		s.priority = 19;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_OK && r.iterations == 500 && r.n_samples == 2 &&
	   r.samples[0].extra[0] == 500, "ok_fixed: spec iterations used");
	ok(r.pinned && r.cpu == s.cpu && r.cpu_requested == s.cpu,
	   "ok_fixed: pinned to cpu %d (ran on %d)", s.cpu, r.cpu);
	ok(r.has_prio_req && r.prio_requested == s.priority && r.prio_applied &&
	   r.priority == s.priority, "ok_fixed: priority %d applied (%d)", s.priority, r.priority);
	is_str(r.placement_note, "", "ok_fixed: nothing to note on placement");
	exec_result_free(&r);

	s.cpu = 9999;
	s.has_priority = 0;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_OK && !r.pinned && r.cpu_requested == 9999 && !r.has_prio_req,
	   "ok_fixed: impossible cpu is recorded, the point still runs");
	is_str(r.placement_note, "sched_setaffinity(cpu 9999): Invalid argument",
	       "ok_fixed: placement note");
	exec_result_free(&r);
}

static void test_failures(void)
{
	struct spec s = base_spec();
	struct exec_ctx ctx = base_ctx();
	struct point_result r;
	struct spec_val fa = { "4", 4 };
	const struct spec_val *vals[] = { &fa };

	run("crash", &s, &ctx, NULL, &r);
	is_str(exec_status_name(r.status), "failed", "crash: status failed");
	is_str(r.reason, "killed by signal 11 (Segmentation fault)", "crash: reason");
	exec_result_free(&r);

	run("exits", &s, &ctx, NULL, &r);
	is_str(exec_status_name(r.status), "failed", "exits: status failed");
	is_str(r.reason, "probe exited with status 3 before finishing", "exits: reason");
	exec_result_free(&r);

	run("setup_fail", &s, &ctx, NULL, &r);
	is_str(exec_status_name(r.status), "failed", "setup_fail: status failed");
	is_str(r.reason, "setup: cannot open /nonexistent: No such file or directory",
	       "setup_fail: reason");
	ok(r.n_samples == 0, "setup_fail: no sample");
	exec_result_free(&r);

	run("skip", &s, &ctx, NULL, &r);
	is_str(exec_status_name(r.status), "skipped", "skip: status skipped");
	is_str(r.reason, "needs a peer: none given", "skip: reason");
	ok(r.n_samples == 0, "skip: no sample");
	exec_result_free(&r);

	s.timeout = 0.5;
	run("hang", &s, &ctx, NULL, &r);
	is_str(exec_status_name(r.status), "timeout", "hang: status timeout");
	is_str(r.reason, "timed out after 500ms", "hang: reason");
	ok(r.elapsed_s >= 0.5 && r.elapsed_s < 3, "hang: killed at the timeout (%.3fs)",
	   r.elapsed_s);
	exec_result_free(&r);
	s.timeout = 20;

	/* flaky: 1 warmup + 6; the 3rd and 6th taken are invalid, with a note */
	s.reps.min = s.reps.max = 6;
	run("flaky", &s, &ctx, NULL, &r);
	ok(r.status == PT_OK && r.n_samples == 7, "flaky: ok, 7 samples");
	if (r.n_samples == 7) {
		ok(!r.samples[2].valid && !r.samples[5].valid && r.samples[0].valid &&
		   r.samples[3].valid && r.samples[6].valid, "flaky: every third invalid");
		is_str(r.samples[2].note, "fixture: every third sample is invalid", "flaky: note");
		is_str(r.samples[1].note, "", "flaky: valid samples have no note");
	}
	exec_result_free(&r);

	/* a failing sample keeps what came before */
	run("flaky", &s, &ctx, vals, &r);
	is_str(exec_status_name(r.status), "failed", "flaky fail_after: status failed");
	is_str(r.reason, "sample: fixture: failing after 4 samples as asked",
	       "flaky fail_after: reason");
	ok(r.n_samples == 4, "flaky fail_after: earlier samples kept (%zu)", r.n_samples);
	exec_result_free(&r);

	ok(scratch_empty(), "failures: every scratch dir removed, even after a kill");
}

/* ------------------------------------------------- strays and zombies */

struct proc {
	int pid, ppid, pgid;
	char state;
};

static int read_proc(int pid, struct proc *p)
{
	char path[64], buf[1024], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	if (!rp)
		return -1;
	p->pid = pid;
	return sscanf(rp + 2, "%c %d %d", &p->state, &p->ppid, &p->pgid) == 3 ? 0 : -1;
}

/* Processes (zombies included) descending from us, or in group pgid. */
static int count_strays(int pgid, char *what, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int self = getpid(), n = 0;

	what[0] = '\0';
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		int pid = atoi(de->d_name), hops = 0;
		struct proc p;

		if (pid <= 0 || pid == self || read_proc(pid, &p) != 0)
			continue;
		if (p.pgid == pgid) {
			n++;
			snprintf(what, len, "pid %d in group %d (state %c)", pid, pgid, p.state);
			continue;
		}
		while (p.ppid > 1 && p.ppid != self && hops++ < 64)
			if (read_proc(p.ppid, &p) != 0)
				break;
		if (p.ppid == self) {
			n++;
			snprintf(what, len, "pid %d descends from us", pid);
		}
	}
	closedir(d);
	return n;
}

/* Under an emulator that refuses PR_*_CHILD_SUBREAPER (qemu-user 7.2 does,
   with EINVAL) the runner cannot become a subreaper: its points' orphans
   go to init, and the tests of their reaping cannot hold. */
static int no_subreaper(void)
{
	int v = 0;

	return getenv("SYSMETER_EMULATED") && prctl(PR_GET_CHILD_SUBREAPER, &v) != 0 &&
	       errno == EINVAL;
}

static void test_spawner(void)
{
	struct spec s = base_spec();
	struct exec_ctx ctx = base_ctx();
	char pidfile[PATH_MAX + 16], what[128];
	struct spec_val pf;
	const struct spec_val *vals[] = { &pf };
	struct point_result r;
	int pgid = 0, k1 = 0, k2 = 0, gone = 1;
	FILE *f;

	snprintf(pidfile, sizeof pidfile, "%s.pids", scratch_root);
	pf.text = pidfile;
	pf.num = 0;
	s.timeout = 0.5;
	run("spawner", &s, &ctx, vals, &r);
	is_str(exec_status_name(r.status), "timeout", "spawner: status timeout");
	f = fopen(pidfile, "r");
	ok(f && fscanf(f, "%d %d %d", &pgid, &k1, &k2) == 3 && pgid > 1 && k1 > 1 && k2 > 1,
	   "spawner: wrote its group and grandchildren");
	if (f)
		fclose(f);
	unlink(pidfile);
	for (int i = 0; i < 2; i++) {
		struct proc p;
		int pid = i ? k2 : k1;

		if (pid > 1 && read_proc(pid, &p) == 0 && (p.pgid == pgid || p.state == 'Z'))
			gone = 0;
	}
	if (no_subreaper()) {
		/* the orphans cannot come back to us: they are not reaped */
		ok(1, "# skip emulated CPU: no PR_SET_CHILD_SUBREAPER here (qemu-user 7.2 refuses it)");
		ok(1, "# skip emulated CPU: no PR_SET_CHILD_SUBREAPER here (qemu-user 7.2 refuses it)");
	} else {
		ok(gone, "spawner: both grandchildren are gone, not even zombies");
		ok(count_strays(pgid, what, sizeof what) == 0, "spawner: no stray, no zombie %s",
		   what);
	}
	exec_result_free(&r);
}

/* --------------------------------------------------------- adaptive */

static void test_adaptive(void)
{
	struct spec s = base_spec();
	struct exec_ctx ctx = base_ctx();
	struct spec_val base = { "100", 100 }, noise = { "0.05", 0.05 };
	const struct spec_val *vals[] = { &base, &noise };
	struct point_result r;

	s.warmup = 0;
	s.iterations = 100;
	s.reps.adaptive = 1;
	s.estimate = EST_MEAN;

	/* a loose target is met as soon as min samples are in */
	s.reps.min = 5;
	s.reps.max = 50;
	s.reps.target_ci = 0.5;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_OK && r.n_samples == 5, "adaptive: loose target stops at min (%zu)",
	   r.n_samples);
	exec_result_free(&r);

	/* an impossible target runs to max */
	s.reps.max = 12;
	s.reps.target_ci = 1e-9;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_OK && r.n_samples == 12, "adaptive: tight target runs to max (%zu)",
	   r.n_samples);
	exec_result_free(&r);

	/* noise 5 % (std 2.9 %), mean, target 1 %: about 32 samples */
	s.reps.min = 5;
	s.reps.max = 200;
	s.reps.target_ci = 0.01;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_OK && r.n_samples > 5 && r.n_samples < 200,
	   "adaptive: stops between min and max (%zu)", r.n_samples);
	exec_result_free(&r);

	/* the same with the median and Tukey outliers (bootstrap CI) */
	s.estimate = EST_MEDIAN;
	s.outliers = OUT_TUKEY;
	s.out_k = 3;
	s.reps.min = 10;
	s.reps.target_ci = 0.01;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_OK && r.n_samples > 10 && r.n_samples < 200,
	   "adaptive: median/bootstrap stops between min and max (%zu)", r.n_samples);
	exec_result_free(&r);

	/* max_time stops an endless run */
	s.reps.min = 3;
	s.reps.max = 100000000;
	s.reps.target_ci = 0;
	s.reps.max_time = 0.2;
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_OK && r.n_samples >= 3 && r.elapsed_s < 3,
	   "adaptive: max_time stops it (%zu samples, %.3fs)", r.n_samples, r.elapsed_s);
	exec_result_free(&r);
}

/* ------------------------------------------------------- interrupt */

static void on_term(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Condition waits for the interrupt tests, instead of fixed sleeps: a
   helper process polls (every 10 ms, for at most 10 s) for the state the
   test needs, then sends SIGTERM to the test process.  If the state never
   comes, no signal is sent and the point runs into its timeout, which the
   tests report as a wrong status. */
#define WAIT_POLLS 1000
#define WAIT_STEP_US 10000

/* Helper: SIGTERM to the parent once `fd` is readable (on_sample wrote). */
static pid_t term_when_readable(int rfd, int wfd)
{
	pid_t helper;

	fflush(NULL);
	helper = fork();
	if (helper == 0) {
		struct pollfd p = { .fd = rfd, .events = POLLIN };
		char c;

		close(wfd);
		if (poll(&p, 1, WAIT_POLLS * WAIT_STEP_US / 1000) == 1 && read(rfd, &c, 1) == 1)
			kill(getppid(), SIGTERM);
		_exit(0);
	}
	close(rfd);
	return helper;
}

/* Is a child of `parent` (not `self`) leading its own process group and
   asleep?  That is the point's child blocked in the hang probe's sample(). */
static int point_child_asleep(pid_t parent, pid_t self)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		int pid = atoi(de->d_name);
		struct proc p;

		if (pid <= 0 || pid == self || read_proc(pid, &p) != 0)
			continue;
		found = p.ppid == parent && p.pgid == pid && p.state == 'S';
	}
	closedir(d);
	return found;
}

/* Helper: SIGTERM to the parent once its point child sleeps in sample(). */
static pid_t term_when_point_asleep(void)
{
	pid_t helper;

	fflush(NULL);
	helper = fork();
	if (helper == 0) {
		for (int i = 0; i < WAIT_POLLS; i++) {
			if (point_child_asleep(getppid(), getpid())) {
				kill(getppid(), SIGTERM);
				_exit(0);
			}
			usleep(WAIT_STEP_US);
		}
		_exit(1);
	}
	return helper;
}

static void test_interrupt(void)
{
	struct spec s = base_spec();
	struct exec_ctx ctx = base_ctx();
	struct spec_val base = { "100", 100 }, noise = { "0.01", 0.01 };
	const struct spec_val *vals[] = { &base, &noise };
	struct sigaction sa, old;
	struct point_result r;
	pid_t helper;
	int st, pfd[2];

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;	/* no SA_RESTART: poll must return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old);

	/* samples keep coming, then SIGTERM from outside once 3 have arrived */
	s.iterations = 1000;
	s.reps.min = s.reps.max = 100000000;
	s.timeout = 20;
	if (pipe(pfd) != 0) {
		perror("pipe");
		exit(1);
	}
	notify_at = samples_seen + 3;
	notify_fd = pfd[1];
	helper = term_when_readable(pfd[0], pfd[1]);
	run("ok_fixed", &s, &ctx, vals, &r);
	if (notify_fd >= 0) {	/* no sample came: let the helper go */
		close(notify_fd);
		notify_fd = -1;
	}
	waitpid(helper, &st, 0);
	is_str(exec_status_name(r.status), "interrupted", "interrupt: status interrupted");
	ok(r.n_samples >= 3, "interrupt: samples kept (%zu)", r.n_samples);
	ok(r.elapsed_s < 5, "interrupt: stopped promptly (%.3fs)", r.elapsed_s);
	exec_result_free(&r);

	/* a hung probe, nothing on the pipe: the signal alone must wake us */
	interrupted = 0;
	helper = term_when_point_asleep();
	run("hang", &s, &ctx, NULL, &r);
	waitpid(helper, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "interrupt: the hang point's child was seen asleep");
	is_str(exec_status_name(r.status), "interrupted", "interrupt: hang interrupted");
	ok(r.elapsed_s < 5, "interrupt: hang stopped promptly (%.3fs)", r.elapsed_s);
	exec_result_free(&r);

	/* already interrupted: nothing runs */
	run("ok_fixed", &s, &ctx, vals, &r);
	ok(r.status == PT_INTERRUPTED && r.n_samples == 0, "interrupt: none started after it");
	exec_result_free(&r);
	interrupted = 0;
	sigaction(SIGTERM, &old, NULL);
	ok(scratch_empty(), "interrupt: scratch dirs removed");
}

static void test_names(void)
{
	is_str(exec_status_name(PT_OK), "ok", "status name ok");
	is_str(exec_status_name(PT_FAILED), "failed", "status name failed");
	is_str(exec_status_name(PT_SKIPPED), "skipped", "status name skipped");
	is_str(exec_status_name(PT_TIMEOUT), "timeout", "status name timeout");
	is_str(exec_status_name(PT_INTERRUPTED), "interrupted", "status name interrupted");
}

int main(void)
{
	char what[128];

	find_fixture_dir();
	snprintf(scratch_root, sizeof scratch_root, "/tmp/test_exec-XXXXXX");
	if (!mkdtemp(scratch_root)) {
		perror("mkdtemp");
		return 1;
	}
	test_names();
	test_loader_messages();
	test_loader_ok();
	test_ok_fixed();
	test_failures();
	test_spawner();
	test_adaptive();
	test_interrupt();
	ok(count_strays(-1, what, sizeof what) == 0, "no stray or zombie at the end %s", what);
	rmdir(scratch_root);
	loader_clear_dirs();
	return done_testing();
}
