/*
 * read_api - the cost of reading a warm or cold file through read(2),
 * fread(3) or mmap+memcpy, by chunk size (seed 003's experiment).
 *
 * What:   one operation reads the next `chunk` bytes of a cached test file
 *         (see fs_common.h) into a buffer: read(fd), fread(FILE) with a
 *         stdio buffer of `bufsize` bytes (0: stdio's default, the file's
 *         st_blksize), or memcpy from a read-only shared mapping of the
 *         whole file; at the end of the file the position wraps to 0.
 * Unit:   ns per chunk; metrics mb_per_s (MB/s = 1e6 bytes/s), bytes_read,
 *         stdio_buffer (the buffer fread used), resident (share of the file
 *         cached before the sample).
 * Method: setup writes or reuses the file and reads it once (warm); a
 *         sample performs `iterations` chunk reads in one timed region, and
 *         every byte copied is summed (fs_sum), so nothing can be skipped.
 * Confounders: fread copies twice (kernel to the stdio buffer, then to the
 *         caller) but makes one read(2) per buffer: below the buffer size it
 *         saves system calls, at and above it glibc reads directly into the
 *         caller's buffer, so its curve joins read(2) there.  mmap's first
 *         pass faults the pages in (setup's warm pass does not map them, so
 *         the first sample includes minor faults; warmup absorbs them).
 *         The checksum costs about as much as a copy per byte.
 * Cold (`cache: cold`): setup does not read the file; before every sample
 *         (prepare, untimed) the position goes back to 0 and the file is
 *         evicted with posix_fadvise(DONTNEED) (works unprivileged for clean
 *         pages, touches no other file; drop_caches only as a fallback when
 *         privileged), and mincore must show at most 1 % of it resident
 *         (metric resident, evict says how).  fadvise cannot drop a page that
 *         is mapped, so mmap's mapping is unmapped before the eviction and
 *         made afresh after it.  A sample that reaches the end of the file
 *         stops the clock, evicts again and goes on from 0, so no chunk is
 *         ever read warm.  When setup's trial eviction leaves the file
 *         cached (tmpfs, a file mapped elsewhere) the point is skipped with
 *         the reason.  Cold reads are sequential, so the kernel's readahead
 *         (and, for mmap, fault-around and readahead on faults) serves most
 *         chunks from pages it fetched ahead: the figure is a sequential cold
 *         read through each API, not one device access per chunk.
 */
#include "fs_common.h"
#include "probe_time.h"

enum { RA_M_MBS, RA_M_BYTES, RA_M_BUF, RA_M_RES, RA_M_EVICT };
enum { RA_READ, RA_FREAD, RA_MMAP };
enum { RA_WARM, RA_COLD };

struct ra_cfg {
	const char *dir;
	uint64_t size, chunk, bufsize;
	int api;		/* RA_READ, RA_FREAD, RA_MMAP */
	int64_t seed;
	int cache;		/* RA_WARM, RA_COLD */
};

struct ra_state {
	int fd, api, cold;
	int method;		/* FS_EVICT_*: how a cold file is evicted */
	double resident;	/* share cached after the last eviction */
	char not_cold[120];	/* why the next sample is not cold, "" when it is */
	FILE *fp;
	char *map, *buf, *stdio_buf;
	uint64_t size, chunk, pos, sum, bytes;
	size_t stdio_size;
	char path[4096];
};

static const struct probe_param ra_params[] = {
	PROBE_PARAM_STRING(struct ra_cfg, dir, FS_DEFAULT_DIR,
		"directory of the test files (kept and reused across runs)"),
	PROBE_PARAM_SIZE(struct ra_cfg, size, "16MiB", "test file size (read warm)", 4096,
			 17179869184.0),
	PROBE_PARAM_SIZE(struct ra_cfg, chunk, "4KiB", "bytes per read call", 1, 67108864),
	PROBE_PARAM_CHOICE(struct ra_cfg, api, "read", "read(2), fread(3) or mmap+memcpy",
			   { "read", RA_READ }, { "fread", RA_FREAD }, { "mmap", RA_MMAP }),
	PROBE_PARAM_SIZE(struct ra_cfg, bufsize, "0",
		"fread's stdio buffer (setvbuf); 0 = stdio's default (st_blksize)", 0, 67108864),
	PROBE_PARAM_INT(struct ra_cfg, seed, "1", "content seed of the test file", 0, 1e15),
	PROBE_PARAM_CHOICE(struct ra_cfg, cache, "warm",
		"warm: read once in setup, every read cached; cold: evicted before every "
		"sample (fadvise, verified with mincore)",
		{ "warm", RA_WARM }, { "cold", RA_COLD }),
	PROBE_PARAM_END,
};

static const struct probe_metric ra_metrics[] = {
	[RA_M_MBS] = { "mb_per_s", "MB/s", "bytes read per second (1e6 bytes)" },
	[RA_M_BYTES] = { "bytes_read", "bytes", "bytes read in the sample" },
	[RA_M_BUF] = { "stdio_buffer", "bytes", "fread: the stdio buffer size in use" },
	[RA_M_RES] = { "resident", "ratio", "share of the file cached before the sample" },
	[RA_M_EVICT] = { "evict", "code", "0 no eviction (warm), 1 drop_caches, 2 posix_fadvise(DONTNEED)" },
	{ .name = NULL },
};

static int ra_map(struct ra_state *st, char *err, size_t errlen)
{
	st->map = mmap(NULL, (size_t)st->size, PROT_READ, MAP_SHARED, st->fd, 0);
	if (st->map == MAP_FAILED) {
		int rc = -errno;

		st->map = NULL;
		snprintf(err, errlen, "mmap '%s': %s", st->path, strerror(-rc));
		return rc;
	}
	return 0;
}

static int ra_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct ra_cfg *c = cfg;
	struct ra_state *st = state;
	char dir[4096];
	struct stat sb;
	int made, rc;

	st->fd = -1;
	st->api = c->api;
	st->cold = c->cache == RA_COLD;
	st->method = FS_EVICT_FADVISE;
	st->resident = NAN;
	st->size = c->size;
	st->chunk = c->chunk < c->size ? c->chunk : c->size;
	rc = fs_dir(c->dir, dir, sizeof(dir), err, errlen);
	if (rc)
		return rc;
	rc = fs_file(dir, st->size, (uint64_t)c->seed, st->path, sizeof(st->path), &made, err,
		     errlen);
	if (rc)
		return rc;
	st->fd = open(st->path, O_RDONLY | O_CLOEXEC);
	if (st->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "open '%s': %s", st->path, strerror(-rc));
		return rc;
	}
	if (st->cold) {
		/* can this file be made cold here at all?  fadvise first, then
		   drop_caches when allowed; else the point is skipped */
		rc = fs_evict(st->fd, st->size, st->path, &st->method, &st->resident, err, errlen);
		if (rc && h->privileged) {
			st->method = FS_EVICT_DROP;
			rc = fs_evict(st->fd, st->size, st->path, &st->method, &st->resident,
				      err, errlen);
		}
		if (rc == -EBUSY)
			return PROBE_SKIP;
		if (rc)
			return rc;
	} else {
		rc = fs_warm(st->fd, st->size, &st->sum, err, errlen);
		if (rc)
			return rc;
	}
	st->buf = malloc((size_t)st->chunk);
	if (!st->buf)
		return -ENOMEM;
	if (st->api == RA_FREAD) {
		st->fp = fdopen(st->fd, "r");
		if (!st->fp) {
			rc = -errno;
			snprintf(err, errlen, "fdopen: %s", strerror(-rc));
			return rc;
		}
		st->fd = -1;	/* owned by fp now */
		st->stdio_size = fstat(fileno(st->fp), &sb) == 0 ? (size_t)sb.st_blksize : BUFSIZ;
		if (c->bufsize) {
			st->stdio_size = (size_t)c->bufsize;
			st->stdio_buf = malloc(st->stdio_size);
			if (!st->stdio_buf || setvbuf(st->fp, st->stdio_buf, _IOFBF,
						      st->stdio_size) != 0) {
				snprintf(err, errlen, "setvbuf %zu bytes failed", st->stdio_size);
				return -ENOMEM;
			}
		}
	} else if (st->api == RA_MMAP) {
		rc = ra_map(st, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* Cold, untimed: back to the start of the file, evict it (mmap: with no
   mapping, which would pin its pages) and verify with mincore. */
static int ra_make_cold(struct ra_state *st, char *err, size_t errlen)
{
	int fd = st->fp ? fileno(st->fp) : st->fd, rc;

	st->pos = 0;
	if (st->fp)
		rewind(st->fp);		/* also drops stdio's buffered bytes */
	else if (st->api == RA_READ && lseek(st->fd, 0, SEEK_SET) < 0)
		return -errno;
	if (st->map) {
		munmap(st->map, (size_t)st->size);
		st->map = NULL;
	}
	/* tests: SYSMETER_FS_NO_EVICT=2 evicts in setup only, so that the
	   samples after the first find the file cached */
	const char *hook = getenv("SYSMETER_FS_NO_EVICT");
	if (hook && !strcmp(hook, "2")) {
		st->resident = fs_resident(fd, st->size);
		if (!(st->resident <= FS_COLD_MAX))
			return -EBUSY;
		return st->api == RA_MMAP ? ra_map(st, err, errlen) : 0;
	}
	/* The last sample's readahead (read_ahead_kb is 8 MiB on this VM's
	   disk) can land just after an eviction that mincore found complete:
	   seen as 12.5 % of a 64 MiB file cached again.  Evict until the file
	   stays out for 5 ms, then let fs_evict evict and verify. */
	for (int i = 0; i < 40; i++) {
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		usleep(5000);
		if (fs_resident(fd, st->size) <= FS_COLD_MAX / 4)
			break;
	}
	rc = fs_evict(fd, st->size, st->path, &st->method, &st->resident, err, errlen);
	if (rc)
		return rc;
	return st->api == RA_MMAP ? ra_map(st, err, errlen) : 0;
}

/* ra_make_cold, but a file setup() could evict that something brought
   back for this once (seen in full runs: 5 % of it, under the other
   points' I/O) spoils the sample, not the point: it is measured, marked
   invalid with the reason (not_cold), and never used. */
static int ra_cold_or_note(struct ra_state *st, char *err, size_t errlen)
{
	int rc = ra_make_cold(st, err, errlen);

	if (rc != -EBUSY)
		return rc;
	snprintf(st->not_cold, sizeof st->not_cold, "not cold: %.1f%% of the file still cached "
		 "after eviction", st->resident * 100);
	return st->api == RA_MMAP && !st->map ? ra_map(st, err, errlen) : 0;
}

static int ra_prepare(void *state, char *err, size_t errlen)
{
	struct ra_state *st = state;

	if (st->cold) {
		st->not_cold[0] = '\0';
		return ra_cold_or_note(st, err, errlen);
	}
	st->resident = fs_resident(st->fp ? fileno(st->fp) : st->fd, st->size);
	return 0;
}

static int ra_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct ra_state *st = state;
	uint64_t sum = 0, bytes = 0, t0, t1, ticks = 0;
	double res = st->resident;
	int rc;

	t0 = pt_start();
	for (uint64_t i = 0; i < iterations; i++) {
		size_t n = (size_t)(st->size - st->pos < st->chunk ? st->size - st->pos : st->chunk);

		if (st->api == RA_READ) {
			ssize_t r = read(st->fd, st->buf, n);

			if (r != (ssize_t)n) {
				int e = r < 0 ? errno : EIO;

				snprintf(err, errlen, "read %zu bytes at %llu: %s", n,
					 (unsigned long long)st->pos, r < 0 ? strerror(e) : "short read");
				return -e;
			}
		} else if (st->api == RA_FREAD) {
			if (fread(st->buf, 1, n, st->fp) != n) {
				snprintf(err, errlen, "fread %zu bytes at %llu: %s", n,
					 (unsigned long long)st->pos,
					 ferror(st->fp) ? "error" : "short read");
				return -EIO;
			}
		} else {
			memcpy(st->buf, st->map + st->pos, n);
		}
		sum += fs_sum(st->buf, n);
		bytes += n;
		st->pos += n;
		if (st->pos == st->size) {
			if (st->cold) {	/* evict again, off the clock */
				t1 = pt_stop();
				ticks += t1 - t0;
				if ((rc = ra_cold_or_note(st, err, errlen)) != 0)
					return rc;
				t0 = pt_start();
				continue;
			}
			st->pos = 0;
			if (st->api == RA_READ)
				(void)lseek(st->fd, 0, SEEK_SET);
			else if (st->api == RA_FREAD)
				rewind(st->fp);
		}
	}
	t1 = pt_stop();
	ticks += t1 - t0;
	pt_sink_u64(sum);
	st->sum += sum;
	st->bytes += bytes;
	out->value = pt_ticks_to_ns(ticks, h->tsc_hz) / (double)iterations;
	out->extra[RA_M_MBS] = (double)bytes / (pt_ticks_to_ns(ticks, h->tsc_hz) * 1e-9) / 1e6;
	out->extra[RA_M_BYTES] = (double)bytes;
	out->extra[RA_M_BUF] = st->api == RA_FREAD ? (double)st->stdio_size : NAN;
	out->extra[RA_M_RES] = res;
	out->extra[RA_M_EVICT] = st->cold ? st->method : FS_EVICT_NONE;
	if (st->cold && st->not_cold[0]) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof out->note, "%s", st->not_cold);
	}
	return 0;
}

static int ra_sanity(void *state, char *err, size_t errlen)
{
	const struct ra_state *st = state;

	return fs_sanity_sum(st->bytes, st->sum, err, errlen);
}

static void ra_teardown(void *state)
{
	struct ra_state *st = state;

	if (st->map)
		munmap(st->map, (size_t)st->size);
	if (st->fp)
		fclose(st->fp);
	if (st->fd >= 0)
		close(st->fd);
	free(st->stdio_buf);
	free(st->buf);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "read_api",
	.version = "1.1",
	.summary = "read(2) vs fread(3) vs mmap+memcpy of a warm or cold file, per chunk",
	.unit = "ns",
	.bigger_is_better = 0,
	.params = ra_params,
	.metrics = ra_metrics,
	.config_size = sizeof(struct ra_cfg),
	.state_size = sizeof(struct ra_state),
	.needs_counter_hz = 1,
	.iterations_hint = 64,
	.setup = ra_setup,
	.prepare = ra_prepare,
	.sample = ra_sample,
	.sanity = ra_sanity,
	.teardown = ra_teardown,
};
