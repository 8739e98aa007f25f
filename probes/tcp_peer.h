/*
 * tcp_peer.h - what the three tcp_* probes share: where the far end is
 * (a forked loopback server of the probe's own, or a `runner serve` peer),
 * the client side of the serve protocol (runner/serve/serve.h: version 1,
 * HELLO / CHALLENGE / AUTH with an HMAC-SHA256 of the nonce, which the
 * runner computes through host->peer_sign: the secret never reaches probe
 * code), the stream checksum both ends
 * compute, CPU placement, and the interface facts (MTU, offloads) a sample
 * notes.  Static functions only: each probe compiles its own copy.
 *
 * The peer: host->peer is "HOST:PORT", NULL (no peer: remote points are
 * skipped, saying how to give one), or "!<reason>" (a namespace peer was
 * asked for and could not be made: skipped with that reason).
 */
#ifndef SYSMETER_TCP_PEER_H
#define SYSMETER_TCP_PEER_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "probe_wire.h"	/* protocol version, SINK magic, stream checksum */

/* Each probe uses a part of what follows. */
#pragma GCC diagnostic ignored "-Wunused-function"

#define TP_IO_TIMEOUT_MS 10000		/* a silent peer fails the sample after this */
#define TP_BIN_NS 5000000ull		/* the receiver's peak-rate bin */

/* The values of the choices every tcp probe has: where the far end is
   (`target`), and the server's CPU against the client's (`placement`). */
enum tp_target { TP_LOOPBACK, TP_REMOTE };
enum tp_placement { TP_SAME, TP_CROSS };

/* ---- I/O ---------------------------------------------------------------- */

static inline uint64_t tp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 0, or -1 with errno (0: the peer closed). */
static inline int tp_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = recv(fd, p, len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static inline int tp_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t r = send(fd, p, len, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* "peer closed the connection", "Connection reset by peer", "timed out". */
static const char *tp_io_error(void)
{
	if (errno == 0)
		return "the peer closed the connection";
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return "no answer from the peer in 10 s";
	return strerror(errno);
}

static void tp_timeouts(int fd)
{
	struct timeval tv = {TP_IO_TIMEOUT_MS / 1000, 0};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static void tp_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t tp_get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* ---- the peer and placement --------------------------------------------- */

struct tp {
	int remote;
	int cross;
	int cpu_client, cpu_server;
	struct sockaddr_storage sa; socklen_t sl;
	char where[80];			/* "127.0.0.1:PORT" or the peer as given */
	const struct probe_host *host;	/* signs the handshake (peer_sign) */
	pid_t server;			/* loopback server process */
	int lfd;
	int restore; cpu_set_t orig;
};

static int tp_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof set, &set);
}

/* Client on the runner's CPU (else the first allowed), server on the same
   one or (cross) another online one.  PROBE_SKIP when cross has one CPU. */
static int tp_place(struct tp *t, const struct probe_host *h, char *err, size_t errlen)
{
	if (sched_getaffinity(0, sizeof t->orig, &t->orig) < 0) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return -errno;
	}
	t->cpu_client = -1;
	if (h->cpu >= 0 && h->cpu < CPU_SETSIZE && CPU_ISSET(h->cpu, &t->orig))
		t->cpu_client = h->cpu;
	for (int c = 0; t->cpu_client < 0 && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &t->orig))
			t->cpu_client = c;
	t->cpu_server = t->cpu_client;
	if (t->cross) {
		t->cpu_server = -1;
		for (int i = 1; t->cpu_server < 0 && i < h->ncpus && i < CPU_SETSIZE; i++) {
			int c = (t->cpu_client + i) % h->ncpus;
			if (tp_pin(c) == 0)
				t->cpu_server = c;
		}
		if (t->cpu_server < 0) {
			sched_setaffinity(0, sizeof t->orig, &t->orig);
			snprintf(err, errlen, "placement 'cross' needs a second CPU (only CPU %d is usable)",
				 t->cpu_client);
			return PROBE_SKIP;
		}
	}
	if (tp_pin(t->cpu_client) < 0) {
		snprintf(err, errlen, "pin to CPU %d: %s", t->cpu_client, strerror(errno));
		return -errno;
	}
	t->restore = 1;
	return 0;
}

static int tp_peer(struct tp *t, const char *peer, char *err, size_t errlen)
{
	const char *colon;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	char host[128];
	size_t hl;
	int rc;

	if (!peer) {
		snprintf(err, errlen, "no peer: give a `runner serve` peer with --peer HOST:PORT "
			 "(and --token FILE), or --peer netns (root: a namespace on this host)");
		return PROBE_SKIP;
	}
	if (peer[0] == '!') {
		snprintf(err, errlen, "%s", peer + 1);
		return PROBE_SKIP;
	}
	snprintf(t->where, sizeof t->where, "%s", peer);
	colon = strrchr(peer, ':');
	hl = colon ? (size_t)(colon - peer) : 0;
	if (!colon || hl == 0 || hl >= sizeof host || !colon[1]) {
		snprintf(err, errlen, "peer '%s': expected HOST:PORT", peer);
		return -EINVAL;
	}
	if (peer[0] == '[' && peer[hl - 1] == ']')
		memcpy(host, peer + 1, hl - 2), host[hl - 2] = '\0';
	else
		memcpy(host, peer, hl), host[hl] = '\0';
	if ((rc = getaddrinfo(host, colon + 1, &hints, &ai)) != 0) {
		snprintf(err, errlen, "peer '%s': %s", peer, gai_strerror(rc));
		return -EINVAL;
	}
	memcpy(&t->sa, ai->ai_addr, ai->ai_addrlen);
	t->sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* The loopback listener: 127.0.0.1, an ephemeral port. */
static int tp_listen(struct tp *t, char *err, size_t errlen)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&t->sa;

	t->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&t->sa, 0, sizeof t->sa);
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	t->sl = sizeof *in;
	if (t->lfd < 0 || bind(t->lfd, (struct sockaddr *)in, t->sl) < 0 ||
	    listen(t->lfd, 128) < 0 || getsockname(t->lfd, (struct sockaddr *)in, &t->sl) < 0) {
		snprintf(err, errlen, "loopback listener: %s", strerror(errno));
		return -errno;
	}
	snprintf(t->where, sizeof t->where, "127.0.0.1:%d", ntohs(in->sin_port));
	return 0;
}

/* Fork the loopback server: pinned, dies with the probe, runs fn(lfd, arg). */
static int tp_fork_server(struct tp *t, void (*fn)(int lfd, void *arg), void *arg, char *err,
			  size_t errlen)
{
	pid_t parent = getpid();

	t->server = fork();
	if (t->server < 0) {
		t->server = 0;
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -errno;
	}
	if (t->server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		signal(SIGPIPE, SIG_IGN);
		tp_pin(t->cpu_server);
		fn(t->lfd, arg);
		_exit(0);
	}
	close(t->lfd);
	t->lfd = -1;
	return 0;
}

/* A connected socket to the far end; -1 with a message. */
static int tp_connect(struct tp *t, char *err, size_t errlen)
{
	int fd = socket(t->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&t->sa, t->sl) < 0) {
		snprintf(err, errlen, "connect %s: %s", t->where, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	tp_timeouts(fd);
	return fd;
}

/* One control line, byte by byte; 0 or -1 (message). */
static int tp_line(int fd, char *buf, size_t len, const struct tp *t, char *err, size_t errlen)
{
	size_t n = 0;

	for (;;) {
		char c;
		ssize_t r = recv(fd, &c, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			snprintf(err, errlen, "peer %s: handshake: %s", t->where, tp_io_error());
			return -1;
		}
		if (c == '\n' || n + 1 == len) {
			buf[n] = '\0';
			return 0;
		}
		buf[n++] = c;
	}
}

/* The serve handshake for `request` ("ECHO size=64 cpu=0"); the session's
   CPU into *cpu.  0, or a negative errno with a message. */
static int tp_hello(const struct tp *t, int fd, const char *request, int *cpu, char *err,
		    size_t errlen)
{
	char line[300], msg[300], mac[65] = "-", nonce[40], kind[8];
	int v = 0;

	snprintf(line, sizeof line, "SYSMETER %d HELLO\n", SERVE_PROTO_VERSION);
	if (tp_write_all(fd, line, strlen(line)) < 0) {
		snprintf(err, errlen, "peer %s: %s", t->where, strerror(errno));
		return -EPROTO;
	}
	if (tp_line(fd, line, sizeof line, t, err, errlen) < 0)
		return -EPROTO;
	if (sscanf(line, "SYSMETER %d ", &v) != 1) {
		snprintf(err, errlen, "peer %s is not a `runner serve` (it said '%.60s')", t->where,
			 line);
		return -EPROTO;
	}
	if (v != SERVE_PROTO_VERSION) {
		snprintf(err, errlen, "peer %s speaks protocol version %d, this probe speaks %d: "
			 "run the same sysmeter version on both ends", t->where, v, SERVE_PROTO_VERSION);
		return -EPROTO;
	}
	if (sscanf(line, "SYSMETER %*d CHALLENGE %32s %7s", nonce, kind) != 2) {
		snprintf(err, errlen, "peer %s: %.200s", t->where, line);
		return -EPROTO;
	}
	if (strcmp(kind, "auth") == 0) {
		char why[200] = "";
		int rc;

		snprintf(msg, sizeof msg, "%s %s", nonce, request);
		rc = t->host && t->host->peer_sign ?
			t->host->peer_sign(t->host, msg, mac, why, sizeof why) : -ENOENT;
		if (rc == -ENOENT) {
			snprintf(err, errlen, "peer %s wants a token: give its token file with "
				 "--token FILE", t->where);
			return -EACCES;
		}
		if (rc < 0) {
			snprintf(err, errlen, "peer %s: %s", t->where, why);
			return rc;
		}
	}
	snprintf(line, sizeof line, "AUTH %s %s\n", mac, request);
	if (tp_write_all(fd, line, strlen(line)) < 0 || tp_line(fd, line, sizeof line, t, err, errlen) < 0) {
		if (!err[0])
			snprintf(err, errlen, "peer %s: %s", t->where, strerror(errno));
		return -EPROTO;
	}
	if (sscanf(line, "OK cpu=%d", cpu) != 1) {
		snprintf(err, errlen, "peer %s refused: %.200s", t->where, line);
		return strstr(line, "authentication") ? -EACCES : -EPROTO;
	}
	return 0;
}

/* "lo mtu 65536 tso on gso on gro on sg on" for the interface of fd's
   local address; its MTU into *mtu (NaN-free: -1 unknown). */
static void tp_iface(int fd, char *note, size_t len, int *mtu)
{
	struct sockaddr_storage la;
	socklen_t ll = sizeof la;
	struct ifaddrs *ifs = NULL;
	char name[IF_NAMESIZE] = "";

	*mtu = -1;
	snprintf(note, len, "interface unknown");
	if (getsockname(fd, (struct sockaddr *)&la, &ll) < 0 || getifaddrs(&ifs) < 0)
		return;
	for (struct ifaddrs *i = ifs; i && !name[0]; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != la.ss_family)
			continue;
		if (la.ss_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
		    ((struct sockaddr_in *)&la)->sin_addr.s_addr)
			snprintf(name, sizeof name, "%s", i->ifa_name);
		if (la.ss_family == AF_INET6 &&
		    memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			   &((struct sockaddr_in6 *)&la)->sin6_addr, 16) == 0)
			snprintf(name, sizeof name, "%s", i->ifa_name);
	}
	freeifaddrs(ifs);
	if (!name[0])
		return;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	static const struct { unsigned cmd; const char *name; } off[] = {
		{ETHTOOL_GTSO, "tso"}, {ETHTOOL_GGSO, "gso"}, {ETHTOOL_GGRO, "gro"},
		{ETHTOOL_GSG, "sg"}, {ETHTOOL_GTXCSUM, "txcsum"},
	};
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	size_t n;

	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	if (s >= 0 && ioctl(s, SIOCGIFMTU, &ifr) == 0)
		*mtu = ifr.ifr_mtu;
	ifr.ifr_data = (void *)&di;
	snprintf(note, len, "%s (%s) mtu %d", name,
		 s >= 0 && ioctl(s, SIOCETHTOOL, &ifr) == 0 ? di.driver : "loopback", *mtu);
	for (size_t i = 0; s >= 0 && i < sizeof off / sizeof *off; i++) {
		struct ethtool_value v = {.cmd = off[i].cmd};

		ifr.ifr_data = (void *)&v;
		n = strlen(note);
		if (ioctl(s, SIOCETHTOOL, &ifr) == 0)
			snprintf(note + n, len - n, " %s %s", off[i].name, v.data ? "on" : "off");
	}
	if (s >= 0)
		close(s);
}

/* Stop the loopback server, close, restore the affinity. */
static void tp_teardown(struct tp *t)
{
	if (t->server > 0) {
		kill(t->server, SIGKILL);
		while (waitpid(t->server, NULL, 0) < 0 && errno == EINTR)
			;
		t->server = 0;
	}
	if (t->lfd > 0)
		close(t->lfd);
	t->lfd = -1;
	if (t->restore)
		sched_setaffinity(0, sizeof t->orig, &t->orig);
	t->restore = 0;
}

/* Setup common to the probes: placement, then the far end (remote: parse
   the peer; loopback: listen and fork fn as the server). */
static int tp_setup(struct tp *t, int remote, int cross, const struct probe_host *h,
		    void (*fn)(int lfd, void *arg), void *arg, char *err, size_t errlen)
{
	int rc;

	t->lfd = -1;
	t->remote = remote;
	t->cross = cross;
	t->host = h;
	signal(SIGPIPE, SIG_IGN);
	if (remote && (rc = tp_peer(t, h->peer, err, errlen)) != 0)
		return rc;
	if ((rc = tp_place(t, h, err, errlen)) != 0)
		return rc;
	if (!remote && ((rc = tp_listen(t, err, errlen)) < 0 ||
			(rc = tp_fork_server(t, fn, arg, err, errlen)) < 0))
		return rc;
	return 0;
}

#endif
