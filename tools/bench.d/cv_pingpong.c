/*
 * cv_pingpong.c - an independent condition-variable reference for
 * tools/bench.d/switch.sh:
 *   cv_pingpong N CPU_A CPU_B    mean one-way hand-off (ns) between two threads
 * Two threads pinned to CPU_A and CPU_B take turns N times through one mutex
 * and two condition variables (signal with the mutex held, as the probe
 * does); clock_gettime around the whole loop; nothing shared with the probes,
 * nothing subtracted (the probe subtracts ~25 ns of lock+signal+unlock).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_a = PTHREAD_COND_INITIALIZER, cv_b = PTHREAD_COND_INITIALIZER;
static int turn, quit;

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *partner(void *arg)
{
	pin(*(int *)arg);
	pthread_mutex_lock(&mx);
	while (!quit) {
		while (turn == 0)
			pthread_cond_wait(&cv_b, &mx);
		turn = 0;
		pthread_cond_signal(&cv_a);
	}
	pthread_mutex_unlock(&mx);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t thr;
	long n;
	int cpu_a, cpu_b;

	if (argc != 4) {
		fprintf(stderr, "usage: cv_pingpong N CPU_A CPU_B\n");
		return 2;
	}
	n = atol(argv[1]);
	cpu_a = atoi(argv[2]);
	cpu_b = atoi(argv[3]);
	pin(cpu_a);
	pthread_create(&thr, NULL, partner, &cpu_b);
	for (int pass = 0; pass < 2; pass++) {	/* pass 0 warms up */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&mx);
			turn = 1;
			pthread_cond_signal(&cv_b);
			while (turn == 1)
				pthread_cond_wait(&cv_a, &mx);
			pthread_mutex_unlock(&mx);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
	}
	pthread_mutex_lock(&mx);
	quit = 1;
	turn = 1;
	pthread_cond_signal(&cv_b);
	pthread_mutex_unlock(&mx);
	pthread_join(thr, NULL);
	printf("%.1f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n / 2);
	return 0;
}
