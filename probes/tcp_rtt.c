/*
 * tcp_rtt - TCP round trip of a small message over one persistent
 * connection, to a loopback server of the probe's own or to a `runner
 * serve` peer (target: remote).
 *
 * Unit: ns per ROUND TRIP (request out and the echo back; not one way).
 *
 * Method: TCP_NODELAY on both ends.  `iterations` times: write `size` bytes
 * (the first 8 the message's number, the rest a seeded pattern), read the
 * `size` echoed bytes back (writes and reads looped until full length), each
 * round trip timed on its own with the serialised counter.  The value is the
 * mean; p50/p90/p99/p99.9 and max of the per-message times are secondary
 * values.  Every echo is compared with what was sent before it counts; a
 * mismatch fails the sample.  The far end is pinned (placement same: the
 * client's CPU; cross: another one) and says where it runs; the client's CPU
 * at the end of each sample is recorded (cpu_client, cpu_server).  Where raw
 * sockets are allowed (root), each sample also sends 8 ICMP echo requests
 * to the same host: icmp_ns, the median, a reference line as `ping` gives.
 *
 * Confounders: same-CPU placement measures two switches per round trip, cross
 * placement a cross-CPU wake-up each way (on a VM: an idle vCPU's wake-up,
 * tens of us, which dominates a loopback round trip); Nagle and delayed ACKs
 * are off the path through TCP_NODELAY; interrupt coalescing of a real NIC.
 */
#include <math.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>

#include "probe.h"
#include "probe_time.h"
#include "tcp_peer.h"

struct rtt_cfg {
	int target, placement;		/* enum tp_target, tp_placement */
	uint64_t size;
};

struct rtt_state {
	struct tp t;
	size_t size;
	int fd;
	int privileged;
	unsigned char *out, *in;
	double *times; size_t cap;
	uint64_t msgno;
	uint16_t ping_seq;
};

static const struct probe_param rtt_params[] = {
	PROBE_PARAM_CHOICE(struct rtt_cfg, target, "loopback",
		"loopback: a server forked by the probe on 127.0.0.1; remote: the --peer",
		{ "loopback", TP_LOOPBACK }, { "remote", TP_REMOTE }),
	PROBE_PARAM_CHOICE(struct rtt_cfg, placement, "same",
		"same: server on the client's CPU; cross: on another CPU",
		{ "same", TP_SAME }, { "cross", TP_CROSS }),
	PROBE_PARAM_SIZE(struct rtt_cfg, size, "64", "message size (bytes), echoed back whole", 1, 1 << 20),
	PROBE_PARAM_END,
};

static const struct probe_metric rtt_metrics[] = {
	{ "p50_ns", "ns", "median round trip of the sample's messages" },
	{ "p90_ns", "ns", "90th percentile round trip" },
	{ "p99_ns", "ns", "99th percentile round trip" },
	{ "p999_ns", "ns", "99.9th percentile round trip" },
	{ "max_ns", "ns", "slowest round trip of the sample" },
	{ "icmp_ns", "ns", "ICMP echo round trip to the same host (median of 8; root only, else null)" },
	{ "cpu_client", "cpu", "CPU of the client at the end of the sample" },
	{ "cpu_server", "cpu", "CPU the far end reported at connection time" },
	{ 0 }
};

/* The loopback server: one connection, say its CPU, echo until EOF. */
static void rtt_server(int lfd, void *arg)
{
	size_t size = *(size_t *)arg;
	char *buf = malloc(size);
	int fd = accept(lfd, NULL, NULL);
	int32_t cpu = sched_getcpu();

	if (fd < 0 || !buf)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	if (tp_write_all(fd, &cpu, sizeof cpu) < 0)
		return;
	while (tp_read_all(fd, buf, size) == 0 && tp_write_all(fd, buf, size) == 0)
		;
}

static void rtt_teardown(void *state)
{
	struct rtt_state *s = state;

	if (s->fd > 0)
		close(s->fd);
	tp_teardown(&s->t);
	free(s->out);
	free(s->in);
	free(s->times);
}

static int rtt_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		     size_t errlen)
{
	const struct rtt_cfg *c = cfg;
	struct rtt_state *s = state;
	int rc;

	s->fd = -1;
	s->size = (size_t)c->size;
	s->privileged = h->privileged;
	s->out = malloc(s->size);
	s->in = malloc(s->size);
	s->cap = 4096;
	s->times = malloc(s->cap * sizeof *s->times);
	if (!s->out || !s->in || !s->times)
		return -ENOMEM;
	for (size_t i = 0; i < s->size; i++)
		s->out[i] = (unsigned char)((h->seed >> (8 * (i % 8))) + i * 131);
	if ((rc = tp_setup(&s->t, c->target == TP_REMOTE, c->placement == TP_CROSS, h, rtt_server,
			   &s->size, err, errlen)) != 0)
		return rc;
	if ((s->fd = tp_connect(&s->t, err, errlen)) < 0)
		return -ECONNREFUSED;
	setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	if (s->t.remote) {
		char req[80];

		snprintf(req, sizeof req, "ECHO size=%zu cpu=%d", s->size, s->t.cpu_server);
		return tp_hello(&s->t, s->fd, req, &s->t.cpu_server, err, errlen);
	}
	int32_t cpu;
	if (tp_read_all(s->fd, &cpu, sizeof cpu) < 0) {
		snprintf(err, errlen, "loopback server: %s", tp_io_error());
		return -EPIPE;
	}
	if (cpu != s->t.cpu_server) {
		snprintf(err, errlen, "server runs on CPU %d, not on CPU %d", (int)cpu, s->t.cpu_server);
		return -EINVAL;
	}
	return 0;
}

static uint16_t icmp_sum(const void *p, size_t n)
{
	const uint16_t *w = p;
	uint32_t s = 0;

	for (; n > 1; n -= 2)
		s += *w++;
	if (n)
		s += *(const uint8_t *)w;
	s = (s >> 16) + (s & 0xffff);
	return (uint16_t)~(s + (s >> 16));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of 8 ICMP echo round trips to the peer's IPv4 address; NaN when
   raw sockets are not allowed or nothing answers. */
static double rtt_icmp(struct rtt_state *s)
{
	double t[8];
	int n = 0, fd;

	if (!s->privileged || s->t.sa.ss_family != AF_INET)
		return NAN;
	if ((fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP)) < 0)
		return NAN;
	struct timeval tv = {0, 200000};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	struct sockaddr_in to = *(struct sockaddr_in *)&s->t.sa;
	to.sin_port = 0;
	uint16_t id = (uint16_t)getpid();
	for (int i = 0; i < 8; i++) {
		struct icmphdr q = {.type = ICMP_ECHO};
		unsigned char buf[1500];
		uint64_t t0, t1;

		q.un.echo.id = id;
		q.un.echo.sequence = htons(++s->ping_seq);
		q.checksum = icmp_sum(&q, sizeof q);
		t0 = tp_now_ns();
		if (sendto(fd, &q, sizeof q, 0, (struct sockaddr *)&to, sizeof to) < 0)
			break;
		for (;;) {
			ssize_t r = recv(fd, buf, sizeof buf, 0);
			if (r < 0)
				break;
			struct iphdr *ip = (struct iphdr *)buf;
			size_t hl = (size_t)ip->ihl * 4;
			struct icmphdr *a = (struct icmphdr *)(buf + hl);
			if ((size_t)r >= hl + sizeof *a && a->type == ICMP_ECHOREPLY &&
			    a->un.echo.id == id && a->un.echo.sequence == q.un.echo.sequence) {
				t1 = tp_now_ns();
				t[n++] = (double)(t1 - t0);
				break;
			}
		}
	}
	close(fd);
	if (n == 0)
		return NAN;
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static double rtt_pct(const double *sorted, size_t n, double p)
{
	size_t i = (size_t)ceil(p * (double)n) - (p * (double)n >= 1 ? 1 : 0);
	return sorted[i < n ? i : n - 1];
}

static int rtt_sample(void *state, uint64_t iterations, const struct probe_host *h,
		      struct probe_sample *out, char *err, size_t errlen)
{
	struct rtt_state *s = state;
	double sum = 0, hz = pt_clock_hz(h->tsc_hz);	/* 0: clock_gettime's ns */

	if (iterations > s->cap) {
		double *n = realloc(s->times, iterations * sizeof *n);
		if (!n)
			return -ENOMEM;
		s->times = n;
		s->cap = iterations;
	}
	for (uint64_t i = 0; i < iterations; i++) {
		uint64_t no = ++s->msgno, t0, t1;

		memcpy(s->out, &no, s->size < 8 ? s->size : 8);
		t0 = pt_begin(hz);
		if (tp_write_all(s->fd, s->out, s->size) < 0 || tp_read_all(s->fd, s->in, s->size) < 0) {
			snprintf(err, errlen, "round trip %llu to %s: %s", (unsigned long long)no,
				 s->t.where, tp_io_error());
			return -EPIPE;
		}
		t1 = pt_end(hz);
		if (memcmp(s->in, s->out, s->size) != 0) {
			snprintf(err, errlen, "message %llu came back altered", (unsigned long long)no);
			return -EPROTO;
		}
		s->times[i] = hz > 0 ? pt_ticks_to_ns(t1 - t0, hz) : (double)(t1 - t0);
		sum += s->times[i];
	}
	out->value = sum / (double)iterations;
	qsort(s->times, iterations, sizeof *s->times, cmp_double);
	out->extra[0] = rtt_pct(s->times, iterations, 0.50);
	out->extra[1] = rtt_pct(s->times, iterations, 0.90);
	out->extra[2] = rtt_pct(s->times, iterations, 0.99);
	out->extra[3] = rtt_pct(s->times, iterations, 0.999);
	out->extra[4] = s->times[iterations - 1];
	out->extra[5] = rtt_icmp(s);
	out->extra[6] = sched_getcpu();
	out->extra[7] = s->t.cpu_server;
	int mtu;
	tp_iface(s->fd, out->note, sizeof out->note, &mtu);
	if (!s->t.cross && out->extra[6] != s->t.cpu_client) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof out->note, "client ran on CPU %d, not on CPU %d",
			 (int)out->extra[6], s->t.cpu_client);
	}
	return 0;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "tcp_rtt",
	.version = "1.0",
	.summary = "TCP round trip (request + echo, not one way) of a message on one connection",
	.unit = "ns",
	.bigger_is_better = 0,
	.params = rtt_params,
	.metrics = rtt_metrics,
	.config_size = sizeof(struct rtt_cfg),
	.state_size = sizeof(struct rtt_state),
	.iterations_hint = 64,
	.setup = rtt_setup,
	.sample = rtt_sample,
	.teardown = rtt_teardown,
};
