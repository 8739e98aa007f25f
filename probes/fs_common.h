/*
 * fs_common.h - what the file-system probes (file_read, read_api, fs_cache,
 * fs_contention) share: the test files, the directory they live in, cold
 * cache eviction and its verification, O_DIRECT alignment, a checksum.
 * Static inline functions only: each probe compiles its own copy.
 *
 * Test files hold real data (a seeded xorshift stream written block by
 * block and fsynced: fallocated or sparse blocks are never read from the
 * device).  A file is named after its size and content seed,
 * DIR/sysmeter-<bytes>-<seed>.dat, and reused by every point, round and run
 * that asks for the same pair.  It is written as an unnamed O_TMPFILE and
 * linked under its name only when complete, so a crash, a timeout or Ctrl-C
 * (the runner SIGKILLs the point's process group) leaves nothing behind;
 * where O_TMPFILE is not supported a temporary name ".sysmeter-*.tmp.PID"
 * is renamed instead, and stale temporary names of dead processes are
 * removed by the next setup.  Before writing, free space is checked
 * (statvfs) and not enough is a clear error naming the directory, what is
 * needed and what is free.
 *
 * Cold: /proc/sys/vm/drop_caches ("1": clean page cache) when privileged,
 * else posix_fadvise(DONTNEED); then mincore() over a mapping of the file
 * counts the pages still resident, and a point that asked for cold data
 * fails when more than FS_COLD_MAX of them are.  $SYSMETER_FS_NO_EVICT=1
 * skips the eviction (a test hook: such a point must fail).
 *
 * O_DIRECT alignment: statx(STATX_DIOALIGN) where the kernel reports it
 * (6.1+), else the device's logical block size (BLKSSZGET), else 4096.
 */
#ifndef SYSMETER_FS_COMMON_H
#define SYSMETER_FS_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "probe.h"

#define FS_DEFAULT_DIR "/var/tmp/sysmeter-files"
/* A cold point fails when more than this share of its file is resident. */
#define FS_COLD_MAX 0.01
/* Free space kept beyond the file itself. */
#define FS_SPACE_MARGIN (64ull << 20)

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif
#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN 0x00002000U
#endif

/* How a file was made cold (metric "evict"). */
enum { FS_EVICT_NONE = 0, FS_EVICT_DROP = 1, FS_EVICT_FADVISE = 2 };

/* Where a file lives: statfs f_type and the device (metric values). */
struct fs_where {
	unsigned long magic;
	unsigned dev_major, dev_minor;
};

static inline uint64_t fs_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The 64-bit word at byte offset off (a multiple of 8) of the file written
   with `seed`: fs_write_data's stream is splitmix64 of seed + (i+1)*golden
   for word i, so any block's first word can be checked where it lands. */
static inline uint64_t fs_word_at(uint64_t seed, uint64_t off)
{
	uint64_t s = seed + (off / 8) * 0x9e3779b97f4a7c15ull;

	return fs_rand(&s);
}

/* The sum of n bytes as 64-bit words (tail bytes added singly): every
   byte read is looked at, so no read can be skipped or elided. */
static inline uint64_t fs_sum(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t s = 0, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		s += w;
	}
	for (; i < n; i++)
		s += b[i];
	return s;
}

/* The directory parameter, or the default; created (one level) if absent. */
static inline int fs_dir(const char *param, char *dir, size_t dlen, char *err, size_t errlen)
{
	struct stat sb;

	snprintf(dir, dlen, "%s", param && *param ? param : FS_DEFAULT_DIR);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		int e = errno;

		snprintf(err, errlen, "cannot create directory '%s': %s", dir, strerror(e));
		return -e;
	}
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is not a directory", dir);
		return -ENOTDIR;
	}
	return 0;
}

static inline void fs_where_of(int fd, struct fs_where *w)
{
	struct statfs fs;
	struct stat sb;

	memset(w, 0, sizeof(*w));
	if (fstatfs(fd, &fs) == 0)
		w->magic = (unsigned long)fs.f_type;
	if (fstat(fd, &sb) == 0) {
		w->dev_major = major(sb.st_dev);
		w->dev_minor = minor(sb.st_dev);
	}
}

static inline const char *fs_type_name(unsigned long magic)
{
	switch (magic) {
	case 0xEF53: return "ext4";
	case 0x58465342: return "xfs";
	case 0x9123683E: return "btrfs";
	case 0x01021994: return "tmpfs";
	case 0x858458f6: return "ramfs";
	case 0x794c7630: return "overlayfs";
	case 0x6969: return "nfs";
	case 0xF2F52010: return "f2fs";
	default: return "other";
	}
}

/* Remove ".sysmeter-*.tmp.PID" files of processes that no longer exist. */
static inline void fs_clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		const char *t = strstr(e->d_name, ".tmp.");
		char p[4096];
		long pid;

		if (strncmp(e->d_name, ".sysmeter-", 10) != 0 || !t)
			continue;
		pid = strtol(t + 5, NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	}
	closedir(d);
}

/* A block a file of `size` bytes can be read in: a multiple of 8 (every
   block's first word is checked) and no larger than the file.  0, or
   -EINVAL with the message (setup, and the probes' check hooks). */
static inline int fs_check_block(uint64_t block, uint64_t size, char *err, size_t errlen)
{
	if (block == 0 || block % 8 || size / block < 1) {
		snprintf(err, errlen, "block %llu must be a multiple of 8 and at most the size %llu",
			 (unsigned long long)block, (unsigned long long)size);
		return -EINVAL;
	}
	return 0;
}

/* A block just read from byte offset off of a test file: its first word
   must be the seeded data's (else the file is not ours: `why` says what
   may have happened), and every byte goes into *sum so no read can be
   skipped.  0, or -EIO with the message. */
static inline int fs_block_ok(const void *buf, uint64_t block, uint64_t seed, uint64_t off,
			      const char *file, const char *why, uint64_t *sum, char *err,
			      size_t errlen)
{
	uint64_t w;

	memcpy(&w, buf, 8);
	if (w != fs_word_at(seed, off)) {
		snprintf(err, errlen, "'%s' at %llu does not hold the seeded data (%s)", file,
			 (unsigned long long)off, why);
		return -EIO;
	}
	*sum += fs_sum(buf, (size_t)block);
	return 0;
}

/* The next n bytes (a multiple of 8) of the seeded stream: what a test file
   holds, chunk after chunk (fs_word_at gives any word of it directly). */
static inline void fs_fill(uint64_t *buf, size_t n, uint64_t *seed)
{
	for (size_t i = 0; i < n / 8; i++)
		buf[i] = fs_rand(seed);
}

static inline int fs_write_data(int fd, uint64_t size, uint64_t seed, const char *what,
				char *err, size_t errlen)
{
	const size_t chunk = 1u << 20;
	uint64_t *buf = malloc(chunk);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (uint64_t done = 0; done < size && !rc;) {
		size_t n = size - done < chunk ? (size_t)(size - done) : chunk;

		fs_fill(buf, chunk, &seed);
		for (size_t off = 0; off < n;) {
			ssize_t w = write(fd, (char *)buf + off, n - off);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				rc = -errno;
				snprintf(err, errlen, "write '%s': %s", what, strerror(-rc));
				break;
			}
			off += (size_t)w;
		}
		done += n;
	}
	free(buf);
	if (!rc && fsync(fd) != 0) {
		rc = -errno;
		snprintf(err, errlen, "fsync '%s': %s", what, strerror(-rc));
	}
	return rc;
}

/*
 * The test file of `size` bytes and content `seed` in `dir`: reused when it
 * exists with that size, else written (see the top).  Fills path; *made is
 * set to 1 when the file was written now.
 */
static inline int fs_file(const char *dir, uint64_t size, uint64_t seed, char *path,
			  size_t plen, int *made, char *err, size_t errlen)
{
	struct statvfs vfs;
	struct stat sb;
	char tmp[4096], proc[64];
	int fd, rc;

	*made = 0;
	snprintf(path, plen, "%s/sysmeter-%llu-%016llx.dat", dir, (unsigned long long)size,
		 (unsigned long long)seed);
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == size)
		return 0;
	fs_clean_stale(dir);
	if (statvfs(dir, &vfs) == 0) {
		uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;

		if (avail < size + FS_SPACE_MARGIN) {
			snprintf(err, errlen, "not enough free space in '%s': a %llu MiB test file "
				 "needs %llu MiB (with a %llu MiB margin), %llu MiB free", dir,
				 (unsigned long long)(size >> 20),
				 (unsigned long long)((size + FS_SPACE_MARGIN) >> 20),
				 (unsigned long long)(FS_SPACE_MARGIN >> 20),
				 (unsigned long long)(avail >> 20));
			return -ENOSPC;
		}
	}
	unlink(path);		/* a file of the wrong size */
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0) {
		rc = fs_write_data(fd, size, seed, path, err, errlen);
		if (!rc) {
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0 &&
			    errno != EEXIST) {
				rc = -errno;
				snprintf(err, errlen, "link '%s': %s", path, strerror(-rc));
			}
		}
		close(fd);
	} else {
		snprintf(tmp, sizeof(tmp), "%s/.sysmeter-%llu-%016llx.tmp.%ld", dir,
			 (unsigned long long)size, (unsigned long long)seed, (long)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "create '%s': %s", tmp, strerror(-rc));
			return rc;
		}
		rc = fs_write_data(fd, size, seed, tmp, err, errlen);
		close(fd);
		if (!rc && rename(tmp, path) != 0) {
			rc = -errno;
			snprintf(err, errlen, "rename to '%s': %s", path, strerror(-rc));
		}
		if (rc)
			unlink(tmp);
	}
	if (!rc)
		*made = 1;
	return rc;
}

/* Share of the first `size` bytes of fd resident in the page cache
   (mincore over a fresh mapping, which itself faults nothing in); NaN when
   it cannot be told. */
static inline double fs_resident(int fd, uint64_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096, n = (size_t)((size + page - 1) / page), c = 0;
	unsigned char *vec;
	void *m;

	if (size == 0)
		return 0;
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return NAN;
	vec = malloc(n);
	if (!vec || mincore(m, (size_t)size, vec) != 0) {
		free(vec);
		munmap(m, (size_t)size);
		return NAN;
	}
	for (size_t i = 0; i < n; i++)
		c += vec[i] & 1;
	free(vec);
	munmap(m, (size_t)size);
	return (double)c / (double)n;
}

static inline int fs_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, "1", 1);
	close(fd);
	return w == 1 ? 0 : -EIO;
}

/*
 * Evict fd's pages: drop_caches when *method is FS_EVICT_DROP (falls back to
 * fadvise, setting *method, when that fails), else fadvise(DONTNEED); then
 * verify with mincore.  *resident gets the share still cached.  A share
 * above FS_COLD_MAX fails with the reason.
 */
static inline int fs_evict(int fd, uint64_t size, const char *path, int *method,
			   double *resident, char *err, size_t errlen)
{
	const char *hook = getenv("SYSMETER_FS_NO_EVICT");
	int rc;

	/* Readahead the last sample started can still be in flight when the
	   caches are dropped and land just after (seen: 5.9 % of a 16 MiB file
	   cached again): wait for it and evict again, a few times, before
	   calling the file impossible to evict. */
	for (int attempt = 0; attempt < 5; attempt++) {
		if (hook && *hook == '1')
			break;
		if (attempt)
			usleep(20000u * (unsigned)attempt);
		if (*method == FS_EVICT_DROP && fs_drop_caches() != 0)
			*method = FS_EVICT_FADVISE;
		rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (rc && *method != FS_EVICT_DROP) {
			snprintf(err, errlen, "posix_fadvise(DONTNEED) '%s': %s", path,
				 strerror(rc));
			return -rc;
		}
		if (fs_resident(fd, size) <= FS_COLD_MAX)
			break;
	}
	*resident = fs_resident(fd, size);
	if (!(*resident <= FS_COLD_MAX)) {
		struct fs_where w;

		fs_where_of(fd, &w);
		snprintf(err, errlen, "cold read asked for, but %.1f%% of '%s' (%s) is still "
			 "cached after %s (mincore)%s", *resident * 100, path,
			 fs_type_name(w.magic),
			 hook && *hook == '1' ? "no eviction ($SYSMETER_FS_NO_EVICT=1)"
			 : *method == FS_EVICT_DROP ? "drop_caches" : "posix_fadvise(DONTNEED)",
			 w.magic == 0x01021994 || w.magic == 0x858458f6
			 ? ": a file in memory cannot be evicted" : "");
		return -EBUSY;
	}
	return 0;
}

/* The sanity check every reader shares: bytes were read and really summed
   (a sum of 0 over real random data means the reads were skipped). */
static inline int fs_sanity_sum(uint64_t bytes, uint64_t sum, char *err, size_t errlen)
{
	if (bytes && !sum) {
		snprintf(err, errlen, "%llu bytes read summed to 0", (unsigned long long)bytes);
		return -1;
	}
	return 0;
}

/* Read the whole file once (buffered), so its pages are cached. */
static inline int fs_warm(int fd, uint64_t size, uint64_t *sum, char *err, size_t errlen)
{
	const size_t chunk = 1u << 20;
	char *buf = malloc(chunk);
	uint64_t off = 0;

	if (!buf)
		return -ENOMEM;
	while (off < size) {
		ssize_t r = pread(fd, buf, chunk, (off_t)off);

		if (r <= 0) {
			int e = r < 0 ? errno : EIO;

			if (r < 0 && e == EINTR)
				continue;
			free(buf);
			snprintf(err, errlen, "read: %s", strerror(e));
			return -e;
		}
		*sum += fs_sum(buf, (size_t)r);
		off += (uint64_t)r;
	}
	free(buf);
	return 0;
}

/* O_DIRECT alignment of memory and file offsets for the file at fd. */
static inline void fs_dio_align(int fd, size_t *mem, size_t *off)
{
	struct statx sx;
	struct stat sb;
	char dev[64];
	int bfd, ss = 0;

	*mem = *off = 0;
	memset(&sx, 0, sizeof(sx));
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align) {
		*mem = sx.stx_dio_mem_align;
		*off = sx.stx_dio_offset_align;
		return;
	}
	if (fstat(fd, &sb) == 0) {
		snprintf(dev, sizeof(dev), "/dev/block/%u:%u", major(sb.st_dev), minor(sb.st_dev));
		bfd = open(dev, O_RDONLY | O_CLOEXEC);
		if (bfd >= 0) {
			if (ioctl(bfd, BLKSSZGET, &ss) != 0)
				ss = 0;
			close(bfd);
		}
	}
	*mem = *off = ss > 0 ? (size_t)ss : 4096;
}

/* A seeded permutation of 0..n-1 (Fisher-Yates), or identity. */
static inline uint64_t *fs_order(uint64_t n, int random, uint64_t seed)
{
	uint64_t *o = malloc((size_t)n * sizeof(*o));

	if (!o)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		o[i] = i;
	if (random)
		for (uint64_t i = n - 1; i > 0; i--) {
			uint64_t j = (uint64_t)(((unsigned __int128)fs_rand(&seed) * (i + 1)) >> 64);
			uint64_t t = o[i];

			o[i] = o[j];
			o[j] = t;
		}
	return o;
}

static inline int fs_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of v[0..n), sorting v. */
static inline double fs_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), fs_cmp_double);
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

#endif
