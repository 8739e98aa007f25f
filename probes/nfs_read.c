/*
 * nfs_read - per-block read time of a file on an NFS server, through
 * libnfs (a user-space NFS client: this kernel has none).
 *
 * What:   nfs_pread() of `block` bytes at block-aligned offsets of a test
 *         file on the server, in file order or a seeded random
 *         permutation: file_read's experiment, over the network.
 * Where:  params.url (nfs://HOST/EXPORT), else the run's server (--nfs:
 *         host->nfs_url); none: skipped with the reason.  The file is
 *         sysmeter-SIZE-SEED.dat in the export, the same seeded data as
 *         file_read's (fs_common.h): made in the export's directory on this
 *         host when the server runs here (host->nfs_local_dir), else written
 *         over NFSv3 to a temporary name and renamed.
 * Unit:   µs per block; metrics p50_us, p99_us, mib_per_s, getattr_us (one
 *         GETATTR round trip, the server's cheapest call, timed 8 times
 *         after each sample: the block time is that round trip plus the
 *         server's work plus the transfer), resident (share of the file in
 *         the server's page cache before the sample, when the server is
 *         here), evict (0 none, 1 drop_caches, 2 fadvise on the server's
 *         file), cpu and server_cpu.
 * Placement: the namespace server's daemons are pinned to one CPU
 *         (host->nfs_cpu); params.placement same runs the reader there,
 *         cross on another CPU, any where the scheduler puts it.  Measured
 *         here (4 KiB warm reads): 23 us same, 86-103 us cross, 42-84 us
 *         any: each request wakes server threads, and waking an idle vCPU
 *         costs tens of us.
 * Client: libnfs's page cache and readahead are off unless
 *         client_cache=on, so every block is a READ to the server; the
 *         server's own cache is params.cache: warm (read once in setup) or
 *         cold (evicted before every sample and verified with mincore, only
 *         possible when the server is on this host; elsewhere a cold point
 *         is skipped with the reason).
 * Method: each read is timed on its own; the first 8 bytes of every block
 *         are compared with the seeded data and every byte summed.
 * Confounders: with the namespace server the "network" is a veth pair on
 *         this host (no wire, no NIC interrupts), and the server shares the
 *         client's CPUs and page cache; NFSv4 in libnfs 4.0 reads but
 *         cannot write (files are always made over v3 or locally).
 */
#include <sched.h>

#include "fs_common.h"
#include "probe_time.h"

#include <nfsc/libnfs.h>

enum { NR_M_P50, NR_M_P99, NR_M_MIBS, NR_M_RTT, NR_M_RES, NR_M_EVICT, NR_M_CPU, NR_M_SCPU };
enum { NR_ANY, NR_SAME, NR_CROSS };
enum { NR_COLD, NR_WARM };
enum { NR_SEQUENTIAL, NR_RANDOM };
enum { NR_CLIENT_CACHE_OFF, NR_CLIENT_CACHE_ON };
#define NR_LAT_MAX (1u << 20)
#define NR_GETATTRS 8
#define NR_EVICT_USER 3		/* evict code: made cold by the user (cold_by) */

struct nr_cfg {
	const char *url;
	uint64_t size, block;
	int order;		/* NR_SEQUENTIAL, NR_RANDOM */
	int cache;		/* NR_COLD, NR_WARM (the server's page cache) */
	int64_t version;	/* 3 or 4 */
	int client_cache;	/* NR_CLIENT_CACHE_OFF (0), _ON (1): libnfs's page cache
				   and readahead */
	int placement;		/* NR_ANY, NR_SAME, NR_CROSS: the reader's CPU against
				   the server's */
	const char *cold_by;	/* a server elsewhere: how the user makes it cold */
	int64_t seed;
};

struct nr_state {
	struct nfs_context *nfs;
	struct nfsfh *fh;
	int cache, method, local_fd, version, server_cpu;
	uint64_t size, block, nblocks, pos, seed, sum, expect;
	uint64_t *order;
	char *buf;
	double *lat, resident;
	char local[4096], name[128], url[1024];
};

static const struct probe_param nr_params[] = {
	PROBE_PARAM_STRING(struct nr_cfg, url, "",
		"nfs://HOST/EXPORT of the server; empty: the run's --nfs server"),
	PROBE_PARAM_SIZE(struct nr_cfg, size, "16MiB", "test file size", 4096, 1099511627776.0),
	PROBE_PARAM_SIZE(struct nr_cfg, block, "4KiB", "bytes per read", 512, 16777216),
	PROBE_PARAM_CHOICE(struct nr_cfg, order, "sequential",
		"file order, or a seeded random permutation of the block offsets",
		{ "sequential", NR_SEQUENTIAL }, { "random", NR_RANDOM }),
	PROBE_PARAM_CHOICE(struct nr_cfg, cache, "warm",
		"the server's page cache: cold (evicted and verified before every sample; server on "
		"this host only) or warm (read once in setup)",
		{ "cold", NR_COLD }, { "warm", NR_WARM }),
	PROBE_PARAM_INT(struct nr_cfg, version, "3", "NFS version (3 or 4)", 3, 4),
	PROBE_PARAM_CHOICE(struct nr_cfg, client_cache, "off",
		"libnfs's own page cache and readahead (off: every block goes to the server)",
		{ "off", NR_CLIENT_CACHE_OFF }, { "on", NR_CLIENT_CACHE_ON }),
	PROBE_PARAM_CHOICE(struct nr_cfg, placement, "any",
		"the reader on the server's CPU (same), on another (cross), or where the scheduler "
		"puts it (any); same and cross need the server on this host (--nfs netns)",
		{ "any", NR_ANY }, { "same", NR_SAME }, { "cross", NR_CROSS }),
	PROBE_PARAM_STRING(struct nr_cfg, cold_by, "",
		"a server elsewhere: how its cache is made cold before each sample, by you (cold "
		"points then run and record evict 3; empty: they are skipped)"),
	PROBE_PARAM_INT(struct nr_cfg, seed, "1", "content seed of the test file", 0, 1e15),
	PROBE_PARAM_END,
};

static const struct probe_metric nr_metrics[] = {
	[NR_M_P50] = { "p50_us", "us", "median time of one block read in the sample" },
	[NR_M_P99] = { "p99_us", "us", "99th percentile of one block read in the sample" },
	[NR_M_MIBS] = { "mib_per_s", "MiB/s", "bytes read over the summed read times" },
	[NR_M_RTT] = { "getattr_us", "us", "median of 8 GETATTR round trips after the sample" },
	[NR_M_RES] = { "resident", "ratio",
		       "share of the file in the server's page cache before the sample (server here)" },
	[NR_M_EVICT] = { "evict", "code",
			 "0 none, 1 drop_caches, 2 posix_fadvise(DONTNEED), 3 the user's (params.cold_by)" },
	[NR_M_CPU] = { "cpu", "cpu", "CPU the reader was on at the end of the sample" },
	[NR_M_SCPU] = { "server_cpu", "cpu", "CPU the server's daemons are pinned to (-1 not known)" },
	{ .name = NULL },
};

/* A libnfs context for url, mounted, with the client cache as asked. */
static struct nfs_context *nr_connect(const char *url, int version, int client_cache,
				      char *path, size_t plen, char *err, size_t errlen)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;

	if (!nfs) {
		snprintf(err, errlen, "libnfs: cannot create a context");
		return NULL;
	}
	if (nfs_set_version(nfs, version) != 0) {
		snprintf(err, errlen, "libnfs: NFS version %d: %s", version, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	nfs_set_timeout(nfs, 10000);
	nfs_set_pagecache(nfs, client_cache ? 1024 : 0);
	nfs_set_readahead(nfs, client_cache ? 1048576 : 0);
	u = nfs_parse_url_dir(nfs, url);
	if (!u) {
		snprintf(err, errlen, "'%s': %s", url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return NULL;
	}
	if (nfs_mount(nfs, u->server, u->path) != 0) {
		snprintf(err, errlen, "mount %s:%s (NFSv%d): %s", u->server, u->path, version,
			 nfs_get_error(nfs));
		nfs_destroy_url(u);
		nfs_destroy_context(nfs);
		return NULL;
	}
	snprintf(path, plen, "%s", u->file ? u->file : "");
	nfs_destroy_url(u);
	return nfs;
}

/* Make the test file over NFSv3 (libnfs 4.0 cannot write over v4): to a
   temporary name, then renamed, so a failure leaves no half-made file. */
static int nr_make_remote(struct nr_state *st, int client_cache, char *err, size_t errlen)
{
	char dir[8], tmp[160], final[160];
	struct nfs_context *nfs = nr_connect(st->url, 3, client_cache, dir, sizeof dir, err, errlen);
	struct nfsfh *fh = NULL;
	uint64_t *buf, seed = st->seed;
	const size_t chunk = 1u << 20;
	int rc = 0;

	if (!nfs)
		return -EIO;
	snprintf(final, sizeof final, "/%s", st->name);
	snprintf(tmp, sizeof tmp, "/.%s.tmp.%ld", st->name, (long)getpid());
	if (!(buf = malloc(chunk))) {
		nfs_destroy_context(nfs);
		return -ENOMEM;
	}
	if (nfs_create(nfs, tmp, O_WRONLY | O_TRUNC, 0644, &fh) != 0) {
		snprintf(err, errlen, "create %s on the server: %s", tmp, nfs_get_error(nfs));
		rc = -EIO;
	}
	for (uint64_t done = 0; !rc && done < st->size;) {
		size_t n = st->size - done < chunk ? (size_t)(st->size - done) : chunk;

		fs_fill(buf, chunk, &seed);
		for (size_t off = 0; !rc && off < n;) {
			int w = nfs_pwrite(nfs, fh, done + off, n - off, (char *)buf + off);

			if (w <= 0) {
				snprintf(err, errlen, "write %s on the server: %s", tmp,
					 nfs_get_error(nfs));
				rc = -EIO;
			} else {
				off += (size_t)w;
			}
		}
		done += n;
	}
	if (fh) {
		if (!rc && nfs_fsync(nfs, fh) != 0) {
			snprintf(err, errlen, "fsync %s on the server: %s", tmp, nfs_get_error(nfs));
			rc = -EIO;
		}
		nfs_close(nfs, fh);
	}
	if (!rc && nfs_rename(nfs, tmp, final) != 0) {
		snprintf(err, errlen, "rename %s on the server: %s", tmp, nfs_get_error(nfs));
		rc = -EIO;
	}
	if (rc && fh)
		nfs_unlink(nfs, tmp);
	free(buf);
	nfs_destroy_context(nfs);
	return rc;
}

/* One pass over the whole file (warm: the server reads it into its cache). */
static int nr_read_all(struct nr_state *st, char *err, size_t errlen)
{
	for (uint64_t off = 0; off < st->size; off += st->block)
		if (nfs_pread(st->nfs, st->fh, off, st->block, st->buf) != (int)st->block) {
			snprintf(err, errlen, "read %s at %llu: %s", st->name,
				 (unsigned long long)off, nfs_get_error(st->nfs));
			return -EIO;
		}
	return 0;
}

static int nr_check(const void *cfg, char *err, size_t errlen)
{
	const struct nr_cfg *c = cfg;

	return fs_check_block(c->block, c->size, err, errlen);
}

static int nr_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct nr_cfg *c = cfg;
	struct nr_state *st = state;
	struct nfs_stat_64 sb;
	char sub[8];
	int rc, made;

	st->local_fd = -1;
	st->cache = c->cache;
	st->version = (int)c->version;
	st->block = c->block;
	st->seed = (uint64_t)c->seed;
	st->size = c->size / c->block * c->block;
	st->nblocks = st->size / st->block;
	st->method = h->privileged ? FS_EVICT_DROP : FS_EVICT_FADVISE;
	if ((rc = fs_check_block(c->block, c->size, err, errlen)) != 0)
		return rc;
	int given = c->url && *c->url;
	if (!given && !h->nfs_url) {
		snprintf(err, errlen, "%s", h->nfs_error ? h->nfs_error
			 : "no NFS server: run with --nfs netns (root) or --nfs nfs://HOST/EXPORT, "
			   "or set params.url");
		return PROBE_SKIP;
	}
	snprintf(st->url, sizeof st->url, "%s", given ? c->url : h->nfs_url);
	snprintf(st->name, sizeof st->name, "sysmeter-%llu-%016llx.dat",
		 (unsigned long long)st->size, (unsigned long long)st->seed);
	/* The server is this host's only when the file comes from --nfs netns. */
	const char *here = given ? NULL : h->nfs_local_dir;
	st->server_cpu = here ? h->nfs_cpu : -1;
	if (c->placement != NR_ANY) {
		/* A request and its reply cross from reader to server threads
		   and back: on one CPU a handoff, across two a wake-up of an idle
		   vCPU (tens of us).  Pin the reader to say which. */
		cpu_set_t set, allowed;
		int cpu = -1;

		if (st->server_cpu < 0) {
			snprintf(err, errlen, "placement %s needs the server on this host with its CPU "
				 "known (--nfs netns); use placement: any",
				 c->placement == NR_SAME ? "same" : "cross");
			return PROBE_SKIP;
		}
		if (c->placement == NR_SAME) {
			cpu = st->server_cpu;
		} else if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
			for (int k = 0; k < CPU_SETSIZE && cpu < 0; k++)
				if (CPU_ISSET(k, &allowed) && k != st->server_cpu)
					cpu = k;
		}
		if (cpu < 0) {
			snprintf(err, errlen, "placement cross needs a CPU other than the server's (%d)",
				 st->server_cpu);
			return PROBE_SKIP;
		}
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set) != 0) {
			snprintf(err, errlen, "cannot pin the reader to CPU %d: %s", cpu, strerror(errno));
			return -errno;
		}
	}
	if (st->cache == NR_COLD && !here) {
		if (!c->cold_by || !*c->cold_by) {
			snprintf(err, errlen, "a cold server cache needs the server on this host (--nfs "
				 "netns): the page cache of %s cannot be evicted from here; use cache: "
				 "warm, or say how you make it cold in params.cold_by", st->url);
			return PROBE_SKIP;
		}
		st->method = NR_EVICT_USER;	/* the user's word, recorded with the text */
	}
	if (here) {
		rc = fs_file(here, st->size, st->seed, st->local, sizeof st->local, &made, err,
			     errlen);
		if (rc)
			return rc;
		st->local_fd = open(st->local, O_RDONLY | O_CLOEXEC);
		if (st->local_fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "open '%s': %s", st->local, strerror(-rc));
			return rc;
		}
	}
	st->nfs = nr_connect(st->url, st->version, c->client_cache, sub, sizeof sub, err, errlen);
	if (!st->nfs)
		return -EIO;
	char path[160];
	snprintf(path, sizeof path, "/%s", st->name);
	if (nfs_stat64(st->nfs, path, &sb) != 0 || sb.nfs_size != st->size) {
		if (here) {
			snprintf(err, errlen, "the server does not show '%s' made in %s: %s", st->name,
				 here, nfs_get_error(st->nfs));
			return -EIO;
		}
		if ((rc = nr_make_remote(st, c->client_cache, err, errlen)) != 0)
			return rc;
	}
	if (nfs_open(st->nfs, path, O_RDONLY, &st->fh) != 0) {
		snprintf(err, errlen, "open %s%s: %s", st->url, path, nfs_get_error(st->nfs));
		return -EIO;
	}
	if (posix_memalign((void **)&st->buf, 4096, (size_t)st->block) != 0) {
		st->buf = NULL;
		return -ENOMEM;
	}
	st->order = fs_order(st->nblocks, c->order == NR_RANDOM, h->seed ^ 0x6e66735f72656164ull);
	if (!st->order)
		return -ENOMEM;
	if (st->cache != NR_WARM)
		return 0;
	/* With the server on this host its page cache is this machine's: a
	   local read warms it without sending the file over NFS per round. */
	if (st->local_fd >= 0 && fs_resident(st->local_fd, st->size) >= 1.0)
		return 0;
	return st->local_fd >= 0 ? fs_warm(st->local_fd, st->size, &(uint64_t){0}, err, errlen)
				 : nr_read_all(st, err, errlen);
}

static int nr_calibrate(void *state, uint64_t *iterations, char *err, size_t errlen)
{
	(void)state, (void)err, (void)errlen;
	*iterations = 16;
	return 0;
}

static int nr_prepare(void *state, char *err, size_t errlen)
{
	struct nr_state *st = state;

	st->resident = st->local_fd >= 0 ? fs_resident(st->local_fd, st->size) : NAN;
	if (st->cache == NR_COLD && st->local_fd >= 0) {
		st->pos = 0;
		return fs_evict(st->local_fd, st->size, st->local, &st->method, &st->resident, err,
				errlen);
	}
	return 0;
}

static int nr_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct nr_state *st = state;
	size_t nlat = iterations < NR_LAT_MAX ? (size_t)iterations : NR_LAT_MAX;
	uint64_t ticks = 0, t0, t1, sum = 0;
	double *lat = realloc(st->lat, nlat * sizeof(*lat)), rtt[NR_GETATTRS];
	struct nfs_stat_64 sb;
	int rc;

	if (!lat)
		return -ENOMEM;
	st->lat = lat;
	for (uint64_t i = 0; i < iterations; i++) {
		uint64_t off;
		int r;

		if (st->pos == st->nblocks) {
			st->pos = 0;
			if (st->cache == NR_COLD && st->local_fd >= 0 &&
			    (rc = fs_evict(st->local_fd, st->size, st->local, &st->method,
					   &st->resident, err, errlen)) != 0)
				return rc;
		}
		off = st->order[st->pos++] * st->block;
		t0 = pt_start();
		r = nfs_pread(st->nfs, st->fh, off, st->block, st->buf);
		t1 = pt_stop();
		if (r != (int)st->block) {
			snprintf(err, errlen, "read %s at %llu: %s", st->name, (unsigned long long)off,
				 r < 0 ? nfs_get_error(st->nfs) : "short read");
			return -EIO;
		}
		if ((rc = fs_block_ok(st->buf, st->block, st->seed, off, st->name,
				      "another file of that name on the server?", &sum, err, errlen)) != 0)
			return rc;
		ticks += t1 - t0;
		if (i < nlat)
			lat[i] = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / 1000.0;
	}
	pt_sink_u64(sum);
	st->sum += sum;
	st->expect += iterations * st->block;
	for (int k = 0; k < NR_GETATTRS; k++) {
		t0 = pt_start();
		rc = nfs_fstat64(st->nfs, st->fh, &sb);
		t1 = pt_stop();
		if (rc != 0) {
			snprintf(err, errlen, "GETATTR %s: %s", st->name, nfs_get_error(st->nfs));
			return -EIO;
		}
		rtt[k] = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / 1000.0;
	}
	out->value = pt_ticks_to_ns(ticks, h->tsc_hz) / 1000.0 / (double)iterations;
	out->extra[NR_M_P50] = fs_quantile(lat, nlat, 0.5);
	out->extra[NR_M_P99] = fs_quantile(lat, nlat, 0.99);
	out->extra[NR_M_MIBS] = (double)(iterations * st->block) / 1048576.0 /
				(pt_ticks_to_ns(ticks, h->tsc_hz) * 1e-9);
	out->extra[NR_M_RTT] = fs_quantile(rtt, NR_GETATTRS, 0.5);
	out->extra[NR_M_RES] = st->resident;
	out->extra[NR_M_EVICT] = st->cache == NR_COLD ? st->method : FS_EVICT_NONE;
	out->extra[NR_M_CPU] = sched_getcpu();
	out->extra[NR_M_SCPU] = st->server_cpu;
	return 0;
}

static int nr_sanity(void *state, char *err, size_t errlen)
{
	const struct nr_state *st = state;

	return fs_sanity_sum(st->expect, st->sum, err, errlen);
}

static void nr_teardown(void *state)
{
	struct nr_state *st = state;

	if (st->nfs) {
		if (st->fh)
			nfs_close(st->nfs, st->fh);
		nfs_destroy_context(st->nfs);
	}
	if (st->local_fd >= 0)
		close(st->local_fd);
	free(st->buf);
	free(st->order);
	free(st->lat);
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "nfs_read",
	.version = "1.0",
	.summary = "time per block read from an NFS server (libnfs): sequential or random, "
		   "server cache cold or warm",
	.unit = "us",
	.bigger_is_better = 0,
	.params = nr_params,
	.metrics = nr_metrics,
	.config_size = sizeof(struct nr_cfg),
	.state_size = sizeof(struct nr_state),
	.needs_counter_hz = 1,
	.setup = nr_setup,
	.calibrate = nr_calibrate,
	.prepare = nr_prepare,
	.sample = nr_sample,
	.sanity = nr_sanity,
	.teardown = nr_teardown,
	.check = nr_check,
};
