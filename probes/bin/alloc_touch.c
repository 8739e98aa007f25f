/*
 * alloc_touch - allocate BYTES and write every page of it, then exit 0, so
 * that the peak memory of the run is at least BYTES (the command probe's
 * tests).  Usage: alloc_touch BYTES
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t n, page = (size_t)sysconf(_SC_PAGESIZE);
	volatile unsigned char *p;

	if (argc != 2) {
		fprintf(stderr, "usage: alloc_touch BYTES\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	if (!(p = malloc(n ? n : 1))) {
		fprintf(stderr, "alloc_touch: cannot allocate %zu bytes\n", n);
		return 1;
	}
	for (size_t i = 0; i < n; i += page)
		p[i] = 1;	/* a page is resident once written */
	return p[0] == 1 || n == 0 ? 0 : 1;
}
