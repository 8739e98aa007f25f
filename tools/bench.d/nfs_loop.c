/*
 * nfs_loop - an independent libnfs read loop for the NFS bench: reads N
 * blocks of a file over NFS, sequentially or at random block offsets, and
 * prints the median time of one read in microseconds.  Shares no code with
 * the nfs_read probe (its own clock, its own offsets, no data checks).
 *
 *   nfs_loop nfs://HOST/EXPORT FILE BLOCK seq|rand N VERSION
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <nfsc/libnfs.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct nfs_context *nfs;
	struct nfs_url *u;
	struct nfsfh *fh;
	struct nfs_stat_64 st;
	char path[512];

	if (argc != 7) {
		fprintf(stderr, "usage: nfs_loop URL FILE BLOCK seq|rand N VERSION\n");
		return 2;
	}
	size_t block = strtoul(argv[3], NULL, 10), n = strtoul(argv[5], NULL, 10);
	int rnd = strcmp(argv[4], "rand") == 0;
	double *t = calloc(n, sizeof *t);
	char *buf = malloc(block);

	if (!t || !buf || !(nfs = nfs_init_context()))
		return 1;
	nfs_set_version(nfs, atoi(argv[6]));
	nfs_set_pagecache(nfs, 0);
	nfs_set_readahead(nfs, 0);
	if (!(u = nfs_parse_url_dir(nfs, argv[1])) || nfs_mount(nfs, u->server, u->path) != 0) {
		fprintf(stderr, "nfs_loop: %s\n", nfs_get_error(nfs));
		return 1;
	}
	snprintf(path, sizeof path, "/%s", argv[2]);
	if (nfs_open(nfs, path, 0, &fh) != 0 || nfs_fstat64(nfs, fh, &st) != 0) {
		fprintf(stderr, "nfs_loop: %s: %s\n", path, nfs_get_error(nfs));
		return 1;
	}
	uint64_t blocks = st.nfs_size / block, x = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		struct timespec a, b;
		uint64_t off;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		off = (rnd ? x % blocks : i % blocks) * block;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (nfs_pread(nfs, fh, off, block, buf) != (int)block) {
			fprintf(stderr, "nfs_loop: read: %s\n", nfs_get_error(nfs));
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
	}
	qsort(t, n, sizeof *t, cmp);
	printf("%.3f\n", t[n / 2]);
	nfs_close(nfs, fh);
	nfs_destroy_url(u);
	nfs_destroy_context(nfs);
	free(t);
	free(buf);
	return 0;
}
