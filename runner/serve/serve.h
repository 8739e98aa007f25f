/*
 * serve.h - `runner serve`, the far end of the network probes (design §7
 * "Remote peers"), and `--peer netns`, a private namespace peer on this host.
 *
 * Protocol, version SERVE_PROTO_VERSION.  Every connection starts with a
 * control exchange of '\n'-terminated ASCII lines of at most SERVE_LINE_MAX
 * bytes; the client speaks first (so that a measured connection carries no
 * unread greeting):
 *
 *   C: SYSMETER <version> HELLO
 *   S: SYSMETER <version> CHALLENGE <nonce: 32 hex digits> auth|open
 *      (or SYSMETER <version> ERR <message>, then close)
 *   C: AUTH <mac|-> <MODE> [key=value ...]
 *   S: OK cpu=<cpu of the session> max_bytes=<n> max_time=<s>
 *      (or ERR <message>, then close)
 *
 * mac = hex HMAC-SHA256(secret, "<nonce> <MODE> [key=value ...]"), the
 * secret being the token file's contents (trailing newlines dropped), so
 * the secret never travels and a MAC is good for one nonce only.  `open`
 * (a loopback listener without a token) takes "-".  A version other than
 * ours is answered "SYSMETER <ours> ERR protocol version <theirs> not
 * supported (this peer speaks <ours>)".
 *
 * Modes and their data phase:
 *   ECHO size=N [cpu=C]      read N bytes, write them back; repeat
 *   SINK [cpu=C] [rcvbuf=B]  frames: 16-byte header (u64 magic, u64 length,
 *                            little endian) then length bytes; each answered
 *                            by a struct serve_sink_ack; length 0 ends
 *   CONN close=client|server [cpu=C]
 *                            one measured connection: client: wait for end of
 *                            file, then close; server: close after one byte
 * cpu=C pins the session process to CPU C where it exists (the OK line
 * says where it runs).  Every session is a forked process: a malformed or
 * hostile line ends that session only.
 *
 * Bounds: at most max_sessions at once (others get "ERR busy" and are
 * closed), handshake within handshake_s, no more than idle_s between two
 * reads, a session ends after max_bytes or max_time.
 */
#ifndef SYSMETER_SERVE_H
#define SYSMETER_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include "serve/wire.h"

#define SERVE_LINE_MAX 256
#define SERVE_DEFAULT_PORT 7077
#define SERVE_ECHO_MAX (1u << 20)

/* What a SINK frame is answered with (all little-endian u64). */
struct serve_sink_ack {
	uint64_t bytes;		/* payload bytes received */
	uint64_t checksum;	/* serve_checksum of the payload */
	uint64_t span_ns;	/* first to last payload byte, at the receiver */
	uint64_t peak_bps;	/* most bytes in one 5 ms bin, per second (0: too short) */
	uint64_t cpu;		/* where the session ran at the end of the frame */
};

enum serve_mode { SERVE_ECHO = 1, SERVE_SINK, SERVE_CONN };

/* A parsed AUTH line. */
struct serve_req {
	char mac[65];		/* hex, or "-" */
	enum serve_mode mode;
	uint64_t size;		/* ECHO */
	int cpu;		/* -1 = no preference */
	uint64_t rcvbuf;	/* SINK, 0 = autotuning */
	int close_server;	/* CONN: 1 = the server closes first */
	char signed_part[SERVE_LINE_MAX];	/* "<MODE> [key=value ...]" as sent */
};

/* Parse "SYSMETER <v> HELLO" (without the '\n'): 0 and *version, or -1
   and a message.  Any bytes at all may come in. */
int serve_parse_hello(const char *line, size_t len, int *version, char *err, size_t errlen);

/* Parse an AUTH line (without the '\n'): 0, or -1 and a message. */
int serve_parse_auth(const char *line, size_t len, struct serve_req *r, char *err,
		     size_t errlen);


struct serve_opts {
	const char *listen;		/* "ADDR:PORT"; NULL = 127.0.0.1:SERVE_DEFAULT_PORT */
	const char *token_file;		/* NULL = open (loopback only) */
	int max_sessions;		/* default 16 */
	double handshake_s, idle_s, max_time_s;	/* defaults 5, 30, 600 */
	uint64_t max_bytes;		/* default 64 GiB */
	int quiet;
	const char *ready_file;		/* written with "ADDR:PORT\n" once listening */
};

/* Listen and serve until SIGINT/SIGTERM.  Returns an EXIT_* code; prints
   its own messages ("runner: serve: ...") and one line per session. */
int serve_main(const struct serve_opts *o);

/*
 * --peer netns: an unnamed network namespace holding one `runner serve`
 * (the namespace lives exactly as long as that process, which dies with the
 * runner: PR_SET_PDEATHSIG), joined to this one by a veth pair in a private
 * /30 of 10.200.0.0/16, with a fresh token.  serve_peer_up() resolves
 * `spec`: NULL -> no peer; "netns" -> the namespace; anything else -> as
 * given.  serve_peer_addr() is what probes get as host->peer: "HOST:PORT",
 * NULL, or "!<reason>" when a namespace was asked for and cannot be made
 * (the probes skip their remote points with that reason).
 * serve_peer_down() removes everything (safe to call twice).
 */
struct serve_peer {
	int netns;			/* a namespace was asked for */
	int pid;			/* the serve process, 0 if none */
	char addr[64];			/* "10.200.x.y:port" */
	char host_if[16], peer_if[16];	/* veth ends */
	char token_path[256];		/* removed by down */
	char reason[400];		/* "!why": not available */
	const char *given;
};
int serve_peer_up(struct serve_peer *p, const char *spec, int quiet);
const char *serve_peer_addr(const struct serve_peer *p);
void serve_peer_down(struct serve_peer *p);

#endif
