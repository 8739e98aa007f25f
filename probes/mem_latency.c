/*
 * mem_latency - memory access time by working-set size: the lmbench
 * lat_mem_rd staircase, one step per cache level.
 *
 * What:   the time of one load whose address depends on the previous load
 *         (pointer chasing), so loads cannot overlap: each one pays the
 *         full latency of the level of the memory hierarchy that holds a
 *         working set of `size` bytes.
 * Unit:   ns per load (the report converts to TSC ticks).
 * Method: the buffer is cut into size/stride slots; the first 8 bytes of
 *         each slot hold a pointer to the next slot of a cyclic
 *         permutation that visits every slot exactly once:
 *           random      one random cycle (Sattolo's algorithm, seeded from
 *                       host->seed): the next line is unpredictable, which
 *                       defeats the hardware prefetchers;
 *           sequential  slot i -> i+1 (upwards by `stride`): what the
 *                       prefetchers do best, a lower bound;
 *           stride      slot i -> i-1 (downwards by `stride`): the order of
 *                       lmbench's lat_mem_rd, for side-by-side comparison.
 *         The buffer is an anonymous mmap aligned to 2 MiB, with
 *         madvise(MADV_HUGEPAGE) or (MADV_NOHUGEPAGE) as `hugepages` says,
 *         so the result does not depend on the system's THP setting; every
 *         page is written before the chain is built, and setup walks the
 *         whole chain once (checking it is one cycle through every slot,
 *         which also warms the caches).  A sample performs `iterations`
 *         loads (rounded up to a multiple of 16), unrolled 16 per loop
 *         iteration (`mov (%rax),%rax` x 16), timed with one pt_start/
 *         pt_stop pair; the walk resumes where the previous sample stopped
 *         and the final pointer is sunk.  The loop's increment and branch
 *         do not depend on the chain and execute in its shadow, so they
 *         are not on the critical path and nothing is subtracted (at 16
 *         loads per iteration they would be < 0.1 cycle per load anyway).
 *         The thread's CPU time (CLOCK_THREAD_CPUTIME_ID) is read around
 *         the timed region: a sample during which the thread was off its
 *         CPU for more than 2 % of the wall time (another task ran there;
 *         with steal-time accounting, the host ran another guest) is taken
 *         again, up to 5 times (metric `retries`), then returned flagged
 *         invalid: its time is not the loads' (metric `off_cpu_share`).
 * Confounders: `size` is the span of the slots; with stride > 64 only one
 *         line per slot is touched, so the cache footprint is size/stride
 *         lines, and large power-of-two strides map into few cache sets
 *         (stride 4096 fills an 8-way L1 after 8 slots).  With 4 KiB pages
 *         (hugepages false) large random working sets also miss the TLB
 *         on every load: the DRAM plateau includes a page walk (in a KVM
 *         guest a two-dimensional one), and `hugepages: true` separates the
 *         two; whether huge pages were really granted is the metric
 *         `hugepage_share` and a sanity flag (in a guest whose memory the
 *         host backs with 4 KiB pages, the TLB still caches 4 KiB
 *         translations and large working sets still miss it).  A size below stride still
 *         gets one slot (a one-line working set).  In a VM the L3 is
 *         shared with other guests: its effective size and the DRAM
 *         latency move with their load.  ns come from the calibrated TSC;
 *         TSC ticks equal core cycles only at a fixed core clock.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "probe.h"
#include "probe_time.h"

#define ML_UNROLL 16
#define ML_HUGE (2u << 20)

enum ml_pattern { ML_RANDOM, ML_SEQUENTIAL, ML_STRIDE };

struct ml_state {
	const struct probe_host *host;
	char *map;		/* mmap'ed region (map_len bytes) */
	size_t map_len;
	char *buf;		/* 2 MiB-aligned start of the slots */
	size_t nslots, stride;
	int hugepages;
	double huge_share;	/* fraction of the slots' span on huge pages */
	void **cur;		/* where the next sample resumes */
};

struct ml_cfg {
	uint64_t size, stride;
	int pattern;			/* enum ml_pattern */
	int hugepages;
};

static const char *const ml_pattern_names[] = { "random", "sequential", "stride" };

static const struct probe_param ml_params[] = {
	PROBE_PARAM_SIZE(struct ml_cfg, size, "16MiB",
		"working-set span in bytes (slots = size / stride)", 8, 1099511627776.0),
	PROBE_PARAM_SIZE(struct ml_cfg, stride, "64",
		"bytes between slots; a multiple of 8 (64 = one load per line)", 8, 1073741824.0),
	PROBE_PARAM_CHOICE(struct ml_cfg, pattern, "random",
		"order of the chain: random cycle, sequential (up), stride (down, as lat_mem_rd)",
		{ "random", ML_RANDOM }, { "sequential", ML_SEQUENTIAL }, { "stride", ML_STRIDE }),
	PROBE_PARAM_BOOL(struct ml_cfg, hugepages, "false",
		"madvise(MADV_HUGEPAGE) the buffer (false: MADV_NOHUGEPAGE)"),
	PROBE_PARAM_END,
};

static const struct probe_metric ml_metrics[] = {
	{ .name = "hugepage_share", .unit = "ratio",
	  .help = "fraction of the buffer backed by transparent huge pages" },
	{ .name = "off_cpu_share", .unit = "ratio",
	  .help = "fraction of the sample the thread did not run (other tasks, host steal)" },
	{ .name = "retries", .unit = "count",
	  .help = "samples discarded and taken again because the thread was off its cpu" },
	{ .name = NULL },
};

/* A sample is invalid when the thread was off its CPU for more than this
   fraction of it: the time is then someone else's, not the loads'. */
#define ML_MAX_OFF_CPU 0.02
/* ... and is taken again, up to this many times in all, before it is
   returned flagged. */
#define ML_TRIES 5

/* splitmix64: small, seedable, good enough to shuffle. */
static uint64_t ml_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (Lemire's multiply-shift; bias < n / 2^64). */
static size_t ml_below(uint64_t *s, size_t n)
{
	return (size_t)(((unsigned __int128)ml_rand(s) * n) >> 64);
}

static inline void **ml_slot(const struct ml_state *st, size_t i)
{
	return (void **)(st->buf + i * st->stride);
}

static void ml_build(struct ml_state *st, enum ml_pattern pat, uint64_t seed)
{
	size_t n = st->nslots;

	switch (pat) {
	case ML_SEQUENTIAL:
		for (size_t i = 0; i < n; i++)
			*ml_slot(st, i) = ml_slot(st, (i + 1) % n);
		break;
	case ML_STRIDE:
		for (size_t i = 0; i < n; i++)
			*ml_slot(st, i) = ml_slot(st, (i + n - 1) % n);
		break;
	case ML_RANDOM:
		/* Sattolo: start from the identity, swap each i with a j < i;
		   the result, read as slot -> *slot, is a single n-cycle. */
		for (size_t i = 0; i < n; i++)
			*ml_slot(st, i) = ml_slot(st, i);
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = ml_below(&seed, i);
			void *t = *ml_slot(st, i);

			*ml_slot(st, i) = *ml_slot(st, j);
			*ml_slot(st, j) = t;
		}
		break;
	}
}

/* Walk the chain from slot 0: it must come back to slot 0 for the first
   time after exactly nslots steps, every step landing on a slot.  Then
   every slot is visited exactly once. */
static int ml_verify(const struct ml_state *st, char *err, size_t errlen)
{
	void **start = ml_slot(st, 0), **p = start;
	const char *lo = st->buf, *hi = st->buf + st->nslots * st->stride;

	for (size_t k = 1; k <= st->nslots; k++) {
		const char *q = *p;

		if (q < lo || q >= hi || (size_t)(q - lo) % st->stride) {
			snprintf(err, errlen, "chain step %zu leaves the slots", k);
			return -EFAULT;
		}
		p = (void **)q;
		if (p == start && k != st->nslots) {
			snprintf(err, errlen, "chain is a cycle of %zu slots, not %zu",
				 k, st->nslots);
			return -EFAULT;
		}
	}
	if (p != start) {
		snprintf(err, errlen, "chain does not return to its start after %zu slots",
			 st->nslots);
		return -EFAULT;
	}
	return 0;
}

/* Share of [addr, addr+len) on transparent huge pages, from /proc/self/smaps
   (AnonHugePages of the mapping that contains addr); NaN if unknown. */
static double ml_huge_share(const void *addr, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[256];
	int in = 0;
	double share = NAN;

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b, kib;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			in = (uintptr_t)addr >= a && (uintptr_t)addr < b;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %lu kB", &kib) == 1) {
			share = (double)kib * 1024.0 / (double)len;
			if (share > 1)
				share = 1;
			break;
		}
	}
	fclose(f);
	return share;
}

/* What no machine can measure (setup and `runner check` both ask). */
static int ml_check(const void *cfg, char *err, size_t errlen)
{
	const struct ml_cfg *c = cfg;
	size_t stride = (size_t)c->stride;

	if (stride < sizeof(void *) || stride % sizeof(void *)) {
		snprintf(err, errlen, "stride %zu is not a multiple of %zu", stride,
			 sizeof(void *));
		return -EINVAL;
	}
	return 0;
}

static int ml_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct ml_cfg *c = cfg;
	struct ml_state *st = state;
	double size = (double)c->size;
	size_t stride = (size_t)c->stride;
	enum ml_pattern pattern = (enum ml_pattern)c->pattern;
	const char *pat = ml_pattern_names[pattern];
	size_t span, len;
	int rc;

	if ((rc = ml_check(cfg, err, errlen)) != 0)
		return rc;
	st->host = h;
	st->stride = stride;
	st->nslots = (size_t)(size / (double)stride);
	if (st->nslots < 1)
		st->nslots = 1;
	st->hugepages = c->hugepages;

	/* Whole 2 MiB extents, 2 MiB-aligned: small buffers land in one
	   huge page when asked for, and never straddle one when not. */
	span = st->nslots * stride;
	len = (span + ML_HUGE - 1) / ML_HUGE * ML_HUGE;
	st->map_len = len + ML_HUGE;
	st->map = mmap(NULL, st->map_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (st->map == MAP_FAILED) {
		rc = -errno;
		st->map = NULL;
		snprintf(err, errlen, "mmap %zu bytes: %s", st->map_len, strerror(-rc));
		return rc;
	}
	st->buf = (char *)(((uintptr_t)st->map + ML_HUGE - 1) & ~(uintptr_t)(ML_HUGE - 1));
	if (madvise(st->buf, len, st->hugepages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0) {
		/* No THP in this kernel: 4 KiB pages is all there is. */
		if (st->hugepages) {
			rc = errno;
			snprintf(err, errlen, "madvise(MADV_HUGEPAGE): %s: no transparent "
				 "huge pages here", strerror(rc));
			return rc == EINVAL ? PROBE_SKIP : -rc;
		}
	}
	/* Touch every page (and the lines between) before timing anything. */
	memset(st->buf, 0, len);
	ml_build(st, pattern, h->seed ^ 0x6d656d5f6c6174ull);
	rc = ml_verify(st, err, errlen);
	if (rc)
		return rc;
	st->huge_share = ml_huge_share(st->buf, len);	/* NaN if unknown */
	st->cur = ml_slot(st, pattern == ML_STRIDE ? st->nslots - 1 : 0);
	if (h->log)
		h->log(h, PROBE_LOG_DEBUG, "mem_latency: %zu slots of %zu bytes, %s, "
		       "huge pages %s (%.0f%% granted)", st->nslots, stride, pat,
		       st->hugepages ? "asked" : "refused", st->huge_share * 100);
	return 0;
}

/* The timed loop: noinline so its code is the same whatever inlines it. */
static __attribute__((noinline)) void **ml_chase(void **p, uint64_t loops)
{
	while (loops--) {
#define ML_LOAD p = (void **)*p;
		ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD
		ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD ML_LOAD
#undef ML_LOAD
	}
	return p;
}

static int ml_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct ml_state *st = state;
	uint64_t loops, t0, t1, w0, w1, c0, c1;
	double off = NAN;
	int tries = 0;
	void **p;

	(void)err, (void)errlen;
	loops = (iterations + ML_UNROLL - 1) / ML_UNROLL;
	do {
		p = st->cur;
		c0 = pt_thread_cpu_ns();
		w0 = pt_clock_ns();
		t0 = pt_start();
		p = ml_chase(p, loops);
		t1 = pt_stop();
		w1 = pt_clock_ns();
		c1 = pt_thread_cpu_ns();
		pt_sink_ptr(p);
		st->cur = p;
		if (c0 && c1 && w1 > w0) {
			off = 1.0 - (double)(c1 - c0) / (double)(w1 - w0);
			if (off < 0)
				off = 0;
		}
	} while (off > ML_MAX_OFF_CPU && ++tries < ML_TRIES);
	out->value = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / (double)(loops * ML_UNROLL);
	out->extra[0] = st->huge_share;
	out->extra[1] = off;
	out->extra[2] = tries < ML_TRIES ? tries : ML_TRIES - 1;
	if (off > ML_MAX_OFF_CPU) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof(out->note), "off the cpu for %.1f%% of the sample "
			 "in %d tries (other tasks or the host ran)", off * 100, ML_TRIES);
	}
	return 0;
}

static int ml_sanity(void *state, char *err, size_t errlen)
{
	const struct ml_state *st = state;

	if (st->hugepages && !(st->huge_share >= 0.5)) {
		snprintf(err, errlen, "huge pages asked for but only %.0f%% of the buffer "
			 "is on them (THP off or memory fragmented)", st->huge_share * 100);
		return -1;
	}
	return 0;
}

static void ml_teardown(void *state)
{
	struct ml_state *st = state;

	if (st->map)
		munmap(st->map, st->map_len);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "mem_latency",
	.version = "1.0",
	.summary = "dependent-load latency through a cyclic chain of size/stride slots",
	.unit = "ns",
	.bigger_is_better = 0,
	.params = ml_params,
	.metrics = ml_metrics,
	.config_size = sizeof(struct ml_cfg),
	.state_size = sizeof(struct ml_state),
	.needs_counter_hz = 1,
	.iterations_hint = 1u << 14,
	.setup = ml_setup,
	.sample = ml_sample,
	.sanity = ml_sanity,
	.teardown = ml_teardown,
	.check = ml_check,
};
