/*
 * fs_contention - block read time when N readers read at once.
 *
 * What:   `readers` readers (processes or threads) each read `block`-byte
 *         blocks of a test file, their own (content seed seed+i) or one
 *         shared file, in random order (a seeded permutation per reader) or
 *         sequentially (a shared file: each reader starts at its own
 *         1/N-th), through O_DIRECT (direct) or the page cache (warm).
 * Unit:   µs per block read, the mean over every reader's blocks; metrics
 *         agg_mib_per_s (all readers' bytes over the time from the first
 *         start to the last finish), slowest_us and fastest_us (the mean
 *         per-block time of the slowest and fastest reader), p50_us, p99_us
 *         (over every block of every reader), readers.
 * Method: the readers are created in setup and wait on a futex in shared
 *         memory; each sample releases them together (one FUTEX_WAKE), each
 *         reads `iterations` blocks, timing every pread() on its own, and the
 *         last to finish wakes the probe.  Processes are forked (PDEATHSIG:
 *         they die with the point), threads are pthreads; neither is pinned
 *         (they run on every CPU the point may use).  Every block is summed.
 * Timed one (`timed: one`): reader 0 is the only one timed; readers 1..N-1
 *         are background readers that read the same way without pause from
 *         the sample's release until reader 0 has read its `iterations`
 *         blocks (reader 0 starts only once each of them has read a block,
 *         so it never runs alone).  The value and p50/p99 are reader 0's;
 *         slowest_us/fastest_us are reader 0's mean too; agg_mib_per_s
 *         counts every reader's bytes; bg_blocks says how many blocks the
 *         background read while reader 0 was timed (0 with one reader).
 *         This is the seeds' "one reader against N-1 busy ones", where
 *         `timed: all` (the default) times every reader's blocks together.
 * Confounders: with more readers than CPUs the readers also wait for a CPU
 *         (time in the run queue counts in a block's time); the device's
 *         queue (a virtual disk: the host's) serves concurrent O_DIRECT
 *         reads in parallel up to its depth; a shared warm file is read from
 *         the same cached pages.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "fs_common.h"
#include "probe_time.h"

#define FC_MAXR 64

enum { FC_M_AGG, FC_M_SLOW, FC_M_FAST, FC_M_P50, FC_M_P99, FC_M_N, FC_M_BG };
enum { FC_TIMED_ALL, FC_TIMED_ONE };
enum { FC_DIRECT = 0, FC_WARM = 1 };
enum { FC_PROCESS, FC_THREAD };
enum { FC_OWN, FC_SHARED };
enum { FC_RANDOM, FC_SEQUENTIAL };

struct fc_cfg {
	const char *dir;
	uint64_t size, block;
	int64_t readers, seed;
	int mode, file, order, cache;
	int timed;		/* FC_TIMED_ALL, FC_TIMED_ONE */
};

/* One reader's slot, in memory shared with the readers. */
struct fc_reader {
	uint64_t t0, t1, ticks, sum;
	uint64_t blocks;	/* background: blocks read in the sample */
	int err;
	char msg[96];
};

struct fc_shared {
	_Atomic uint32_t gen, done, quit;
	_Atomic uint32_t stop;		/* timed one: reader 0 is done */
	_Atomic uint32_t bg_running;	/* timed one: background readers under way */
	uint64_t iterations;
	struct fc_reader r[FC_MAXR];
	double lat[];		/* readers x max_iter per-block times (TSC ticks) */
};

struct fc_state {
	int n, threads, direct, random, nfd, one;
	uint64_t size, block, nblocks, max_iter;
	int fd[FC_MAXR];
	uint64_t *order[FC_MAXR], pos[FC_MAXR];
	char *buf[FC_MAXR];
	pid_t pid[FC_MAXR];
	pthread_t tid[FC_MAXR];
	int started;
	struct fc_shared *sh;
	size_t shlen;
	double *all;
	uint64_t bytes, sum;
	char path[4096];
};

struct fc_arg {
	struct fc_state *st;
	int i;
};

static struct fc_arg fc_args[FC_MAXR];

static const struct probe_param fc_params[] = {
	PROBE_PARAM_STRING(struct fc_cfg, dir, FS_DEFAULT_DIR,
		"directory of the test files (kept and reused across runs)"),
	PROBE_PARAM_INT(struct fc_cfg, readers, "1", "concurrent readers", 1, FC_MAXR),
	PROBE_PARAM_CHOICE(struct fc_cfg, mode, "process", "what a reader is",
		{ "process", FC_PROCESS }, { "thread", FC_THREAD }),
	PROBE_PARAM_CHOICE(struct fc_cfg, file, "own", "each reader its own file, or one shared",
		{ "own", FC_OWN }, { "shared", FC_SHARED }),
	PROBE_PARAM_CHOICE(struct fc_cfg, order, "random", "block order",
		{ "random", FC_RANDOM }, { "sequential", FC_SEQUENTIAL }),
	PROBE_PARAM_CHOICE(struct fc_cfg, cache, "direct",
		"direct = O_DIRECT (the device), warm = page cache copies",
		{ "direct", FC_DIRECT }, { "warm", FC_WARM }),
	PROBE_PARAM_SIZE(struct fc_cfg, size, "64MiB", "test file size (each)", 65536,
		1099511627776.0),
	PROBE_PARAM_SIZE(struct fc_cfg, block, "4KiB", "bytes per read", 512, 16777216),
	PROBE_PARAM_INT(struct fc_cfg, seed, "1", "content seed of the (first) test file", 0, 1e15),
	PROBE_PARAM_CHOICE(struct fc_cfg, timed, "all",
		"all: every reader's blocks are timed; one: reader 0 alone is timed, "
		"the others read in the background until it is done",
		{ "all", FC_TIMED_ALL }, { "one", FC_TIMED_ONE }),
	PROBE_PARAM_END,
};

static const struct probe_metric fc_metrics[] = {
	[FC_M_AGG] = { "agg_mib_per_s", "MiB/s",
		       "all readers' bytes over first start to last finish" },
	[FC_M_SLOW] = { "slowest_us", "us", "mean block time of the slowest reader" },
	[FC_M_FAST] = { "fastest_us", "us", "mean block time of the fastest reader" },
	[FC_M_P50] = { "p50_us", "us", "median block time over every reader's blocks" },
	[FC_M_P99] = { "p99_us", "us", "99th percentile block time over every reader" },
	[FC_M_N] = { "readers", "count", "concurrent readers" },
	[FC_M_BG] = { "bg_blocks", "blocks",
		      "timed one: blocks the background readers read in the sample" },
	{ .name = NULL },
};

static long fc_futex(_Atomic uint32_t *a, int op, uint32_t v)
{
	return syscall(SYS_futex, (uint32_t *)a, op, v, NULL, NULL, 0);
}

/* Reader i's pass of n blocks into its slot; 0 or an error in the slot. */
static void fc_pass(struct fc_state *st, int i, uint64_t n)
{
	struct fc_reader *r = &st->sh->r[i];
	double *lat = st->sh->lat + (size_t)i * st->max_iter;
	int fd = st->fd[st->nfd == 1 ? 0 : i];
	uint64_t sum = 0, ticks = 0;

	r->err = 0;
	r->t0 = pt_start();
	for (uint64_t k = 0; k < n; k++) {
		uint64_t b = st->order[i][st->pos[i]], t0, t1;
		ssize_t got;

		st->pos[i] = st->pos[i] + 1 < st->nblocks ? st->pos[i] + 1 : 0;
		t0 = pt_start();
		got = pread(fd, st->buf[i], (size_t)st->block, (off_t)(b * st->block));
		t1 = pt_stop();
		if (got != (ssize_t)st->block) {
			r->err = got < 0 ? errno : EIO;
			snprintf(r->msg, sizeof(r->msg), "reader %d: pread at %llu: %s", i,
				 (unsigned long long)(b * st->block),
				 got < 0 ? strerror(r->err) : "short read");
			break;
		}
		sum += fs_sum(st->buf[i], (size_t)st->block);
		ticks += t1 - t0;
		lat[k] = (double)(t1 - t0);	/* ticks: sample() converts */
	}
	r->t1 = pt_stop();
	r->ticks = ticks;
	r->sum = sum;
}

/* A background reader's pass (timed one): read until reader 0 is done,
   untimed; the count goes in the slot. */
static void fc_background(struct fc_state *st, int i)
{
	struct fc_reader *r = &st->sh->r[i];
	int fd = st->fd[st->nfd == 1 ? 0 : i];
	uint64_t sum = 0, k = 0;

	r->err = 0;
	r->t0 = pt_start();
	while (!atomic_load(&st->sh->stop)) {
		uint64_t b = st->order[i][st->pos[i]];
		ssize_t got;

		st->pos[i] = st->pos[i] + 1 < st->nblocks ? st->pos[i] + 1 : 0;
		got = pread(fd, st->buf[i], (size_t)st->block, (off_t)(b * st->block));
		if (got != (ssize_t)st->block) {
			r->err = got < 0 ? errno : EIO;
			snprintf(r->msg, sizeof(r->msg), "background reader %d: pread at %llu: %s",
				 i, (unsigned long long)(b * st->block),
				 got < 0 ? strerror(r->err) : "short read");
			break;
		}
		sum += fs_sum(st->buf[i], (size_t)st->block);
		if (++k == 1 && atomic_fetch_add(&st->sh->bg_running, 1) + 1 == (uint32_t)(st->n - 1))
			fc_futex(&st->sh->bg_running, FUTEX_WAKE, 1);
	}
	if (k == 0 && atomic_fetch_add(&st->sh->bg_running, 1) + 1 == (uint32_t)(st->n - 1))
		fc_futex(&st->sh->bg_running, FUTEX_WAKE, 1);	/* failed: never block 0 */
	r->t1 = pt_stop();
	r->blocks = k;
	r->sum = sum;
}

/* Timed one, reader 0: wait until every background reader has read a block. */
static void fc_wait_background(struct fc_state *st)
{
	uint32_t v;

	while ((v = atomic_load(&st->sh->bg_running)) < (uint32_t)(st->n - 1))
		fc_futex(&st->sh->bg_running, FUTEX_WAIT, v);
}

/* A reader's life: wait for a new generation, read, report, until quit. */
static void fc_loop(struct fc_state *st, int i)
{
	uint32_t seen = 0;

	for (;;) {
		uint32_t g;

		while ((g = atomic_load(&st->sh->gen)) == seen && !atomic_load(&st->sh->quit))
			fc_futex(&st->sh->gen, FUTEX_WAIT, seen);
		if (atomic_load(&st->sh->quit))
			return;
		seen = g;
		if (st->one && i > 0) {
			fc_background(st, i);
		} else if (st->one) {
			fc_wait_background(st);
			fc_pass(st, i, st->sh->iterations);
			atomic_store(&st->sh->stop, 1);
		} else {
			fc_pass(st, i, st->sh->iterations);
		}
		if (atomic_fetch_add(&st->sh->done, 1) + 1 == (uint32_t)st->n)
			fc_futex(&st->sh->done, FUTEX_WAKE, 1);
	}
}

static void *fc_thread(void *p)
{
	struct fc_arg *a = p;

	fc_loop(a->st, a->i);
	return NULL;
}

static int fc_open(struct fc_state *st, const char *dir, uint64_t seed, int k, char *err,
		   size_t errlen)
{
	int made, rc = fs_file(dir, st->size, seed, st->path, sizeof(st->path), &made, err,
			       errlen);

	if (rc)
		return rc;
	st->fd[k] = open(st->path, O_RDONLY | O_CLOEXEC | (st->direct ? O_DIRECT : 0));
	if (st->fd[k] < 0) {
		rc = -errno;
		snprintf(err, errlen, "open '%s'%s: %s", st->path, st->direct ? " O_DIRECT" : "",
			 strerror(-rc));
		return rc;
	}
	if (!st->direct) {
		uint64_t s = 0;

		(void)posix_fadvise(st->fd[k], 0, 0, POSIX_FADV_RANDOM);
		rc = fs_warm(st->fd[k], st->size, &s, err, errlen);
		st->sum += s;
	}
	return rc;
}

static int fc_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct fc_cfg *c = cfg;
	struct fc_state *st = state;
	size_t mem = 0, off = 0;
	char dir[4096];
	int rc;

	for (int i = 0; i < FC_MAXR; i++)
		st->fd[i] = -1;
	st->n = (int)c->readers;
	st->threads = c->mode == FC_THREAD;
	st->direct = c->cache == FC_DIRECT;
	st->random = c->order == FC_RANDOM;
	st->one = c->timed == FC_TIMED_ONE && c->readers > 1;
	st->block = c->block;
	st->size = c->size / c->block * c->block;
	st->nblocks = st->size / st->block;
	st->max_iter = 1u << 16;
	st->nfd = c->file == FC_SHARED ? 1 : st->n;
	if (st->nblocks < 2) {
		snprintf(err, errlen, "the file holds fewer than 2 blocks");
		return -EINVAL;
	}
	if ((rc = fs_dir(c->dir, dir, sizeof(dir), err, errlen)) != 0)
		return rc;
	for (int k = 0; k < st->nfd; k++)
		if ((rc = fc_open(st, dir, (uint64_t)c->seed + (uint64_t)k, k, err, errlen)) != 0)
			return rc;
	if (st->direct) {
		fs_dio_align(st->fd[0], &mem, &off);
		if (st->block % off) {
			snprintf(err, errlen, "block %llu is not a multiple of the O_DIRECT offset "
				 "alignment %zu", (unsigned long long)st->block, off);
			return -EINVAL;
		}
	}
	for (int i = 0; i < st->n; i++) {
		st->buf[i] = aligned_alloc(4096, (size_t)((st->block + 4095) / 4096 * 4096));
		st->order[i] = fs_order(st->nblocks, st->random,
					h->seed ^ (0x66735f636f6e7465ull + (uint64_t)i));
		if (!st->buf[i] || !st->order[i])
			return -ENOMEM;
		/* sequential readers of one file start at their own share of it */
		st->pos[i] = st->nfd == 1 ? st->nblocks / (uint64_t)st->n * (uint64_t)i : 0;
	}
	st->shlen = sizeof(*st->sh) + (size_t)st->n * st->max_iter * sizeof(double);
	st->sh = mmap(NULL, st->shlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->sh == MAP_FAILED) {
		st->sh = NULL;
		snprintf(err, errlen, "mmap shared memory: %s", strerror(errno));
		return -ENOMEM;
	}
	st->all = malloc((size_t)st->n * st->max_iter * sizeof(double));
	if (!st->all)
		return -ENOMEM;
	for (int i = 0; i < st->n; i++) {
		if (st->threads) {
			fc_args[i].st = st;
			fc_args[i].i = i;
			rc = pthread_create(&st->tid[i], NULL, fc_thread, &fc_args[i]);
			if (rc) {
				snprintf(err, errlen, "pthread_create: %s", strerror(rc));
				return -rc;
			}
		} else {
			pid_t parent = getpid(), p = fork();

			if (p < 0) {
				rc = -errno;
				snprintf(err, errlen, "fork: %s", strerror(-rc));
				return rc;
			}
			if (p == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				if (getppid() != parent)
					_exit(0);
				fc_loop(st, i);
				_exit(0);
			}
			st->pid[i] = p;
		}
		st->started = i + 1;
	}
	return 0;
}

static int fc_calibrate(void *state, uint64_t *iterations, char *err, size_t errlen)
{
	const struct fc_state *st = state;

	(void)err, (void)errlen;
	*iterations = st->direct ? 16 : 256;
	return 0;
}

static int fc_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct fc_state *st = state;
	uint64_t first = UINT64_MAX, last = 0, ticks = 0;
	double slow = 0, fast = INFINITY;
	size_t m = 0;
	uint64_t bg = 0;
	uint32_t d;

	if (iterations > st->max_iter)
		iterations = st->max_iter;
	st->sh->iterations = iterations;
	atomic_store(&st->sh->done, 0);
	atomic_store(&st->sh->stop, 0);
	atomic_store(&st->sh->bg_running, 0);
	atomic_fetch_add(&st->sh->gen, 1);
	fc_futex(&st->sh->gen, FUTEX_WAKE, INT32_MAX);
	while ((d = atomic_load(&st->sh->done)) < (uint32_t)st->n) {
		fc_futex(&st->sh->done, FUTEX_WAIT, d);
		if (!st->threads)	/* a reader process that died never reports */
			for (int i = 0; i < st->n; i++)
				if (waitpid(st->pid[i], NULL, WNOHANG) == st->pid[i]) {
					st->pid[i] = 0;
					snprintf(err, errlen, "reader process %d died", i);
					return -ECHILD;
				}
	}
	for (int i = 0; i < st->n; i++) {
		const struct fc_reader *r = &st->sh->r[i];
		const double *lat = st->sh->lat + (size_t)i * st->max_iter;
		double mean;

		if (r->err) {
			snprintf(err, errlen, "%s", r->msg);
			return -r->err;
		}
		first = r->t0 < first ? r->t0 : first;
		last = r->t1 > last ? r->t1 : last;
		st->sum += r->sum;
		if (st->one && i > 0) {		/* background: counted, not timed */
			bg += r->blocks;
			continue;
		}
		ticks += r->ticks;
		mean = pt_ticks_to_ns(r->ticks, h->tsc_hz) / 1000.0 / (double)iterations;
		slow = mean > slow ? mean : slow;
		fast = mean < fast ? mean : fast;
		for (uint64_t k = 0; k < iterations; k++)	/* ticks, exact in a double */
			st->all[m + k] = pt_ticks_to_ns((uint64_t)lat[k], h->tsc_hz);
		m += (size_t)iterations;
	}
	st->bytes += ((uint64_t)m + bg) * st->block;
	out->value = pt_ticks_to_ns(ticks, h->tsc_hz) / 1000.0 / (double)m;
	out->extra[FC_M_AGG] = ((double)m + (double)bg) * (double)st->block / 1048576.0 /
			       (pt_ticks_to_ns(last - first, h->tsc_hz) * 1e-9);
	out->extra[FC_M_SLOW] = slow;
	out->extra[FC_M_FAST] = fast;
	out->extra[FC_M_P50] = fs_quantile(st->all, m, 0.5) / 1000.0;
	out->extra[FC_M_P99] = fs_quantile(st->all, m, 0.99) / 1000.0;
	out->extra[FC_M_N] = st->n;
	out->extra[FC_M_BG] = (double)bg;
	return 0;
}

static int fc_sanity(void *state, char *err, size_t errlen)
{
	const struct fc_state *st = state;

	return fs_sanity_sum(st->bytes, st->sum, err, errlen);
}

static void fc_teardown(void *state)
{
	struct fc_state *st = state;

	if (st->sh) {
		atomic_store(&st->sh->quit, 1);
		atomic_fetch_add(&st->sh->gen, 1);
		fc_futex(&st->sh->gen, FUTEX_WAKE, INT32_MAX);
	}
	for (int i = 0; i < st->started; i++) {
		if (st->threads)
			pthread_join(st->tid[i], NULL);
		else if (st->pid[i] > 0)
			waitpid(st->pid[i], NULL, 0);
	}
	if (st->sh)
		munmap(st->sh, st->shlen);
	for (int i = 0; i < FC_MAXR; i++) {
		if (st->fd[i] >= 0)
			close(st->fd[i]);
		free(st->buf[i]);
		free(st->order[i]);
	}
	free(st->all);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "fs_contention",
	.version = "1.1",
	.summary = "block read time with N concurrent readers (processes or threads)",
	.unit = "us",
	.bigger_is_better = 0,
	.params = fc_params,
	.metrics = fc_metrics,
	.config_size = sizeof(struct fc_cfg),
	.state_size = sizeof(struct fc_state),
	.needs_counter_hz = 1,
	.calibrate = fc_calibrate,
	.setup = fc_setup,
	.sample = fc_sample,
	.sanity = fc_sanity,
	.teardown = fc_teardown,
};
