/*
 * file_read - the time to read one block of a file: sequential or random
 * order, through the page cache (warm), from the device after eviction
 * (cold), or bypassing the guest's page cache (direct, O_DIRECT).
 *
 * What:   pread() of `block` bytes at block-aligned offsets of a test file
 *         of `size` bytes (real seeded data, see fs_common.h), in file order
 *         or in a seeded random permutation of the block offsets.
 * Unit:   µs per block; metrics p50_us and p99_us (per-block percentiles
 *         of the sample), mib_per_s, resident (share of the file in the
 *         page cache before the sample, mincore), evict (0 none, 1
 *         drop_caches, 2 fadvise), fs_type (statfs magic) and device
 *         (major*1000+minor) of the file, irq_cpu (fs_irq.h).
 * Method: each read is timed on its own (pt_start/pt_stop, tens of ns
 *         against µs per read); a sample reads `iterations` blocks
 *         continuing through the order, wrapping at the end.  cold:
 *         prepare() evicts the whole file and verifies with mincore (a
 *         point that cannot be made cold fails with the reason); a sample
 *         that reaches the end of the order evicts again, untimed.  warm:
 *         setup reads the whole file once.  direct: the file is opened
 *         O_DIRECT, the buffer and block aligned to statx's DIO alignment
 *         (else the logical block size).  Readahead: fadvise SEQUENTIAL or
 *         RANDOM to match the order.  The first 8 bytes of every block read
 *         are compared with the seeded data they must hold, and every byte
 *         is summed, so no read is skipped or served from elsewhere.
 * Confounders: on a virtual disk O_DIRECT bypasses only the guest's cache:
 *         the host may serve the image from its own page cache, so
 *         "direct" is the guest's I/O path plus whatever the host does.
 *         Cold sequential buffered reads profit from readahead (that is
 *         what they measure).  drop_caches empties the whole machine's
 *         clean page cache.  A reader blocked on the device is woken by the
 *         CPU that takes the completion interrupt: on another, idle vCPU
 *         that costs tens of us (metric irq_cpu beside the round's cpu;
 *         fs_irq.h), so the shipped spec does not pin the reader.
 */
#include "fs_common.h"
#include "fs_irq.h"
#include "probe_time.h"

enum { FR_M_P50, FR_M_P99, FR_M_MIBS, FR_M_RES, FR_M_EVICT, FR_M_FS, FR_M_DEV, FR_M_IRQ };
enum { FR_DIRECT, FR_COLD, FR_WARM };
enum { FR_SEQUENTIAL, FR_RANDOM };

/* Per-block times kept per sample for the percentiles (the rest still count). */
#define FR_LAT_MAX (1u << 20)

struct fr_cfg {
	const char *dir;
	uint64_t size, block;
	int order;		/* FR_SEQUENTIAL, FR_RANDOM */
	int cache;		/* FR_DIRECT, FR_COLD, FR_WARM */
	int64_t seed;
};

struct fr_state {
	int fd, cache, method;
	uint64_t size, block, nblocks, pos, seed, sum, bytes, expect;
	uint64_t *order;
	char *buf;
	double *lat, resident;
	struct fs_where where;
	struct fs_irq irq;
	char path[4096];
};

static const struct probe_param fr_params[] = {
	PROBE_PARAM_STRING(struct fr_cfg, dir, FS_DEFAULT_DIR,
		"directory of the test files (kept and reused across runs)"),
	PROBE_PARAM_SIZE(struct fr_cfg, size, "64MiB", "test file size", 4096, 1099511627776.0),
	PROBE_PARAM_SIZE(struct fr_cfg, block, "4KiB", "bytes per read", 512, 67108864),
	PROBE_PARAM_CHOICE(struct fr_cfg, order, "sequential",
		"file order, or a seeded random permutation of the block offsets",
		{ "sequential", FR_SEQUENTIAL }, { "random", FR_RANDOM }),
	PROBE_PARAM_CHOICE(struct fr_cfg, cache, "direct",
		"direct (O_DIRECT) | cold (buffered after eviction, verified) | warm (cached)",
		{ "direct", FR_DIRECT }, { "cold", FR_COLD }, { "warm", FR_WARM }),
	PROBE_PARAM_INT(struct fr_cfg, seed, "1", "content seed of the test file", 0, 1e15),
	PROBE_PARAM_END,
};

static const struct probe_metric fr_metrics[] = {
	[FR_M_P50] = { "p50_us", "us", "median time of one block read in the sample" },
	[FR_M_P99] = { "p99_us", "us", "99th percentile of one block read in the sample" },
	[FR_M_MIBS] = { "mib_per_s", "MiB/s", "bytes read over the summed read times" },
	[FR_M_RES] = { "resident", "ratio", "share of the file cached before the sample (mincore)" },
	[FR_M_EVICT] = { "evict", "code", "0 no eviction, 1 drop_caches, 2 posix_fadvise(DONTNEED)" },
	[FR_M_FS] = { "fs_type", "magic", "statfs f_type of the file system (0xEF53 ext4, ...)" },
	[FR_M_DEV] = { "device", "id", "device of the file system, major*1000+minor" },
	[FR_M_IRQ] = { "irq_cpu", "cpu",
		       "CPU that took most of the device's interrupts in the sample (-1 none)" },
	{ .name = NULL },
};

static int fr_check(const void *cfg, char *err, size_t errlen)
{
	const struct fr_cfg *c = cfg;

	return fs_check_block(c->block, c->size, err, errlen);
}

static int fr_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct fr_cfg *c = cfg;
	struct fr_state *st = state;
	char dir[4096];
	size_t mal = 0, oal = 0, align;
	int made, rc;

	st->fd = -1;
	st->cache = c->cache;
	st->block = c->block;
	st->seed = (uint64_t)c->seed;
	st->size = c->size / c->block * c->block;
	st->nblocks = st->size / st->block;
	if ((rc = fs_check_block(c->block, c->size, err, errlen)) != 0)
		return rc;
	rc = fs_dir(c->dir, dir, sizeof(dir), err, errlen);
	if (rc)
		return rc;
	rc = fs_file(dir, st->size, st->seed, st->path, sizeof(st->path), &made, err, errlen);
	if (rc)
		return rc;
	if (made && h->log)
		h->log(h, PROBE_LOG_INFO, "file_read: wrote '%s'", st->path);
	st->fd = open(st->path, O_RDONLY | O_CLOEXEC | (st->cache == FR_DIRECT ? O_DIRECT : 0));
	if (st->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "open '%s'%s: %s", st->path,
			 st->cache == FR_DIRECT ? " with O_DIRECT" : "", strerror(-rc));
		return rc == -EINVAL ? PROBE_SKIP : rc;
	}
	fs_where_of(st->fd, &st->where);
	fs_irq_find(makedev(st->where.dev_major, st->where.dev_minor), &st->irq);
	align = 4096;
	if (st->cache == FR_DIRECT) {
		fs_dio_align(st->fd, &mal, &oal);
		if (st->block % oal) {
			snprintf(err, errlen, "block %llu is not a multiple of the O_DIRECT "
				 "alignment %zu of '%s'", (unsigned long long)st->block, oal, dir);
			return -EINVAL;
		}
		if (mal > align)
			align = mal;
	}
	(void)posix_fadvise(st->fd, 0, 0,
			    c->order == FR_RANDOM ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
	if (posix_memalign((void **)&st->buf, align, (size_t)st->block) != 0) {
		st->buf = NULL;
		return -ENOMEM;
	}
	st->order = fs_order(st->nblocks, c->order == FR_RANDOM, h->seed ^ 0x66696c655f726561ull);
	if (!st->order)
		return -ENOMEM;
	st->method = h->privileged ? FS_EVICT_DROP : FS_EVICT_FADVISE;
	st->resident = NAN;
	if (st->cache == FR_WARM)
		return fs_warm(st->fd, st->size, &st->sum, err, errlen);
	return 0;
}

static int fr_calibrate(void *state, uint64_t *iterations, char *err, size_t errlen)
{
	const struct fr_state *st = state;

	(void)err, (void)errlen;
	*iterations = st->cache == FR_WARM ? 256 : 16;
	return 0;
}

static int fr_prepare(void *state, char *err, size_t errlen)
{
	struct fr_state *st = state;

	if (st->cache == FR_COLD) {
		st->pos = 0;
		return fs_evict(st->fd, st->size, st->path, &st->method, &st->resident, err,
				errlen);
	}
	st->resident = fs_resident(st->fd, st->size);
	return 0;
}

static int fr_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct fr_state *st = state;
	size_t nlat = iterations < FR_LAT_MAX ? (size_t)iterations : FR_LAT_MAX;
	uint64_t ticks = 0, t0, t1, sum = 0;
	double *lat = realloc(st->lat, nlat * sizeof(*lat)), res = st->resident;
	int rc;

	if (!lat)
		return -ENOMEM;
	st->lat = lat;
	fs_irq_start(&st->irq);
	for (uint64_t i = 0; i < iterations; i++) {
		uint64_t off;
		ssize_t r;

		if (st->pos == st->nblocks) {
			st->pos = 0;
			if (st->cache == FR_COLD &&
			    (rc = fs_evict(st->fd, st->size, st->path, &st->method, &res, err,
					   errlen)) != 0)
				return rc;
		}
		off = st->order[st->pos++] * st->block;
		t0 = pt_start();
		r = pread(st->fd, st->buf, (size_t)st->block, (off_t)off);
		t1 = pt_stop();
		if (r != (ssize_t)st->block) {
			rc = r < 0 ? -errno : -EIO;
			snprintf(err, errlen, "pread %llu bytes at %llu of '%s': %s",
				 (unsigned long long)st->block, (unsigned long long)off, st->path,
				 r < 0 ? strerror(-rc) : "short read");
			return rc;
		}
		if ((rc = fs_block_ok(st->buf, st->block, st->seed, off, st->path,
				      "file changed under the probe?", &sum, err, errlen)) != 0)
			return rc;
		ticks += t1 - t0;
		if (i < nlat)
			lat[i] = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / 1000.0;
	}
	pt_sink_u64(sum);
	st->sum += sum;
	st->bytes += iterations * st->block;
	st->expect += iterations * st->block;
	out->value = pt_ticks_to_ns(ticks, h->tsc_hz) / 1000.0 / (double)iterations;
	out->extra[FR_M_P50] = fs_quantile(lat, nlat, 0.5);
	out->extra[FR_M_P99] = fs_quantile(lat, nlat, 0.99);
	out->extra[FR_M_MIBS] = (double)(iterations * st->block) / 1048576.0 /
				(pt_ticks_to_ns(ticks, h->tsc_hz) * 1e-9);
	out->extra[FR_M_RES] = res;
	out->extra[FR_M_EVICT] = st->cache == FR_COLD ? st->method : FS_EVICT_NONE;
	out->extra[FR_M_FS] = (double)st->where.magic;
	out->extra[FR_M_DEV] = st->where.dev_major * 1000.0 + st->where.dev_minor;
	out->extra[FR_M_IRQ] = st->irq.n ? fs_irq_busiest(&st->irq) : NAN;
	return 0;
}

static int fr_sanity(void *state, char *err, size_t errlen)
{
	const struct fr_state *st = state;

	if (st->bytes != st->expect || (st->bytes && !st->sum)) {
		snprintf(err, errlen, "%llu bytes read of %llu, checksum %llx",
			 (unsigned long long)st->bytes, (unsigned long long)st->expect,
			 (unsigned long long)st->sum);
		return -1;
	}
	return 0;
}

static void fr_teardown(void *state)
{
	struct fr_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	free(st->buf);
	free(st->order);
	free(st->lat);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "file_read",
	.version = "1.0",
	.summary = "time per block read: sequential or random, O_DIRECT, cold or warm cache",
	.unit = "us",
	.bigger_is_better = 0,
	.params = fr_params,
	.metrics = fr_metrics,
	.config_size = sizeof(struct fr_cfg),
	.state_size = sizeof(struct fr_state),
	.needs_counter_hz = 1,
	.setup = fr_setup,
	.calibrate = fr_calibrate,
	.prepare = fr_prepare,
	.sample = fr_sample,
	.sanity = fr_sanity,
	.teardown = fr_teardown,
	.check = fr_check,
};
