/*
 * serve.c - `runner serve`: listen, run every connection's handshake in the
 * listener (non-blocking, strict and fuzzed: proto.c), and fork one bounded
 * session per authenticated request to echo / sink / close as asked (the
 * protocol is in serve.h).  A stranger never holds a session: until it has
 * authenticated it is one of at most SERVE_HS_MAX handshakes in progress
 * (SERVE_HS_PER_ADDR from one address), each with handshake_s to finish,
 * and a new one pushes out the oldest when either is full.  Finished
 * sessions are reaped as they end (SIGCHLD wakes the listener through a
 * pipe).  Every refusal is one ERR line before the close; the log is
 * rate-limited, with a count of the lines it left out.
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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
#include "machine/machine.h"
#include "serve/serve.h"

#define BIN_NS 5000000ull		/* peak-rate bin at the receiver: 5 ms */

static volatile sig_atomic_t stop;
/* The MACHINE line of INFO ('\n' included), made once at the start. */
static char info_line[SERVE_INFO_MAX];

static void make_info_line(void)
{
	json_t *m = machine_describe(machine_calibrate_tsc()), *facts = serve_info_facts(m);
	char *txt = json_dumps(facts, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);

	if (txt && strlen(txt) + 10 <= sizeof info_line)
		snprintf(info_line, sizeof info_line, "MACHINE %s\n", txt);
	else
		snprintf(info_line, sizeof info_line, "MACHINE {}\n");
	free(txt);
	json_decref(facts);
	json_decref(m);
}

static int wake_w = -1;			/* the listener's self-pipe (signals) */

static void on_stop(int sig)
{
	int e = errno;

	(void)sig;
	stop = 1;
	if (wake_w >= 0)
		(void)!write(wake_w, "s", 1);
	errno = e;
}

static void on_child(int sig)
{
	int e = errno;

	(void)sig;
	if (wake_w >= 0)
		(void)!write(wake_w, "c", 1);
	errno = e;
}

/* --- the log: at most SERVE_LOG_PER_S lines a second ------------------- */

/* Shared (MAP_SHARED) by the listener and its sessions: a flood of
   connections or of sessions cannot grow stderr without bound.  What is
   left out is counted exactly and said at the next line shown, within a
   second, and when the server stops. */
struct loglim {
	atomic_ullong second;		/* the second `shown` counts */
	atomic_uint shown;
	atomic_ulong left_out;		/* since the last note */
};
static struct loglim *loglim;
static int log_quiet;

static void log_write(const char *fmt, va_list ap)
{
	char line[700];
	size_t n;

	n = (size_t)snprintf(line, sizeof line, "runner: serve: ");
	vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
	n = strlen(line);
	line[n++] = '\n';
	(void)!write(2, line, n);	/* one write: lines of sessions do not mix */
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_write(fmt, ap);
	va_end(ap);
}

/* Say how many lines were left out, if any. */
static void log_note(void)
{
	unsigned long n = loglim ? atomic_exchange(&loglim->left_out, 0) : 0;

	if (n && !log_quiet)
		log_line("%lu log line%s left out (at most %d a second)", n, n == 1 ? "" : "s",
			 SERVE_LOG_PER_S);
}

/* A line about one connection or session: shown, or counted. */
static void slog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void slog(const char *fmt, ...)
{
	va_list ap;

	if (log_quiet)
		return;
	if (loglim) {
		unsigned long long sec = (unsigned long long)monotonic_s(),
				   cur = atomic_load(&loglim->second);

		if (cur != sec && atomic_compare_exchange_strong(&loglim->second, &cur, sec))
			atomic_store(&loglim->shown, 0);
		if (atomic_fetch_add(&loglim->shown, 1) >= SERVE_LOG_PER_S) {
			atomic_fetch_add(&loglim->left_out, 1);
			return;
		}
		log_note();
	}
	va_start(ap, fmt);
	log_write(fmt, ap);
	va_end(ap);
}

/* --- one session, in its own process ------------------------------------ */

struct sess {
	const struct serve_opts *o;
	int fd;
	char who[80];			/* "ADDR:PORT" of the client */
	unsigned long id;
	double deadline;		/* max_time */
	uint64_t bytes;			/* data bytes that moved, both directions */
	int refused;			/* ended by a limit: the client gets an ERR line */
	char why[240];			/* how it ended */
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

/* The server ends the session (a limit, a bad frame): noted, and said to
   the client in an ERR line when the session closes. */
#define sess_refuse(s, ...) do { if (!(s)->why[0]) (s)->refused = 1; sess_end((s), __VA_ARGS__); } while (0)

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
			sess_refuse(s, "server stopping");
			return -1;
		}
		if (t <= 0) {
			sess_refuse(s, "session time limit reached");
			return -1;
		}
		r = poll(&p, 1, (int)(t * 1000) + 1);
		if (r > 0)
			return 0;
		if (r == 0) {
			if (left <= idle_s)
				sess_refuse(s, "session time limit reached");
			else
				sess_refuse(s, "idle for %.0f s", idle_s);
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

/* Read len bytes, adding what came to *count (when count). */
static int sess_read_all(struct sess *s, void *buf, size_t len, uint64_t *count)
{
	char *p = buf;

	while (len) {
		ssize_t r = sess_read(s, p, len, s->o->idle_s);
		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection");
			return -1;
		}
		if (count)
			*count += (uint64_t)r;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static int sess_write_all(struct sess *s, const void *buf, size_t len, uint64_t *count)
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
		if (count)
			*count += (uint64_t)r;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void sess_say(struct sess *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sess_say(struct sess *s, const char *fmt, ...)
{
	char line[SERVE_REPLY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	(void)sess_write_all(s, line, strlen(line), NULL);
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

/* ECHO: a message of `size` bytes in, the same out, while the byte budget
   has room for both. */
static void sess_echo(struct sess *s, size_t size)
{
	char *buf = malloc(size);

	while (buf) {
		if (!serve_budget_fits(s->bytes, 2 * (uint64_t)size, s->o->max_bytes)) {
			sess_refuse(s, "session byte limit (%llu) reached",
				    (unsigned long long)s->o->max_bytes);
			break;
		}
		ssize_t r = sess_read(s, buf, 1, s->o->idle_s);	/* wait for the start */
		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection");
			break;
		}
		s->bytes++;
		if (sess_read_all(s, buf + 1, size - 1, &s->bytes) < 0 ||
		    sess_write_all(s, buf, size, &s->bytes) < 0)
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

/* One SINK frame's payload: checksum, span, peak 5 ms bin; every byte that
   comes counted in s->bytes. */
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
		s->bytes += (uint64_t)r;
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

/* SINK: frames until one of length 0; a frame the budget has no room for
   is refused from its header, before a byte of it is read. */
static void sess_sink(struct sess *s)
{
	size_t cap = 1u << 20;
	char *buf = malloc(cap), err[200];
	unsigned char hdr[16], out[40];

	while (buf) {
		struct serve_sink_ack ack;
		ssize_t r = sess_read(s, hdr, 1, s->o->idle_s);
		uint64_t len;
		int k;

		if (r <= 0) {
			if (r == 0)
				sess_end(s, "client closed the connection");
			break;
		}
		if (sess_read_all(s, hdr + 1, 15, NULL) < 0)
			break;
		k = serve_sink_header(hdr, s->bytes, s->o->max_bytes, &len, err, sizeof err);
		if (k < 0) {
			sess_refuse(s, "%s", err);
			break;
		}
		if (k == 0) {
			sess_end(s, "done");
			break;
		}
		if (sink_frame(s, buf, cap, len, &ack) < 0)
			break;
		le64(out, ack.bytes);
		le64(out + 8, ack.checksum);
		le64(out + 16, ack.span_ns);
		le64(out + 24, ack.peak_bps);
		le64(out + 32, ack.cpu);
		if (sess_write_all(s, out, sizeof out, NULL) < 0)
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

/* The session of an authenticated request: OK, the data phase, and an ERR
   line when the server ended it. */
static void sess_run(struct sess *s, const struct serve_req *r)
{
	const char *mode = r->mode == SERVE_ECHO ? "ECHO" : r->mode == SERVE_SINK ? "SINK" :
			   r->mode == SERVE_INFO ? "INFO" : "CONN";

	sess_pin(r->cpu);
	if (r->mode == SERVE_SINK && r->rcvbuf)
		(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &(int){(int)r->rcvbuf}, sizeof(int));
	if (r->mode == SERVE_ECHO)
		(void)setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
	s->deadline = monotonic_s() + s->o->max_time_s;
	sess_say(s, "OK cpu=%d max_bytes=%llu max_time=%.0f", sched_getcpu(),
		 (unsigned long long)s->o->max_bytes, s->o->max_time_s);
	if (r->mode == SERVE_INFO) {
		uint64_t sent = 0;

		if (sess_write_all(s, info_line, strlen(info_line), &sent) == 0)
			snprintf(s->why, sizeof s->why, "machine facts sent");
	} else if (r->mode == SERVE_ECHO)
		sess_echo(s, (size_t)r->size);
	else if (r->mode == SERVE_SINK)
		sess_sink(s);
	else
		sess_conn(s, r->close_server);
	if (s->refused) {
		char line[sizeof s->why + 8];
		int n = snprintf(line, sizeof line, "ERR %s\n", s->why);

		(void)send(s->fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	if (r->mode != SERVE_CONN || s->refused)
		slog("session %lu from %s: %s: %llu bytes: %s", s->id, s->who, mode,
		     (unsigned long long)s->bytes, s->why[0] ? s->why : "ended");
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

/* A connection in its handshake, run by the listener. */
struct pend {
	int fd;				/* -1: closed (the slot is freed after the pass) */
	struct sockaddr_storage sa;
	char who[80];
	unsigned long id;
	double born;
	struct serve_hs hs;
};

struct server {
	const struct serve_opts *o;
	int lfd, wake_r;
	unsigned char *secret; size_t secret_len;
	pid_t *kids; int nkids;
	struct pend *pend; int npend;
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

/* Are two clients one address (IPv4: the address; IPv6: its /64)? */
static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6) {
		const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr,
				      *y = &((const struct sockaddr_in6 *)b)->sin6_addr;

		return memcmp(x, y, IN6_IS_ADDR_V4MAPPED(x) ? 16 : 8) == 0;
	}
	return 0;
}

/* "ADDR" of "ADDR:PORT" / "[ADDR]:PORT". */
static void addr_only(const char *who, char *buf, size_t len)
{
	const char *colon = strrchr(who, ':');

	snprintf(buf, len, "%.*s", colon ? (int)(colon - who) : (int)strlen(who), who);
}

/* Send a reply line without waiting (a fresh connection has room for it);
   0, or -1 when it did not all go. */
static int pend_send(struct pend *p, const char *line)
{
	size_t n = strlen(line);

	errno = 0;		/* a short send leaves it: said as such */
	return n == 0 || send(p->fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)n ? 0 : -1;
}

static void pend_close(struct pend *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* Refuse a connection in its handshake: its ERR line, the log, the close. */
static void pend_refuse(struct pend *p, const char *msg)
{
	char out[SERVE_REPLY_MAX];

	serve_hs_refuse(&p->hs, msg, out, sizeof out);
	(void)pend_send(p, out);
	slog("session %lu from %s: %s", p->id, p->who, p->hs.why);
	pend_close(p);
}

/* An authenticated request: a session of its own, or "ERR busy". */
static void start_session(struct server *sv, struct pend *p)
{
	const struct serve_opts *o = sv->o;
	struct serve_req req = p->hs.req;
	char msg[120];
	pid_t pid;

	if (sv->nkids >= o->max_sessions) {
		snprintf(msg, sizeof msg, "busy: %d sessions running (at most %d), try later",
			 sv->nkids, o->max_sessions);
		pend_refuse(p, msg);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct sess s = {.o = o, .fd = p->fd, .id = p->id};

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_IGN);	/* the listener decides when sessions end */
		signal(SIGCHLD, SIG_DFL);
		wake_w = -1;
		close(sv->lfd);
		close(sv->wake_r);
		for (int i = 0; i < sv->npend; i++)
			if (sv->pend[i].fd >= 0 && sv->pend[i].fd != p->fd)
				close(sv->pend[i].fd);
		if (sv->secret)
			OPENSSL_cleanse(sv->secret, sv->secret_len);
		snprintf(s.who, sizeof s.who, "%s", p->who);
		sess_run(&s, &req);
		close(s.fd);
		_exit(0);
	}
	if (pid < 0) {
		snprintf(msg, sizeof msg, "busy: cannot start a session (fork: %s)", strerror(errno));
		pend_refuse(p, msg);
		return;
	}
	sv->kids[sv->nkids++] = pid;
	pend_close(p);
}

/* What came on a connection in its handshake: line by line (peeked, then
   taken up to the end of the line: what follows AUTH is the session's),
   until it waits, fails or is authenticated. */
static void pend_read(struct server *sv, struct pend *p)
{
	char buf[SERVE_LINE_MAX + 1], out[SERVE_REPLY_MAX], why[120];

	while (p->fd >= 0) {
		ssize_t r = recv(p->fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
		enum serve_hs_state st;
		size_t used;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r <= 0) {
			snprintf(why, sizeof why, "%s", r == 0 ? "client closed the connection during the "
				 "handshake" : strerror(errno));
			slog("session %lu from %s: %s", p->id, p->who, why);
			pend_close(p);
			return;
		}
		st = serve_hs_feed(&p->hs, buf, (size_t)r, &used, out, sizeof out);
		if (used && recv(p->fd, buf, used, MSG_DONTWAIT) != (ssize_t)used && st != SERVE_HS_FAILED) {
			slog("session %lu from %s: recv: %s", p->id, p->who, strerror(errno));
			pend_close(p);
			return;
		}
		if (pend_send(p, out) < 0 && st != SERVE_HS_FAILED) {
			slog("session %lu from %s: could not answer: %s", p->id, p->who,
			     errno ? strerror(errno) : "short send");
			pend_close(p);
			return;
		}
		if (st == SERVE_HS_FAILED) {
			slog("session %lu from %s: %s", p->id, p->who, p->hs.why);
			pend_close(p);
		} else if (st == SERVE_HS_OK) {
			start_session(sv, p);
		}
	}
}

/* The oldest connection in its handshake (of `like`'s address when like). */
static struct pend *pend_oldest(struct server *sv, const struct sockaddr_storage *like, int *count)
{
	struct pend *old = NULL;

	*count = 0;
	for (int i = 0; i < sv->npend; i++) {
		struct pend *p = &sv->pend[i];

		if (p->fd < 0 || (like && !same_addr(&p->sa, like)))
			continue;
		(*count)++;
		if (!old || p->id < old->id)
			old = p;
	}
	return old;
}

/* Drop closed slots. */
static void pend_compact(struct server *sv)
{
	int j = 0;

	for (int i = 0; i < sv->npend; i++)
		if (sv->pend[i].fd >= 0) {
			if (i != j)
				sv->pend[j] = sv->pend[i];
			j++;
		}
	sv->npend = j;
}

/* New connections, each a handshake in progress; when the handshakes of
   its address, or all of them, are at their cap the oldest of them goes
   (a client that knows the token answers within a round trip: the one
   that waited longest is the likeliest stranger). */
static void accept_some(struct server *sv)
{
	const struct serve_opts *o = sv->o;

	for (int k = 0; k < 64; k++) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof sa;
		int fd = accept4(sv->lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		unsigned char rnd[16];
		char nonce[33], msg[160], addr[80];
		struct pend *p, *old;
		int n;

		if (fd < 0)
			return;
		p = &(struct pend){.fd = fd, .sa = sa, .id = ++sv->next_id, .born = monotonic_s()};
		addr_text(&sa, p->who, sizeof p->who);
		if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
			serve_hs_init(&p->hs, "", NULL, 0);
			pend_refuse(p, "internal error (getrandom failed)");
			continue;
		}
		for (size_t i = 0; i < sizeof rnd; i++)
			sprintf(nonce + 2 * i, "%02x", rnd[i]);
		serve_hs_init(&p->hs, nonce, sv->secret, sv->secret_len);
		old = pend_oldest(sv, &sa, &n);
		if (n >= o->max_handshakes_per_addr) {
			addr_only(p->who, addr, sizeof addr);
			snprintf(msg, sizeof msg, "busy: too many handshakes from %s (at most %d), try "
				 "later", addr, o->max_handshakes_per_addr);
			pend_refuse(old, msg);
		} else if (sv->npend >= o->max_handshakes) {
			old = pend_oldest(sv, NULL, &n);
			snprintf(msg, sizeof msg, "busy: too many handshakes (at most %d), try later",
				 o->max_handshakes);
			pend_refuse(old, msg);
		}
		pend_compact(sv);
		sv->pend[sv->npend++] = *p;
	}
}

/* Handshakes past their time: refused. */
static void pend_expire(struct server *sv, double now)
{
	char msg[80];

	for (int i = 0; i < sv->npend; i++)
		if (sv->pend[i].fd >= 0 && now >= sv->pend[i].born + sv->o->handshake_s) {
			snprintf(msg, sizeof msg, "handshake not finished within %.0f s",
				 sv->o->handshake_s);
			pend_refuse(&sv->pend[i], msg);
		}
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
	sv->lfd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (sv->lfd < 0 ||
	    setsockopt(sv->lfd, SOL_SOCKET, SO_REUSEADDR, &(int){1}, sizeof(int)) < 0 ||
	    bind(sv->lfd, (struct sockaddr *)&sa, sl) < 0 || listen(sv->lfd, 128) < 0) {
		snprintf(err, errlen, "listen on %s: %s", o->listen ? o->listen : def,
			 strerror(errno));
		return -1;
	}
	sl = sizeof sa;
	getsockname(sv->lfd, (struct sockaddr *)&sa, &sl);
	addr_text(&sa, where, sizeof where);
	if (!o->quiet)
		fprintf(stderr, "runner: serve: listening on %s (protocol %d, %s, at most %d sessions, "
			"%d handshakes, %d from one address)\n", where, SERVE_PROTO_VERSION,
			sv->secret ? "token required" : "loopback, open", o->max_sessions,
			o->max_handshakes, o->max_handshakes_per_addr);
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
	struct server sv = {.o = &o, .lfd = -1, .wake_r = -1};
	struct sigaction sa = {.sa_handler = on_stop}, sc = {.sa_handler = on_child};
	struct pollfd *pfd = NULL;
	char err[600];
	int rc = EXIT_OK, wake[2];
	double noted = 0;

	if (o.max_sessions <= 0) o.max_sessions = 16;
	if (o.max_handshakes <= 0) o.max_handshakes = SERVE_HS_MAX;
	if (o.max_handshakes_per_addr <= 0) o.max_handshakes_per_addr = SERVE_HS_PER_ADDR;
	if (o.handshake_s <= 0) o.handshake_s = 5;
	if (o.idle_s <= 0) o.idle_s = 30;
	if (o.max_time_s <= 0) o.max_time_s = 600;
	if (!o.max_bytes) o.max_bytes = 64ull << 30;
	log_quiet = o.quiet;
	loglim = mmap(NULL, sizeof *loglim, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (loglim == MAP_FAILED)
		loglim = NULL;		/* then every line is shown */
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "runner: serve: pipe: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	sv.wake_r = wake[0];
	wake_w = wake[1];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&sc.sa_mask);
	sc.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sc, NULL);
	signal(SIGPIPE, SIG_IGN);
	make_info_line();
	sv.kids = calloc((size_t)o.max_sessions, sizeof *sv.kids);
	sv.pend = calloc((size_t)o.max_handshakes, sizeof *sv.pend);
	pfd = calloc((size_t)o.max_handshakes + 2, sizeof *pfd);
	if (!sv.kids || !sv.pend || !pfd || open_listener(&sv, err, sizeof err) < 0) {
		fprintf(stderr, "runner: serve: %s\n", sv.kids && sv.pend && pfd ? err : "out of memory");
		rc = EXIT_USAGE;
		goto out;
	}
	while (!stop) {
		double now = monotonic_s(), next = now + 1;
		int np = sv.npend, timeout;
		char drain[64];

		pfd[0] = (struct pollfd){.fd = sv.lfd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = sv.wake_r, .events = POLLIN};
		for (int i = 0; i < np; i++) {
			pfd[2 + i] = (struct pollfd){.fd = sv.pend[i].fd, .events = POLLIN};
			if (sv.pend[i].born + o.handshake_s < next)
				next = sv.pend[i].born + o.handshake_s;
		}
		timeout = next > now ? (int)((next - now) * 1000) + 1 : 0;
		if (poll(pfd, (nfds_t)np + 2, timeout) < 0 && errno != EINTR)
			break;
		while (read(sv.wake_r, drain, sizeof drain) > 0)
			;
		reap(&sv, 0);		/* before any new request asks for a slot */
		now = monotonic_s();
		if (now - noted >= 1) {
			log_note();
			noted = now;
		}
		for (int i = 0; i < np; i++)
			if (pfd[2 + i].revents && sv.pend[i].fd >= 0)
				pend_read(&sv, &sv.pend[i]);
		pend_expire(&sv, now);
		pend_compact(&sv);
		if (pfd[0].revents & POLLIN)
			accept_some(&sv);
	}
	if (!o.quiet)
		log_line("stopping (%d session%s open)", sv.nkids, sv.nkids == 1 ? "" : "s");
	for (int i = 0; i < sv.npend; i++) {
		(void)pend_send(&sv.pend[i], sv.pend[i].hs.state == SERVE_HS_HELLO ?
				"SYSMETER 1 ERR server stopping\n" : "ERR server stopping\n");
		pend_close(&sv.pend[i]);
	}
	for (int i = 0; i < sv.nkids; i++)
		kill(sv.kids[i], SIGKILL);
	reap(&sv, 1);
	log_note();
out:
	signal(SIGCHLD, SIG_DFL);
	wake_w = -1;
	close(wake[0]);
	close(wake[1]);
	if (sv.lfd >= 0)
		close(sv.lfd);
	if (o.ready_file)
		unlink(o.ready_file);
	if (sv.secret)
		OPENSSL_cleanse(sv.secret, sv.secret_len);
	free(sv.secret);
	free(sv.kids);
	free(sv.pend);
	free(pfd);
	if (loglim)
		munmap(loglim, sizeof *loglim);
	loglim = NULL;
	return rc;
}
