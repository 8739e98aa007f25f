/*
 * exec.c - run one point in a forked child (design §5.4).
 *
 * The child leads its own process group (so a timeout or Ctrl-C kills every
 * task the probe made, and the terminal's SIGINT does not reach it), resets
 * every signal to its default, pins itself and sets its priority as the spec
 * asks (recording what worked), makes a private scratch directory, then runs
 * the probe: setup, iterations (fixed or calibrated), warmups, repetitions
 * (fixed or adaptive), sanity, teardown.  Everything it learns goes to the
 * parent as fixed-size binary messages over a pipe; writes are smaller than
 * PIPE_BUF, so each message arrives whole.  The child only ever leaves
 * through _exit().
 *
 * The parent supervises the child with lib/supervise: it waits on the pipe
 * and on the child (a pidfd, so a dead child is noticed even when a
 * grandchild still holds the pipe), with SIGINT/SIGTERM blocked except
 * inside the wait so the runner's handler cannot slip between the check of
 * *ctx->interrupted and the wait.  On a timeout or an interrupt the child's
 * process group is killed.  After the child is gone the group is killed
 * again (strays), the child reaped and, the runner being a child subreaper
 * for the duration of the point, every orphan of that group, then the
 * point's cgroup; the scratch directory is removed if the child could not.
 */
#include "exec/exec.h"
#include "exec/exec_command.h"
#include "exec/point_cgroup.h"
#include "lib/text.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "stats/stats.h"
#include "lib/hmac.h"
#include "lib/monotonic.h"
#include "lib/supervise.h"
#include "lib/units.h"

#define ITER_CAP (1ULL << 40)		/* most operations per sample */
#define CALIBRATE_BUDGET 2.0		/* seconds spent calibrating at most */
#define ERRLEN 256			/* probe hooks' error buffer */
#define MSG_TEXT 480

enum msg_type {
	MSG_PLACEMENT = 1,	/* cpu, pinned, priority, prio_applied, text = note */
	MSG_SCRATCH,		/* text = the scratch directory (parent cleans up) */
	MSG_ITERATIONS,		/* iterations */
	MSG_SAMPLE,		/* value, extra, flags, warmup, text = note */
	MSG_ERROR,		/* text = reason (status failed) */
	MSG_SKIP,		/* text = reason (status skipped) */
	MSG_SANITY,		/* text = the probe's sanity message */
	MSG_DONE,		/* cpu = where the sampling thread ended */
	MSG_WARMUP,		/* iterations = warmups taken, text = why it stopped */
};

struct msg {
	uint32_t type;
	int32_t cpu, pinned, priority, prio_applied, warmup;
	uint32_t flags;
	uint64_t iterations;
	double value;
	double extra[PROBE_MAX_EXTRA];
	char text[MSG_TEXT];
};

_Static_assert(sizeof(struct msg) <= PIPE_BUF, "a message must be written atomically");

int exec_round_share(int total, int rounds, int round)
{
	if (rounds < 1)
		rounds = 1;
	int n = total / rounds + (round % rounds < total % rounds);
	return n > 0 ? n : 1;
}

int exec_rounds(const struct spec *s)
{
	int r = s->rounds > 0 ? s->rounds : 1, reps = s->reps.min > 0 ? s->reps.min : 1;
	return r < reps ? r : reps;
}

const char *exec_status_name(enum point_status st)
{
	switch (st) {
	case PT_OK: return "ok";
	case PT_FAILED: return "failed";
	case PT_SKIPPED: return "skipped";
	case PT_TIMEOUT: return "timeout";
	case PT_INTERRUPTED: return "interrupted";
	case PT_PARTIAL: return "partial";
	}
	return "unknown";
}

void exec_result_free(struct point_result *r)
{
	if (!r)
		return;
	free(r->samples);
	r->samples = NULL;
	r->n_samples = 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* rm -rf: depth first, never following symlinks or crossing mounts. */
static void rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* ---------------------------------------------------------------- child */

struct child {
	const struct exec_ctx *ctx;
	const struct spec *s;
	const struct probe *p;
	int fd;			/* write end of the pipe */
	char scratch[PATH_MAX];
	void *state;
	const struct probe_host *host;	/* what setup() got; sample() gets it too */
	int set_up;		/* setup() was called: teardown() is due */
	int end_cpu;		/* where the last sample ran */
};

static void child_send(struct child *c, struct msg *m)
{
	const char *b = (const char *)m;
	size_t left = sizeof *m;

	while (left > 0) {
		ssize_t w = write(c->fd, b, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(127);	/* the parent is gone: nobody to report to */
		b += w;
		left -= (size_t)w;
	}
}

static void child_text(struct child *c, enum msg_type type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void child_text(struct child *c, enum msg_type type, const char *fmt, ...)
{
	struct msg m;
	va_list ap;

	memset(&m, 0, sizeof m);
	m.type = type;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof m.text, fmt, ap);
	va_end(ap);
	child_send(c, &m);
}

/* Tear down, clean up and leave; the only way out of the child. */
static void child_finish(struct child *c, int code) __attribute__((noreturn));
static void child_finish(struct child *c, int code)
{
	if (c->set_up && c->p->teardown)
		c->p->teardown(c->state);
	if (c->scratch[0])
		rm_rf(c->scratch);
	if (code == 0) {
		struct msg m;

		memset(&m, 0, sizeof m);
		m.type = MSG_DONE;
		m.cpu = c->end_cpu;
		child_send(c, &m);
	}
	_exit(code);
}

/* A hook failed: report "hook: message" and leave. */
static void child_fail(struct child *c, const char *hook, int rc, const char *err)
	__attribute__((noreturn));
static void child_fail(struct child *c, const char *hook, int rc, const char *err)
{
	if (err[0])
		child_text(c, MSG_ERROR, "%s: %s", hook, err);
	else if (rc < 0)
		child_text(c, MSG_ERROR, "%s: %s", hook, strerror(-rc));
	else
		child_text(c, MSG_ERROR, "%s: returned %d", hook, rc);
	child_finish(c, 1);
}

static void host_log(const struct probe_host *h, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void host_log(const struct probe_host *h, int level, const char *fmt, ...)
{
	const struct child *c = h->user;
	char line[1024];
	va_list ap;
	int n;

	(void)level;
	if (!c->ctx->verbose)
		return;
	n = snprintf(line, sizeof line, "probe '%s': ", c->p->name);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	if (n > 0 && line[n - 1] != '\n')
		line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere else to say it */
	}
}

/* Default signal dispositions, nothing blocked, no core files, stdin from
   /dev/null, stdout to stderr (the runner's stdout carries the run folder),
   and die with the runner. */
static void child_sanitise(pid_t parent)
{
	struct sigaction sa;
	struct rlimit nocore = { 0, 0 };
	sigset_t none;
	int fd;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);	/* EINVAL for libc-reserved: fine */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	getrlimit(RLIMIT_CORE, &nocore);
	nocore.rlim_cur = 0;
	setrlimit(RLIMIT_CORE, &nocore);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	dup2(STDERR_FILENO, STDOUT_FILENO);
}

/* Pin and set priority as asked; tell the parent what happened.  Returns
   1 when pinned. */
static int child_place(struct child *c)
{
	const struct spec *s = c->s;
	struct msg m;
	size_t off = 0;

	memset(&m, 0, sizeof m);
	m.type = MSG_PLACEMENT;
	if (s->cpu >= 0) {
		cpu_set_t set;
		int rc = -1;

		CPU_ZERO(&set);
		if (s->cpu < CPU_SETSIZE) {
			CPU_SET(s->cpu, &set);
			rc = sched_setaffinity(0, sizeof set, &set);
		} else {
			errno = EINVAL;
		}
		m.pinned = rc == 0;
		if (rc != 0)
			off += (size_t)snprintf(m.text, sizeof m.text,
						"sched_setaffinity(cpu %d): %s", s->cpu,
						strerror(errno));
	}
	if (s->has_priority) {
		if (setpriority(PRIO_PROCESS, 0, s->priority) == 0) {
			m.prio_applied = 1;
		} else if (off < sizeof m.text) {
			snprintf(m.text + off, sizeof m.text - off, "%ssetpriority(%d): %s",
				 off ? "; " : "", s->priority, strerror(errno));
		}
	}
	errno = 0;
	m.priority = getpriority(PRIO_PROCESS, 0);
	m.cpu = sched_getcpu();
	child_send(c, &m);
	return m.pinned;
}

/* prepare() (untimed), then one timed sample(). */
static void child_sample(struct child *c, uint64_t iters, struct probe_sample *smp,
			 double *elapsed)
{
	char err[ERRLEN] = "";
	double t0;
	int rc;

	if (c->p->prepare && (rc = c->p->prepare(c->state, err, sizeof err)) != 0) {
		err[sizeof err - 1] = '\0';
		child_fail(c, "prepare", rc, err);
	}
	memset(smp, 0, sizeof *smp);
	t0 = monotonic_s();
	rc = c->p->sample(c->state, iters, c->host, smp, err, sizeof err);
	*elapsed = monotonic_s() - t0;
	if (rc != 0) {
		err[sizeof err - 1] = '\0';
		child_fail(c, "sample", rc, err);
	}
}

static void child_send_sample(struct child *c, const struct probe_sample *smp, int warmup)
{
	struct msg m;

	memset(&m, 0, sizeof m);
	m.type = MSG_SAMPLE;
	m.value = smp->value;
	memcpy(m.extra, smp->extra, sizeof m.extra);
	m.flags = smp->flags;
	m.warmup = warmup;
	memcpy(m.text, smp->note, sizeof smp->note);
	m.text[sizeof smp->note - 1] = '\0';
	child_send(c, &m);
}

/* Operations per sample: the spec's, the probe's fixed count, or doubled
   from the probe's hint until one sample lasts min_sample_time. */
static uint64_t child_iterations(struct child *c)
{
	const struct spec *s = c->s;
	struct probe_sample smp;
	char err[ERRLEN] = "";
	uint64_t n = 1;
	double t0, dt;
	int rc;

	if (s->iterations > 0)
		return s->iterations;
	if (c->ctx->iterations > 0)
		return c->ctx->iterations;	/* round 0 calibrated it */
	if (c->p->fixed_iterations > 0)
		return c->p->fixed_iterations;
	if (c->p->iterations_hint > 0)
		n = c->p->iterations_hint < ITER_CAP ? c->p->iterations_hint : ITER_CAP;
	if (c->p->calibrate) {
		uint64_t hint = 0;

		rc = c->p->calibrate(c->state, &hint, err, sizeof err);
		if (rc != 0) {
			err[sizeof err - 1] = '\0';
			child_fail(c, "calibrate", rc, err);
		}
		if (hint > 0)
			n = hint < ITER_CAP ? hint : ITER_CAP;
	}
	if (s->min_sample_time <= 0)
		return n;
	t0 = monotonic_s();
	for (;;) {
		child_sample(c, n, &smp, &dt);
		if (dt >= s->min_sample_time || n >= ITER_CAP)
			break;
		if (monotonic_s() - t0 >= CALIBRATE_BUDGET) {
			/* Out of time: extrapolate from the last sample. */
			if (dt > 0) {
				double want = ceil((double)n * s->min_sample_time / dt);

				n = want >= (double)ITER_CAP ? ITER_CAP : (uint64_t)want;
			}
			break;
		}
		n = n <= ITER_CAP / 2 ? 2 * n : ITER_CAP;
	}
	return n;
}

/* Adaptive stopping: is the CI half-width within target_ci of the
   estimate, using the spec's outlier rule and estimator? */
static int child_precise_enough(const struct child *c, const double *v, size_t n)
{
	const struct spec *s = c->s;
	unsigned char *out = calloc(n ? n : 1, 1);
	double *kept = malloc((n ? n : 1) * sizeof *kept);
	double est, lo = NAN, hi = NAN;
	const char *method = NULL;
	size_t m = 0;
	int enough = 0;

	if (!out || !kept)
		goto done;
	stats_outliers(v, n, s->outliers, s->out_k, s->out_lo, s->out_hi, out);
	for (size_t i = 0; i < n; i++)
		if (!out[i])
			kept[m++] = v[i];
	est = stats_estimate(kept, m, s->estimate, s->est_p);
	stats_ci(kept, m, s->estimate, s->est_p, 0.95, c->ctx->seed, &lo, &hi, &method);
	if (method && isfinite(est) && est != 0 && isfinite(lo) && isfinite(hi))
		enough = (hi - lo) / 2 / fabs(est) <= s->reps.target_ci;
done:
	free(out);
	free(kept);
	return enough;
}

/* The samples a round has taken but not yet sent (auto warmup's window). */
struct window {
	struct probe_sample smp[EXEC_WARMUP_WINDOW_MAX];
	size_t n, size;
};

/* Does the window look steady: no monotonic trend and no step in level
   (each found only when both significant and at least 2 % of the level)?
   Fewer than 4 valid values cannot tell: steady. */
static int window_steady(const struct window *w)
{
	double v[EXEC_WARMUP_WINDOW_MAX];
	struct stats_trend t;
	struct stats_shift sh;
	size_t m = 0;

	for (size_t i = 0; i < w->n; i++)
		if (!(w->smp[i].flags & PROBE_SAMPLE_INVALID) && isfinite(w->smp[i].value))
			v[m++] = w->smp[i].value;
	if (m < 4)
		return 1;
	if (stats_trend(v, m, EXEC_WARMUP_ALPHA, EXEC_WARMUP_MIN_REL, &t) == 0 && t.found)
		return 0;
	if (stats_level_shift(v, m, 2, EXEC_WARMUP_ALPHA, EXEC_WARMUP_MIN_REL, &sh) == 0 && sh.found)
		return 0;
	return 1;
}

static void child_send_warmup(struct child *c, int taken, const char *why)
{
	struct msg m;

	memset(&m, 0, sizeof m);
	m.type = MSG_WARMUP;
	m.iterations = (uint64_t)taken;
	snprintf(m.text, sizeof m.text, "%s", why);
	child_send(c, &m);
}

/*
 * Warm up.  A number: exactly that many samples.  `auto`: one sample (a
 * fresh process pays its page faults and cold caches there), then a window
 * of the next samples slides forward, its oldest sample going out as a
 * warmup, until the window shows no trend and no level change, or the cap
 * (EXEC_WARMUP_MAX_SAMPLES warmups, EXEC_WARMUP_MAX_TIME) is reached.  The
 * window's samples were taken in the steady state the test accepted: they
 * are the round's first measured samples (left in *w for the caller).
 */
static void child_warmup(struct child *c, uint64_t iters, int round_n, struct window *w)
{
	struct probe_sample smp;
	double t0 = monotonic_s(), dt;
	const char *why;
	int taken = 0;

	w->n = 0;
	if (c->s->warmup != SPEC_WARMUP_AUTO) {
		for (int i = 0; i < c->s->warmup; i++) {
			child_sample(c, iters, &smp, &dt);
			child_send_sample(c, &smp, 1);
		}
		child_send_warmup(c, c->s->warmup, "fixed");
		return;
	}
	child_sample(c, iters, &smp, &dt);
	child_send_sample(c, &smp, 1);
	taken = 1;
	w->size = (size_t)round_n;
	if (w->size < EXEC_WARMUP_WINDOW_MIN)
		w->size = EXEC_WARMUP_WINDOW_MIN;
	if (w->size > EXEC_WARMUP_WINDOW_MAX)
		w->size = EXEC_WARMUP_WINDOW_MAX;
	while (w->n < w->size)
		child_sample(c, iters, &w->smp[w->n++], &dt);
	for (;;) {
		if (window_steady(w)) {
			why = "steady";
			break;
		}
		if (taken >= EXEC_WARMUP_MAX_SAMPLES) {
			why = "cap_count";
			break;
		}
		if (monotonic_s() - t0 >= EXEC_WARMUP_MAX_TIME) {
			why = "cap_time";
			break;
		}
		child_send_sample(c, &w->smp[0], 1);
		taken++;
		memmove(w->smp, w->smp + 1, (w->n - 1) * sizeof *w->smp);
		child_sample(c, iters, &w->smp[w->n - 1], &dt);
	}
	child_send_warmup(c, taken, why);
}

/* The round's samples: its share of the repetitions (fixed), or between
   its shares of min and max until the CI of the round's samples is within
   target_ci or its share of max_time is spent (adaptive).  The warmup
   window's samples come first and count. */
static void child_repetitions(struct child *c, uint64_t iters, const struct window *w)
{
	const struct spec *s = c->s;
	struct probe_sample smp;
	int adaptive = s->reps.adaptive, rounds = c->ctx->rounds > 0 ? c->ctx->rounds : 1;
	int round = c->ctx->round;
	int min = exec_round_share(s->reps.min > 0 ? s->reps.min : 1, rounds, round);
	int max = adaptive && s->reps.max > s->reps.min ? exec_round_share(s->reps.max, rounds, round) : min;
	double max_time = s->reps.max_time / rounds;
	double *vals = NULL, t0 = monotonic_s(), dt;
	size_t nvals = 0, cap = 0, next_check = 0;

	if (max < min)
		max = min;
	if ((int)w->n > max)
		max = (int)w->n;
	for (int i = 0; i < max; i++) {
		if ((size_t)i < w->n) {
			smp = w->smp[i];
		} else {
			child_sample(c, iters, &smp, &dt);
		}
		child_send_sample(c, &smp, 0);
		if (!adaptive)
			continue;
		if (!(smp.flags & PROBE_SAMPLE_INVALID)) {
			if (nvals == cap) {
				double *nv;

				cap = cap ? 2 * cap : 256;
				nv = realloc(vals, cap * sizeof *nv);
				if (!nv)
					child_fail(c, "runner", -ENOMEM, "");
				vals = nv;
			}
			vals[nvals++] = smp.value;
		}
		if (i + 1 < min)
			continue;
		if (max_time > 0 && monotonic_s() - t0 >= max_time)
			break;
		/* A bootstrap CI costs 2000 resamples of n: past 64 samples,
		   look again only after ~3 % more, so all the checks together
		   cost about 33 bootstraps of the final n. */
		if (s->reps.target_ci > 0 && nvals >= next_check) {
			if (child_precise_enough(c, vals, nvals))
				break;
			next_check = nvals + (nvals > 64 ? nvals / 32 : 1);
		}
	}
	free(vals);
}

/*
 * probe_host.peer_sign: the runner signs for the probe, so the peer's secret
 * (the token file in exec_ctx.peer_token: --token, or the one --peer netns
 * made) is read here, in the point's child, and never handed to probe code.
 */
static int host_peer_sign(const struct probe_host *h, const char *msg, char hex[65],
			  char *err, size_t errlen)
{
	static unsigned char secret[4096];
	static size_t secret_len;
	const struct child *c = h->user;
	const char *path = c->ctx->peer_token;

	if (!path || !*path) {
		snprintf(err, errlen, "no token: give the peer's token file with --token FILE");
		return -ENOENT;
	}
	if (!secret_len && hmac_read_token(path, secret, sizeof secret, &secret_len, err,
					   errlen) < 0)
		return -EINVAL;
	if (hmac_sha256_hex(secret, secret_len, msg, hex) < 0) {
		snprintf(err, errlen, "HMAC-SHA256 failed");
		return -EIO;
	}
	return 0;
}

/* The directory of the probe's own .so: its helper programs live in
   <it>/bin/ (installed and built together with it). */
static char *probe_own_dir(const char *so_path)
{
	const char *slash = strrchr(so_path, '/');

	return slash ? strndup(so_path, (size_t)(slash - so_path)) : strdup(".");
}

/* The probe's zeroed state (NULL when it asks for none), 64-byte aligned
   so that a probe may keep cache-line-aligned atomics in it. */
static void *child_state(struct child *c)
{
	size_t n = (c->p->state_size + 63) & ~(size_t)63;
	void *st;

	if (n == 0)
		return NULL;
	st = aligned_alloc(64, n);
	if (!st)
		child_fail(c, "runner", -ENOMEM, "");
	return memset(st, 0, n);
}

/* The probe's config struct (NULL when it has none), filled from the
   point's values (the runner has parsed and checked them) or defaults. */
static void *child_config(struct child *c, const struct loaded_probe *lp,
			  const struct plan_point *pt)
{
	char err[ERRLEN] = "";
	void *cfg;

	if (lp->p->config_size == 0)
		return NULL;
	cfg = loader_config(lp, pt ? (const struct spec_val *const *)pt->vals : NULL, err,
			    sizeof err);
	if (!cfg) {
		if (errno == ENOMEM)
			child_fail(c, "runner", -ENOMEM, "");
		child_fail(c, "runner", -EINVAL, err);
	}
	return cfg;
}

/* The spec's `command:` with this point's values (the command probe's
   probe_host.command); kept output goes to
   RUN/output/EXPERIMENT/point-P-round-R-run-K.{stdout,stderr}. */
static const struct probe_command *child_command(struct child *c, const struct exec_ctx *ctx,
						 const struct spec *s,
						 const struct loaded_probe *lp,
						 const struct plan_point *pt, const char *probe_dir)
{
	struct exec_command_in in = { .s = s, .lp = lp, .pt = pt };
	const struct probe_command *cmd;
	char err[ERRLEN], bin[PATH_MAX], prefix[PATH_MAX];

	snprintf(bin, sizeof bin, "%s/bin", probe_dir ? probe_dir : ".");
	in.bin_dir = bin;
	if (ctx->run_dir) {
		snprintf(prefix, sizeof prefix, "%s/output/%s/point-%zu-round-%d-", ctx->run_dir,
			 s->name, pt ? pt->index : 0, ctx->round);
		in.output_prefix = prefix;
	}
	if (!(cmd = exec_command_build(&in, err, sizeof err)))
		child_fail(c, "runner", -EINVAL, err);
	return cmd;	/* the child's until it exits */
}

static void child_main(const struct exec_ctx *ctx, const struct spec *s,
		       const struct loaded_probe *lp, const struct plan_point *pt, int fd,
		       pid_t parent, const struct point_cgroup *cg) __attribute__((noreturn));
static void child_main(const struct exec_ctx *ctx, const struct spec *s,
		       const struct loaded_probe *lp, const struct plan_point *pt, int fd,
		       pid_t parent, const struct point_cgroup *cg)
{
	struct child c = { .ctx = ctx, .s = s, .p = lp->p, .fd = fd, .end_cpu = -1 };
	struct loaded_probe code;
	struct probe_host host;
	char err[ERRLEN] = "";
	const char *root;
	void *cfg;
	uint64_t iters;
	int rc, pinned;

	point_cgroup_enter(cg);	/* before the probe can start anything */
	child_sanitise(parent);
	pinned = child_place(&c);
	/* The runner read only metadata (in another child); the hooks are here. */
	if (loader_dlopen(lp->path, &code, err, sizeof err) < 0) {
		child_text(&c, MSG_ERROR, "%s", err);
		child_finish(&c, 1);
	}
	if (strcmp(code.sha256, lp->sha256) != 0) {
		child_text(&c, MSG_ERROR, "probe '%s': %s changed since it was checked",
			   code.p->name, lp->path);
		child_finish(&c, 1);
	}
	c.p = code.p;

	root = ctx->scratch_root ? ctx->scratch_root : getenv("TMPDIR");
	if (!root || !*root)
		root = "/tmp";
	snprintf(c.scratch, sizeof c.scratch, "%s/point-%zu-XXXXXX", root, pt ? pt->index : 0);
	if (!mkdtemp(c.scratch)) {
		int e = errno;

		c.scratch[0] = '\0';
		child_text(&c, MSG_ERROR, "cannot create a scratch directory in %s: %s", root,
			   strerror(e));
		child_finish(&c, 1);
	}
	child_text(&c, MSG_SCRATCH, "%s", c.scratch);

	cfg = child_config(&c, &code, pt);
	memset(&host, 0, sizeof host);
	host.abi = PROBE_ABI_VERSION;
	host.log = host_log;
	host.scratch_dir = c.scratch;
	host.seed = ctx->seed;
	host.peer = ctx->peer;
	host.tsc_hz = ctx->tsc_hz;
	host.llc_bytes = ctx->llc_bytes;
	host.cpu = pinned ? s->cpu : -1;
	host.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	host.privileged = geteuid() == 0;
	host.quick = ctx->quick;
	host.user = &c;
	host.probe_dir = probe_own_dir(lp->path);
	host.peer_sign = host_peer_sign;
	host.nfs_url = ctx->nfs_url;
	host.nfs_local_dir = ctx->nfs_local_dir;
	host.nfs_label = ctx->nfs_label;
	host.nfs_error = ctx->nfs_error;
	host.nfs_cpu = ctx->nfs_url ? ctx->nfs_cpu : -1;
	if (s->command.present)
		host.command = child_command(&c, ctx, s, lp, pt, host.probe_dir);

	if (c.p->needs_counter_hz && !(host.tsc_hz > 0))
		child_fail(&c, "setup", -EINVAL, "no calibrated counter frequency (tsc_hz is 0)");
	c.state = child_state(&c);
	c.host = &host;
	c.set_up = 1;
	rc = c.p->setup(c.state, cfg, &host, err, sizeof err);
	err[sizeof err - 1] = '\0';
	if (rc == PROBE_SKIP) {
		child_text(&c, MSG_SKIP, "%s", err[0] ? err : "skipped by the probe");
		child_finish(&c, 1);
	}
	if (rc != 0)
		child_fail(&c, "setup", rc, err);

	iters = child_iterations(&c);
	{
		struct msg m;

		memset(&m, 0, sizeof m);
		m.type = MSG_ITERATIONS;
		m.iterations = iters;
		child_send(&c, &m);
	}
	{
		int rounds = ctx->rounds > 0 ? ctx->rounds : 1;
		struct window w;

		child_warmup(&c, iters,
			     exec_round_share(s->reps.min > 0 ? s->reps.min : 1, rounds, ctx->round), &w);
		child_repetitions(&c, iters, &w);
	}
	c.end_cpu = sched_getcpu();

	if (c.p->sanity) {
		err[0] = '\0';
		rc = c.p->sanity(c.state, err, sizeof err);
		err[sizeof err - 1] = '\0';
		if (rc != 0)
			child_text(&c, MSG_SANITY, "%s",
				   err[0] ? err : rc < 0 ? strerror(-rc) : "sanity check failed");
	}
	child_finish(&c, 0);
}

/* --------------------------------------------------------------- parent */

struct parent {
	const struct exec_ctx *ctx;
	struct point_result *out;
	size_t cap;
	int done, final;	/* got MSG_DONE; status decided (error/skip) */
	int oom;
	char scratch[PATH_MAX];
};

/* A probe's text into dst: whatever bytes it wrote, what comes out is
   valid UTF-8 without terminal controls (invalid bytes and controls other
   than newline and tab as \xNN), so that jansson takes it (it refuses
   invalid UTF-8, and the field would be silently lost) and a terminal
   echoing it is not driven by it. */
static void copy_text(char *dst, size_t len, const char *src)
{
	char raw[MSG_TEXT];
	size_t n = strnlen(src, sizeof raw - 1);

	memcpy(raw, src, n);
	raw[n] = '\0';
	text_escape_lines(raw, dst, len);
}

static void parent_msg(struct parent *pa, const struct msg *m)
{
	struct point_result *out = pa->out;
	char text[MSG_TEXT];

	copy_text(text, sizeof text, m->text);
	switch (m->type) {
	case MSG_PLACEMENT:
		out->cpu = m->cpu;
		out->pinned = m->pinned;
		out->priority = m->priority;
		out->prio_applied = m->prio_applied;
		copy_text(out->placement_note, sizeof out->placement_note, text);
		break;
	case MSG_SCRATCH:
		copy_text(pa->scratch, sizeof pa->scratch, text);
		break;
	case MSG_ITERATIONS:
		out->iterations = m->iterations;
		break;
	case MSG_SAMPLE: {
		struct sample_rec *r;

		if (out->n_samples == pa->cap) {
			size_t cap = pa->cap ? 2 * pa->cap : 64;
			struct sample_rec *ns = realloc(out->samples, cap * sizeof *ns);

			if (!ns) {
				pa->oom = 1;
				return;
			}
			out->samples = ns;
			pa->cap = cap;
		}
		r = &out->samples[out->n_samples++];
		memset(r, 0, sizeof *r);
		r->value = m->value;
		memcpy(r->extra, m->extra, sizeof r->extra);
		r->warmup = m->warmup != 0;
		r->round = pa->ctx->round;
		r->valid = !(m->flags & PROBE_SAMPLE_INVALID);
		copy_text(r->note, sizeof r->note, text);
		if (pa->ctx->on_sample)
			pa->ctx->on_sample(pa->ctx->arg, out);
		break;
	}
	case MSG_ERROR:
	case MSG_SKIP:
		if (!pa->final) {
			out->status = m->type == MSG_SKIP ? PT_SKIPPED : PT_FAILED;
			copy_text(out->reason, sizeof out->reason, text);
			pa->final = 1;
		}
		break;
	case MSG_SANITY:
		out->sanity_failed = 1;
		copy_text(out->sanity_msg, sizeof out->sanity_msg, text);
		break;
	case MSG_DONE:
		out->cpu = m->cpu;
		pa->done = 1;
		break;
	case MSG_WARMUP:
		out->warmup_taken = (int)m->iterations;
		copy_text(out->warmup_reason, sizeof out->warmup_reason, text);
		break;
	}
}

/* Read what the pipe holds now; returns 1 at end of file. */
static int parent_drain(struct parent *pa, int fd, unsigned char *buf, size_t *have)
{
	for (;;) {
		ssize_t r = read(fd, buf + *have, 16 * sizeof(struct msg) - *have);
		size_t off = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 0;	/* EAGAIN: nothing more now */
		if (r == 0)
			return 1;
		*have += (size_t)r;
		while (*have - off >= sizeof(struct msg)) {
			struct msg m;

			memcpy(&m, buf + off, sizeof m);
			parent_msg(pa, &m);
			off += sizeof m;
		}
		memmove(buf, buf + off, *have - off);
		*have -= off;
	}
}

/* What the point's child needs, through supervise_spawn. */
struct child_args {
	const struct exec_ctx *ctx;
	const struct spec *s;
	const struct loaded_probe *lp;
	const struct plan_point *pt;
	const struct point_cgroup *cg;
	int pfd[2];
	pid_t parent;
};

static void child_start(void *arg)
{
	const struct child_args *a = arg;

	close(a->pfd[0]);
	child_main(a->ctx, a->s, a->lp, a->pt, a->pfd[1], a->parent, a->cg);
}

int exec_point(const struct exec_ctx *ctx, const struct spec *s,
	       const struct loaded_probe *lp, const struct plan_point *pt,
	       struct point_result *out)
{
	struct parent pa = { .ctx = ctx, .out = out };
	struct point_cgroup cg;
	unsigned char buf[16 * sizeof(struct msg)];
	size_t have = 0;
	struct supervise child;
	struct supervise_end end;
	struct child_args start = { .ctx = ctx, .s = s, .lp = lp, .pt = pt, .cg = &cg,
				     .parent = getpid() };
	sigset_t block, old;
	int *pfd = start.pfd, eof = 0, exited = 0, subreaper = 0, rc = 0, strays;
	enum point_status killed = PT_OK;
	double t0 = monotonic_s(), deadline = s->timeout > 0 ? t0 + s->timeout : 0;

	memset(out, 0, sizeof *out);
	out->status = PT_OK;
	out->round = ctx->round;
	out->cpu_requested = s->cpu;
	out->cpu = -1;
	out->has_prio_req = s->has_priority;
	out->prio_requested = s->has_priority ? s->priority : 0;

	if (ctx->interrupted && *ctx->interrupted) {
		out->status = PT_INTERRUPTED;
		snprintf(out->reason, sizeof out->reason, "interrupted");
		return 0;
	}
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		out->status = PT_FAILED;
		snprintf(out->reason, sizeof out->reason, "cannot create a pipe: %s",
			 strerror(errno));
		return -1;
	}
	prctl(PR_GET_CHILD_SUBREAPER, &subreaper);
	if (!subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	point_cgroup_make(&cg);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);

	if (supervise_spawn(&child, child_start, &start) < 0) {
		int e = errno;

		close(pfd[0]);
		close(pfd[1]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (!subreaper)
			prctl(PR_SET_CHILD_SUBREAPER, 0);
		out->status = PT_FAILED;
		snprintf(out->reason, sizeof out->reason, "cannot fork: %s", strerror(e));
		return -1;
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);

	while (!exited) {
		struct pollfd fd = { .fd = eof ? -1 : pfd[0], .events = POLLIN };
		int ev = supervise_wait(&child, &fd, 1, deadline, ctx->interrupted);

		if (ev < 0) {
			killed = PT_FAILED;
			snprintf(out->reason, sizeof out->reason, "poll: %s", strerror(errno));
			break;
		}
		if (ev & SUPERVISE_INTERRUPTED) {
			killed = PT_INTERRUPTED;
			break;
		}
		if (ev & SUPERVISE_TIMEOUT) {
			killed = PT_TIMEOUT;
			break;
		}
		if (ev & SUPERVISE_READABLE)
			eof = parent_drain(&pa, pfd[0], buf, &have);
		if (ev & SUPERVISE_EXITED)
			exited = 1;
		if (pa.oom) {
			killed = PT_FAILED;
			snprintf(out->reason, sizeof out->reason, "out of memory");
			break;
		}
	}
	if (killed != PT_OK)
		supervise_kill(&child);
	if (!eof)
		parent_drain(&pa, pfd[0], buf, &have);	/* what came before the end */
	pid_t point_pid = child.pid;	/* reaping forgets it */

	supervise_reap(&child, &end);
	/* what left the process group (setsid) is still in the cgroup */
	strays = point_cgroup_kill(&cg);
	/* and on v1 what the probe made below its own cgroup (probe.h) */
	point_cgroup_clean_probe(point_pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	close(pfd[0]);
	if (pa.scratch[0])
		rm_rf(pa.scratch);

	if (killed == PT_FAILED) {
		out->status = PT_FAILED;	/* reason set above */
		rc = -1;
	} else if (pa.final) {
		/* the probe's own error or skip stands */
	} else if (pa.done) {
		out->status = PT_OK;
		out->reason[0] = '\0';
	} else if (killed == PT_TIMEOUT) {
		char t[64];

		units_format_time(s->timeout, t, sizeof t);
		out->status = PT_TIMEOUT;
		snprintf(out->reason, sizeof out->reason, "timed out after %s", t);
	} else if (killed == PT_INTERRUPTED) {
		out->status = PT_INTERRUPTED;
		snprintf(out->reason, sizeof out->reason, "interrupted");
	} else if (end.how == SUPERVISE_END_SIGNAL) {
		out->status = PT_FAILED;
		snprintf(out->reason, sizeof out->reason, "killed by signal %d (%s)", end.code,
			 strsignal(end.code));
	} else {
		out->status = PT_FAILED;
		snprintf(out->reason, sizeof out->reason,
			 "probe exited with status %d before finishing",
			 end.how == SUPERVISE_END_EXIT ? end.code : -1);
	}
	if (strays != 0 && !out->sanity_failed) {
		/* the point is measured, but its probe leaks processes */
		out->sanity_failed = 1;
		if (strays > 0)
			snprintf(out->sanity_msg, sizeof out->sanity_msg,
				 "left %d process%s running after the point (killed with its cgroup)",
				 strays, strays == 1 ? "" : "es");
		else
			snprintf(out->sanity_msg, sizeof out->sanity_msg,
				 "left processes that outlived SIGKILL for 2 s (cgroup %s kept)", cg.path);
	}
	out->elapsed_s = monotonic_s() - t0;
	return rc;
}
