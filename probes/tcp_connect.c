/*
 * tcp_connect - TCP connection setup and teardown, timed apart, to a
 * loopback server of the probe's own or a `runner serve` peer.
 *
 * Unit: ns per connection: setup + teardown (the whole cycle, `phase:
 * cycle`), or one of them alone (`phase: setup`, `phase: teardown`), so that
 * each is a figure of its own with its own prediction; both are always
 * recorded (setup_ns, teardown_ns) whatever the phase.
 *
 * Method: per connection, setup is connect(2) returning (SYN out, SYN-ACK
 * in, the final ACK sent).  Then, untimed, the far end says it is ready (a
 * byte from the loopback server, the serve handshake for a remote peer).
 * Teardown depends on `closer`: client: shutdown(SHUT_WR) sends our FIN, the
 * far end reads end of file and closes, we read its FIN (end of file) and
 * close(2); server: we send one byte, the far end closes at once, we read
 * its FIN and close.  Both are one trigger plus the peer's FIN.  The closer
 * ends in TIME_WAIT: the probe counts TIME_WAIT sockets of this namespace
 * before and after each sample (tw_before, tw_after) and records the local
 * port range (ports); when the sample could run out of ports it waits
 * (untimed, up to 70 s) for TIME_WAIT to drain instead of stalling in
 * connect.  A failed connection is counted (errors), never retried: a
 * sample with errors is invalid, one where all failed fails the point with
 * the first error.
 *
 * Confounders: the far end's accept queue and wake-up (placement same: one
 * CPU does both ends' work; cross: two wake-ups per cycle), SYN cookies,
 * conntrack/iptables rules on the path, tcp_tw_reuse (on for loopback by
 * default).
 */
#include <math.h>

#include "probe.h"
#include "probe_time.h"
#include "tcp_peer.h"

enum cn_closer { CN_CLIENT, CN_SERVER };
enum cn_phase { CN_CYCLE, CN_SETUP, CN_TEARDOWN };

struct cn_cfg {
	int target, placement, closer;	/* enum tp_target, tp_placement, cn_closer */
	int phase;			/* enum cn_phase: what the value is */
};

struct cn_state {
	struct tp t;
	int server_closes;
	int phase;
	int ports, port_lo, port_hi;
};

static const struct probe_param cn_params[] = {
	PROBE_PARAM_CHOICE(struct cn_cfg, target, "loopback",
		"loopback: a server forked by the probe on 127.0.0.1; remote: the --peer",
		{ "loopback", TP_LOOPBACK }, { "remote", TP_REMOTE }),
	PROBE_PARAM_CHOICE(struct cn_cfg, placement, "same",
		"same: server on the client's CPU; cross: on another CPU",
		{ "same", TP_SAME }, { "cross", TP_CROSS }),
	PROBE_PARAM_CHOICE(struct cn_cfg, closer, "client",
		"which side closes first (and keeps the TIME_WAIT)",
		{ "client", CN_CLIENT }, { "server", CN_SERVER }),
	PROBE_PARAM_CHOICE(struct cn_cfg, phase, "cycle",
		"the value: cycle = setup + teardown; setup = connect() alone; teardown = "
		"first FIN to the peer's FIN alone (both are recorded either way)",
		{ "cycle", CN_CYCLE }, { "setup", CN_SETUP }, { "teardown", CN_TEARDOWN }),
	PROBE_PARAM_END,
};

static const struct probe_metric cn_metrics[] = {
	{ "setup_ns", "ns", "connect() until it returned, mean per connection" },
	{ "teardown_ns", "ns", "first FIN (or trigger byte) until the peer's FIN, mean" },
	{ "errors", "connections", "connections that failed in the sample (never retried)" },
	{ "tw_before", "sockets", "TIME_WAIT sockets in this namespace before the sample" },
	{ "tw_after", "sockets", "TIME_WAIT sockets in this namespace after the sample" },
	{ "ports", "ports", "size of net.ipv4.ip_local_port_range" },
	{ "cpu_client", "cpu", "CPU of the client at the end of the sample" },
	{ "cpu_server", "cpu", "CPU of the far end (last connection)" },
	{ 0 }
};

/* The loopback server: accept, say ready (its CPU), close as asked. */
static void cn_server(int lfd, void *arg)
{
	int server_closes = *(int *)arg;

	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		int32_t cpu = sched_getcpu();
		char c[16];

		if (fd < 0)
			continue;
		if (tp_write_all(fd, &cpu, sizeof cpu) == 0) {
			if (server_closes)
				(void)recv(fd, c, 1, 0);
			else
				while (recv(fd, c, sizeof c, 0) > 0)
					;
		}
		close(fd);
	}
}

static int tw_count(void)
{
	static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	int n = 0;

	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");
		char line[512];
		unsigned st;

		if (!f)
			continue;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, " %*s %*s %*s %x", &st) == 1 && st == 6)
				n++;
		fclose(f);
	}
	return n;
}

static void cn_teardown(void *state)
{
	tp_teardown(&((struct cn_state *)state)->t);
}

static int cn_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct cn_cfg *c = cfg;
	struct cn_state *s = state;
	FILE *f;

	s->server_closes = c->closer == CN_SERVER;
	s->phase = c->phase;
	s->port_lo = 32768, s->port_hi = 60999;
	if ((f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r"))) {
		if (fscanf(f, "%d %d", &s->port_lo, &s->port_hi) != 2)
			s->port_lo = 32768, s->port_hi = 60999;
		fclose(f);
	}
	s->ports = s->port_hi - s->port_lo + 1;
	return tp_setup(&s->t, c->target == TP_REMOTE, c->placement == TP_CROSS, h, cn_server,
			&s->server_closes, err, errlen);
}

/* The clock: the TSC when hz > 0, else clock_gettime's ns. */
static inline uint64_t cn_t(double hz, int stop)
{
	return stop ? pt_end(hz) : pt_begin(hz);
}

/* One connection, timed at hz (cn_t): setup and teardown ticks added; 0, or
   -1 (message). */
static int cn_one(struct cn_state *s, double hz, uint64_t *setup, uint64_t *down, int *cpu,
		  char *err, size_t errlen)
{
	int fd = socket(s->t.sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	uint64_t t0, t1, t2, t3;
	char c = 'x';
	int32_t scpu;

	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	t0 = cn_t(hz, 0);
	if (connect(fd, (struct sockaddr *)&s->t.sa, s->t.sl) < 0) {
		snprintf(err, errlen, "connect %s: %s", s->t.where, strerror(errno));
		close(fd);
		return -1;
	}
	t1 = cn_t(hz, 1);
	tp_timeouts(fd);
	if (s->t.remote) {
		char req[64];

		snprintf(req, sizeof req, "CONN close=%s cpu=%d", s->server_closes ? "server" : "client",
			 s->t.cpu_server);
		if (tp_hello(&s->t, fd, req, cpu, err, errlen) < 0) {
			close(fd);
			return -1;
		}
	} else if (tp_read_all(fd, &scpu, sizeof scpu) < 0) {
		snprintf(err, errlen, "loopback server: %s", tp_io_error());
		close(fd);
		return -1;
	} else {
		*cpu = scpu;
	}
	t2 = cn_t(hz, 0);
	if ((s->server_closes ? send(fd, &c, 1, MSG_NOSIGNAL) != 1 : shutdown(fd, SHUT_WR) < 0) ||
	    recv(fd, &c, 1, 0) != 0) {
		snprintf(err, errlen, "teardown with %s: %s", s->t.where,
			 errno ? strerror(errno) : "data instead of the peer's FIN");
		close(fd);
		return -1;
	}
	t3 = cn_t(hz, 1);
	close(fd);
	*setup += t1 - t0;
	*down += t3 - t2;
	return 0;
}

/* Wait (untimed) until n more connections cannot exhaust the local ports. */
static int cn_ports(struct cn_state *s, uint64_t n, int *tw, char *err, size_t errlen)
{
	for (int i = 0; i < 350; i++) {
		*tw = tw_count();
		if ((double)*tw + (double)n < 0.8 * s->ports)
			return 0;
		nanosleep(&(struct timespec){0, 200000000}, NULL);
	}
	snprintf(err, errlen, "%d sockets in TIME_WAIT and %llu connections to make: the %d local "
		 "ports (%d-%d) would run out", *tw, (unsigned long long)n, s->ports, s->port_lo,
		 s->port_hi);
	return -EADDRNOTAVAIL;
}

static int cn_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct cn_state *s = state;
	uint64_t setup = 0, down = 0, ok = 0, errors = 0;
	char first[200] = "";
	int tw, cpu = -1, rc;
	double hz = pt_clock_hz(h->tsc_hz);	/* 0: clock_gettime's ns */

	if ((rc = cn_ports(s, iterations, &tw, err, errlen)) < 0)
		return rc;
	out->extra[3] = tw;
	for (uint64_t i = 0; i < iterations; i++) {
		char msg[200];

		if (cn_one(s, hz, &setup, &down, &cpu, msg, sizeof msg) == 0) {
			ok++;
		} else {
			if (!errors++)
				snprintf(first, sizeof first, "%s", msg);
		}
	}
	if (ok == 0) {
		snprintf(err, errlen, "all %llu connections failed: %s", (unsigned long long)iterations,
			 first);
		return -ECONNREFUSED;
	}
	double su = (hz > 0 ? pt_ticks_to_ns(setup, hz) : (double)setup) / (double)ok;
	double td = (hz > 0 ? pt_ticks_to_ns(down, hz) : (double)down) / (double)ok;
	out->value = s->phase == CN_SETUP ? su : s->phase == CN_TEARDOWN ? td : su + td;
	out->extra[0] = su;
	out->extra[1] = td;
	out->extra[2] = (double)errors;
	out->extra[4] = tw_count();
	out->extra[5] = s->ports;
	out->extra[6] = sched_getcpu();
	out->extra[7] = cpu;
	snprintf(out->note, sizeof out->note, "ports %d-%d, %s closes first", s->port_lo,
		 s->port_hi, s->server_closes ? "server" : "client");
	if (errors) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof out->note, "%llu of %llu connections failed: %.60s",
			 (unsigned long long)errors, (unsigned long long)iterations, first);
	}
	return 0;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "tcp_connect",
	.version = "1.1",
	.summary = "TCP connection setup (connect) and teardown (FIN to the peer's FIN), timed apart",
	.unit = "ns",
	.bigger_is_better = 0,
	.params = cn_params,
	.metrics = cn_metrics,
	.config_size = sizeof(struct cn_cfg),
	.state_size = sizeof(struct cn_state),
	.iterations_hint = 16,
	.setup = cn_setup,
	.sample = cn_sample,
	.teardown = cn_teardown,
};
