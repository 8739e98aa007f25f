/*
 * nfs.c - the run's NFS server (--nfs, nfs.h): a URL as given, or
 * nfs-ganesha with rpcbind in a private namespace on this host.
 *
 * The namespace (serve_ns, netns.c) is a network namespace plus a mount
 * namespace whose /run is a tmpfs of its own: rpcbind's socket and lock
 * and ganesha's run files there never meet the host's (a host running its
 * own rpcbind would otherwise refuse ours, or take our registrations).  It
 * is a PID namespace too, so rpcbind, which becomes user _rpc and with that
 * loses its death signal, still dies with the runner.  ganesha starts once
 * rpcbind answers, so that it can register MOUNT and NFS for v3 clients.
 *
 * Everything of one server lives in one scratch area on a disk file system,
 * /var/tmp/sysmeter-nfs.XXXXXX (root's, mode 0755): owner (the runner's
 * marker: who made it, to reclaim it after a killed run), ganesha.conf,
 * ganesha.log, ganesha.out (its stdout/stderr), ganesha.pid, rpcbind.out,
 * recovery/ (v4 client records), export/ and rw/area/.
 *
 * Who may use the server: it runs as root, so its exports are kept to what
 * the probes need.  /sysmeter (export/, the probes' files, made on this
 * host) is read-only; /sysmeter-rw (rw/area/, for a client that must write
 * a file, as nfs_read does on a server it was given by URL) is writable
 * with every user squashed to nobody (65534), inside rw/ (root's, 0700) so
 * that no local process reaches it by path.  Both answer only the veth's
 * host end, the address the probes' connections come from, and only from a
 * privileged port (below 1024: root, as the runner and its probes are;
 * libnfs binds one when it can), so that no unprivileged process on this
 * host can use them.
 *
 * Readiness is asked of the server itself, over the veth: RPC NULL calls
 * to NFSv3 and NFSv4 on port 2049, MOUNT v3 looked up in rpcbind and the
 * export mounted through it (as root from a privileged port, as the
 * probes will); no sleep stands in for it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <netdb.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "serve/serve.h"

#define AREA_ROOT "/var/tmp"
#define AREA_PREFIX "sysmeter-nfs."
#define AREA_MODE 0755			/* what make_area leaves it with */
#define AREA_MARK "sysmeter --nfs netns scratch area"	/* owner's second line */
#define SQUASH_ID 65534			/* nobody: /sysmeter-rw's every user */
#define NS_OCTET 77			/* 10.77.0.0/16 */
#define NS_PREFIX "sn"			/* veth snh<pid> / snp<pid> */
#define DEPS "apt-get install nfs-ganesha nfs-ganesha-vfs rpcbind, or make deps"

#define PROG_PMAP 100000u
#define PROG_NFS 100003u
#define PROG_MOUNT 100005u

struct serve_nfs {
	int netns;
	char url[300], label[300], error[2048];
	char area[PATH_MAX], export_dir[PATH_MAX + 16], rw_dir[PATH_MAX + 16];
	struct serve_ns ns;		/* private: net + mount + PID namespace */
	int rpcbind, ganesha;		/* pids (serve_ns_spawn's shims), 0 if none */
	const char *ganesha_bin, *rpcbind_bin;
};

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void area_path(const struct serve_nfs *n, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", n->area, name);
}

/* --- what --nfs names -------------------------------------------------- */

/* The HOST of nfs://HOST/EXPORT: its length, 0 when s is no such URL. */
static size_t url_host_len(const char *s)
{
	size_t h;

	if (strncmp(s, "nfs://", 6) != 0)
		return 0;
	h = strcspn(s + 6, "/");
	if (h == 0 || s[6 + h] != '/' || s[7 + h] == '\0')
		return 0;
	return h;
}

int serve_nfs_valid(const char *given)
{
	return strcmp(given, "netns") == 0 || url_host_len(given) > 0;
}

/* An executable from the environment variable `env`, else the first of
   `paths` that is one; NULL when none is. */
static const char *find_bin(const char *env, const char *const *paths)
{
	const char *e = getenv(env);

	if (e && *e)
		return access(e, X_OK) == 0 ? e : NULL;
	for (; *paths; paths++)
		if (access(*paths, X_OK) == 0)
			return *paths;
	return NULL;
}

/* The FSAL that exports a local file system (nfs-ganesha-vfs). */
static int have_fsal_vfs(void)
{
	static const char *const pats[] = {"/usr/lib/*/ganesha/libfsalvfs.so",
					   "/usr/lib64/ganesha/libfsalvfs.so",
					   "/usr/lib/ganesha/libfsalvfs.so", NULL};

	for (const char *const *p = pats; *p; p++) {
		glob_t g;
		int found = glob(*p, 0, NULL, &g) == 0 && g.gl_pathc > 0;

		globfree(&g);
		if (found)
			return 1;
	}
	return 0;
}

/* Root, ganesha.nfsd, its VFS FSAL and rpcbind, or n->error says which is
   missing and how to get it. */
static int check_prerequisites(struct serve_nfs *n)
{
	static const char *const ganesha[] = {"/usr/bin/ganesha.nfsd", "/usr/sbin/ganesha.nfsd", NULL};
	static const char *const rpcbind[] = {"/usr/sbin/rpcbind", "/sbin/rpcbind", "/usr/bin/rpcbind",
					      NULL};
	const char *env = getenv("SYSMETER_GANESHA");

	if (geteuid() != 0) {
		snprintf(n->error, sizeof n->error, "--nfs netns needs root (it creates a network "
			 "namespace and a veth pair and runs nfs-ganesha); run as root: sudo runner "
			 "--nfs netns SPECS...");
		return -1;
	}
	if (!(n->ganesha_bin = find_bin("SYSMETER_GANESHA", ganesha))) {
		if (env && *env)
			snprintf(n->error, sizeof n->error, "--nfs netns: nfs-ganesha is not installed "
				 "(no %s, from SYSMETER_GANESHA; %s)", env, DEPS);
		else
			snprintf(n->error, sizeof n->error, "--nfs netns: nfs-ganesha is not installed "
				 "(no ganesha.nfsd in /usr/bin or /usr/sbin; %s)", DEPS);
		return -1;
	}
	if (!(env && *env) && !have_fsal_vfs()) {
		snprintf(n->error, sizeof n->error, "--nfs netns: nfs-ganesha-vfs is not installed "
			 "(no libfsalvfs.so in /usr/lib/*/ganesha; %s)", DEPS);
		return -1;
	}
	if (!(n->rpcbind_bin = find_bin("SYSMETER_RPCBIND", rpcbind))) {
		snprintf(n->error, sizeof n->error, "--nfs netns: rpcbind is not installed (NFSv3 "
			 "clients find MOUNT through it; %s)", DEPS);
		return -1;
	}
	/* rpcbind finds its port by the name "sunrpc": without /etc/services
	   (package netbase, absent from a minimal root) it listens on its unix
	   socket only, and nothing answers on port 111. */
	/* ganesha's VFS layer finds the export's file system in /etc/mtab, which
	   a booted system links to /proc/self/mounts and a minimal root lacks */
	if (access("/etc/mtab", R_OK) != 0) {
		snprintf(n->error, sizeof n->error, "--nfs netns: no /etc/mtab, which nfs-ganesha "
			 "reads to find the export's file system (as root: ln -s ../proc/self/mounts "
			 "/etc/mtab, or make deps)");
		return -1;
	}
	struct servent *se = getservbyname("sunrpc", "tcp");
	if (!se) {
		snprintf(n->error, sizeof n->error, "--nfs netns: /etc/services does not name "
			 "sunrpc, so rpcbind would not listen on port 111 (apt-get install netbase, or "
			 "make deps)");
		return -1;
	}
	return 0;
}

/* --- the scratch area, and areas of killed runs -------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

/* "PID START" and the marker line: the runner that owns the area, to tell
   a killed run's, and that it is one of ours. */
static int write_owner(const struct serve_nfs *n)
{
	char path[PATH_MAX + 16];
	FILE *f;
	int fd;

	area_path(n, "owner", path, sizeof path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "%d %llu\n%s\n", (int)getpid(), serve_ns_proc_start((int)getpid()), AREA_MARK);
	return fclose(f);
}

/* Is dir an area a runner made: a directory (not a link) of root's with
   the mode make_area leaves, holding a marker file of root's that says so?
   Its owner's pid and start time then. */
static int is_our_area(const char *dir, int *pid, unsigned long long *start)
{
	char path[PATH_MAX], buf[200], mark[sizeof AREA_MARK + 2];
	struct stat st;
	ssize_t r;
	int fd;

	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 07777) != AREA_MODE)
		return 0;
	snprintf(path, sizeof path, "%s/owner", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	    !(st.st_mode & 022) ? read(fd, buf, sizeof buf - 1) : -1;
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	mark[0] = '\0';
	if (sscanf(buf, "%d %llu\n%*[^\n]", pid, start) != 2 || *pid <= 0)
		return 0;
	const char *nl = strchr(buf, '\n');
	snprintf(mark, sizeof mark, "%s\n", AREA_MARK);
	return nl && strcmp(nl + 1, mark) == 0;
}

/* One area of another runner, removed when that runner is gone.  Its
   namespace went with it (serve_ns: a PID namespace whose init dies with
   the runner): only files are left.  Anything else under the name (a
   folder of another user's, of another mode, without the marker) is left
   alone: this runs as root. */
static void reclaim_area(const char *dir, int quiet)
{
	unsigned long long start = 0;
	int pid = 0;

	if (!is_our_area(dir, &pid, &start))
		return;
	if (serve_ns_proc_start(pid) == start)
		return;		/* its runner still runs */
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (!quiet)
		fprintf(stderr, "runner: --nfs netns: removed %s, left by runner %d (gone)\n", dir,
			pid);
}

static void reclaim_stale(int quiet)
{
	glob_t g;

	if (glob(AREA_ROOT "/" AREA_PREFIX "*", GLOB_NOSORT | GLOB_ONLYDIR, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		reclaim_area(g.gl_pathv[i], quiet);
	globfree(&g);
}

static int make_area(struct serve_nfs *n)
{
	char sub[PATH_MAX + 16];
	struct statfs fs;

	snprintf(n->area, sizeof n->area, "%s/%sXXXXXX", AREA_ROOT, AREA_PREFIX);
	if (!mkdtemp(n->area)) {
		snprintf(n->error, sizeof n->error, "--nfs netns: cannot create a folder in %s: %s",
			 AREA_ROOT, strerror(errno));
		n->area[0] = '\0';
		return -1;
	}
	/* the marker at once, then the mode: a killed run's area is found by
	   both (mkdtemp's 0700 until then: never taken for one) */
	snprintf(n->export_dir, sizeof n->export_dir, "%s/export", n->area);
	snprintf(n->rw_dir, sizeof n->rw_dir, "%s/rw/area", n->area);
	area_path(n, "recovery", sub, sizeof sub);
	if (write_owner(n) < 0 || chmod(n->area, AREA_MODE) < 0 || mkdir(n->export_dir, 0755) < 0 ||
	    mkdir(sub, 0700) < 0) {
		snprintf(n->error, sizeof n->error, "--nfs netns: %s: %s", n->area, strerror(errno));
		return -1;
	}
	area_path(n, "rw", sub, sizeof sub);
	if (mkdir(sub, 0700) < 0 || mkdir(n->rw_dir, 0755) < 0 ||
	    chown(n->rw_dir, SQUASH_ID, SQUASH_ID) < 0) {
		snprintf(n->error, sizeof n->error, "--nfs netns: %s: %s", n->rw_dir, strerror(errno));
		return -1;
	}
	if (statfs(n->area, &fs) == 0 && fs.f_type == 0x01021994)	/* TMPFS_MAGIC */
		fprintf(stderr, "runner: --nfs netns: %s is on tmpfs: cold reads will not reach a "
			"disk\n", AREA_ROOT);
	return 0;
}

/* ganesha.conf.  Every path in it is ours (mkdtemp's letters and digits). */
static int write_config(struct serve_nfs *n)
{
	char path[PATH_MAX + 16];
	FILE *f;

	area_path(n, "ganesha.conf", path, sizeof path);
	if (!(f = fopen(path, "w"))) {
		snprintf(n->error, sizeof n->error, "--nfs netns: %s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f,
		"# runner --nfs netns: one run's server, removed with it\n"
		"NFS_CORE_PARAM {\n"
		"\tProtocols = 3, 4;\n"
		"\tEnable_NLM = false;\t# no rpc.statd in the namespace\n"
		"\tEnable_RQUOTA = false;\n"
		"\tEnable_UDP = false;\n"
		"\tNFS_Port = 2049;\n"
		"\t# v3 mounts name the export by its pseudo path, as v4 does\n"
		"\tmount_path_pseudo = true;\n"
		"}\n"
		"NFS_KRB5 {\n"
		"\tActive_krb5 = false;\t# sec=sys only: no keytab to look for\n"
		"}\n"
		"NFSV4 {\n"
		"\t# no grace period: v4 OPENs fail during one\n"
		"\tGraceless = true;\n"
		"\tRecoveryRoot = \"%s/recovery\";\n"
		"}\n"
		"# The probes only read (they make their files on this host): read-only.\n"
		"# Root is not squashed, for files made under any umask; only root on\n"
		"# this host reaches it (the client's address and a privileged port).\n"
		"EXPORT {\n"
		"\tExport_Id = 77;\n"
		"\tPath = \"%s\";\n"
		"\tPseudo = \"%s\";\n"
		"\tProtocols = 3, 4;\n"
		"\tTransports = TCP;\n"
		"\tSecType = sys;\n"
		"\tPrivilegedPort = true;\n"
		"\tSquash = No_Root_Squash;\n"
		"\tAccess_Type = None;\n"
		"\tCLIENT {\n"
		"\t\tClients = %s;\t# the veth's host end: the probes' address\n"
		"\t\tAccess_Type = RO;\n"
		"\t}\n"
		"\tFSAL {\n"
		"\t\tName = VFS;\n"
		"\t}\n"
		"}\n"
		"# For a client that writes its file (nfs_read given this server's URL):\n"
		"# every user squashed to nobody.\n"
		"EXPORT {\n"
		"\tExport_Id = 78;\n"
		"\tPath = \"%s\";\n"
		"\tPseudo = \"%s\";\n"
		"\tProtocols = 3, 4;\n"
		"\tTransports = TCP;\n"
		"\tSecType = sys;\n"
		"\tPrivilegedPort = true;\n"
		"\tSquash = All_Squash;\n"
		"\tAnonymous_Uid = %d;\n"
		"\tAnonymous_Gid = %d;\n"
		"\tAccess_Type = None;\n"
		"\tCLIENT {\n"
		"\t\tClients = %s;\n"
		"\t\tAccess_Type = RW;\n"
		"\t}\n"
		"\tFSAL {\n"
		"\t\tName = VFS;\n"
		"\t}\n"
		"}\n",
		n->area, n->export_dir, SERVE_NFS_PSEUDO, n->ns.host_ip, n->rw_dir, SERVE_NFS_PSEUDO_RW,
		SQUASH_ID, SQUASH_ID, n->ns.host_ip);
	if (fclose(f) != 0) {
		snprintf(n->error, sizeof n->error, "--nfs netns: %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- RPC over TCP, enough to ask whether the server answers ------------- */

/* Bind fd to a privileged port (600-1023, taken in turn), as the server
   wants of its clients.  0, or -1 (errno). */
static int bind_privileged(int fd)
{
	static int next;

	for (int i = 0; i < 424; i++) {
		struct sockaddr_in me = {.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)(600 + next))};

		next = (next + 1) % 424;
		if (bind(fd, (struct sockaddr *)&me, sizeof me) == 0)
			return 0;
		if (errno != EADDRINUSE)
			return -1;
	}
	return -1;
}

/* A TCP connection from a privileged port to ip:port within 500 ms; the
   fd, or -1 with why. */
static int tcp_connect(const char *ip, int port, char *why, size_t len)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct timeval tv = {1, 0};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), e = 0;
	socklen_t el = sizeof e;
	struct pollfd p;

	inet_pton(AF_INET, ip, &sa.sin_addr);
	if (fd < 0) {
		snprintf(why, len, "socket: %s", strerror(errno));
		return -1;
	}
	if (bind_privileged(fd) < 0) {
		snprintf(why, len, "no privileged port to connect from: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) {
		e = errno;
	} else {
		p = (struct pollfd){.fd = fd, .events = POLLOUT};
		if (poll(&p, 1, 500) != 1)
			e = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
			e = errno;
	}
	if (e) {
		snprintf(why, len, "connect %s:%d: %s", ip, port, strerror(e));
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	return fd;
}

static int read_full(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t r = read(fd, (char *)buf + got, len - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* XDR (RFC 4506) into buf at *at: an unsigned int, a string. */
static void xdr_u32(unsigned char *buf, size_t *at, uint32_t v)
{
	uint32_t be = htonl(v);

	memcpy(buf + *at, &be, 4);
	*at += 4;
}

static void xdr_str(unsigned char *buf, size_t *at, const char *str)
{
	size_t len = strlen(str);

	xdr_u32(buf, at, (uint32_t)len);
	memset(buf + *at, 0, (len + 3) & ~(size_t)3);
	memcpy(buf + *at, str, len);
	*at += (len + 3) & ~(size_t)3;
}

/* One ONC RPC call (RFC 5531, one record; AUTH_SYS as root, as the probes
   call) of prog/vers/proc with XDR arguments to ip:port.  0 and the first
   result word in *res (when res), or -1 with why. */
static int rpc_call(const char *ip, int port, uint32_t prog, uint32_t vers, uint32_t proc,
		    const unsigned char *args, size_t args_len, uint32_t *res, char *why,
		    size_t len)
{
	static uint32_t xid;
	unsigned char msg[256];
	uint32_t reply[128], mark;
	size_t n = 4, words, at;
	int fd;

	if (!xid)
		xid = (uint32_t)getpid() << 12;
	xid++;
	xdr_u32(msg, &n, xid);
	xdr_u32(msg, &n, 0);		/* CALL */
	xdr_u32(msg, &n, 2);		/* RPC version */
	xdr_u32(msg, &n, prog);
	xdr_u32(msg, &n, vers);
	xdr_u32(msg, &n, proc);
	xdr_u32(msg, &n, 1);		/* AUTH_SYS: stamp, machine, uid 0, gid 0, no gids */
	xdr_u32(msg, &n, 28);
	xdr_u32(msg, &n, 0);
	xdr_str(msg, &n, "sysmeter");
	for (int i = 0; i < 3; i++)
		xdr_u32(msg, &n, 0);
	xdr_u32(msg, &n, 0);		/* verifier: AUTH_NONE */
	xdr_u32(msg, &n, 0);
	if (args_len)		/* NULL with 0 for NULL calls */
		memcpy(msg + n, args, args_len);
	n += args_len;
	at = 0;
	xdr_u32(msg, &at, 0x80000000u | (uint32_t)(n - 4));	/* the record mark */
	if ((fd = tcp_connect(ip, port, why, len)) < 0)
		return -1;
	if (write(fd, msg, n) != (ssize_t)n || read_full(fd, &mark, 4) < 0) {
		snprintf(why, len, "RPC %u v%u to %s:%d: no reply", prog, vers, ip, port);
		close(fd);
		return -1;
	}
	mark = ntohl(mark) & 0x7fffffffu;
	words = mark / 4;
	if (mark % 4 || words < 6 || words > 128 || read_full(fd, reply, mark) < 0) {
		snprintf(why, len, "RPC %u v%u to %s:%d: a malformed reply", prog, vers, ip, port);
		close(fd);
		return -1;
	}
	/* a reset, not a TIME_WAIT that would hold the privileged port */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &(struct linger){1, 0}, sizeof(struct linger));
	close(fd);
	/* xid, REPLY, MSG_ACCEPTED, verifier (flavour, length, body), accept_stat */
	at = 5 + (ntohl(reply[4]) + 3) / 4;
	if (ntohl(reply[0]) != xid || ntohl(reply[1]) != 1 || ntohl(reply[2]) != 0 || at >= words ||
	    ntohl(reply[at]) != 0) {
		snprintf(why, len, "RPC %u v%u to %s:%d: refused (%s %u)", prog, vers, ip, port,
			 ntohl(reply[2]) ? "rejected" : "accept_stat",
			 at < words ? ntohl(reply[at]) : 0);
		return -1;
	}
	if (res)
		*res = at + 1 < words ? ntohl(reply[at + 1]) : 0;
	return 0;
}

/* Does the server answer as a client needs: NFSv3 and v4, and MOUNT v3
   (found through rpcbind, as v3 clients find it) granting this host the
   export?  0, or -1 with why. */
static int server_answers(const char *ip, char *why, size_t len)
{
	unsigned char getport[16], mnt[64];
	size_t gl = 0, ml = 0;
	uint32_t port = 0, status = 0;

	xdr_u32(getport, &gl, PROG_MOUNT);
	xdr_u32(getport, &gl, 3);
	xdr_u32(getport, &gl, 6);	/* TCP */
	xdr_u32(getport, &gl, 0);
	xdr_str(mnt, &ml, SERVE_NFS_PSEUDO);
	if (rpc_call(ip, 2049, PROG_NFS, 3, 0, NULL, 0, NULL, why, len) < 0 ||
	    rpc_call(ip, 2049, PROG_NFS, 4, 0, NULL, 0, NULL, why, len) < 0 ||
	    rpc_call(ip, 111, PROG_PMAP, 2, 3 /* GETPORT */, getport, gl, &port, why, len) < 0)
		return -1;
	if (port == 0 || port > 65535) {
		snprintf(why, len, "MOUNT v3 is not registered with rpcbind at %s", ip);
		return -1;
	}
	if (rpc_call(ip, (int)port, PROG_MOUNT, 3, 1 /* MNT */, mnt, ml, &status, why, len) < 0)
		return -1;
	if (status != 0) {
		snprintf(why, len, "MOUNT %s:%s: refused (mountstat3 %u)", ip, SERVE_NFS_PSEUDO, status);
		return -1;
	}
	return 0;
}

/* --- starting, and saying why not -------------------------------------- */

/* The last `lines` lines of a file that say something, on one line
   ("a | b | c"); ganesha's "date : epoch : host : prog[thread] " prefix
   and its lines of dashes left out. */
static void file_tail(const char *path, int lines, char *out, size_t len)
{
	char buf[8192], *line[64];
	size_t n, k = 0, used = 0;
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (!f)
		return;
	if (fseek(f, -(long)(sizeof buf - 1), SEEK_END) < 0)
		rewind(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *body = strstr(l, "] ");

		body = body ? body + 2 : l;
		if (strspn(body, " :-") == strlen(body) || strstr(body, ":------"))
			continue;
		line[k++ % 64] = body;
	}
	for (size_t i = k > (size_t)lines ? k - (size_t)lines : 0; i < k && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " | " : "",
					 line[i % 64]);
}

/* n->error: what failed, then the ends of ganesha's log and output. */
static void fail_with_log(struct serve_nfs *n, const char *what)
{
	char path[PATH_MAX + 16], log[700] = "", out[400] = "";

	area_path(n, "ganesha.log", path, sizeof path);
	file_tail(path, 3, log, sizeof log);
	area_path(n, "ganesha.out", path, sizeof path);
	file_tail(path, 2, out, sizeof out);
	snprintf(n->error, sizeof n->error, "--nfs netns: %s%s%s%s%s", what,
		 log[0] ? "; ganesha.log ends: " : "", log, out[0] ? "; its output ends: " : "", out);
}

/* The private /run of the namespace is empty: rpcbind's and ganesha's
   folders in it, reached through the holder's root. */
static void make_run_dirs(const struct serve_nfs *n)
{
	static const char *const dirs[] = {"rpcbind", "ganesha"};

	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		char path[128];

		snprintf(path, sizeof path, "/proc/%d/root/run/%s", n->ns.pid, dirs[i]);
		mkdir(path, 0755);
	}
}

/* A daemon in the namespace, its output appended to NAME.out in the area:
   0, or -1 with n->error. */
static int start_daemon(struct serve_nfs *n, const char *name, char *const argv[], int *pid)
{
	char out[PATH_MAX + 16], err[400], file[32];

	snprintf(file, sizeof file, "%s.out", name);
	area_path(n, file, out, sizeof out);
	*pid = serve_ns_spawn(&n->ns, argv, out, err, sizeof err);
	if (*pid < 0) {
		*pid = 0;
		snprintf(n->error, sizeof n->error, "%s", err);
		return -1;
	}
	return 0;
}

static int start_rpcbind(struct serve_nfs *n)
{
	/* -f: the foreground (it still becomes user _rpc: serve_ns's PID
	   namespace, not a death signal, ends it with the runner) */
	char *argv[] = {(char *)n->rpcbind_bin, "-f", NULL};

	make_run_dirs(n);
	return start_daemon(n, "rpcbind", argv, &n->rpcbind);
}

static int start_ganesha(struct serve_nfs *n)
{
	char conf[PATH_MAX + 16], log[PATH_MAX + 16], pid[PATH_MAX + 16];

	area_path(n, "ganesha.conf", conf, sizeof conf);
	area_path(n, "ganesha.log", log, sizeof log);
	area_path(n, "ganesha.pid", pid, sizeof pid);
	/* -F: the foreground, so that we stop and reap it */
	char *argv[] = {(char *)n->ganesha_bin, "-F", "-f", conf, "-L", log, "-p", pid,
			"-N", "NIV_EVENT", NULL};
	return start_daemon(n, "ganesha", argv, &n->ganesha);
}

/* A child that ended: "exited with status N" / "killed by signal N". */
static int child_ended(int pid, char *how, size_t len)
{
	int status;

	if (pid <= 0 || waitpid(pid, &status, WNOHANG) != pid)
		return 0;
	if (WIFEXITED(status))
		snprintf(how, len, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(how, len, "was killed by signal %d", WTERMSIG(status));
	return 1;
}

/* Wait until rpcbind answers (then until the server does, when
   `server`), checking that the daemons still run; by `deadline`. */
static int wait_answer(struct serve_nfs *n, int server, double deadline,
		       volatile sig_atomic_t *stop)
{
	char why[300] = "", how[64], what[500];

	for (;;) {
		if (stop && *stop) {
			snprintf(n->error, sizeof n->error, "--nfs netns: interrupted while starting");
			return -1;
		}
		if (child_ended(n->rpcbind, how, sizeof how)) {
			n->rpcbind = 0;
			char path[PATH_MAX + 16], log[600];
			area_path(n, "rpcbind.out", path, sizeof path);
			file_tail(path, 3, log, sizeof log);
			snprintf(n->error, sizeof n->error, "--nfs netns: rpcbind %s%s%s", how,
				 log[0] ? ": " : "", log);
			return -1;
		}
		if (server && child_ended(n->ganesha, how, sizeof how)) {
			n->ganesha = 0;
			snprintf(what, sizeof what, "nfs-ganesha %s", how);
			fail_with_log(n, what);
			return -1;
		}
		if (server ? server_answers(n->ns.peer_ip, why, sizeof why) == 0
			   : rpc_call(n->ns.peer_ip, 111, PROG_PMAP, 2, 0, NULL, 0, NULL, why,
				      sizeof why) == 0)
			return 0;
		if (monotonic_s() > deadline)
			break;
		sleep_ms(50);
	}
	snprintf(what, sizeof what, "%s did not answer within %d s (%s)",
		 server ? "nfs-ganesha" : "rpcbind", SERVE_NFS_START_S, why);
	fail_with_log(n, what);
	return -1;
}

/* Namespace, rpcbind, ganesha, each once the one before answers. */
static int start_netns(struct serve_nfs *n, int quiet, volatile sig_atomic_t *stop)
{
	double deadline = monotonic_s() + SERVE_NFS_START_S;

	if (check_prerequisites(n) < 0)
		return -1;
	reclaim_stale(quiet);
	if (make_area(n) < 0)
		return -1;
	if (serve_ns_up(&n->ns, "--nfs netns", NS_OCTET, NS_PREFIX, 1, NULL, NULL, n->error,
			sizeof n->error) < 0 || write_config(n) < 0)	/* names the veth's host end */
		return -1;
	/* The daemons on the last CPU this runner may use, so that a client
	   can run beside them (same) or on another CPU (cross): a handoff to
	   an idle vCPU costs tens of us (4 KiB reads here: 23 us on one CPU,
	   86-103 us across, 42-84 us when the scheduler chooses). */
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &allowed)) {
				n->ns.pin = 1;
				n->ns.cpu = c;
			}
	if (start_rpcbind(n) < 0 || wait_answer(n, 0, deadline, stop) < 0 || start_ganesha(n) < 0 ||
	    wait_answer(n, 1, deadline, stop) < 0)
		return -1;
	snprintf(n->url, sizeof n->url, "nfs://%s%s", n->ns.peer_ip, SERVE_NFS_PSEUDO);
	snprintf(n->label, sizeof n->label, "%s", SERVE_NFS_LABEL);
	if (!quiet)
		fprintf(stderr, "runner: --nfs netns: nfs-ganesha at %s in a namespace (veth %s/%s), "
			"exporting %s, on CPU %d\n", n->url, n->ns.host_if, n->ns.peer_if, n->export_dir,
			n->ns.cpu);
	return 0;
}

/* Stop and remove what start_netns made (all of it, or what it got to). */
static void stop_netns(struct serve_nfs *n)
{
	serve_ns_stop(n->ganesha, 3.0);
	serve_ns_stop(n->rpcbind, 1.0);
	n->ganesha = n->rpcbind = 0;
	serve_ns_down(&n->ns);		/* and whatever is left in its PID namespace */
	if (n->area[0]) {
		nftw(n->area, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		n->area[0] = '\0';
	}
}

struct serve_nfs *serve_nfs_up(const char *given, int quiet, volatile sig_atomic_t *stop)
{
	struct serve_nfs *n;
	size_t h;

	if (!given)
		return NULL;
	if (!(n = calloc(1, sizeof *n)))
		return NULL;
	if (strcmp(given, "netns") != 0) {
		h = url_host_len(given);
		snprintf(n->url, sizeof n->url, "%s", given);
		snprintf(n->label, sizeof n->label, "%.*s (given with --nfs)", (int)h, given + 6);
		return n;
	}
	n->netns = 1;
	if (start_netns(n, quiet, stop) < 0) {
		fprintf(stderr, "runner: %s\n", n->error);
		stop_netns(n);
		n->url[0] = n->label[0] = '\0';
	}
	return n;
}

const char *serve_nfs_url(const struct serve_nfs *n)
{
	return n && n->url[0] ? n->url : NULL;
}

const char *serve_nfs_local_dir(const struct serve_nfs *n)
{
	return n && n->netns && n->url[0] ? n->export_dir : NULL;
}

const char *serve_nfs_label(const struct serve_nfs *n)
{
	return n && n->label[0] ? n->label : NULL;
}

int serve_nfs_cpu(const struct serve_nfs *n)
{
	return n && n->netns && n->url[0] && n->ns.pin ? n->ns.cpu : -1;
}

const char *serve_nfs_error(const struct serve_nfs *n)
{
	return n && n->error[0] ? n->error : NULL;
}

void serve_nfs_down(struct serve_nfs *n)
{
	if (!n)
		return;
	if (n->netns)
		stop_netns(n);
	free(n);
}
