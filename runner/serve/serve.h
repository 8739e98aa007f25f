/*
 * serve.h - `runner serve`, the far end of the network probes (design §7
 * "Remote peers"), `--peer netns`, a private namespace peer on this host,
 * and `--nfs netns`, nfs-ganesha in such a namespace (nfs.h).
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
 *   INFO                     one line "MACHINE <json>" (at most
 *                            SERVE_INFO_MAX bytes with its '\n', printable
 *                            ASCII): the peer's machine, a compact subset of
 *                            the manifest's machine object (serve_info_facts),
 *                            then close.  Added within version 1: a peer that
 *                            predates it answers "ERR unknown mode 'INFO'",
 *                            and the measuring side records that as the reason
 *                            it has no peer machine; a client that does not
 *                            ask is served as before.
 * cpu=C pins the session process to CPU C where it exists (the OK line
 * says where it runs).  The listener runs the handshake (non-blocking,
 * strict parsers); an authenticated request gets a forked session process,
 * so a session can only end itself.
 *
 * Bounds: at most max_handshakes handshakes in progress, max_handshakes_per_addr
 * of them from one address (an IPv6 /64): a new connection past either
 * pushes out the oldest such handshake; a handshake within handshake_s;
 * at most max_sessions authenticated sessions at once (a request past it
 * gets "ERR busy"); no more than idle_s between two reads; a session ends
 * after max_time, and a request that would pass max_bytes (data bytes, both
 * directions; a SINK frame is judged by its header, before it is read) is
 * refused.  Every refusal, in the handshake or after, is one line "ERR
 * <why>" ("SYSMETER <v> ERR <why>" while the client waits for the
 * challenge) before the close.
 */
#ifndef SYSMETER_SERVE_H
#define SYSMETER_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "probe_wire.h"
#include "serve/nfs.h"

#define SERVE_LINE_MAX 256
#define SERVE_DEFAULT_PORT 7077
#define SERVE_ECHO_MAX (1u << 20)
#define SERVE_HS_MAX 64			/* handshakes in progress, default */
#define SERVE_HS_PER_ADDR 8		/* ... from one address, default */
#define SERVE_LOG_PER_S 20		/* session log lines a second; the rest counted */

/* What a SINK frame is answered with (all little-endian u64). */
struct serve_sink_ack {
	uint64_t bytes;		/* payload bytes received */
	uint64_t checksum;	/* serve_checksum of the payload */
	uint64_t span_ns;	/* first to last payload byte, at the receiver */
	uint64_t peak_bps;	/* most bytes in one 5 ms bin, per second (0: too short) */
	uint64_t cpu;		/* where the session ran at the end of the frame */
};

enum serve_mode { SERVE_ECHO = 1, SERVE_SINK, SERVE_CONN, SERVE_INFO };

#define SERVE_INFO_MAX 2048		/* the MACHINE line, '\n' included */

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

/*
 * One connection's handshake as the listener runs it (proto.c, pure: no
 * I/O, fuzzed by tests/fuzz/fuzz_serve.c).  Bytes go in as they come;
 * serve_hs_feed takes them up to the end of the first complete line only
 * (*used), so that nothing after the AUTH line, which belongs to the
 * session, is taken.  Each call may leave a reply line ('\n'-terminated,
 * at most SERVE_REPLY_MAX bytes with its NUL) in out: the challenge, or the
 * ERR of a refusal, in the form the client then waits for ("SYSMETER <v>
 * ERR ..." before the challenge, "ERR ..." after it).  SERVE_HS_OK: req
 * holds the authenticated request (the session sends OK); SERVE_HS_FAILED:
 * out is the refusal and why says it for the log.  Both are final.
 */
#define SERVE_REPLY_MAX (SERVE_LINE_MAX + 64)

enum serve_hs_state { SERVE_HS_HELLO, SERVE_HS_AUTH, SERVE_HS_OK, SERVE_HS_FAILED };

struct serve_hs {
	enum serve_hs_state state;
	char nonce[33];				/* 32 hex digits */
	const unsigned char *secret;		/* NULL: open (loopback) */
	size_t secret_len;
	char line[SERVE_LINE_MAX];		/* the line so far */
	size_t n;
	struct serve_req req;			/* SERVE_HS_OK */
	char why[240];				/* SERVE_HS_FAILED: for the log */
};

void serve_hs_init(struct serve_hs *h, const char *nonce, const unsigned char *secret,
		   size_t secret_len);
enum serve_hs_state serve_hs_feed(struct serve_hs *h, const char *data, size_t len, size_t *used,
				  char *out, size_t outlen);
/* A refusal the listener decides (time, busy): h fails, out is its ERR line. */
void serve_hs_refuse(struct serve_hs *h, const char *msg, char *out, size_t outlen);

/* The peer's machine as INFO tells it: {hostname, cpu_model, cpu: {vendor,
   family, model, stepping, microarchitecture}, cpus_online, core_clock_hz,
   memory_bytes, kernel, arch} from a manifest's machine object (each null
   where it is not known).  A new object. */
json_t *serve_info_facts(json_t *machine);

/* The MACHINE line (without its '\n') a client reads: 0 and a new object
   of the keys above (checked: types, printable text of at most 200 bytes,
   numbers in range; keys it does not know are left out, so a newer peer
   may add some), or -1 and a message.  Any bytes at all may come in. */
int serve_parse_info(const char *line, size_t len, json_t **out, char *err, size_t errlen);

/* Ask the peer at addr ("HOST:PORT", "[V6]:PORT") for its machine (INFO),
   signing with the token file token_path (NULL: an open peer), within
   timeout_s.  0 and *out, or -1 with why in err (peer_info.c). */
int serve_peer_machine(const char *addr, const char *token_path, double timeout_s, json_t **out,
		       char *err, size_t errlen);

/* Does `more` fit in a budget of `max` of which `used` is spent?  (No sum
   is formed: a length a client announces may be anything up to 2^64-1.) */
int serve_budget_fits(uint64_t used, uint64_t more, uint64_t max);

/* A SINK frame header: 1 and *len for a frame, 0 for the end (length 0),
   -1 and a message for a bad magic or a frame that would pass the
   session's byte budget (used of max). */
int serve_sink_header(const unsigned char hdr[16], uint64_t used, uint64_t max, uint64_t *len,
		      char *err, size_t errlen);


struct serve_opts {
	const char *listen;		/* "ADDR:PORT"; NULL = 127.0.0.1:SERVE_DEFAULT_PORT */
	const char *token_file;		/* NULL = open (loopback only) */
	int max_sessions;		/* default 16 */
	int max_handshakes;		/* default SERVE_HS_MAX */
	int max_handshakes_per_addr;	/* default SERVE_HS_PER_ADDR */
	double handshake_s, idle_s, max_time_s;	/* defaults 5, 30, 600 */
	uint64_t max_bytes;		/* default 64 GiB */
	int quiet;
	const char *ready_file;		/* written with "ADDR:PORT\n" once listening */
};

/* Listen and serve until SIGINT/SIGTERM.  Returns an EXIT_* code; prints
   its own messages ("runner: serve: ...") and one line per session or
   refusal, at most SERVE_LOG_PER_S a second (then how many were left out). */
int serve_main(const struct serve_opts *o);

/*
 * A private network namespace on this host (netns.c), shared by --peer
 * netns and --nfs netns: unnamed, held by the first process inside it
 * (ns.pid), so it lives exactly as long as the processes in it.  Every one
 * of them has PR_SET_PDEATHSIG(SIGKILL) and its own process group (Ctrl-C
 * at the terminal reaches the runner, which tears down in order), so even
 * a runner killed with SIGKILL leaves no namespace.  It is joined to this
 * namespace by a veth pair PREFIXh<runner pid> / PREFIXp<runner pid> in a
 * /30 of 10.OCTET.0.0/16 picked from the runner's pid.
 *
 * A daemon that changes its user (rpcbind runs as _rpc) loses its
 * death signal, so a `private` namespace is also a PID namespace whose
 * init is ours: the holder dies with the runner, the init with the holder,
 * and the kernel kills every process left in the PID namespace with it.
 * It is a mount namespace too, with an empty tmpfs of its own on /run, so
 * that daemons' sockets, locks and pid files there never meet the host's.
 */
struct serve_ns {
	const char *what;		/* "--peer netns": the subject of messages */
	int pid;			/* the holder: first process inside, 0 if none */
	int private;			/* + PID and mount namespace, private /run */
	char host_if[16], peer_if[16];	/* veth ends */
	char host_ip[16], peer_ip[16];	/* dotted quads, in one /30 */
	char net[20];			/* the /30: "10.77.0.0/30" */
	int pin, cpu;			/* pin: daemons from serve_ns_spawn run on cpu */
};

/* Called in the namespace's first process once it is inside with its
   address up; must exec or _exit. */
typedef void (*serve_ns_fn)(const struct serve_ns *ns, void *arg);

/* Make the namespace and its veth pair.  inside != NULL: run inside(ns,
   arg) in the first process (it becomes the daemon); NULL: the first
   process only holds the namespace, and serve_ns_up returns once the
   address inside is up; start daemons with serve_ns_spawn.  0, or -1 with
   a message in err (everything made so far removed). */
int serve_ns_up(struct serve_ns *ns, const char *what, unsigned octet, const char *prefix,
		int private, serve_ns_fn inside, void *arg, char *err, size_t errlen);

/* Start argv[0] (a path) with argv in ns's namespaces, in its own process
   group, dying with the runner; stdout and stderr appended to out_path.
   In a private namespace the pid returned is a small shim outside the PID
   namespace that passes SIGTERM/SIGINT/SIGHUP on and exits as the daemon
   does.  The pid, or -1 with a message in err. */
int serve_ns_spawn(const struct serve_ns *ns, char *const argv[], const char *out_path,
		   char *err, size_t errlen);

/* Stop a child: SIGTERM, up to grace_s seconds, then SIGKILL; reaped, and
   what is left of its process group killed (lib/supervise). */
void serve_ns_stop(int pid, double grace_s);

/* Stop the holder (and with it every process in a private namespace),
   then wait for the namespace (and with it the veth pair) to go, deleting
   the host end if it lingers.  Safe twice. */
void serve_ns_down(struct serve_ns *ns);

/* A process's start time (clock ticks since boot), 0 when it is gone or a
   zombie: with the pid it names one process even after the pid is reused. */
unsigned long long serve_ns_proc_start(int pid);

/*
 * --peer netns: an unnamed network namespace holding one `runner serve`
 * (serve_ns above; the serve is its first process), joined to this one by
 * a veth pair in a private /30 of 10.200.0.0/16, with a fresh token.
 * serve_peer_up() resolves `spec`: NULL -> no peer; "netns" -> the
 * namespace; anything else -> as given.  serve_peer_addr() is what probes
 * get as host->peer: "HOST:PORT", NULL, or "!<reason>" when a namespace was
 * asked for and cannot be made (the probes skip their remote points with
 * that reason).  serve_peer_down() removes everything (safe to call twice).
 */
struct serve_peer {
	int netns;			/* a namespace was asked for */
	struct serve_ns ns;		/* ns.pid: the serve process, 0 if none */
	char addr[64];			/* "10.200.x.y:port" */
	char token_path[256];		/* removed by down */
	char reason[400];		/* "!why": not available */
	const char *given;
};
int serve_peer_up(struct serve_peer *p, const char *spec, int quiet);
const char *serve_peer_addr(const struct serve_peer *p);
void serve_peer_down(struct serve_peer *p);

/*
 * The servers of one run (servers.c): the --peer and --nfs a request names,
 * started before its first point and stopped after its last, also on error
 * and Ctrl-C.  A server that cannot start costs its points, not the run:
 * they are skipped with the reason.  `stop` (the run's interrupt flag)
 * cuts a start short.
 */
struct serve_servers {
	struct serve_peer peer;
	struct serve_nfs *nfs;		/* NULL: none asked for, or stopped */
	const char *token;		/* the peer's secret: --token, or the one
					   --peer netns made */
};
void serve_servers_up(struct serve_servers *s, const char *peer, const char *nfs,
		      const char *token, int quiet, volatile sig_atomic_t *stop);
void serve_servers_down(struct serve_servers *s);

#endif
