/*
 * spin - burn CPU in user space for about SECONDS of wall time, then exit 0:
 * the command probe's tests check that user time comes out about equal to
 * wall time for such a program.  Usage: spin SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	volatile unsigned long x = 0;
	double end;

	if (argc != 2) {
		fprintf(stderr, "usage: spin SECONDS\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	while (now() < end)	/* the vDSO clock: no system call, user time */
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	return 0;
}
