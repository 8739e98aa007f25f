/*
 * tcp_bandwidth - bytes per second a TCP connection delivers to the far
 * end, loopback (a sink forked by the probe) or a `runner serve` peer.
 *
 * Unit: bytes/s received at the far end (1 Mbit/s = 125000 bytes/s).
 *
 * Method: one connection, set up before the first sample and kept, so slow
 * start happens in the warmup samples, not in the kept ones.  A sample is a
 * frame of `iterations` messages of `msg_size` bytes (write(2), or
 * sendfile(2) from a file in the scratch folder with api: sendfile); the
 * receiver checksums every byte and answers with the byte count, the
 * checksum, the span from its first to its last byte and its peak rate over
 * 5 ms bins.  The value is bytes / (first write -> receiver's answer), so it
 * counts only bytes that arrived, intact: a wrong count or checksum fails
 * the sample.  The spec's estimator max gives the peak over samples (as the
 * seed reports); the mean is beside it.  Kernel buffer autotuning is on
 * unless `sockbuf` fixes SO_SNDBUF (client) and SO_RCVBUF (receiver).
 * Secondary values: far_bps (bytes / receiver span), peak_bps (best 5 ms
 * bin at the receiver), retransmits and snd_cwnd from TCP_INFO (segments
 * retransmitted during the sample, the window at its end), rtt_us (the
 * kernel's smoothed RTT), the CPUs of both ends, the interface MTU (the note
 * names the interface, its driver and offloads).
 *
 * Confounders: loopback's 64 KiB MTU and offloads make it a memory-copy
 * benchmark, incomparable with a 1500-byte link; the receiver's checksum
 * costs it about one cycle per 8 bytes; placement same shares one CPU
 * between sender and receiver; shaping (tbf) and a real NIC's coalescing.
 */
#include <math.h>
#include <sys/sendfile.h>

#include "probe.h"
#include "probe_time.h"
#include "tcp_peer.h"

enum bw_api { BW_WRITE, BW_SENDFILE };

struct bw_cfg {
	int target, placement, api;	/* enum tp_target, tp_placement, bw_api */
	uint64_t msg_size, sockbuf;
};

struct bw_state {
	struct tp t;
	int fd, file;
	size_t msg;
	int sendfile;
	unsigned char *buf;
	uint64_t ck_iters, ck;		/* expected checksum, cached per frame size */
	uint32_t retrans;
	int sockbuf;
};

static const struct probe_param bw_params[] = {
	PROBE_PARAM_CHOICE(struct bw_cfg, target, "loopback",
		"loopback: a sink forked by the probe on 127.0.0.1; remote: the --peer",
		{ "loopback", TP_LOOPBACK }, { "remote", TP_REMOTE }),
	PROBE_PARAM_CHOICE(struct bw_cfg, placement, "cross",
		"same: receiver on the sender's CPU; cross: on another CPU",
		{ "same", TP_SAME }, { "cross", TP_CROSS }),
	PROBE_PARAM_CHOICE(struct bw_cfg, api, "write", "how the sender sends",
		{ "write", BW_WRITE }, { "sendfile", BW_SENDFILE }),
	PROBE_PARAM_SIZE(struct bw_cfg, msg_size, "128KiB", "bytes per write/sendfile call",
		4096, 1 << 20),
	PROBE_PARAM_SIZE(struct bw_cfg, sockbuf, "0",
		"SO_SNDBUF/SO_RCVBUF in bytes; 0: kernel autotuning", 0, 1 << 30),
	PROBE_PARAM_END,
};

static const struct probe_metric bw_metrics[] = {
	{ "far_bps", "bytes/s", "bytes / receiver's first-to-last-byte span" },
	{ "peak_bps", "bytes/s", "most bytes in one 5 ms bin at the receiver, per second" },
	{ "retransmits", "segments", "TCP_INFO total_retrans during the sample" },
	{ "snd_cwnd", "segments", "TCP_INFO congestion window at the end of the sample" },
	{ "rtt_us", "us", "TCP_INFO smoothed RTT at the end of the sample" },
	{ "cpu_client", "cpu", "CPU of the sender at the end of the sample" },
	{ "cpu_server", "cpu", "CPU of the receiver at the end of the frame" },
	{ "mtu", "bytes", "MTU of the sender's interface" },
	{ 0 }
};

/* The loopback sink: one connection, its CPU, then frames as serve's SINK. */
static void bw_server(int lfd, void *arg)
{
	int rcvbuf = *(int *)arg;
	size_t cap = 1u << 20;
	unsigned char *buf = malloc(cap), hdr[16], ack[40];
	int fd = accept(lfd, NULL, NULL);
	int32_t cpu = sched_getcpu();

	if (fd < 0 || !buf)
		return;
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	if (tp_write_all(fd, &cpu, sizeof cpu) < 0)
		return;
	while (tp_read_all(fd, hdr, 16) == 0 && tp_get_le64(hdr) == SERVE_SINK_MAGIC) {
		uint64_t len = tp_get_le64(hdr + 8), got = 0, t0 = 0, t = 0, bin = 0, in_bin = 0,
			 peak = 0;
		struct serve_ck ck = {0};

		if (len == 0)
			return;
		while (got < len) {
			ssize_t r = recv(fd, buf, len - got < cap ? (size_t)(len - got) : cap, 0);
			if (r <= 0)
				return;
			t = tp_now_ns();
			if (got == 0)
				t0 = t;
			if ((t - t0) / TP_BIN_NS != bin) {
				peak = in_bin > peak ? in_bin : peak;
				bin = (t - t0) / TP_BIN_NS;
				in_bin = 0;
			}
			in_bin += (uint64_t)r;
			serve_ck_update(&ck, buf, (size_t)r);
			got += (uint64_t)r;
		}
		tp_le64(ack, got);
		tp_le64(ack + 8, serve_ck_final(&ck));
		tp_le64(ack + 16, t - t0);
		tp_le64(ack + 24, peak * (1000000000ull / TP_BIN_NS));
		tp_le64(ack + 32, (uint64_t)sched_getcpu());
		if (tp_write_all(fd, ack, sizeof ack) < 0)
			return;
	}
}

static void bw_teardown(void *state)
{
	struct bw_state *s = state;

	if (s->fd > 0)
		close(s->fd);
	if (s->file > 0)
		close(s->file);
	tp_teardown(&s->t);
	free(s->buf);
}

static int bw_file(struct bw_state *s, const struct probe_host *h, char *err, size_t errlen)
{
	char path[4200];

	snprintf(path, sizeof path, "%s/tcp_bandwidth.data", h->scratch_dir ? h->scratch_dir : "/tmp");
	s->file = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (s->file < 0 || write(s->file, s->buf, s->msg) != (ssize_t)s->msg) {
		snprintf(err, errlen, "sendfile source %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static int bw_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		    size_t errlen)
{
	const struct bw_cfg *c = cfg;
	struct bw_state *s = state;
	int rc;

	s->fd = s->file = -1;
	s->msg = (size_t)c->msg_size;
	s->sendfile = c->api == BW_SENDFILE;
	s->sockbuf = (int)c->sockbuf;
	if (!(s->buf = malloc(s->msg)))
		return -ENOMEM;
	uint64_t x = h->seed | 1;
	for (size_t i = 0; i < s->msg; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s->buf[i] = (unsigned char)x;
	}
	if (s->sendfile && (rc = bw_file(s, h, err, errlen)) < 0)
		return rc;
	if ((rc = tp_setup(&s->t, c->target == TP_REMOTE, c->placement == TP_CROSS, h, bw_server,
			   &s->sockbuf, err, errlen)) != 0)
		return rc;
	if ((s->fd = tp_connect(&s->t, err, errlen)) < 0)
		return -ECONNREFUSED;
	if (s->sockbuf)
		setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &s->sockbuf, sizeof s->sockbuf);
	if (s->t.remote) {
		char req[80];

		snprintf(req, sizeof req, "SINK cpu=%d rcvbuf=%d", s->t.cpu_server, s->sockbuf);
		return tp_hello(&s->t, s->fd, req, &s->t.cpu_server, err, errlen);
	}
	int32_t cpu;
	if (tp_read_all(s->fd, &cpu, sizeof cpu) < 0) {
		snprintf(err, errlen, "loopback sink: %s", tp_io_error());
		return -EPIPE;
	}
	return 0;
}

static int bw_send(struct bw_state *s, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (!s->sendfile) {
			if (tp_write_all(s->fd, s->buf, s->msg) < 0)
				return -1;
			continue;
		}
		off_t off = 0;
		while ((size_t)off < s->msg) {
			ssize_t r = sendfile(s->fd, s->file, &off, s->msg - (size_t)off);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -1;
		}
	}
	return 0;
}

static int bw_sample(void *state, uint64_t iterations, const struct probe_host *h,
		     struct probe_sample *out, char *err, size_t errlen)
{
	struct bw_state *s = state;
	uint64_t len = iterations * s->msg, t0, t1;
	unsigned char hdr[16], ack[40];
	struct tcp_info ti;
	socklen_t tl = sizeof ti;
	int mtu;

	(void)h;
	if (s->ck_iters != iterations) {	/* what the receiver must find */
		struct serve_ck ck = {0};
		for (uint64_t i = 0; i < iterations; i++)
			serve_ck_update(&ck, s->buf, s->msg);
		s->ck = serve_ck_final(&ck);
		s->ck_iters = iterations;
	}
	tp_le64(hdr, SERVE_SINK_MAGIC);
	tp_le64(hdr + 8, len);
	t0 = tp_now_ns();
	if (tp_write_all(s->fd, hdr, sizeof hdr) < 0 || bw_send(s, iterations) < 0) {
		snprintf(err, errlen, "send to %s: %s", s->t.where, tp_io_error());
		return -EPIPE;
	}
	if (tp_read_all(s->fd, ack, sizeof ack) < 0) {
		snprintf(err, errlen, "answer from %s: %s", s->t.where, tp_io_error());
		return -EPIPE;
	}
	t1 = tp_now_ns();
	if (tp_get_le64(ack) != len || tp_get_le64(ack + 8) != s->ck) {
		snprintf(err, errlen, "receiver got %llu of %llu bytes, checksum %s",
			 (unsigned long long)tp_get_le64(ack), (unsigned long long)len,
			 tp_get_le64(ack + 8) == s->ck ? "right" : "wrong");
		return -EPROTO;
	}
	out->value = (double)len / ((double)(t1 - t0) / 1e9);
	uint64_t span = tp_get_le64(ack + 16);
	out->extra[0] = span ? (double)len / ((double)span / 1e9) : NAN;
	out->extra[1] = tp_get_le64(ack + 24) ? (double)tp_get_le64(ack + 24) : NAN;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0) {
		out->extra[2] = (double)(ti.tcpi_total_retrans - s->retrans);
		s->retrans = ti.tcpi_total_retrans;
		out->extra[3] = ti.tcpi_snd_cwnd;
		out->extra[4] = ti.tcpi_rtt;
	} else {
		out->extra[2] = out->extra[3] = out->extra[4] = NAN;
	}
	out->extra[5] = sched_getcpu();
	out->extra[6] = (double)tp_get_le64(ack + 32);
	tp_iface(s->fd, out->note, sizeof out->note, &mtu);
	out->extra[7] = mtu > 0 ? mtu : NAN;
	return 0;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "tcp_bandwidth",
	.version = "1.0",
	.summary = "TCP throughput received at the far end over one connection",
	.unit = "bytes/s",
	.bigger_is_better = 1,
	.params = bw_params,
	.metrics = bw_metrics,
	.config_size = sizeof(struct bw_cfg),
	.state_size = sizeof(struct bw_state),
	.iterations_hint = 64,
	.setup = bw_setup,
	.sample = bw_sample,
	.teardown = bw_teardown,
};
