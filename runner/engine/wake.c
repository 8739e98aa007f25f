/*
 * wake.c - a cross-CPU wake-up round trip (wake.h).  Pipes, not a futex:
 * the point is what the kernel and the hypervisor do to wake the other
 * side, and a pipe's read and write add about a microsecond to tens.
 */
#include "engine/wake.h"
#include "stats/stats.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define WAKE_MAX 64

struct echo {
	int in, out, cpu;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The far side: pinned to its CPU, echoes every byte until EOF. */
static void *echo(void *arg)
{
	struct echo *e = arg;
	cpu_set_t one;
	char b;

	CPU_ZERO(&one);
	CPU_SET(e->cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof one, &one);
	while (read(e->in, &b, 1) == 1)
		if (write(e->out, &b, 1) != 1)
			break;
	return NULL;
}

/* Another CPU of allowed, or -1. */
static int other_cpu(int cpu, const cpu_set_t *allowed)
{
	for (int i = 0; allowed && i < CPU_SETSIZE; i++)
		if (i != cpu && CPU_ISSET(i, allowed))
			return i;
	return -1;
}

double wake_round_trip_us(int cpu, const cpu_set_t *allowed, int n)
{
	int ping[2], pong[2], far = other_cpu(cpu, allowed), ok = 1;
	double t[WAKE_MAX], r = NAN;
	struct echo e;
	pthread_t th;
	char b = 'w';

	if (cpu < 0 || far < 0 || n < 1)
		return NAN;
	if (n > WAKE_MAX)
		n = WAKE_MAX;
	if (pipe(ping) < 0)
		return NAN;
	if (pipe(pong) < 0) {
		close(ping[0]), close(ping[1]);
		return NAN;
	}
	e = (struct echo){ .in = ping[0], .out = pong[1], .cpu = far };
	/* the thread starts with every signal blocked, so that Ctrl-C lands on
	   this thread (its read returns EINTR: the measurement ends) and never
	   ends the echo while this side waits for it */
	sigset_t all, was;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	int rc = pthread_create(&th, NULL, echo, &e);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (rc != 0) {
		close(ping[0]), close(ping[1]), close(pong[0]), close(pong[1]);
		return NAN;
	}
	/* one untimed exchange: the thread has started and moved to its CPU */
	for (int i = -1; i < n && ok; i++) {
		double t0 = now_us();

		ok = write(ping[1], &b, 1) == 1 && read(pong[0], &b, 1) == 1;
		if (i >= 0)
			t[i] = now_us() - t0;
	}
	close(ping[1]);		/* EOF ends the thread (a byte it still echoes
				   lands in pong's buffer, never blocks it) */
	pthread_join(th, NULL);
	close(ping[0]), close(pong[0]), close(pong[1]);
	if (ok)
		r = stats_quantile(t, (size_t)n, 0.5);
	return r;
}
