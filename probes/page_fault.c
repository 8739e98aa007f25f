/*
 * page_fault - the time the kernel takes to service a page fault: major
 * (the page must be read from the file's disk) or minor (the page is
 * found or made in memory: a fresh zeroed anonymous page, or a file page
 * already in the page cache).
 *
 * What:   kind major: a read of one byte from a page of a file mapping
 *         whose page-cache copy was dropped, so the fault reads it from
 *         the device; kind minor: the first write to a page of a fresh
 *         private anonymous mapping, so the fault allocates and zeroes a
 *         page and maps it; kind file: a read of one byte from a page of
 *         a read-only shared mapping of a file that is wholly in the page
 *         cache, so the fault finds the page and only maps it (as lmbench's
 *         lat_pagefault).
 * Unit:   µs per fault (file: per fault the kernel really took, below); metric `ns_per_byte` = the fault cost over the
 *         page size (the report sets it beside the DRAM latency per byte).
 * Method: one operation (`iterations` counts them) is one faulting touch;
 *         a sample touches `iterations` pages, one byte each, `stride`
 *         bytes apart, in a random order (seeded from host->seed) or in
 *         address order, and the touches are timed together (one
 *         pt_start/pt_stop pair per batch), so the timer costs nothing
 *         per fault.
 *   major: setup writes a scratch file of `size` bytes of random data
 *         (written, not fallocated: unwritten extents would be read as
 *         zeroes without any I/O) and fsyncs it.  prepare(), before every
 *         sample, unmaps it, drops its cached pages - "1" to
 *         /proc/sys/vm/drop_caches when privileged, otherwise
 *         posix_fadvise(POSIX_FADV_DONTNEED); metric `drop_caches` is 1 or
 *         0 for which - maps it again with MADV_RANDOM (no readahead: one
 *         fault reads one page) and counts with mincore() the pages still
 *         cached (metric `cached_share`).  A sample needing more pages
 *         than the file has drops and maps it again between batches,
 *         outside the timed region.
 *   minor: each batch maps fresh anonymous memory (MADV_NOHUGEPAGE, so a
 *         fault is one 4 KiB page), writes one byte per page, and unmaps
 *         it; mmap and munmap are not timed.
 *   file: setup writes the scratch file as for major and reads it whole,
 *         so that it is in the page cache; prepare(), before every sample,
 *         checks that with mincore() (metric `cached_share`, 1 when all of
 *         it is; a file not wholly cached is read again).  Each batch maps
 *         it afresh (PROT_READ, MAP_SHARED, default advice: as lat_pagefault)
 *         and reads one byte per page in the spec's order.  The kernel's
 *         fault-around maps the cached pages around a faulting address in
 *         one fault (16 pages with the default fault_around_bytes of 64
 *         KiB, a whole large folio where the file system caches large
 *         folios: 79 pages per fault were seen on one host), so most
 *         touches do not fault.  getrusage's ru_minflt around the timed
 *         touches counts the faults really taken; the value is the time
 *         over those faults, and metric `pages_per_fault` is the pages
 *         touched per fault.  lmbench's lat_pagefault divides its time by
 *         the pages touched instead, so it reports the time per page (a
 *         fault's cost over the pages fault-around mapped), about
 *         pages_per_fault times less than this probe's value.  A file
 *         sample that counted no minor fault, or a major one (the file
 *         left the page cache), is invalid.
 *   Faults are counted with getrusage (ru_majflt or ru_minflt) around the
 *         sample: metric `faults_counted`; a sample that counted fewer
 *         than half the pages it touched is invalid (the file was still
 *         cached, huge pages were used, ...).  The thread's CPU time over
 *         the touches gives metric `off_cpu_share`; for minor faults, which
 *         never sleep, a sample off the CPU for more than 2 % of its time
 *         (another task ran) is taken again, up to 5 times (metric
 *         `retries`), then flagged invalid; a major fault sleeps on its I/O.
 * Confounders: a major fault costs what the device costs: in a VM a
 *         "disk" read may be served from the host's page cache, so this is
 *         the guest's I/O path and the virtual disk, not a physical one;
 *         address-ordered touches let the device or the host read ahead.
 *         Drop_caches empties the whole system's page cache (clean pages
 *         only) and costs time outside the measurement.  A minor fault
 *         here includes zeroing a page (about 4 KiB of stores) and the
 *         kernel entry/exit; on a KVM guest also EPT faults the first time
 *         the host backs the page.  A file fault includes mapping
 *         pages_per_fault pages (fault-around), so its cost grows with
 *         fault_around_bytes and the folio size; in a tmpfs scratch dir it
 *         is shmem's fault path.  Readahead-free faulting still reads
 *         file-system metadata (extent blocks) once per drop.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "probe_time.h"

#define PF_TMPFS_MAGIC 0x01021994
#define PF_RAMFS_MAGIC 0x858458f6

enum { PF_M_NS_PER_BYTE, PF_M_FAULTS, PF_M_DROP, PF_M_CACHED, PF_M_OFF_CPU, PF_M_RETRIES,
       PF_M_PPF };

/* minor: a sample is invalid when the thread was off its CPU for more than
   this fraction of the timed touches (a major fault sleeps on its I/O). */
#define PF_MAX_OFF_CPU 0.02
/* ... and is taken again, up to this many times in all. */
#define PF_TRIES 5

struct pf_state {
	const struct probe_host *host;
	int major, file, random;		/* kind major, kind file */
	size_t page, stride, size, npages;	/* npages: touch positions per map */
	size_t *order;				/* touch order: page indices */
	char path[4096];
	int fd;
	char *map;				/* current mapping (major) */
	long majflt;				/* file: major faults in the last sample */
	size_t map_len;
	int use_drop;				/* drop_caches (1) or fadvise (0) */
	double cached_share;			/* after the last drop */
	uint64_t touched, counted;		/* totals, for sanity() */
};

enum { PF_MAJOR, PF_MINOR, PF_FILE };
enum { PF_RANDOM, PF_SEQUENTIAL };

struct pf_cfg {
	int kind;			/* PF_MAJOR, PF_MINOR, PF_FILE */
	uint64_t size, stride;
	int order;			/* PF_RANDOM, PF_SEQUENTIAL */
};

static const struct probe_param pf_params[] = {
	PROBE_PARAM_CHOICE(struct pf_cfg, kind, "minor",
		"major (file page read from disk) | minor (fresh anonymous page) | file (file "
		"page in the page cache, as lmbench's lat_pagefault, but per fault really taken: "
		"fault-around maps several pages per fault)",
		{ "major", PF_MAJOR }, { "minor", PF_MINOR }, { "file", PF_FILE }),
	PROBE_PARAM_SIZE(struct pf_cfg, size, "64MiB",
		"bytes mapped per batch (major, file: the scratch file's size)", 4096,
		1099511627776.0),
	PROBE_PARAM_SIZE(struct pf_cfg, stride, "4KiB",
		"bytes between touched pages; a multiple of the page size", 4096, 1073741824.0),
	PROBE_PARAM_CHOICE(struct pf_cfg, order, "random",
		"touch the pages in a random order or in address order",
		{ "random", PF_RANDOM }, { "sequential", PF_SEQUENTIAL }),
	PROBE_PARAM_END,
};

static const struct probe_metric pf_metrics[] = {
	[PF_M_NS_PER_BYTE] = { .name = "ns_per_byte", .unit = "ns",
			       .help = "fault cost divided by the page size (file: a fault "
				       "maps pages_per_fault pages)" },
	[PF_M_FAULTS] = { .name = "faults_counted", .unit = "faults",
			  .help = "major (minor, file: minor) faults getrusage counted in the sample" },
	[PF_M_DROP] = { .name = "drop_caches", .unit = "bool",
			.help = "major: 1 = /proc/sys/vm/drop_caches, 0 = posix_fadvise(DONTNEED)" },
	[PF_M_CACHED] = { .name = "cached_share", .unit = "ratio",
			  .help = "major: share of the file still cached after the drop; file: share "
				  "cached before the sample (mincore)" },
	[PF_M_OFF_CPU] = { .name = "off_cpu_share", .unit = "ratio",
			   .help = "fraction of the timed touches the thread did not run "
				   "(major: mostly waiting for its I/O)" },
	[PF_M_RETRIES] = { .name = "retries", .unit = "count",
			   .help = "minor, file: samples taken again because the thread was off its cpu" },
	[PF_M_PPF] = { .name = "pages_per_fault", .unit = "pages",
		       .help = "pages touched per fault getrusage counted (file: fault-around "
			       "maps several)" },
	{ .name = NULL },
};

static uint64_t pf_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static long pf_faults(int major)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return major ? ru.ru_majflt : ru.ru_minflt;
}

/* Write `size` bytes of random data, fsync: real blocks on the device. */
static int pf_make_file(struct pf_state *st, uint64_t seed, char *err, size_t errlen)
{
	const size_t chunk = 1u << 20;
	uint64_t *buf = malloc(chunk);
	int fd, rc = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(st->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "create '%s': %s", st->path, strerror(-rc));
		free(buf);
		return rc;
	}
	for (size_t done = 0; done < st->size && !rc;) {
		size_t n = st->size - done < chunk ? st->size - done : chunk;

		for (size_t i = 0; i < chunk / 8; i++)
			buf[i] = pf_rand(&seed);
		for (size_t off = 0; off < n;) {
			ssize_t w = write(fd, (char *)buf + off, n - off);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				rc = -errno;
				snprintf(err, errlen, "write '%s': %s", st->path, strerror(-rc));
				break;
			}
			off += (size_t)w;
		}
		done += n;
	}
	if (!rc && fsync(fd) != 0) {
		rc = -errno;
		snprintf(err, errlen, "fsync '%s': %s", st->path, strerror(-rc));
	}
	free(buf);
	close(fd);
	if (rc)
		return rc;
	st->fd = open(st->path, O_RDONLY | O_CLOEXEC);
	if (st->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "open '%s': %s", st->path, strerror(-rc));
		return rc;
	}
	return 0;
}

static int pf_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, "1", 1);
	close(fd);
	return w == 1 ? 0 : -EIO;
}

/* major: unmap, drop the file's cached pages, map again (MADV_RANDOM), and
   measure what is still cached.  Untimed. */
static int pf_remap(struct pf_state *st, char *err, size_t errlen)
{
	unsigned char *vec;
	size_t cached = 0;
	int rc;

	if (st->map) {
		munmap(st->map, st->map_len);
		st->map = NULL;
	}
	if (st->use_drop && pf_drop_caches() != 0) {
		st->use_drop = 0;
		if (st->host->log)
			st->host->log(st->host, PROBE_LOG_WARN, "page_fault: cannot write "
				      "/proc/sys/vm/drop_caches: using posix_fadvise(DONTNEED)");
	}
	if (!st->use_drop) {
		rc = posix_fadvise(st->fd, 0, 0, POSIX_FADV_DONTNEED);
		if (rc) {
			snprintf(err, errlen, "posix_fadvise(DONTNEED): %s", strerror(rc));
			return -rc;
		}
	}
	st->map = mmap(NULL, st->map_len, PROT_READ, MAP_SHARED, st->fd, 0);
	if (st->map == MAP_FAILED) {
		rc = -errno;
		st->map = NULL;
		snprintf(err, errlen, "mmap '%s': %s", st->path, strerror(-rc));
		return rc;
	}
	if (madvise(st->map, st->map_len, MADV_RANDOM) != 0) {
		rc = -errno;
		snprintf(err, errlen, "madvise(MADV_RANDOM): %s", strerror(-rc));
		return rc;
	}
	st->cached_share = NAN;
	vec = malloc(st->map_len / st->page + 1);
	if (vec && mincore(st->map, st->map_len, vec) == 0) {
		for (size_t i = 0; i < st->map_len / st->page; i++)
			cached += vec[i] & 1;
		st->cached_share = (double)cached / (double)(st->map_len / st->page);
	}
	free(vec);
	return 0;
}

/* file: read the whole file, so that every page of it is in the page
   cache.  Untimed. */
static int pf_read_file(struct pf_state *st, char *err, size_t errlen)
{
	const size_t chunk = 1u << 20;
	char *buf = malloc(chunk);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (size_t off = 0; off < st->size;) {
		ssize_t r = pread(st->fd, buf, chunk, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : -EIO;
			snprintf(err, errlen, "read '%s': %s", st->path,
				 r < 0 ? strerror(-rc) : "unexpected end of file");
			break;
		}
		off += (size_t)r;
	}
	free(buf);
	return rc;
}

/* file: the share of the file's pages in the page cache (mincore over a
   mapping made for the look and unmapped again, so the sample's mappings
   start without page tables); the file is read again while not all of it
   is.  Untimed. */
static int pf_check_cached(struct pf_state *st, char *err, size_t errlen)
{
	size_t n = st->map_len / st->page, cached = 0;
	unsigned char *vec = malloc(n + 1);
	int rc = 0;

	if (!vec)
		return -ENOMEM;
	st->cached_share = NAN;
	for (int pass = 0; pass < 2 && cached < n; pass++) {
		void *m;

		if (pass && (rc = pf_read_file(st, err, errlen)) != 0)
			break;
		m = mmap(NULL, st->map_len, PROT_READ, MAP_SHARED, st->fd, 0);
		if (m == MAP_FAILED) {
			rc = -errno;
			snprintf(err, errlen, "mmap '%s': %s", st->path, strerror(-rc));
			break;
		}
		cached = 0;
		if (mincore(m, st->map_len, vec) == 0) {
			for (size_t i = 0; i < n; i++)
				cached += vec[i] & 1;
			st->cached_share = (double)cached / (double)n;
		} else {
			cached = n;	/* cannot tell: the sample's major count will */
		}
		munmap(m, st->map_len);
	}
	free(vec);
	return rc;
}

static int pf_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct pf_cfg *c = cfg;
	struct pf_state *st = state;
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t seed = h->seed ^ 0x706167655f666c74ull;
	int rc;

	st->fd = -1;
	st->host = h;
	st->page = pg > 0 ? (size_t)pg : 4096;
	st->major = c->kind == PF_MAJOR;
	st->file = c->kind == PF_FILE;
	st->random = c->order == PF_RANDOM;
	st->stride = (size_t)c->stride;
	st->size = (size_t)c->size;
	if (st->stride % st->page) {
		snprintf(err, errlen, "stride %zu is not a multiple of the page size %zu",
			 st->stride, st->page);
		return -EINVAL;
	}
	st->size = st->size / st->page * st->page;
	st->npages = st->size / st->stride;
	if (st->npages < 1) {
		snprintf(err, errlen, "size %zu is smaller than the stride %zu", st->size,
			 st->stride);
		return -EINVAL;
	}
	st->map_len = st->size;
	st->order = malloc(st->npages * sizeof(*st->order));
	if (!st->order)
		return -ENOMEM;
	for (size_t i = 0; i < st->npages; i++)
		st->order[i] = i;
	if (st->random)		/* Fisher-Yates */
		for (size_t i = st->npages - 1; i > 0; i--) {
			size_t j = (size_t)(((unsigned __int128)pf_rand(&seed) * (i + 1)) >> 64);
			size_t t = st->order[i];

			st->order[i] = st->order[j];
			st->order[j] = t;
		}
	if (st->major) {
		struct statfs fs;
		const char *dir = h->scratch_dir && *h->scratch_dir ? h->scratch_dir : ".";

		if (statfs(dir, &fs) == 0 &&
		    ((unsigned long)fs.f_type == PF_TMPFS_MAGIC ||
		     (unsigned long)fs.f_type == PF_RAMFS_MAGIC)) {
			snprintf(err, errlen, "scratch dir '%s' is in memory (tmpfs): no "
				 "device to fault from", dir);
			return PROBE_SKIP;
		}
		snprintf(st->path, sizeof(st->path), "%s/page_fault.dat", dir);
		rc = pf_make_file(st, seed, err, errlen);
		if (rc)
			return rc;
		st->use_drop = h->privileged;
		if (h->log)
			h->log(h, PROBE_LOG_INFO, "page_fault: %zu MiB file; cache dropped with %s",
			       st->size >> 20, st->use_drop ? "/proc/sys/vm/drop_caches"
							    : "posix_fadvise(DONTNEED)");
	} else if (st->file) {
		const char *dir = h->scratch_dir && *h->scratch_dir ? h->scratch_dir : ".";

		snprintf(st->path, sizeof(st->path), "%s/page_fault.dat", dir);
		if ((rc = pf_make_file(st, seed, err, errlen)) != 0 ||
		    (rc = pf_read_file(st, err, errlen)) != 0)
			return rc;
	}
	return 0;
}

static int pf_calibrate(void *state, uint64_t *iterations, char *err, size_t errlen)
{
	const struct pf_state *st = state;

	(void)err;
	(void)errlen;
	*iterations = st->major ? 128 : 1024;
	if (*iterations > st->npages)
		*iterations = st->npages;
	return 0;
}

static int pf_prepare(void *state, char *err, size_t errlen)
{
	struct pf_state *st = state;

	return st->major ? pf_remap(st, err, errlen) : st->file ? pf_check_cached(st, err, errlen) : 0;
}

/* Touch pages order[from .. from+n) of map: one byte each; returns ticks
   and adds the thread's CPU time over the touches to *cpu_ns. */
static uint64_t pf_touch(const struct pf_state *st, char *map, size_t from, size_t n,
			 uint64_t *cpu_ns)
{
	const size_t *o = st->order + from, stride = st->stride;
	uint64_t t0, t1, acc = 0, c0 = pt_thread_cpu_ns();

	if (st->major || st->file) {
		t0 = pt_start();
		for (size_t i = 0; i < n; i++)
			acc += *(volatile unsigned char *)(map + o[i] * stride);
		t1 = pt_stop();
		pt_sink_u64(acc);
	} else {
		t0 = pt_start();
		for (size_t i = 0; i < n; i++)
			*(volatile unsigned char *)(map + o[i] * stride) = 1;
		t1 = pt_stop();
	}
	*cpu_ns += pt_thread_cpu_ns() - c0;
	return t1 - t0;
}

/* Touch `iterations` pages, in batches of at most npages (a fresh mapping,
   or for major faults a fresh drop, per batch).  Fills ticks, the thread's
   CPU time over the touches, and the fault-count delta (-1 if unknown). */
static int pf_run(struct pf_state *st, uint64_t iterations, uint64_t *ticks,
		  uint64_t *cpu, long *faults, char *err, size_t errlen)
{
	uint64_t done = 0;
	long f0, f1, mf0;
	int rc;

	*ticks = *cpu = 0;
	if (st->major && !st->map && (rc = pf_remap(st, err, errlen)) != 0)
		return rc;
	f0 = pf_faults(st->major);
	mf0 = st->file ? pf_faults(1) : 0;
	while (done < iterations) {
		size_t n = iterations - done < st->npages ? (size_t)(iterations - done)
							  : st->npages;

		if (st->major) {
			if (done > 0 && (rc = pf_remap(st, err, errlen)) != 0)
				return rc;
			*ticks += pf_touch(st, st->map, 0, n, cpu);
		} else if (st->file) {
			/* a fresh mapping: no page-table entry yet, every
			   page in the page cache */
			char *m = mmap(NULL, st->map_len, PROT_READ, MAP_SHARED, st->fd, 0);

			if (m == MAP_FAILED) {
				rc = -errno;
				snprintf(err, errlen, "mmap '%s': %s", st->path, strerror(-rc));
				return rc;
			}
			*ticks += pf_touch(st, m, 0, n, cpu);
			munmap(m, st->map_len);
		} else {
			char *m = mmap(NULL, st->map_len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

			if (m == MAP_FAILED) {
				rc = -errno;
				snprintf(err, errlen, "mmap %zu bytes: %s", st->map_len,
					 strerror(-rc));
				return rc;
			}
			(void)madvise(m, st->map_len, MADV_NOHUGEPAGE);
			*ticks += pf_touch(st, m, 0, n, cpu);
			munmap(m, st->map_len);
		}
		done += n;
	}
	f1 = pf_faults(st->major);
	*faults = f0 >= 0 && f1 >= 0 ? f1 - f0 : -1;
	if (st->file) {
		long mf1 = pf_faults(1);
		st->majflt = mf0 >= 0 && mf1 >= 0 ? mf1 - mf0 : 0;
	}
	if (st->major) {		/* the next sample starts from a fresh drop */
		munmap(st->map, st->map_len);
		st->map = NULL;
	}
	return 0;
}

static int pf_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct pf_state *st = state;
	uint64_t ticks = 0, cpu = 0;
	double wall_ns = 0, off = NAN;
	long faults = -1;
	int rc, tries = 0;

	/* A minor-fault sample disturbed by another task is taken again (a
	   major one sleeps on its I/O by design: never retried). */
	do {
		rc = pf_run(st, iterations, &ticks, &cpu, &faults, err, errlen);
		if (rc)
			return rc;
		wall_ns = pt_ticks_to_ns(ticks, h->tsc_hz);
		off = wall_ns > 0 ? 1.0 - (double)cpu / wall_ns : NAN;
		if (off < 0)
			off = 0;
	} while (!st->major && off > PF_MAX_OFF_CPU && ++tries < PF_TRIES);
	/* file: per fault really taken (fault-around maps several pages in
	   one); major, minor: one fault per page touched */
	out->value = wall_ns / 1000.0 /
		     (st->file && faults > 0 ? (double)faults : (double)iterations);
	out->extra[PF_M_NS_PER_BYTE] = out->value * 1000.0 / (double)st->page;
	out->extra[PF_M_FAULTS] = faults >= 0 ? (double)faults : NAN;
	out->extra[PF_M_DROP] = st->major ? st->use_drop : NAN;
	out->extra[PF_M_CACHED] = st->major || st->file ? st->cached_share : NAN;
	out->extra[PF_M_PPF] = faults > 0 ? (double)iterations / (double)faults : NAN;
	out->extra[PF_M_OFF_CPU] = off;
	out->extra[PF_M_RETRIES] = tries < PF_TRIES ? tries : PF_TRIES - 1;
	if (!st->major && off > PF_MAX_OFF_CPU) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof(out->note), "off the cpu for %.1f%% of the sample "
			 "in %d tries (other tasks or the host ran)", off * 100, PF_TRIES);
	}
	st->touched += iterations;
	if (st->file && faults == 0) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof(out->note), "no minor fault counted for %llu pages "
			 "touched", (unsigned long long)iterations);
	} else if (st->file && st->majflt > 0) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof(out->note), "%ld major faults for %llu pages touched: "
			 "the file was not all in the page cache", st->majflt,
			 (unsigned long long)iterations);
	}
	if (faults >= 0) {
		st->counted += (uint64_t)faults;
		if (!st->file && (double)faults < 0.5 * (double)iterations) {
			out->flags |= PROBE_SAMPLE_INVALID;
			snprintf(out->note, sizeof(out->note), "%ld %s faults counted for %llu "
				 "pages touched", faults, st->major ? "major" : "minor",
				 (unsigned long long)iterations);
		}
	}
	return 0;
}

static int pf_sanity(void *state, char *err, size_t errlen)
{
	const struct pf_state *st = state;

	if (st->file && st->touched && !st->counted) {
		snprintf(err, errlen, "no minor fault counted for %llu pages touched",
			 (unsigned long long)st->touched);
		return -1;
	}
	if (!st->file && st->touched && st->counted < st->touched / 2) {
		snprintf(err, errlen, "%llu %s faults counted for %llu pages touched",
			 (unsigned long long)st->counted, st->major ? "major" : "minor",
			 (unsigned long long)st->touched);
		return -1;
	}
	return 0;
}

static void pf_teardown(void *state)
{
	struct pf_state *st = state;

	if (st->map)
		munmap(st->map, st->map_len);
	if (st->fd >= 0)
		close(st->fd);
	if (st->path[0])
		unlink(st->path);
	free(st->order);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "page_fault",
	.version = "1.1",
	.summary = "page-fault service time: major (file page from disk), minor (fresh "
		   "anonymous page) or file (cached file page)",
	.unit = "us",
	.bigger_is_better = 0,
	.params = pf_params,
	.metrics = pf_metrics,
	.config_size = sizeof(struct pf_cfg),
	.state_size = sizeof(struct pf_state),
	.needs_counter_hz = 1,
	.setup = pf_setup,
	.calibrate = pf_calibrate,
	.prepare = pf_prepare,
	.sample = pf_sample,
	.sanity = pf_sanity,
	.teardown = pf_teardown,
};
