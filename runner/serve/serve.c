/*
 * serve.c - `runner serve`: listen, fork one bounded session per
 * connection, authenticate it, then echo / sink / close as asked (the
 * protocol is in serve.h).  The listening process never parses a byte a
 * client sends: a hostile session can only end itself.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "lib/exitcode.h"
#include "lib/hmac.h"
#include "lib/monotonic.h"
#include "serve/serve.h"

#define BIN_NS 5000000ull		/* peak-rate bin at the receiver: 5 ms */

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* One session, in its own process. */
struct sess {
	const struct serve_opts *o;
	const unsigned char *secret; size_t secret_len;	/* NULL: open */
	int fd;
	char who[80];			/* "ADDR:PORT" of the client */
	unsigned long id;
	double deadline;		/* handshake, then max_time */
	uint64_t bytes;			/* data phase, both directions */
	char why[200];			/* how it ended */
};

static void sess_end(struct sess *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sess_end(struct sess *s, const char *fmt, ...)
{
	va_list ap;

	if (s->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof s->why, fmt, ap);
	va_end(ap);
}

/* Wait until fd is readable (or writable), at most idle_s and never past
   the session's deadline.  0, or -1 with the reason noted. */
static int sess_wait(struct sess *s, short ev, double idle_s)
{
	for (;;) {
		double left = s->deadline - monotonic_s();
		double t = left < idle_s ? left : idle_s;
		struct pollfd p = {.fd = s->fd, .events = ev};
		int r;

		if (stop) {
			sess_end(s, "server stopping");
			return -1;
		}
		if (t <= 0) {
			sess_end(s, "session time limit reached");
			return -1;
		}
		r = poll(&p, 1, (int)(t * 1000) + 1);
		if (r > 0)
			return 0;
		if (r == 0) {
			if (left <= idle_s)
				sess_end(s, "session time limit reached");
			else
				sess_end(s, "idle for %.0f s", idle_s);
			return -1;
		}
		if (errno != EINTR) {
			sess_end(s, "poll: %s", strerror(errno));
			return -1;
		}
	}
}

/* Read up to len bytes (at least 1); 0 at end of file, -1 on error. */
static ssize_t sess_read(struct sess *s, void *buf, size_t len, double idle_s)
{
	for (;;) {
		if (sess_wait(s, POLLIN, idle_s) < 0)
			return -1;
		ssize_t r = recv(s->fd, buf, len, 0);
		if (r >= 0)
			return r;
		if (errno != EINTR && errno != EAGAIN) {
			sess_end(s, "recv: %s", strerror(errno));
			return -1;
		}
	}
}

static int sess_read_all(struct sess *s, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = sess_read(s, p, len, s->o->idle_s);
		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection");
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int sess_write_all(struct sess *s, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		if (sess_wait(s, POLLOUT, s->o->idle_s) < 0)
			return -1;
		ssize_t r = send(s->fd, p, len, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			sess_end(s, "send: %s", strerror(errno));
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void sess_say(struct sess *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sess_say(struct sess *s, const char *fmt, ...)
{
	char line[SERVE_LINE_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	(void)sess_write_all(s, line, strlen(line));
}

/* A control line, byte by byte (nothing of the data phase is read ahead).
   Returns its length without the '\n', or -1 (reason noted). */
static int sess_line(struct sess *s, char *buf)
{
	size_t n = 0;

	for (;;) {
		char c;
		ssize_t r = sess_read(s, &c, 1, s->o->handshake_s);

		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection during the handshake");
			return -1;
		}
		if (c == '\n')
			return (int)n;
		if (n == SERVE_LINE_MAX - 1) {
			sess_end(s, "control line longer than %d bytes", SERVE_LINE_MAX - 1);
			return -1;
		}
		buf[n++] = c;
	}
}

static void hexify(const unsigned char *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* HELLO, CHALLENGE, AUTH, OK: 0 with *r filled, or -1 (answered, noted). */
static int sess_handshake(struct sess *s, struct serve_req *r)
{
	char line[SERVE_LINE_MAX], err[160], nonce[33], msg[SERVE_LINE_MAX + 40];
	unsigned char rnd[16];
	int v, n;

	if ((n = sess_line(s, line)) < 0)
		return -1;
	if (serve_parse_hello(line, (size_t)n, &v, err, sizeof err) < 0) {
		sess_say(s, "SYSMETER %d ERR %s", SERVE_PROTO_VERSION, err);
		sess_end(s, "refused: bad hello: %s", err);
		return -1;
	}
	if (v != SERVE_PROTO_VERSION) {
		sess_say(s, "SYSMETER %d ERR protocol version %d not supported (this peer speaks %d)",
			 SERVE_PROTO_VERSION, v, SERVE_PROTO_VERSION);
		sess_end(s, "refused: client speaks protocol version %d, this peer %d", v,
			 SERVE_PROTO_VERSION);
		return -1;
	}
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		sess_end(s, "getrandom failed");
		return -1;
	}
	hexify(rnd, sizeof rnd, nonce);
	sess_say(s, "SYSMETER %d CHALLENGE %s %s", SERVE_PROTO_VERSION, nonce,
		 s->secret ? "auth" : "open");
	if ((n = sess_line(s, line)) < 0)
		return -1;
	if (serve_parse_auth(line, (size_t)n, r, err, sizeof err) < 0) {
		sess_say(s, "ERR %s", err);
		sess_end(s, "refused: bad request: %s", err);
		return -1;
	}
	if (s->secret) {
		char want[65];

		snprintf(msg, sizeof msg, "%s %s", nonce, r->signed_part);
		if (hmac_sha256_hex(s->secret, s->secret_len, msg, want) < 0) {
			sess_end(s, "HMAC failed");
			return -1;
		}
		if (strlen(r->mac) != 64 || CRYPTO_memcmp(want, r->mac, 64) != 0) {
			sess_say(s, "ERR authentication failed (wrong or missing token)");
			sess_end(s, "refused: authentication failed");
			return -1;
		}
	}
	return 0;
}

static void sess_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof set, &set);
}

static int sess_budget(struct sess *s, uint64_t more)
{
	if (s->bytes + more > s->o->max_bytes) {
		sess_end(s, "session byte limit (%llu) reached", (unsigned long long)s->o->max_bytes);
		return -1;
	}
	s->bytes += more;
	return 0;
}

static void sess_echo(struct sess *s, size_t size)
{
	char *buf = malloc(size);

	while (buf) {
		ssize_t r = sess_read(s, buf, 1, s->o->idle_s);	/* wait for the start */
		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection");
			break;
		}
		if (sess_read_all(s, buf + 1, size - 1) < 0 || sess_budget(s, 2 * size) < 0 ||
		    sess_write_all(s, buf, size) < 0)
			break;
	}
	if (!buf)
		sess_end(s, "out of memory");
	free(buf);
}

static void le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* One SINK frame's payload: checksum, span, peak 5 ms bin. */
static int sink_frame(struct sess *s, char *buf, size_t cap, uint64_t len,
		      struct serve_sink_ack *ack)
{
	struct serve_ck ck = {0};
	uint64_t got = 0, t0 = 0, t = 0, bin = 0, in_bin = 0, peak = 0;

	while (got < len) {
		size_t want = len - got < cap ? (size_t)(len - got) : cap;
		ssize_t r = sess_read(s, buf, want, s->o->idle_s);
		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection in a frame");
			return -1;
		}
		t = monotonic_ns();
		if (got == 0)
			t0 = t;
		if ((t - t0) / BIN_NS != bin) {	/* a bin is complete */
			if (bin > 0 || in_bin)
				peak = in_bin > peak ? in_bin : peak;
			bin = (t - t0) / BIN_NS;
			in_bin = 0;
		}
		in_bin += (uint64_t)r;
		serve_ck_update(&ck, buf, (size_t)r);
		got += (uint64_t)r;
	}
	ack->bytes = got;
	ack->checksum = serve_ck_final(&ck);
	ack->span_ns = t - t0;
	ack->peak_bps = peak * (1000000000ull / BIN_NS);
	ack->cpu = (uint64_t)sched_getcpu();
	return 0;
}

static void sess_sink(struct sess *s)
{
	size_t cap = 1u << 20;
	char *buf = malloc(cap);
	unsigned char hdr[16], out[40];

	while (buf) {
		struct serve_sink_ack ack;
		ssize_t r = sess_read(s, hdr, 1, s->o->idle_s);
		uint64_t len;

		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection");
			break;
		}
		if (sess_read_all(s, hdr + 1, 15) < 0)
			break;
		if (get_le64(hdr) != SERVE_SINK_MAGIC) {
			sess_end(s, "bad frame header");
			break;
		}
		len = get_le64(hdr + 8);
		if (len == 0) {
			sess_end(s, "done");
			break;
		}
		if (sess_budget(s, len) < 0 || sink_frame(s, buf, cap, len, &ack) < 0)
			break;
		le64(out, ack.bytes);
		le64(out + 8, ack.checksum);
		le64(out + 16, ack.span_ns);
		le64(out + 24, ack.peak_bps);
		le64(out + 32, ack.cpu);
		if (sess_write_all(s, out, sizeof out) < 0)
			break;
	}
	if (!buf)
		sess_end(s, "out of memory");
	free(buf);
}

static void sess_conn(struct sess *s, int close_server)
{
	char c[64];
	ssize_t r;

	if (close_server) {
		r = sess_read(s, c, 1, s->o->idle_s);
		sess_end(s, r == 1 ? "closed first, as asked" : "client closed first");
		return;
	}
	while ((r = sess_read(s, c, sizeof c, s->o->idle_s)) > 0)
		;
	if (r == 0)
		sess_end(s, "client closed, closed after it");
}

static void sess_run(struct sess *s)
{
	struct serve_req r;
	const char *mode;

	s->deadline = monotonic_s() + s->o->handshake_s;
	if (sess_handshake(s, &r) < 0)
		goto out;
	sess_pin(r.cpu);
	if (r.mode == SERVE_SINK && r.rcvbuf)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &(int){(int)r.rcvbuf}, sizeof(int));
	if (r.mode == SERVE_ECHO)
		(void)setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	s->deadline = monotonic_s() + s->o->max_time_s;
	sess_say(s, "OK cpu=%d max_bytes=%llu max_time=%.0f", sched_getcpu(),
		 (unsigned long long)s->o->max_bytes, s->o->max_time_s);
	mode = r.mode == SERVE_ECHO ? "ECHO" : r.mode == SERVE_SINK ? "SINK" : "CONN";
	if (r.mode == SERVE_ECHO)
		sess_echo(s, (size_t)r.size);
	else if (r.mode == SERVE_SINK)
		sess_sink(s);
	else
		sess_conn(s, r.close_server);
	if (!s->o->quiet && r.mode != SERVE_CONN)
		fprintf(stderr, "runner: serve: session %lu from %s: %s: %llu bytes: %s\n", s->id,
			s->who, mode, (unsigned long long)s->bytes, s->why[0] ? s->why : "ended");
	return;
out:
	if (!s->o->quiet)
		fprintf(stderr, "runner: serve: session %lu from %s: %s\n", s->id, s->who,
			s->why[0] ? s->why : "ended");
}

/* --- the listener ---------------------------------------------------- */

/* "ADDR:PORT" or "[ADDR]:PORT" (numeric) -> sockaddr. */
static int parse_listen(const char *spec, struct sockaddr_storage *sa, socklen_t *len,
			char *err, size_t errlen)
{
	char host[128];
	const char *colon = strrchr(spec, ':');
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				 .ai_socktype = SOCK_STREAM}, *ai;
	size_t hl;
	int rc;

	if (!colon || colon == spec || !colon[1]) {
		snprintf(err, errlen, "--listen '%s': expected ADDR:PORT", spec);
		return -1;
	}
	hl = (size_t)(colon - spec);
	if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof host) {
		snprintf(err, errlen, "--listen: address too long");
		return -1;
	}
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if ((rc = getaddrinfo(host, colon + 1, &hints, &ai)) != 0) {
		snprintf(err, errlen, "--listen '%s': %s", spec, gai_strerror(rc));
		return -1;
	}
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int is_loopback(const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return 0;
}

static void addr_text(const struct sockaddr_storage *sa, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";
	int port = 0;

	if (sa->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, h, sizeof h);
		port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
		snprintf(buf, len, "%s:%d", h, port);
	} else {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, h, sizeof h);
		port = ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
		snprintf(buf, len, "[%s]:%d", h, port);
	}
}

/* The token file's bytes, trailing newlines dropped; 16 to 4096 of them. */
static unsigned char *load_token(const char *path, size_t *len, char *err, size_t errlen)
{
	unsigned char *buf = malloc(4096);

	if (!buf) {
		snprintf(err, errlen, "token file '%s': out of memory", path);
		return NULL;
	}
	if (hmac_read_token(path, buf, 4096, len, err, errlen) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct server {
	const struct serve_opts *o;
	int lfd;
	unsigned char *secret; size_t secret_len;
	pid_t *kids; int nkids;
	unsigned long next_id;
};

static void reap(struct server *sv, int block)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, block ? 0 : WNOHANG)) > 0)
		for (int i = 0; i < sv->nkids; i++)
			if (sv->kids[i] == pid) {
				sv->kids[i] = sv->kids[--sv->nkids];
				break;
			}
}

static void accept_one(struct server *sv)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof sa;
	int fd = accept4(sv->lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC);
	char who[80];
	pid_t pid;

	if (fd < 0)
		return;
	addr_text(&sa, who, sizeof who);
	sv->next_id++;
	if (sv->nkids >= sv->o->max_sessions) {
		static const char busy[] = "SYSMETER 1 ERR busy: too many sessions, try later\n";

		(void)fcntl(fd, F_SETFL, O_NONBLOCK);
		(void)send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		if (!sv->o->quiet)
			fprintf(stderr, "runner: serve: session %lu from %s: refused: busy (%d sessions)\n",
				sv->next_id, who, sv->nkids);
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct sess s = {.o = sv->o, .secret = sv->secret, .secret_len = sv->secret_len,
				 .fd = fd, .id = sv->next_id};

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_IGN);	/* the listener decides when sessions end */
		close(sv->lfd);
		snprintf(s.who, sizeof s.who, "%s", who);
		sess_run(&s);
		close(fd);
		_exit(0);
	}
	close(fd);
	if (pid > 0)
		sv->kids[sv->nkids++] = pid;
}

static int open_listener(struct server *sv, char *err, size_t errlen)
{
	const struct serve_opts *o = sv->o;
	char def[32], where[80];
	struct sockaddr_storage sa;
	socklen_t sl;

	snprintf(def, sizeof def, "127.0.0.1:%d", SERVE_DEFAULT_PORT);
	if (parse_listen(o->listen ? o->listen : def, &sa, &sl, err, errlen) < 0)
		return -1;
	if (o->token_file) {
		sv->secret = load_token(o->token_file, &sv->secret_len, err, errlen);
		if (!sv->secret)
			return -1;
	} else if (!is_loopback(&sa)) {
		snprintf(err, errlen, "--listen %s is not a loopback address: give a shared secret "
			 "with --token FILE (the same file on the measuring side)", o->listen);
		return -1;
	}
	sv->lfd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sv->lfd < 0 ||
	    setsockopt(sv->lfd, SOL_SOCKET, SO_REUSEADDR, &(int){1}, sizeof(int)) < 0 ||
	    bind(sv->lfd, (struct sockaddr *)&sa, sl) < 0 || listen(sv->lfd, 64) < 0) {
		snprintf(err, errlen, "listen on %s: %s", o->listen ? o->listen : def,
			 strerror(errno));
		return -1;
	}
	sl = sizeof sa;
	getsockname(sv->lfd, (struct sockaddr *)&sa, &sl);
	addr_text(&sa, where, sizeof where);
	if (!o->quiet)
		fprintf(stderr, "runner: serve: listening on %s (protocol %d, %s, at most %d sessions)\n",
			where, SERVE_PROTO_VERSION, sv->secret ? "token required" : "loopback, open",
			o->max_sessions);
	if (o->ready_file) {
		char tmp[4200];
		FILE *f;

		snprintf(tmp, sizeof tmp, "%s.tmp", o->ready_file);
		if (!(f = fopen(tmp, "w")) || fprintf(f, "%s\n", where) < 0 || fclose(f) != 0 ||
		    rename(tmp, o->ready_file) < 0) {
			snprintf(err, errlen, "ready file '%s': %s", o->ready_file, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int serve_main(const struct serve_opts *in)
{
	struct serve_opts o = *in;
	struct server sv = {.o = &o, .lfd = -1};
	struct sigaction sa = {.sa_handler = on_stop};
	char err[600];
	int rc = EXIT_OK;

	if (o.max_sessions <= 0) o.max_sessions = 16;
	if (o.handshake_s <= 0) o.handshake_s = 5;
	if (o.idle_s <= 0) o.idle_s = 30;
	if (o.max_time_s <= 0) o.max_time_s = 600;
	if (!o.max_bytes) o.max_bytes = 64ull << 30;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sv.kids = calloc((size_t)o.max_sessions, sizeof *sv.kids);
	if (!sv.kids || open_listener(&sv, err, sizeof err) < 0) {
		fprintf(stderr, "runner: serve: %s\n", sv.kids ? err : "out of memory");
		rc = EXIT_USAGE;
		goto out;
	}
	while (!stop) {
		struct pollfd p = {.fd = sv.lfd, .events = POLLIN};

		reap(&sv, 0);
		if (poll(&p, 1, 200) > 0)
			accept_one(&sv);
	}
	if (!o.quiet)
		fprintf(stderr, "runner: serve: stopping (%d session%s open)\n", sv.nkids,
			sv.nkids == 1 ? "" : "s");
	for (int i = 0; i < sv.nkids; i++)
		kill(sv.kids[i], SIGKILL);
	reap(&sv, 1);
out:
	if (sv.lfd >= 0)
		close(sv.lfd);
	if (o.ready_file)
		unlink(o.ready_file);
	if (sv.secret)
		OPENSSL_cleanse(sv.secret, sv.secret_len);
	free(sv.secret);
	free(sv.kids);
	return rc;
}
