/*
 * peer_info.c - the measuring side asks a `runner serve` peer for its
 * machine (serve.h, mode INFO): HELLO, CHALLENGE, AUTH signed with the
 * token (lib/hmac; the secret never leaves this process), OK, then one
 * MACHINE line parsed strictly (proto.c, serve_parse_info).  Every read is
 * bounded in bytes and time: a peer that says too much or too little is an
 * error, never a hang.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/hmac.h"
#include "lib/monotonic.h"
#include "serve/serve.h"

/* "HOST:PORT" or "[V6]:PORT" into host and port; 0 or -1. */
static int split_addr(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon;

	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');

		if (!close || close[1] != ':' || (size_t)(close - addr - 1) >= hlen)
			return -1;
		snprintf(host, hlen, "%.*s", (int)(close - addr - 1), addr + 1);
		colon = close + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || (size_t)(colon - addr) >= hlen)
			return -1;
		snprintf(host, hlen, "%.*s", (int)(colon - addr), addr);
	}
	if (!colon[1] || strlen(colon + 1) >= plen)
		return -1;
	snprintf(port, plen, "%s", colon + 1);
	return 0;
}

static int dial(const char *addr, double deadline, char *err, size_t errlen)
{
	char host[256], port[16];
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	int fd = -1, rc;

	if (split_addr(addr, host, sizeof host, port, sizeof port) < 0) {
		snprintf(err, errlen, "peer '%s': expected HOST:PORT", addr);
		return -1;
	}
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "peer %s: %s", addr, gai_strerror(rc));
		return -1;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0 && errno == EINPROGRESS) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int soerr = 0;
		socklen_t sl = sizeof soerr;
		double left = deadline - monotonic_s();

		if (poll(&p, 1, left > 0 ? (int)(left * 1000) + 1 : 0) <= 0)
			errno = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr)
			errno = soerr;
		else
			errno = 0;
	}
	freeaddrinfo(res);
	if (fd < 0 || errno) {
		snprintf(err, errlen, "peer %s: connect: %s", addr, strerror(errno ? errno : EIO));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One line of at most cap - 1 bytes (without its '\n') before the
   deadline; 0, or -1 with why. */
static int read_line(int fd, char *buf, size_t cap, double deadline, const char *addr,
		     char *err, size_t errlen)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		double left = deadline - monotonic_s();
		ssize_t r;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) == 0) {
			snprintf(err, errlen, "peer %s: no answer in time", addr);
			return -1;
		}
		r = recv(fd, buf + n, 1, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "peer %s: %s", addr, r == 0 ? "closed the connection"
				 : strerror(errno));
			return -1;
		}
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return 0;
		}
		if (++n == cap - 1) {
			snprintf(err, errlen, "peer %s: a line longer than %zu bytes", addr, cap - 1);
			return -1;
		}
	}
}

static int send_line(int fd, const char *line, const char *addr, char *err, size_t errlen)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			poll(&p, 1, 100);
			continue;
		}
		if (w < 0) {
			snprintf(err, errlen, "peer %s: send: %s", addr, strerror(errno));
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* The handshake up to OK for INFO; 0 or -1. */
static int handshake(int fd, const char *addr, const char *token_path, double deadline,
		     char *err, size_t errlen)
{
	char line[SERVE_REPLY_MAX + 8], nonce[40], kind[8], mac[65] = "-", msg[80];
	int v = -1;

	snprintf(line, sizeof line, "SYSMETER %d HELLO\n", SERVE_PROTO_VERSION);
	if (send_line(fd, line, addr, err, errlen) < 0 ||
	    read_line(fd, line, sizeof line, deadline, addr, err, errlen) < 0)
		return -1;
	if (sscanf(line, "SYSMETER %d ", &v) != 1) {
		snprintf(err, errlen, "peer %s is not a `runner serve`", addr);
		return -1;
	}
	if (v != SERVE_PROTO_VERSION) {
		snprintf(err, errlen, "peer %s speaks protocol version %d, this runner %d", addr, v,
			 SERVE_PROTO_VERSION);
		return -1;
	}
	if (sscanf(line, "SYSMETER %*d CHALLENGE %32s %7s", nonce, kind) != 2 ||
	    strlen(nonce) != 32) {
		snprintf(err, errlen, "peer %s: %.200s", addr, line);
		return -1;
	}
	if (strcmp(kind, "auth") == 0) {
		unsigned char secret[4096];
		size_t slen;

		if (!token_path) {
			snprintf(err, errlen, "peer %s wants a token (--token FILE)", addr);
			return -1;
		}
		if (hmac_read_token(token_path, secret, sizeof secret, &slen, err, errlen) < 0)
			return -1;
		snprintf(msg, sizeof msg, "%s INFO", nonce);
		if (hmac_sha256_hex(secret, slen, msg, mac) < 0) {
			snprintf(err, errlen, "HMAC-SHA256 failed");
			return -1;
		}
	}
	snprintf(line, sizeof line, "AUTH %s INFO\n", mac);
	if (send_line(fd, line, addr, err, errlen) < 0 ||
	    read_line(fd, line, sizeof line, deadline, addr, err, errlen) < 0)
		return -1;
	if (strncmp(line, "OK ", 3) != 0) {
		snprintf(err, errlen, "peer %s does not tell its machine: %.200s%s", addr, line,
			 strstr(line, "unknown mode") ? " (a runner serve older than INFO)" : "");
		return -1;
	}
	return 0;
}

int serve_peer_machine(const char *addr, const char *token_path, double timeout_s, json_t **out,
		       char *err, size_t errlen)
{
	double deadline = monotonic_s() + timeout_s;
	char *line = malloc(SERVE_INFO_MAX + 1);
	int fd, rc = -1;

	*out = NULL;
	if (!line) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((fd = dial(addr, deadline, err, errlen)) >= 0) {
		if (handshake(fd, addr, token_path, deadline, err, errlen) == 0 &&
		    read_line(fd, line, SERVE_INFO_MAX + 1, deadline, addr, err, errlen) == 0) {
			char why[300];

			rc = serve_parse_info(line, strlen(line), out, why, sizeof why);
			if (rc < 0)
				snprintf(err, errlen, "peer %s: %s", addr, why);
		}
		close(fd);
	}
	free(line);
	return rc;
}
