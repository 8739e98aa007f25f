/*
 * fs_cache - the size of the file cache: the time to read a file a second
 * time, per block, by file size (the seeds' method).
 *
 * What:   setup reads a test file of `size` bytes once (buffered); each
 *         sample reads the whole file again, `block` bytes per pread(), in
 *         file order, and reports the mean time per block.  While the file
 *         fits in the page cache the second read is a memory copy; past it,
 *         the pages read first have been reclaimed and the second read goes
 *         to the device: the knee of the curve is the file cache available.
 * Unit:   µs per block; metrics p50_us, p99_us, mib_per_s, resident (share
 *         of the file cached before the pass, mincore), limit (bytes, 0 =
 *         none), and at setup the kernel's MemTotal, MemAvailable and
 *         Cached (bytes) to set the knee beside; file_bytes, the size
 *         measured (what the file_cache finding places the knee by);
 *         hit_share, the share of the pass's reads that hit the cache, by a
 *         split calibrated at setup (cal_cached_us, cal_device_us: a block
 *         read twice, and read with O_DIRECT), random order only.
 * Method: with `limit` > 0 the probe's process is moved into a child memory
 *         cgroup of its own (v1: memory.limit_in_bytes; v2: memory.max)
 *         named sysmeter-PID-fs, so the knee of a chosen limit is found
 *         quickly instead of writing twice the RAM; the cgroup is removed
 *         at teardown (on v2 the controller is delegated down to it first:
 *         fs_cache_cgroup.h), a killed point's by the runner (v2: with
 *         the point's cgroup; v1: by its name, runner/probe.h).  The
 *         file's pages are evicted (fadvise DONTNEED) before the first read
 *         so they are charged to this cgroup.  No cgroup memory
 *         controller or no permission: the point is skipped with the reason
 *         (limit=0 measures the whole machine).  One pass is one sample
 *         (fixed_iterations = 1); every block is summed.
 * Confounders: the kernel's active and inactive LRU lists make the knee
 *         soft: a file read twice is promoted to the active list, and
 *         reclaim under the limit evicts partly from each; read-ahead
 *         brings pages back in large batches; the cgroup also charges the
 *         process's own memory and some kernel memory, so the knee lies a
 *         little below the limit.  Without a limit, the knee is about
 *         MemAvailable, not MemTotal (kernel, other processes, dirty pages).
 * Whole machine (`size_avail` > 0, limit 0): the size read is size_avail x
 *         MemAvailable (read at setup), a prefix of one test file of
 *         file_mem x MemTotal (rounded up to 64 MiB, so the same file serves
 *         every such point and run on this machine); without the disk space
 *         for that file (statvfs) the point is skipped with the reason.  The
 *         random order is an affine permutation of the blocks (block =
 *         a*i + c mod n, a coprime to n): no array the size of the file, so
 *         the probe allocates no anonymous memory that grows with it; the
 *         page cache it fills is reclaimable.  Each point's setup reads its
 *         prefix once (tens of GiB: tens of seconds).
 */
#include "fs_cache_cgroup.h"
#include "fs_common.h"
#include "probe_time.h"

enum { FC_M_P50, FC_M_P99, FC_M_MIBS, FC_M_RES, FC_M_LIMIT, FC_M_TOTAL, FC_M_AVAIL,
       FC_M_CACHED, FC_M_BYTES, FC_M_HIT, FC_M_CAL_CACHED, FC_M_CAL_DEVICE };

/* Setup's calibration: FC_CAL blocks, each read once past the page cache
   (O_DIRECT: a device read that leaves the cache as it was; dropping a
   block's pages would not do, since a page inside a large folio stays) and
   once through it, twice (the second a cached read).  A pass's read faster
   than the geometric mean of the two medians is a hit; with the device less
   than FC_CAL_SPLIT times the cache (a tmpfs, a disk the host caches in its
   memory), or no O_DIRECT, no hit share is reported. */
#define FC_CAL 31
#define FC_CAL_SPLIT 4.0

enum { FC_RANDOM, FC_SEQUENTIAL };

struct fc_cfg {
	const char *dir;
	uint64_t size, block, limit;
	int64_t seed, reads;
	int order;		/* FC_RANDOM, FC_SEQUENTIAL */
	double size_avail;	/* > 0: size = size_avail x MemAvailable */
	double file_mem;	/* with size_avail: the file, x MemTotal */
};

struct fc_state {
	int fd;
	uint64_t size, block, nblocks, sum, bytes, limit, nreads, pos, *order;
	int random;
	uint64_t aff_a, aff_c;	/* size_avail: affine order instead of `order` */
	double *lat, meminfo[3];
	double cal_cached, cal_device, hit_below;	/* us; hit_below NAN: no split */
	char path[4096];
	struct fcg cg;		/* the memory cgroup of `limit` */
};

static const struct probe_param fc_params[] = {
	PROBE_PARAM_STRING(struct fc_cfg, dir, FS_DEFAULT_DIR,
		"directory of the test files (kept and reused across runs)"),
	PROBE_PARAM_SIZE(struct fc_cfg, size, "64MiB", "test file size", 4096, 1099511627776.0),
	PROBE_PARAM_SIZE(struct fc_cfg, block, "4KiB", "bytes per read", 512, 67108864),
	PROBE_PARAM_SIZE(struct fc_cfg, limit, "256MiB",
		"memory limit of the probe's own cgroup; 0 = none (the whole machine)", 0,
		1099511627776.0),
	PROBE_PARAM_INT(struct fc_cfg, seed, "1", "content seed of the test file", 0, 1e15),
	PROBE_PARAM_CHOICE(struct fc_cfg, order, "random",
		"second read: random = `reads` blocks of a seeded permutation, readahead off "
		"(each block's own time: cached copy or device read); sequential = the whole "
		"file in order, readahead on (hides device reads)",
		{ "random", FC_RANDOM }, { "sequential", FC_SEQUENTIAL }),
	PROBE_PARAM_INT(struct fc_cfg, reads, "2048",
		"blocks read per pass in random order (0 = every block)", 0, 1e12),
	PROBE_PARAM_DOUBLE(struct fc_cfg, size_avail, "0",
		"whole machine (limit 0): read size_avail x MemAvailable at setup instead of "
		"size, a prefix of the file_mem test file; 0 = use size", 0, 8),
	PROBE_PARAM_DOUBLE(struct fc_cfg, file_mem, "1.5",
		"with size_avail: the test file every such point reads a prefix of, "
		"x MemTotal, rounded up to 64 MiB", 0.001, 8),
	PROBE_PARAM_END,
};

static const struct probe_metric fc_metrics[] = {
	[FC_M_P50] = { "p50_us", "us", "median time of one block read in the pass" },
	[FC_M_P99] = { "p99_us", "us", "99th percentile of one block read in the pass" },
	[FC_M_MIBS] = { "mib_per_s", "MiB/s", "bytes read over the summed read times" },
	[FC_M_RES] = { "resident", "ratio", "share of the file cached before the pass (mincore)" },
	[FC_M_LIMIT] = { "limit", "bytes", "memory limit of the probe's cgroup (0 = none)" },
	[FC_M_TOTAL] = { "mem_total", "bytes", "MemTotal at setup (/proc/meminfo)" },
	[FC_M_AVAIL] = { "mem_available", "bytes", "MemAvailable at setup" },
	[FC_M_CACHED] = { "cached", "bytes", "Cached at setup" },
	[FC_M_BYTES] = { "file_bytes", "bytes",
			 "the size measured (size, or size_avail x MemAvailable at setup)" },
	[FC_M_HIT] = { "hit_share", "ratio",
		       "share of the pass's reads faster than the calibrated split between a "
		       "cached and a device read (random order only)" },
	[FC_M_CAL_CACHED] = { "cal_cached_us", "us",
			      "setup's calibration: median read of a block just read" },
	[FC_M_CAL_DEVICE] = { "cal_device_us", "us",
			      "setup's calibration: median O_DIRECT read of a block (past the "
			      "page cache)" },
	{ .name = NULL },
};

static void fc_meminfo(double v[3])
{
	static const char *const keys[3] = { "MemTotal:", "MemAvailable:", "Cached:" };
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];

	v[0] = v[1] = v[2] = NAN;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (int i = 0; i < 3; i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				v[i] = strtod(line + strlen(keys[i]), NULL) * 1024.0;
	fclose(f);
}

static int fc_check(const void *cfg, char *err, size_t errlen)
{
	const struct fc_cfg *c = cfg;

	if (c->size_avail > 0 && c->limit != 0) {
		snprintf(err, errlen, "size_avail measures the whole machine's page cache: "
			 "set limit: 0 (the cgroup limit is %llu bytes)",
			 (unsigned long long)c->limit);
		return -EINVAL;
	}
	return 0;
}

static uint64_t fc_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The block the i-th read of the pass reads. */
static inline uint64_t fc_block(const struct fc_state *st, uint64_t i)
{
	if (!st->order)		/* affine permutation: no array */
		return (uint64_t)(((unsigned __int128)st->aff_a * i + st->aff_c) % st->nblocks);
	return st->order[i];
}

/* Whole machine: size the point from /proc/meminfo, make sure the disk can
   hold the shared file (else skip), and use its prefix.  0, PROBE_SKIP or
   a negative errno, with the message. */
static int fc_whole_machine(struct fc_state *st, const struct fc_cfg *c, const char *dir,
			    uint64_t *file_size, char *err, size_t errlen)
{
	const uint64_t step = 64ull << 20;
	double total = st->meminfo[0], avail = st->meminfo[1];
	struct statvfs vf;
	struct stat sb;
	char path[4200];

	if (!(total > 0) || !(avail > 0)) {
		snprintf(err, errlen, "no MemTotal or MemAvailable in /proc/meminfo: "
			 "size_avail cannot size the file");
		return PROBE_SKIP;
	}
	*file_size = (uint64_t)ceil(c->file_mem * total / (double)step) * step;
	st->size = (uint64_t)(c->size_avail * avail) / c->block * c->block;
	if (st->size > *file_size) {
		snprintf(err, errlen, "size_avail %.3g x MemAvailable (%.1f GiB) is more than the "
			 "test file, file_mem %.3g x MemTotal (%.1f GiB): raise file_mem",
			 c->size_avail, (double)st->size / 1073741824.0, c->file_mem,
			 (double)*file_size / 1073741824.0);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/sysmeter-%llu-%016llx.dat", dir,
		 (unsigned long long)*file_size, (unsigned long long)c->seed);
	if (stat(path, &sb) != 0 || (uint64_t)sb.st_size != *file_size) {
		uint64_t need = *file_size + FS_SPACE_MARGIN, have;

		if (statvfs(dir, &vf) != 0) {
			snprintf(err, errlen, "statvfs '%s': %s", dir, strerror(errno));
			return -errno;
		}
		have = (uint64_t)vf.f_bavail * vf.f_frsize;
		if (have < need) {
			snprintf(err, errlen, "not enough free space in '%s' for the whole-machine "
				 "test file: %.1f GiB needed (file_mem %.3g x MemTotal, with a 64 MiB "
				 "margin), %.1f GiB free", dir, (double)need / 1073741824.0,
				 c->file_mem, (double)have / 1073741824.0);
			return PROBE_SKIP;
		}
	}
	return 0;
}

/* Times FC_CAL blocks spread over the file, by O_DIRECT and then cached,
   and sets the hit/miss split of fc_sample from the two medians.  Random
   order only: with readahead on a miss is not one read of its own. */
static void fc_calibrate(struct fc_state *st, const struct probe_host *h)
{
	double dev[FC_CAL], hit[FC_CAL];
	size_t k = 0, mem, off_align;
	void *dbuf = NULL;
	char *buf = malloc((size_t)st->block);
	int dfd = st->random ? open(st->path, O_RDONLY | O_DIRECT | O_CLOEXEC) : -1;

	st->cal_cached = st->cal_device = st->hit_below = NAN;
	if (dfd >= 0) {
		fs_dio_align(dfd, &mem, &off_align);
		if (st->block % off_align != 0 ||
		    posix_memalign(&dbuf, mem > sizeof(void *) ? mem : sizeof(void *),
				   (size_t)st->block) != 0)
			dbuf = NULL;
	}
	for (uint64_t j = 0; buf && dbuf && st->nblocks >= FC_CAL && j < FC_CAL; j++) {
		off_t off = (off_t)((j * st->nblocks / FC_CAL) * st->block);
		uint64_t t0, t1, t2;

		t0 = pt_start();
		if (pread(dfd, dbuf, (size_t)st->block, off) != (ssize_t)st->block)
			break;
		t1 = pt_stop();
		if (pread(st->fd, buf, (size_t)st->block, off) != (ssize_t)st->block)
			break;
		t2 = pt_start();
		if (pread(st->fd, buf, (size_t)st->block, off) != (ssize_t)st->block)
			break;
		dev[k] = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / 1000.0;
		hit[k++] = pt_ticks_to_ns(pt_stop() - t2, h->tsc_hz) / 1000.0;
		st->sum += fs_sum(buf, (size_t)st->block);
	}
	free(buf);
	free(dbuf);
	if (dfd >= 0)
		close(dfd);
	if (k < FC_CAL)
		return;
	st->cal_device = fs_quantile(dev, k, 0.5);
	st->cal_cached = fs_quantile(hit, k, 0.5);
	if (st->cal_device > FC_CAL_SPLIT * st->cal_cached && st->cal_cached > 0)
		st->hit_below = sqrt(st->cal_device * st->cal_cached);
}

static int fc_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct fc_cfg *c = cfg;
	struct fc_state *st = state;
	char dir[4096];
	int made, rc;

	uint64_t file_size;

	st->fd = -1;
	if ((rc = fc_check(c, err, errlen)) != 0)
		return rc;
	st->block = c->block;
	st->size = c->size / c->block * c->block;
	fc_meminfo(st->meminfo);
	st->limit = c->limit;
	rc = fs_dir(c->dir, dir, sizeof(dir), err, errlen);
	if (rc)
		return rc;
	file_size = st->size;
	if (c->size_avail > 0 && (rc = fc_whole_machine(st, c, dir, &file_size, err, errlen)) != 0)
		return rc;
	st->nblocks = st->size / st->block;
	if (st->nblocks < 1) {
		snprintf(err, errlen, "block is larger than the file");
		return -EINVAL;
	}
	st->random = c->order == FC_RANDOM;
	st->nreads = st->random && c->reads > 0 && (uint64_t)c->reads < st->nblocks
		     ? (uint64_t)c->reads : st->nblocks;
	/* written (first time) outside the cgroup: its dirty pages and writeback
	   are not the measured cache's */
	rc = fs_file(dir, file_size, (uint64_t)c->seed, st->path, sizeof(st->path), &made, err,
		     errlen);
	if (rc)
		return rc;
	if (c->limit && (rc = fcg_enter(&st->cg, c->limit, err, errlen)) != 0)
		return rc;
	st->fd = open(st->path, O_RDONLY | O_CLOEXEC);
	if (st->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "open '%s': %s", st->path, strerror(-rc));
		return rc;
	}
	st->lat = malloc((size_t)st->nreads * sizeof(*st->lat));
	if (!st->lat)
		return -ENOMEM;
	if (c->size_avail > 0) {
		uint64_t x = h->seed ^ 0x66735f6361636865ull;

		st->aff_a = st->random ? (fs_rand(&x) % st->nblocks) | 1 : 1;
		while (fc_gcd(st->aff_a, st->nblocks) != 1)
			st->aff_a += 2;
		st->aff_c = st->random ? fs_rand(&x) % st->nblocks : 0;
	} else {
		st->order = fs_order(st->nblocks, st->random, h->seed ^ 0x66735f6361636865ull);
		if (!st->order)
			return -ENOMEM;
	}
	/* pages cached by someone else are charged elsewhere: start empty */
	(void)posix_fadvise(st->fd, 0, 0, POSIX_FADV_DONTNEED);
	(void)posix_fadvise(st->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	rc = fs_warm(st->fd, st->size, &st->sum, err, errlen);
	/* random: each timed read is that block alone (no readahead) */
	if (!rc && st->random)
		(void)posix_fadvise(st->fd, 0, 0, POSIX_FADV_RANDOM);
	if (!rc)
		fc_calibrate(st, h);
	return rc;
}

static int fc_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct fc_state *st = state;
	double res = fs_resident(st->fd, st->size);
	uint64_t ticks = 0, t0, t1, sum = 0, hits = 0;
	char *buf = malloc((size_t)st->block);

	(void)iterations;	/* fixed: one pass */
	if (!buf)
		return -ENOMEM;
	for (uint64_t i = 0; i < st->nreads; i++) {
		uint64_t b = fc_block(st, st->pos);
		ssize_t r;

		st->pos = st->pos + 1 < st->nblocks ? st->pos + 1 : 0;
		t0 = pt_start();
		r = pread(st->fd, buf, (size_t)st->block, (off_t)(b * st->block));
		t1 = pt_stop();
		if (r != (ssize_t)st->block) {
			int e = r < 0 ? errno : EIO;

			free(buf);
			snprintf(err, errlen, "pread at %llu of '%s': %s",
				 (unsigned long long)(b * st->block), st->path,
				 r < 0 ? strerror(e) : "short read");
			return -e;
		}
		sum += fs_sum(buf, (size_t)st->block);
		ticks += t1 - t0;
		st->lat[i] = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / 1000.0;
		hits += st->lat[i] < st->hit_below;
	}
	free(buf);
	pt_sink_u64(sum);
	st->sum += sum;
	st->bytes += st->nreads * st->block;
	out->value = pt_ticks_to_ns(ticks, h->tsc_hz) / 1000.0 / (double)st->nreads;
	out->extra[FC_M_P50] = fs_quantile(st->lat, (size_t)st->nreads, 0.5);
	out->extra[FC_M_P99] = fs_quantile(st->lat, (size_t)st->nreads, 0.99);
	out->extra[FC_M_MIBS] = (double)(st->nreads * st->block) / 1048576.0 /
				(pt_ticks_to_ns(ticks, h->tsc_hz) * 1e-9);
	out->extra[FC_M_RES] = res;
	out->extra[FC_M_LIMIT] = (double)st->limit;
	out->extra[FC_M_TOTAL] = st->meminfo[0];
	out->extra[FC_M_AVAIL] = st->meminfo[1];
	out->extra[FC_M_CACHED] = st->meminfo[2];
	out->extra[FC_M_BYTES] = (double)st->size;
	out->extra[FC_M_HIT] = isfinite(st->hit_below) ? (double)hits / (double)st->nreads : NAN;
	out->extra[FC_M_CAL_CACHED] = st->cal_cached;
	out->extra[FC_M_CAL_DEVICE] = st->cal_device;
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

	if (st->fd >= 0)
		close(st->fd);
	free(st->lat);
	free(st->order);
	fcg_leave(&st->cg);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "fs_cache",
	.version = "1.2",
	.summary = "second-read time per block by file size: the knee is the file cache",
	.unit = "us",
	.bigger_is_better = 0,
	.params = fc_params,
	.metrics = fc_metrics,
	.config_size = sizeof(struct fc_cfg),
	.state_size = sizeof(struct fc_state),
	.needs_counter_hz = 1,
	.fixed_iterations = 1,
	.check = fc_check,
	.setup = fc_setup,
	.sample = fc_sample,
	.sanity = fc_sanity,
	.teardown = fc_teardown,
};
