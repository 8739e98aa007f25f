/*
 * command - time a whole program: wall, user and system time, peak memory
 * (what `time` and hyperfine report, with sysmeter's samples, rounds and
 * statistics around it).
 *
 * What:   one run of the spec's `command:` argv per iteration (iterations
 *         default to 1: a sample is one run).
 * Unit:   ms of wall time per run (shell: true subtracts the shell's own
 *         start-up, reported as shell_ms).
 * Method: CLOCK_MONOTONIC around vfork and wait4(); user/system time, faults
 *         and context switches from wait4()'s rusage of that child (which
 *         includes the descendants it waited for, as `time` does); peak
 *         memory from a memory cgroup made for the run (v1
 *         memory.max_usage_in_bytes, v2 memory.peak: anonymous memory plus
 *         the page cache the run brought in), else ru_maxrss, flagged
 *         approximate (it starts from the size of the forking process).  The
 *         program gets /dev/null or the spec's stdin, and /dev/null or a file
 *         in the run folder for its output.  After every run every process
 *         it started is killed (process group, cgroup, orphans reparented to
 *         this probe, which is a child subreaper).
 * Confounders: the spawn itself (fork + exec: measured in setup, spawn_ms
 *         in the log; runs under 5 ms are flagged), cold caches on the first
 *         run (flagged when it stands out), the CPU the runner pins to (the
 *         program inherits `cpu:`; `cpu: none` lets it use every CPU), other
 *         load on the machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "probe.h"
#include "command_spawn.h"

#define SHORT_RUN_S 0.005	/* under this, process creation is a large part of a run */
#define FIRST_RUN_RATIO 1.5	/* a first run this much above the rest's median is shown */
#define CALIB_RUNS 9		/* runs of a trivial program (and a shell) in setup */
#define HOOK_OUTPUT 160		/* bytes of a failing hook's output in its message */

/* The values users sweep and put into the argv as {threads}, {n}, {size}
   (bytes), {variant}, {input}; the probe itself only runs the argv. */
struct cfg {
	int64_t threads, n;
	uint64_t size;
	const char *variant, *input;
};

enum { M_USER, M_SYS, M_PEAK, M_MAXRSS, M_MINFLT, M_MAJFLT, M_NVCSW, M_NIVCSW, M_EXIT, M_SHELL,
       M_COUNT };

struct state {
	const struct probe_host *h;
	const struct probe_command *cmd;
	struct cs_cgroup cg;
	int stdin_fd, null_fd;
	double spawn_s, shell_s;	/* a trivial program's run; `sh -c :`'s minus that */
	unsigned long runs;		/* so far in this process: names cgroups, files */
	double *walls; size_t n_walls, cap_walls;
	int set_up, cleaned_up;
	unsigned long accepted_nonzero;
	int last_exit;
};

static const struct probe_param params[] = {
	PROBE_PARAM_INT(struct cfg, threads, "1", "for {threads} in the command", 1, 1 << 20),
	PROBE_PARAM_INT(struct cfg, n, "1", "for {n} in the command", 0, 1e15),
	PROBE_PARAM_SIZE(struct cfg, size, "0", "for {size} in the command (as bytes)", 0, 1e15),
	PROBE_PARAM_STRING(struct cfg, variant, "", "for {variant} in the command"),
	PROBE_PARAM_STRING(struct cfg, input, "", "for {input} in the command"),
	PROBE_PARAM_END,
};

static const struct probe_metric metrics[] = {
	[M_USER] = {"user_ms", "ms", "user CPU time of the run (wait4: the program and the children it waited for)"},
	[M_SYS] = {"sys_ms", "ms", "system CPU time of the run"},
	[M_PEAK] = {"peak_mib", "MiB", "peak memory: the run's memory cgroup, else ru_maxrss (approximate)"},
	[M_MAXRSS] = {"maxrss_mib", "MiB", "ru_maxrss, what time(1) reports (includes the forking process's size)"},
	[M_MINFLT] = {"minor_faults", "faults", "minor page faults"},
	[M_MAJFLT] = {"major_faults", "faults", "major page faults (read from disk)"},
	[M_NVCSW] = {"vol_switches", "switches", "voluntary context switches (blocked)"},
	[M_NIVCSW] = {"invol_switches", "switches", "involuntary context switches (preempted)"},
	[M_EXIT] = {"exit_status", "status", "exit status (only ok_exit ones get here)"},
	[M_SHELL] = {"shell_ms", "ms", "the shell's start-up subtracted from wall (shell: true), else 0"},
	{NULL, NULL, NULL},
};

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The last bytes of a hook's captured output, on one line. */
static void output_tail(int fd, char *out, size_t len)
{
	char buf[HOOK_OUTPUT + 1];
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t n;

	out[0] = '\0';
	if (end <= 0)
		return;
	n = pread(fd, buf, HOOK_OUTPUT, end > HOOK_OUTPUT ? end - HOOK_OUTPUT : 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\t')
			buf[i] = ' ';
	snprintf(out, len, "%s", buf);
}

/* Exit status or 128 + signal, and whether it counts as a success. */
static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int exit_ok(const struct probe_command *cmd, int status)
{
	if (!WIFEXITED(status))
		return 0;
	for (size_t i = 0; i < cmd->n_ok_exit; i++)
		if (cmd->ok_exit[i] == WEXITSTATUS(status))
			return 1;
	return 0;
}

static void describe_status(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

/*
 * A hook (setup, cleanup, prepare, conclude): run it to the end with its
 * output captured in the scratch directory; a failure is the hook's name,
 * its status and the end of its output.
 */
static int run_hook(struct state *s, const char *name, const char *const *argv, char *err,
		    size_t errlen)
{
	struct cs_run r;
	char path[PATH_MAX], tag[48], tail[HOOK_OUTPUT + 1], how[96];
	int fd, rc;

	if (!argv)
		return 0;
	snprintf(path, sizeof path, "%s/hook.out", s->h->scratch_dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "%s: cannot create %s: %s", name, path, strerror(errno));
		return -errno;
	}
	snprintf(tag, sizeof tag, "%s-%lu", name, s->runs);
	struct cs_stdio io = { s->null_fd, fd, fd };
	rc = cs_spawn(argv, &io, &s->cg, tag, s->cmd->timeout, &r, how, sizeof how);
	if (rc < 0) {
		snprintf(err, errlen, "%s hook: %s", name, how);
		close(fd);
		return -EIO;
	}
	if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		output_tail(fd, tail, sizeof tail);
		if (r.timed_out)
			snprintf(how, sizeof how, "timed out after %g s", s->cmd->timeout);
		else
			describe_status(r.status, how, sizeof how);
		snprintf(err, errlen, "%s hook '%s' %s%s%s", name, argv[0], how, tail[0] ? ": " : "",
			 tail);
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

/* An output file of run k ("stdout"/"stderr"), its directories made. */
static int open_output(const char *prefix, unsigned long k, const char *what, char *err,
		       size_t errlen)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof path, "%srun-%lu.%s", prefix, k, what);
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);	/* exists already: fine; else open says */
			*p = '/';
		}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
	return fd;
}

/* The measured run: stdio set up, spawned, checked. */
static int run_measured(struct state *s, struct cs_run *r, char *err, size_t errlen)
{
	const struct probe_command *cmd = s->cmd;
	struct cs_stdio io = { s->stdin_fd >= 0 ? s->stdin_fd : s->null_fd, s->null_fd, s->null_fd };
	char tag[32], how[96];
	int rc;

	if (s->stdin_fd >= 0)
		lseek(s->stdin_fd, 0, SEEK_SET);	/* every run reads it whole */
	if (cmd->output_prefix) {
		if ((io.out = open_output(cmd->output_prefix, s->runs, "stdout", err, errlen)) < 0)
			return -EIO;
		if ((io.err = open_output(cmd->output_prefix, s->runs, "stderr", err, errlen)) < 0) {
			close(io.out);
			return -EIO;
		}
	}
	snprintf(tag, sizeof tag, "run-%lu", s->runs);
	rc = cs_spawn(cmd->argv, &io, &s->cg, tag, cmd->timeout, r, err, errlen);
	if (cmd->output_prefix) {
		close(io.out);
		close(io.err);
	}
	s->runs++;
	if (rc < 0)
		return -EIO;
	if (r->timed_out) {
		snprintf(err, errlen, "'%s' timed out after %g s (command.timeout)", cmd->argv[0],
			 cmd->timeout);
		return -ETIMEDOUT;
	}
	if (!exit_ok(cmd, r->status)) {
		describe_status(r->status, how, sizeof how);
		snprintf(err, errlen, "'%s' %s%s", cmd->shell ? cmd->argv[2] : cmd->argv[0], how,
			 WIFEXITED(r->status) ? " (not in command.ok_exit)" : "");
		return -ECHILD;
	}
	return 0;
}

/* The fastest of CALIB_RUNS runs of each of argv[0..n-1] after one untimed
   run each: a fixed cost that other load can only add to, so the minimum is
   its estimate.  The programs take turns, so that a slow spell of the
   machine (a few ms cover every run of one of them) falls on both alike,
   never on all the runs of one: the shell's start-up is the difference of
   two such minima, a few tenths of a millisecond. */
static int calibrate(struct state *s, const char *const *const *argv, int n, double *out,
		     char *err, size_t errlen)
{
	struct cs_run r;
	struct cs_stdio io = { s->null_fd, s->null_fd, s->null_fd };
	char tag[32];

	for (int i = -1; i < CALIB_RUNS; i++)
		for (int k = 0; k < n; k++) {
			snprintf(tag, sizeof tag, "calib-%d-%d", k, i + 1);
			if (cs_spawn(argv[k], &io, &s->cg, tag, 10.0, &r, err, errlen) < 0)
				return -EIO;
			if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
				snprintf(err, errlen, "'%s' (spawn calibration) did not exit 0",
					 argv[k][0]);
				return -EIO;
			}
			if (i == 0 || (i > 0 && r.wall_s < out[k]))
				out[k] = r.wall_s;
		}
	return 0;
}

static int setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		 size_t errlen)
{
	struct state *s = state;
	char trivial[PATH_MAX];
	int rc;

	(void)cfg;
	s->h = h;
	s->stdin_fd = s->null_fd = -1;
	if (h->abi < 4 || !h->command) {
		snprintf(err, errlen, "no command to run: the spec needs a 'command:' key");
		return -EINVAL;
	}
	s->cmd = h->command;
	/* orphans of the program come to us, so that we can kill and reap them */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		/* EINVAL: a kernel before 3.4, or an emulator (qemu-user 7.2)
		   that does not pass the option on: the command's orphans could
		   be neither waited for nor killed, so nothing is measured */
		int e = errno;

		snprintf(err, errlen, "prctl(PR_SET_CHILD_SUBREAPER): %s%s", strerror(e),
			 e == EINVAL ? ": no child subreaper here (a kernel before 3.4, or an "
				       "emulator such as qemu-user), so the command's orphans could "
				       "not be waited for" : "");
		return e == EINVAL ? PROBE_SKIP : -e;
	}
	if ((s->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "/dev/null: %s", strerror(errno));
		return -errno;
	}
	if (s->cmd->stdin_path && (s->stdin_fd = open(s->cmd->stdin_path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "command.stdin: cannot open %s: %s", s->cmd->stdin_path,
			 strerror(errno));
		return -errno;
	}
	cs_cgroup_find(&s->cg);
	if (!s->cg.version)
		h->log(h, PROBE_LOG_INFO, "command: peak memory from ru_maxrss (approximate): %s",
		       s->cg.reason);
	snprintf(trivial, sizeof trivial, "%s/bin/spawn_true", h->probe_dir ? h->probe_dir : ".");
	{
		const char *const true_argv[] = { trivial, NULL };
		const char *const sh_argv[] = { "/bin/sh", "-c", ":", NULL };
		const char *const *const calib[] = { true_argv, sh_argv };
		double min[2];

		if ((rc = calibrate(s, calib, s->cmd->shell ? 2 : 1, min, err, errlen)) < 0)
			return rc;
		s->spawn_s = min[0];
		if (s->cmd->shell)
			s->shell_s = min[1] > min[0] ? min[1] - min[0] : 0;
	}
	h->log(h, PROBE_LOG_INFO, "command: spawning a trivial program takes %.3f ms%s", s->spawn_s * 1e3,
	       s->cmd->shell ? "; the shell's start-up is subtracted" : "");
	s->set_up = 1;
	return run_hook(s, "setup", s->cmd->setup, err, errlen);
}

static int keep_wall(struct state *s, double w)
{
	if (s->n_walls == s->cap_walls) {
		size_t cap = s->cap_walls ? 2 * s->cap_walls : 64;
		double *v = realloc(s->walls, cap * sizeof *v);

		if (!v)
			return -ENOMEM;
		s->walls = v;
		s->cap_walls = cap;
	}
	s->walls[s->n_walls++] = w;
	return 0;
}

static int sample(void *state, uint64_t iterations, const struct probe_host *h,
		  struct probe_sample *out, char *err, size_t errlen)
{
	struct state *s = state;
	double sum[M_COUNT] = {0}, wall = 0;
	int approx = 0, rc;

	(void)h;
	for (uint64_t i = 0; i < iterations; i++) {
		struct cs_run r;
		double w;

		if ((rc = run_hook(s, "prepare", s->cmd->prepare, err, errlen)) < 0)
			return rc;
		if ((rc = run_measured(s, &r, err, errlen)) < 0)
			return rc;
		if ((rc = run_hook(s, "conclude", s->cmd->conclude, err, errlen)) < 0)
			return rc;
		w = r.wall_s - s->shell_s;
		wall += w;
		if ((rc = keep_wall(s, w)) < 0)
			return rc;
		sum[M_USER] += tv_s(r.ru.ru_utime) * 1e3;
		sum[M_SYS] += tv_s(r.ru.ru_stime) * 1e3;
		sum[M_PEAK] += (double)r.peak / (1024.0 * 1024.0);
		sum[M_MAXRSS] += (double)r.ru.ru_maxrss / 1024.0;
		sum[M_MINFLT] += (double)r.ru.ru_minflt;
		sum[M_MAJFLT] += (double)r.ru.ru_majflt;
		sum[M_NVCSW] += (double)r.ru.ru_nvcsw;
		sum[M_NIVCSW] += (double)r.ru.ru_nivcsw;
		sum[M_EXIT] += exit_code(r.status);
		sum[M_SHELL] += s->shell_s * 1e3;
		approx |= !r.peak_exact;
		s->last_exit = exit_code(r.status);
		s->accepted_nonzero += s->last_exit != 0;
	}
	out->value = wall * 1e3 / (double)iterations;
	for (int m = 0; m < M_COUNT; m++)
		out->extra[m] = sum[m] / (double)iterations;
	if (approx || s->last_exit)
		snprintf(out->note, sizeof out->note, "%s%s%s", approx ? "peak_mib from ru_maxrss (approximate)" : "",
			 approx && s->last_exit ? "; " : "",
			 s->last_exit ? "a non-zero exit status listed in command.ok_exit" : "");
	return 0;
}

static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 3 >= len)
		return;
	if (n)
		n += (size_t)snprintf(buf + n, len - n, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * After the last run: the cleanup hook, then what the reader must know
 * about these numbers (short runs, a cold first run, approximate memory).
 * The samples stand either way, so this is a flag, not a failure.
 */
static int sanity(void *state, char *err, size_t errlen)
{
	struct state *s = state;
	char msg[512] = "";
	double first, med;

	s->cleaned_up = 1;
	if (run_hook(s, "cleanup", s->cmd->cleanup, msg, sizeof msg) < 0) {
		snprintf(err, errlen, "%s", msg);
		return -EIO;
	}
	if (s->n_walls >= 3) {
		/* before the sort: walls[0] is this process's first run */
		first = s->walls[0];
		med = median(s->walls + 1, s->n_walls - 1);
		if (first > FIRST_RUN_RATIO * med)
			say(msg, sizeof msg,
			    "first run %.3g ms, %.1fx the median of the other %zu (cold caches)",
			    first * 1e3, first / med, s->n_walls - 1);
	}
	if (s->n_walls >= 1 && (med = median(s->walls, s->n_walls)) < SHORT_RUN_S)
		say(msg, sizeof msg, "short runs: median %.2f ms, of which spawning takes about %.2f ms",
		    med * 1e3, s->spawn_s * 1e3);
	if (!s->cg.version)
		say(msg, sizeof msg, "peak_mib is ru_maxrss (approximate): %s", s->cg.reason);
	if (!msg[0])
		return 0;
	snprintf(err, errlen, "%s", msg);
	return 1;
}

static void teardown(void *state)
{
	struct state *s = state;
	char err[256];

	if (s->set_up && !s->cleaned_up && s->cmd)
		run_hook(s, "cleanup", s->cmd->cleanup, err, sizeof err);	/* the point failed already */
	free(s->walls);
	if (s->stdin_fd >= 0)
		close(s->stdin_fd);
	if (s->null_fd >= 0)
		close(s->null_fd);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "command",
	.version = "1.1",
	.summary = "wall, user and system time and peak memory of a whole program run",
	.unit = "ms",
	.params = params,
	.metrics = metrics,
	.config_size = sizeof(struct cfg),
	.state_size = sizeof(struct state),
	.fixed_iterations = 1,
	.setup = setup,
	.sample = sample,
	.sanity = sanity,
	.teardown = teardown,
};
