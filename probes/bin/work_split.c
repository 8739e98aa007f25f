/*
 * work_split - the same CPU work split over N threads or N processes (the
 * CS481 lab's "measurements using time" program): WORK units of a fixed
 * arithmetic loop, WORK/N per worker, then join (pthread_join) or reap
 * (waitpid).  With N workers on fewer CPUs, wall time stops falling while
 * user time stays; processes pay fork, exit and page-table copies on top.
 * With MEM, each worker also writes MEM bytes of its own memory: N
 * processes then hold N*MEM at once, which a cgroup's peak sees and
 * ru_maxrss (the largest single process, what time(1) prints) does not.
 * Usage: work_split threads|processes N WORK [MEM]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNIT 1000000UL		/* loop iterations per unit of work */

static unsigned long units;	/* per worker */
static size_t mem;		/* bytes each worker writes */

static unsigned long crunch(unsigned long n)
{
	volatile unsigned long x = 1;

	for (unsigned long i = 0; i < n * UNIT; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

/* Write mem bytes (every page), do the work, then let go. */
static void *worker(void *arg)
{
	volatile unsigned char *p = mem ? malloc(mem) : NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	(void)arg;
	for (size_t i = 0; p && i < mem; i += page)
		p[i] = 1;
	crunch(units);
	free((void *)p);
	return NULL;
}

int main(int argc, char **argv)
{
	long n;
	int threads;

	if ((argc != 4 && argc != 5) || (strcmp(argv[1], "threads") && strcmp(argv[1], "processes")) ||
	    (n = atol(argv[2])) < 1 || atol(argv[3]) < 1) {
		fprintf(stderr, "usage: work_split threads|processes N WORK [MEM]\n");
		return 2;
	}
	mem = argc == 5 ? (size_t)strtoull(argv[4], NULL, 10) : 0;
	threads = strcmp(argv[1], "threads") == 0;
	units = (unsigned long)atol(argv[3]) / (unsigned long)n;
	if (threads) {
		pthread_t *t = calloc((size_t)n, sizeof *t);

		for (long i = 0; t && i < n; i++)
			if (pthread_create(&t[i], NULL, worker, NULL) != 0)
				return 1;
		for (long i = 0; t && i < n; i++)
			pthread_join(t[i], NULL);
		free(t);
		return t ? 0 : 1;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			worker(NULL);
			_exit(0);
		}
	}
	for (long i = 0; i < n; i++)
		if (wait(NULL) < 0)
			return 1;
	return 0;
}
