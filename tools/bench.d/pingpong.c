/*
 * pingpong.c - an independent TCP reference for tools/bench.d/network.sh:
 *   pingpong rtt N SIZE CLIENT_CPU SERVER_CPU   mean round trip (ns) over 127.0.0.1
 *   pingpong connect N CLIENT_CPU SERVER_CPU    mean connect+close cycle (ns)
 *   pingpong phases N CLIENT_CPU SERVER_CPU     mean setup and teardown (ns), apart:
 *       connect() returning; then (untimed) a byte from the server once it
 *       has accepted; then shutdown(SHUT_WR) until the server's FIN
 * Plain sockets and clock_gettime, nothing shared with the probes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof s, &s);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int full(int fd, char *b, size_t n, int rd)
{
	while (n) {
		ssize_t r = rd ? read(fd, b, n) : write(fd, b, n);
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rtt = argc == 6 && strcmp(argv[1], "rtt") == 0;
	int phases = argc == 5 && strcmp(argv[1], "phases") == 0;
	if (!rtt && !phases && !(argc == 5 && strcmp(argv[1], "connect") == 0)) {
		fprintf(stderr, "usage: pingpong rtt N SIZE CCPU SCPU | connect|phases N CCPU SCPU\n");
		return 2;
	}
	long n = atol(argv[2]);
	size_t size = rtt ? (size_t)atol(argv[3]) : 1;
	int ccpu = atoi(argv[rtt ? 4 : 3]), scpu = atoi(argv[rtt ? 5 : 4]);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	char *buf = calloc(1, size);

	bind(l, (struct sockaddr *)&a, al);
	listen(l, 128);
	getsockname(l, (struct sockaddr *)&a, &al);
	pid_t pid = fork();
	if (pid == 0) {
		pin(scpu);
		for (;;) {
			int c = accept(l, NULL, NULL);
			setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
			if (phases && full(c, buf, 1, 0) < 0)
				_exit(1);
			while (full(c, buf, size, 1) == 0 && (!rtt || full(c, buf, size, 0) == 0))
				;
			close(c);
			if (rtt)
				_exit(0);
		}
	}
	pin(ccpu);
	double t0 = 0, total = 0, down = 0;
	if (phases) {
		for (long i = 0; i < n; i++) {
			int c = socket(AF_INET, SOCK_STREAM, 0);
			double t1, t2;
			t0 = now();
			if (connect(c, (struct sockaddr *)&a, al) < 0)
				return 1;
			t1 = now();
			if (read(c, buf, 1) != 1)
				return 1;
			t2 = now();
			shutdown(c, SHUT_WR);
			read(c, buf, 1);
			down += now() - t2;
			total += t1 - t0;
			close(c);
		}
	} else if (rtt) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		connect(c, (struct sockaddr *)&a, al);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		for (long i = 0; i < n / 10; i++)	/* warm up */
			full(c, buf, size, 0), full(c, buf, size, 1);
		t0 = now();
		for (long i = 0; i < n; i++)
			if (full(c, buf, size, 0) || full(c, buf, size, 1))
				return 1;
		total = now() - t0;
		close(c);
	} else {
		t0 = now();
		for (long i = 0; i < n; i++) {
			int c = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(c, (struct sockaddr *)&a, al) < 0)
				return 1;
			shutdown(c, SHUT_WR);
			read(c, buf, 1);
			close(c);
		}
		total = now() - t0;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (phases)
		printf("%.0f %.0f\n", total / (double)n, down / (double)n);
	else
		printf("%.0f\n", total / (double)n);
	return 0;
}
