/*
 * mem_bandwidth - memory bandwidth: read, write (plain and non-temporal),
 * copy, and libc's memset/memcpy for reference, with 1..N threads.
 *
 * What:   how many bytes per second the cores move between registers and
 *         the level of the hierarchy that holds `size` bytes; with the
 *         default size (8 x the last-level cache the runner found, capped
 *         at 1 GiB or 2 x LLC; 512 MiB when no LLC is known or the one
 *         reported is implausible for the guest) that is DRAM.  The size
 *         used is recorded in every sample (metric buffer_bytes), and with
 *         the default size a per-thread share within 2 x the LLC is a
 *         sanity flag.
 * Unit:   GB/s (10^9 bytes per second), bigger is better.  Bytes are
 *         counted as STREAM does: read, write, write_nt and memset count
 *         the bytes of the buffer once per pass; copy and memcpy count the
 *         bytes read plus the bytes written (2 x the buffer per pass).  The
 *         extra read that a plain store causes (write-allocate, "read for
 *         ownership") is not counted, as in STREAM: that is why write_nt,
 *         which skips it, can beat write.
 * Method: `size` bytes per array are split into `threads` slices (page
 *         aligned); each thread is pinned to its own CPU, (host->cpu + i)
 *         mod ncpus, and allocates and first-touches its own slice (and,
 *         for copy/memcpy, its own source slice of the same size) so the
 *         memory is local to it.  One operation (`iterations` counts them)
 *         is one 64 KiB block per thread (for memset and memcpy, which
 *         choose their method by size, the whole slice in one call): each
 *         thread streams through its slice as a ring, a sample going on
 *         where the previous one stopped, so a sample can be short (a few
 *         ms, inside one scheduler slice) and still read memory last
 *         touched a whole slice ago: with the default size, from DRAM.
 *         The threads are
 *         released together: they block on a barrier, then spin until the
 *         last one is ready and the sampling thread says go; the sample is
 *         the time from the earliest thread's start to the latest thread's
 *         finish (CLOCK_MONOTONIC_RAW, comparable across CPUs).  Each
 *         thread's CPU time is read around its run: a sample in which a
 *         thread was off its CPU for more than 2 % of its run (another
 *         task ran there) is taken again (metric `retries`): at least 5
 *         tries, and more while the tries have taken less than a budget of
 *         20 x the first try, at least 1 s and at most 2 s (a busy laptop
 *         leaves short quiet stretches: a 2 ms sample finds one, a 100 ms
 *         memcpy of the whole slice may not).  A sample whose budget ran
 *         out is returned flagged invalid with the figures of its best try
 *         (the lowest off-CPU share, metric `off_cpu_share`) and a note
 *         that begins "off the cpu for": the runner then reports the point
 *         skipped with the share other tasks took, not failed
 *         (docs/methodology.md, "A CPU that is never quiet").  After such
 *         a sample the CPUs are busy for longer than a sample lasts: the
 *         next samples of the process get one try each until one is valid
 *         again, so a point on CPUs that are never quiet costs one budget,
 *         not one per sample.
 *         The loops (arch/mem_loops.h) use SSE2 intrinsics on x86-64
 *         (baseline, no -march needed) and NEON on aarch64, with the same
 *         shapes: read sums 16-byte loads into 4 independent accumulators
 *         (128 bytes per iteration) and the sum is sunk and checked by
 *         sanity() against the pattern the slice holds; write stores
 *         16-byte vectors; write_nt uses _mm_stream_si128 (movntdq) and an
 *         sfence before the clock stops (x86-64 only: skipped on aarch64,
 *         which has no store that surely bypasses the caches); copy is a load/store pair per 16
 *         bytes; sanity() finds what they wrote in the destination, which
 *         started as zeroes.  The compiler must assume
 *         the written memory is read afterwards (pt_escape), and the loops
 *         are kept from being turned into libc calls, so the figure is the
 *         loop as written; memset/memcpy measure glibc's own (AVX2/ERMS)
 *         routines.  Other architectures use portable 64-bit loops.
 * Confounders: sizes that fit in a cache measure that cache, and there
 *         16-byte SSE2 accesses stay below the L1/L2 peak of cores that can
 *         do 32- or 64-byte loads (memcpy may then win).  Threads share the
 *         memory controllers with other guests of the host: peak (max)
 *         and mean differ by their load.  With more threads than free CPUs
 *         the slowest thread sets the time (metric `imbalance`: slowest
 *         over fastest thread time, minus 1).  Pages are 4 KiB unless
 *         `hugepages` is set; TLB misses cost little on a streaming access
 *         but are not zero.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "probe_time.h"

#define MB_SIZE_CAP (1024.0 * 1024 * 1024)	/* default size: at most this, or 2 x LLC */
/* The default when no LLC is known (host->llc_bytes 0: none found, or a
   socket-wide L3 a small guest cannot own): large against any cache a
   guest really has (32 MiB per CCD, 1-2 MiB L2), small enough that every
   round's first touch stays short. */
#define MB_SIZE_UNKNOWN (512.0 * 1024 * 1024)
#define MB_MAX_THREADS 256
#define MB_CHUNK 256		/* slice sizes are a multiple of this */
#define MB_BLOCK (64u << 10)	/* one operation: this many bytes per thread */
#define MB_SET_BYTE 0x5a	/* what memset writes */
/* The source of copy/memcpy starts this far into its mapping, so that the
   source and the destination are not a power of two apart (two freshly
   mapped arrays of 2^k bytes lie exactly 2^k apart, and may then pair
   lines that fall into the same cache sets and DRAM banks): a precaution,
   as STREAM's OFFSET. */
#define MB_SRC_SKEW (17 * 4096 + 3 * 64)
#define MB_PATTERN 0x0000000100000001ull	/* not a byte splat: never a memset */

enum mb_op { MB_READ, MB_WRITE, MB_WRITE_NT, MB_COPY, MB_MEMSET, MB_MEMCPY };


struct mb_state;

struct mb_thread {
	struct mb_state *st;
	int index, cpu;
	pthread_t tid;
	int started;
	char *dst, *src;	/* slices (src only for copy/memcpy) */
	char *src_map;		/* src's mapping: src - MB_SRC_SKEW */
	size_t bytes;		/* slice size: a multiple of block */
	size_t block;		/* bytes per operation: MB_BLOCK, or the slice */
	size_t pos;		/* where the next block starts (a ring) */
	uint64_t sum;		/* read: accumulated over all blocks */
	uint64_t blocks;	/* blocks done */
	uint64_t t0, t1;	/* ns, CLOCK_MONOTONIC_RAW */
	uint64_t c0, c1;	/* ns of this thread's CPU time */
	int err;		/* setup error (errno) */
	char what[64];		/* what failed */
} __attribute__((aligned(64)));

struct mb_state {
	const struct probe_host *host;
	enum mb_op op;
	int nthreads, hugepages;
	size_t slice;
	uint64_t llc;			/* host->llc_bytes when the size was defaulted
					   (meant to be DRAM); 0: unknown, or a size
					   the spec chose (a cache, on purpose) */
	struct mb_thread *th;
	pthread_barrier_t arm;
	int barrier_ok;
	_Atomic int ready __attribute__((aligned(64)));
	_Atomic unsigned go __attribute__((aligned(64)));
	_Atomic int done __attribute__((aligned(64)));
	uint64_t iterations;
	int quit;
	unsigned gen;
	int busy;			/* the last sample ran out of its budget: one
					   try per sample until one is valid */
};

/* One try of a sample: its figures. */
struct mb_try {
	double value, imbalance, off;	/* GB/s; slowest/fastest - 1; off-CPU share */
};

struct mb_cfg {
	int op;				/* enum mb_op */
	uint64_t size;
	int64_t threads;
	int hugepages;
};

static const struct probe_param mb_params[] = {
	PROBE_PARAM_CHOICE(struct mb_cfg, op, "read",
		"read | write | write_nt (non-temporal) | copy | memset | memcpy (libc)",
		{ "read", MB_READ }, { "write", MB_WRITE }, { "write_nt", MB_WRITE_NT },
		{ "copy", MB_COPY }, { "memset", MB_MEMSET }, { "memcpy", MB_MEMCPY }),
	PROBE_PARAM_SIZE(struct mb_cfg, size, "0",
		"bytes per array, split among the threads; 0 = 8 x the LLC, at most 1 GiB or 2 x LLC "
		"(512 MiB when no LLC is known)",
		0, 1099511627776.0),
	PROBE_PARAM_INT(struct mb_cfg, threads, "1",
		"threads, each pinned to its own CPU (at most the online CPUs)",
		1, MB_MAX_THREADS),
	PROBE_PARAM_BOOL(struct mb_cfg, hugepages, "false",
		"madvise(MADV_HUGEPAGE) the slices (false: MADV_NOHUGEPAGE)"),
	PROBE_PARAM_END,
};

static const struct probe_metric mb_metrics[] = {
	{ .name = "imbalance", .unit = "ratio",
	  .help = "slowest thread's time over the fastest's, minus 1" },
	{ .name = "off_cpu_share", .unit = "ratio",
	  .help = "largest fraction of its run a thread did not run (other tasks, host steal); "
		  "over 0.02 the sample is invalid, with its best try's figures" },
	{ .name = "retries", .unit = "count",
	  .help = "tries discarded because a thread was off its cpu over 2 % of its run: at "
		  "least 5 tries, more until 20 x the first try (1-2 s) is spent" },
	{ .name = "buffer_bytes", .unit = "bytes",
	  .help = "bytes per array actually used, all threads' slices together" },
	{ .name = NULL },
};

/* A sample is invalid when a thread was off its CPU for more than this
   fraction of its run: the time is then someone else's. */
#define MB_MAX_OFF_CPU 0.02
/* ... and is taken again: at least this many tries in all, */
#define MB_MIN_TRIES 5
/* ... and more while the tries have taken less than MB_BUDGET_TRIES x the
   first try, but at least MB_BUDGET_MIN_NS and at most MB_BUDGET_MAX_NS:
   a short sample gets hundreds of chances to land in a quiet stretch, a
   long one a few.  After a sample whose budget ran out, one try per sample
   (mb_state.busy): a point on CPUs that are never quiet spends one budget,
   not one per sample, and stays far inside its timeout. */
#define MB_BUDGET_TRIES 20
#define MB_BUDGET_MIN_NS 1000000000ull
#define MB_BUDGET_MAX_NS 2000000000ull

/* ---- the loops ------------------------------------------------------- */

#define MB_NO_LIBCALL __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))

/* mb_read, mb_write, mb_write_nt, mb_copy: SSE2 on x86-64, NEON on
   aarch64, portable C elsewhere (arch/mem_loops.h). */
#include "arch/mem_loops.h"

/* One operation of thread t: the next block of its slice (a ring). */
static void mb_block(struct mb_thread *t, enum mb_op op)
{
	char *d = t->dst + t->pos;
	const char *src = t->src ? t->src + t->pos : NULL;

	switch (op) {
	case MB_READ:
		t->sum += mb_read(d, t->block);
		break;
	case MB_WRITE:
		mb_write(d, t->block, MB_PATTERN);
		break;
	case MB_WRITE_NT:
		mb_write_nt(d, t->block, MB_PATTERN);
		break;
	case MB_COPY:
		mb_copy(d, src, t->block);
		break;
	case MB_MEMSET:
		memset(d, MB_SET_BYTE, t->block);
		break;
	case MB_MEMCPY:
		memcpy(d, src, t->block);
		break;
	}
	pt_escape(d);
	t->pos += t->block;
	if (t->pos >= t->bytes)
		t->pos = 0;
}

/* ---- threads ----------------------------------------------------------- */

static int mb_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static char *mb_alloc(size_t bytes, int huge)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

static void mb_fill(char *p, size_t n, uint64_t value)
{
	uint64_t *v = (uint64_t *)p;

	for (size_t i = 0; i < n / 8; i++)
		v[i] = value;
}

/* Pin, allocate and first-touch this thread's slices (runs on its CPU). */
static int mb_thread_init(struct mb_thread *t)
{
	struct mb_state *st = t->st;
	int rc = mb_pin(t->cpu);

	if (rc) {
		snprintf(t->what, sizeof(t->what), "pin thread %d to cpu %d", t->index, t->cpu);
		return rc;
	}
	t->dst = mb_alloc(t->bytes, st->hugepages);
	if (!t->dst) {
		snprintf(t->what, sizeof(t->what), "mmap %zu bytes", t->bytes);
		return errno;
	}
	/* What is read holds the pattern; what is written starts as zeroes,
	   so sanity() can see the writes. */
	mb_fill(t->dst, t->bytes, st->op == MB_READ ? MB_PATTERN : 0);
	if (st->op == MB_COPY || st->op == MB_MEMCPY) {
		t->src_map = mb_alloc(t->bytes + MB_SRC_SKEW, st->hugepages);
		t->src = t->src_map ? t->src_map + MB_SRC_SKEW : NULL;
		if (!t->src) {
			snprintf(t->what, sizeof(t->what), "mmap %zu bytes", t->bytes);
			return errno;
		}
		mb_fill(t->src, t->bytes, MB_PATTERN);
	}
	return 0;
}

static inline void mb_relax(void)
{
	pt_cpu_relax();
}

static void mb_run(struct mb_thread *t, uint64_t iterations)
{
	enum mb_op op = t->st->op;

	t->c0 = pt_thread_cpu_ns();
	t->t0 = pt_clock_ns();
	for (uint64_t i = 0; i < iterations; i++)
		mb_block(t, op);
	if (op == MB_WRITE_NT)
		pt_store_fence();	/* the streamed stores are done before the clock stops */
	t->t1 = pt_clock_ns();
	t->c1 = pt_thread_cpu_ns();
	t->blocks += iterations;
}

static void *mb_worker(void *arg)
{
	struct mb_thread *t = arg;
	struct mb_state *st = t->st;

	t->err = mb_thread_init(t);
	pthread_barrier_wait(&st->arm);		/* setup done */
	for (;;) {
		unsigned gen;

		pthread_barrier_wait(&st->arm);	/* a sample, or quit */
		if (st->quit)
			break;
		gen = st->gen;
		atomic_fetch_add_explicit(&st->ready, 1, memory_order_acq_rel);
		while (atomic_load_explicit(&st->go, memory_order_acquire) != gen)
			mb_relax();
		mb_run(t, st->iterations);
		atomic_fetch_add_explicit(&st->done, 1, memory_order_acq_rel);
	}
	return NULL;
}

/* ---- hooks ------------------------------------------------------------ */

static int mb_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct mb_cfg *c = cfg;
	struct mb_state *st = state;
	double size = (double)c->size;
	int n = (int)c->threads, rc;

	st->host = h;
	st->op = (enum mb_op)c->op;
	if (st->op == MB_WRITE_NT && !MB_HAVE_NT) {
		snprintf(err, errlen, "%s", MB_NT_WHY_NOT);
		return PROBE_SKIP;
	}
	if (h->ncpus > 0 && n > h->ncpus) {
		snprintf(err, errlen, "threads %d > %d online cpus: each thread needs its own",
			 n, h->ncpus);
		return PROBE_SKIP;
	}
	if (size <= 0) {
		st->llc = h->llc_bytes;
		double llc = (double)h->llc_bytes;

		/* 8 x the LLC, as lmbench sizes its buffers, but at most 1 GiB
		   unless 2 x the LLC is more: every round of every point
		   first-touches the buffer again.  No LLC known: never a size
		   guessed from a missing fact, a large one. */
		size = llc > 0 ? 8.0 * llc : MB_SIZE_UNKNOWN;
		if (llc > 0 && size > MB_SIZE_CAP)
			size = 2.0 * llc > MB_SIZE_CAP ? 2.0 * llc : MB_SIZE_CAP;
		if (h->log)
			h->log(h, PROBE_LOG_INFO, "mem_bandwidth: size %.0f MiB (%s)",
			       size / 1048576, llc > 0 ? "8 x the last-level cache, capped"
						   : "no plausible last-level cache known: 512 MiB");
	}
	st->nthreads = n;
	st->hugepages = c->hugepages;
	st->slice = (size_t)(size / n) / MB_CHUNK * MB_CHUNK;
	if (st->slice > MB_BLOCK)
		st->slice = st->slice / MB_BLOCK * MB_BLOCK;
	if (st->slice == 0) {
		snprintf(err, errlen, "size %.0f is too small for %d threads (%d bytes each "
			 "at least)", size, n, MB_CHUNK);
		return -EINVAL;
	}
	st->th = aligned_alloc(64, sizeof(*st->th) * (size_t)n);
	if (!st->th)
		return -ENOMEM;
	memset(st->th, 0, sizeof(*st->th) * (size_t)n);
	for (int i = 0; i < n; i++) {
		st->th[i].st = st;
		st->th[i].index = i;
		st->th[i].bytes = st->slice;
		/* libc's routines pick their method by size (glibc streams
		   with non-temporal stores above a threshold near the LLC
		   size): they get the whole slice in one call. */
		st->th[i].block = st->slice < MB_BLOCK || st->op == MB_MEMSET ||
				  st->op == MB_MEMCPY ? st->slice : MB_BLOCK;
		st->th[i].cpu = h->cpu >= 0 && h->ncpus > 0 ? (h->cpu + i) % h->ncpus : -1;
	}
	if (n > 1) {
		rc = pthread_barrier_init(&st->arm, NULL, (unsigned)n);
		if (rc) {
			snprintf(err, errlen, "pthread_barrier_init: %s", strerror(rc));
			return -rc;
		}
		st->barrier_ok = 1;
		for (int i = 1; i < n; i++) {
			rc = pthread_create(&st->th[i].tid, NULL, mb_worker, &st->th[i]);
			if (rc) {
				/* Threads already waiting would block forever on
				   a barrier of n: give up on the whole process. */
				snprintf(err, errlen, "pthread_create: %s", strerror(rc));
				return -rc;
			}
			st->th[i].started = 1;
		}
	}
	st->th[0].err = mb_thread_init(&st->th[0]);
	if (n > 1)
		pthread_barrier_wait(&st->arm);
	for (int i = 0; i < n; i++)
		if (st->th[i].err) {
			snprintf(err, errlen, "%s: %s", st->th[i].what, strerror(st->th[i].err));
			return -st->th[i].err;
		}
	return 0;
}

static int mb_calibrate(void *state, uint64_t *iterations, char *err, size_t errlen)
{
	const struct mb_state *st = state;

	(void)err;
	(void)errlen;
	*iterations = st->th[0].block < st->slice ? 16 : 1;	/* about 1 MiB, or a pass */
	return 0;
}

/* Run every thread over `iterations` blocks of its slice, all starting together. */
static void mb_once(struct mb_state *st, uint64_t iterations)
{
	if (st->nthreads == 1) {
		mb_run(&st->th[0], iterations);
		return;
	}
	st->iterations = iterations;
	st->gen++;
	atomic_store(&st->ready, 0);
	atomic_store(&st->done, 0);
	pthread_barrier_wait(&st->arm);
	while (atomic_load_explicit(&st->ready, memory_order_acquire) < st->nthreads - 1)
		mb_relax();
	atomic_store_explicit(&st->go, st->gen, memory_order_release);
	mb_run(&st->th[0], iterations);
	while (atomic_load_explicit(&st->done, memory_order_acquire) < st->nthreads - 1)
		mb_relax();
}

/* The figures of the try mb_once just ran; -1 when the clock did not
   advance. */
static int mb_figures(const struct mb_state *st, uint64_t iterations, struct mb_try *out)
{
	uint64_t first = st->th[0].t0, last = st->th[0].t1, fast = UINT64_MAX, slow = 0;
	double bytes, off = 0;

	for (int i = 0; i < st->nthreads; i++) {
		const struct mb_thread *t = &st->th[i];

		if (t->t0 < first)
			first = t->t0;
		if (t->t1 > last)
			last = t->t1;
		if (t->t1 - t->t0 < fast)
			fast = t->t1 - t->t0;
		if (t->t1 - t->t0 > slow)
			slow = t->t1 - t->t0;
		if (t->c0 && t->c1 && t->t1 > t->t0) {
			double o = 1.0 - (double)(t->c1 - t->c0) / (double)(t->t1 - t->t0);

			if (o > off)
				off = o;
		}
	}
	if (last <= first)
		return -1;
	bytes = (double)st->th[0].block * st->nthreads * (double)iterations;
	if (st->op == MB_COPY || st->op == MB_MEMCPY)
		bytes *= 2;
	out->value = bytes / (double)(last - first);	/* bytes per ns = GB/s */
	out->imbalance = fast ? (double)slow / (double)fast - 1 : NAN;
	out->off = off;
	return 0;
}

static int mb_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct mb_state *st = state;
	struct mb_try cur, best = { NAN, NAN, INFINITY };
	uint64_t start = pt_clock_ns(), spent = 0, budget = MB_BUDGET_MIN_NS;
	int tries = 0;

	(void)h;
	for (;;) {
		mb_once(st, iterations);
		if (mb_figures(st, iterations, &cur) < 0) {
			snprintf(err, errlen, "the clock did not advance");
			return -EIO;
		}
		tries++;
		spent = pt_clock_ns() - start;
		if (tries == 1) {
			/* the budget: 20 x this sample's own length, 1-2 s */
			budget = spent > MB_BUDGET_MAX_NS / MB_BUDGET_TRIES ? MB_BUDGET_MAX_NS
				 : spent * MB_BUDGET_TRIES;
			if (budget < MB_BUDGET_MIN_NS)
				budget = MB_BUDGET_MIN_NS;
		}
		if (cur.off < best.off)
			best = cur;
		if (cur.off <= MB_MAX_OFF_CPU || st->busy ||
		    (tries >= MB_MIN_TRIES && spent >= budget))
			break;
	}
	st->busy = best.off > MB_MAX_OFF_CPU;
	out->value = best.value;
	out->extra[0] = best.imbalance;
	out->extra[1] = best.off;
	out->extra[2] = tries - 1;
	out->extra[3] = (double)st->slice * st->nthreads;
	if (best.off > MB_MAX_OFF_CPU) {
		/* "off the cpu for": the runner's mark of a sample spoiled by
		   other tasks (docs/probe-guide.md) */
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof(out->note), "off the cpu for %.1f%% of the sample (a "
			 "thread; the best of %d tries in %.2f s: other tasks or the host ran)",
			 best.off * 100, tries, (double)spent / 1e9);
	}
	return 0;
}

/* Did every byte really move?  read: the sum of all 64-bit words of all
   the blocks read; the writing ops: the last block written holds what they
   write (the destination started as zeroes). */
static int mb_sanity(void *state, char *err, size_t errlen)
{
	const struct mb_state *st = state;

	/* a default size means DRAM: each thread's slice should be far beyond
	   what the caches hold */
	if (st->llc && (double)st->slice <= 2.0 * (double)st->llc) {
		snprintf(err, errlen, "each thread's share of the buffer (%.1f MiB) is within 2 x the "
			 "last-level cache (%.1f MiB): caches may serve part of it, and N threads "
			 "can beat N x one", (double)st->slice / 1048576, (double)st->llc / 1048576);
		return -1;
	}

	for (int i = 0; i < st->nthreads; i++) {
		const struct mb_thread *t = &st->th[i];
		size_t last = (t->pos ? t->pos : t->bytes) - t->block;
		const uint64_t *w = (const uint64_t *)(t->dst + last);
		const unsigned char *b = (const unsigned char *)(t->dst + last);
		size_t nw = t->block / 8;

		if (t->blocks == 0)
			continue;
		switch (st->op) {
		case MB_READ: {
			uint64_t want = t->blocks * nw * MB_PATTERN;

			if (t->sum != want) {
				snprintf(err, errlen, "thread %d read sum %#llx, expected %#llx",
					 i, (unsigned long long)t->sum,
					 (unsigned long long)want);
				return -1;
			}
			break;
		}
		case MB_WRITE:
		case MB_WRITE_NT:
		case MB_COPY:
		case MB_MEMCPY:
			if (w[0] != MB_PATTERN || w[nw - 1] != MB_PATTERN) {
				snprintf(err, errlen, "thread %d: the written pattern is missing", i);
				return -1;
			}
			break;
		case MB_MEMSET:
			if (b[0] != MB_SET_BYTE || b[t->block - 1] != MB_SET_BYTE) {
				snprintf(err, errlen, "thread %d: memset's byte is missing", i);
				return -1;
			}
			break;
		}
	}
	return 0;
}

static void mb_teardown(void *state)
{
	struct mb_state *st = state;

	if (st->th && st->nthreads > 1 && st->barrier_ok) {
		int all = 1;

		for (int i = 1; i < st->nthreads; i++)
			all &= st->th[i].started;
		if (all) {
			st->quit = 1;
			pthread_barrier_wait(&st->arm);
			for (int i = 1; i < st->nthreads; i++)
				pthread_join(st->th[i].tid, NULL);
			pthread_barrier_destroy(&st->arm);
		}
		else
			return;	/* workers may still be touching their slices, or
				   wait on a barrier that can never fill: leave
				   everything to the exit of the runner's child */
	}
	if (st->th)
		for (int i = 0; i < st->nthreads; i++) {
			if (st->th[i].dst)
				munmap(st->th[i].dst, st->th[i].bytes);
			if (st->th[i].src_map)
				munmap(st->th[i].src_map, st->th[i].bytes + MB_SRC_SKEW);
		}
	free(st->th);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "mem_bandwidth",
	.version = "1.0",
	.summary = "memory bandwidth of read, write, copy (SSE2 loops) and libc memset/memcpy",
	.unit = "GB/s",
	.bigger_is_better = 1,
	.params = mb_params,
	.metrics = mb_metrics,
	.config_size = sizeof(struct mb_cfg),
	.state_size = sizeof(struct mb_state),
	.setup = mb_setup,
	.calibrate = mb_calibrate,
	.sample = mb_sample,
	.sanity = mb_sanity,
	.teardown = mb_teardown,
};
