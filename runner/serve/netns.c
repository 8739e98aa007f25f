/*
 * netns.c - private network namespaces on this host joined by a veth pair
 * (serve_ns_*, serve.h), and `--peer netns`: a `runner serve` in one.
 *
 * The namespace is unnamed: a child unshare()s it and later exec()s the
 * daemon (or holds it while daemons are started in it with setns), so the
 * namespace lives exactly as long as the processes in it.
 * Each has PR_SET_PDEATHSIG(SIGKILL) and its own process group (Ctrl-C at
 * the terminal reaches the runner, which tears down in order), so even a
 * runner killed with SIGKILL leaves nothing: the daemons die, the namespace
 * with them, and the veth end inside takes its host end along.  The veth is
 * created with its far end already inside (`ip link add ... peer name ...
 * netns PID`), so no moment exists where both ends sit in this namespace.
 * A private namespace (--nfs netns) is also a PID namespace whose init is
 * ours, for daemons that change their user and so lose their death signal.
 * `ip` runs by fork/exec with an argv: no shell, no string is ever parsed.
 * The runner's children here (`ip`, the first process, the daemons) are
 * started, stopped and reaped through lib/supervise.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve.h"
#include "lib/monotonic.h"
#include "lib/supervise.h"

static const char *const ip_paths[] = {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"};

static const char *ip_path(void)
{
	for (size_t i = 0; i < sizeof ip_paths / sizeof *ip_paths; i++)
		if (access(ip_paths[i], X_OK) == 0)
			return ip_paths[i];
	return NULL;
}

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

struct ip_args {
	const char *ip;
	char *const *argv;
	int p[2];		/* its stderr */
};

static void ip_exec(void *arg)
{
	const struct ip_args *a = arg;
	int null = open("/dev/null", O_RDWR);

	dup2(null, 0);
	dup2(null, 1);
	dup2(a->p[1], 2);
	execv(a->ip, a->argv);
	_exit(127);
}

/* Run `ip ARGS...` (argv, no shell); 0, or -1 with its stderr in err. */
static int run_ip(char *const *args, char *err, size_t errlen)
{
	const char *ip = ip_path();
	char *argv[16];
	struct ip_args start = { .ip = ip, .argv = argv };
	struct supervise c;
	struct supervise_end end;
	int *p = start.p, started;
	size_t n = 0;

	if (!ip) {
		snprintf(err, errlen, "'ip' (iproute2) not found");
		return -1;
	}
	argv[0] = "ip";
	for (size_t i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i], argv[i + 2] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	started = supervise_spawn(&c, ip_exec, &start) == 0;
	close(p[1]);
	err[0] = '\0';
	if (started) {
		ssize_t r;
		while (n + 1 < errlen && (r = read(p[0], err + n, errlen - 1 - n)) > 0)
			n += (size_t)r;
		err[n] = '\0';
		while (n && (err[n - 1] == '\n'))
			err[--n] = '\0';
	}
	close(p[0]);
	if (!started || supervise_reap(&c, &end) < 0)
		return -1;
	if (end.how == SUPERVISE_END_EXIT && end.code == 0)
		return 0;
	if (!err[0])
		snprintf(err, errlen, "exit status %d", end.how == SUPERVISE_END_EXIT ? end.code : -1);
	return -1;
}

/* `ip ARGS` on the host side; a failure is said in err as "WHAT: ip ...". */
static int ip_do(const struct serve_ns *ns, char *const *args, char *err, size_t errlen)
{
	char msg[300];

	if (run_ip(args, msg, sizeof msg) == 0)
		return 0;
	snprintf(err, errlen, "%s: ip %s %s %s: %s", ns->what, args[0], args[1],
		 args[2] ? args[2] : "", msg);
	return -1;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

/* Inside a fresh mount namespace: nothing mounted here propagates to the
   host, and /run is an empty tmpfs of our own. */
static int private_run(char *msg, size_t len)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") < 0) {
		snprintf(msg, len, "a private /run: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* PID 1 of a private namespace's PID namespace: reaps what is reparented
   to it and exits when the holder does (its end of `life` closes; the
   death signal covers the same), and then the kernel kills every process
   left in the PID namespace. */
static void init_main(int life_r) __attribute__((noreturn));
static void init_main(int life_r)
{
	struct pollfd p = {.fd = life_r, .events = POLLIN};

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		int r = poll(&p, 1, 200);

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (r > 0 || (r < 0 && errno != EINTR))
			_exit(0);
	}
}

/* The unshares of the first process; a private namespace's init forked.
   Returns the init's pid (0: none), or -1 with msg. */
static pid_t first_unshare(const struct serve_ns *ns, char *msg, size_t len)
{
	int life[2];
	pid_t init;

	if (unshare(CLONE_NEWNET | (ns->private ? CLONE_NEWNS | CLONE_NEWPID : 0)) < 0) {
		snprintf(msg, len, "unshare: %s", strerror(errno));
		return -1;
	}
	if (!ns->private)
		return 0;
	if (private_run(msg, len) < 0 || pipe2(life, O_CLOEXEC) < 0)
		return -1;
	init = fork();
	if (init == 0) {
		close(life[1]);
		init_main(life[0]);
	}
	close(life[0]);		/* life[1] stays open as long as the holder lives */
	if (init < 0)
		snprintf(msg, len, "fork (init): %s", strerror(errno));
	return init;
}

/* The namespace's first process: new namespaces, then (after the parent's
   go: the veth end is inside) its addresses, then inside() or, without
   one, holding the namespace until the init (or the runner) goes.  Never
   returns. */
static void first_main(struct serve_ns *ns, pid_t parent, int up_w, int go_r, serve_ns_fn inside,
		       void *arg)
{
	char go, msg[300], addr_cidr[24];
	pid_t init;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(89);
	/* the runner's SIGINT/SIGTERM handlers are the runner's: stopping the
	   holder (serve_ns_down) must end it */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if ((init = first_unshare(ns, msg, sizeof msg)) < 0) {
		fprintf(stderr, "runner: %s: %s\n", ns->what, msg);
		_exit(90);
	}
	if (write(up_w, "u", 1) != 1 || read(go_r, &go, 1) != 1)
		_exit(91);
	snprintf(addr_cidr, sizeof addr_cidr, "%s/30", ns->peer_ip);
	char *lo[] = {"link", "set", "lo", "up", NULL};
	char *addr[] = {"addr", "add", addr_cidr, "dev", ns->peer_if, NULL};
	char *up[] = {"link", "set", ns->peer_if, "up", NULL};
	if (run_ip(lo, msg, sizeof msg) < 0 || run_ip(addr, msg, sizeof msg) < 0 ||
	    run_ip(up, msg, sizeof msg) < 0) {
		fprintf(stderr, "runner: %s: inside the namespace: %s\n", ns->what, msg);
		_exit(92);
	}
	if (inside) {
		inside(ns, arg);
		_exit(93);
	}
	if (write(up_w, "r", 1) != 1)
		_exit(91);
	close(up_w);
	close(go_r);
	if (init > 0)
		waitpid(init, NULL, 0);
	else
		for (;;)
			pause();
	_exit(0);
}

struct first_args {
	struct serve_ns *ns;
	pid_t parent;
	int up_w, go_r;
	serve_ns_fn inside;
	void *arg;
};

static void first_start(void *arg)
{
	const struct first_args *a = arg;

	first_main(a->ns, a->parent, a->up_w, a->go_r, a->inside, a->arg);
}

/* Names and addresses from the runner's pid: two runs at once differ. */
static void ns_names(struct serve_ns *ns, unsigned octet, const char *prefix)
{
	unsigned idx = (unsigned)getpid() % 16384u;
	unsigned third = idx / 64, fourth = (idx % 64) * 4;

	snprintf(ns->host_if, sizeof ns->host_if, "%.4sh%d", prefix, (int)getpid());
	snprintf(ns->peer_if, sizeof ns->peer_if, "%.4sp%d", prefix, (int)getpid());
	snprintf(ns->host_ip, sizeof ns->host_ip, "10.%u.%u.%u", octet, third, fourth + 1);
	snprintf(ns->peer_ip, sizeof ns->peer_ip, "10.%u.%u.%u", octet, third, fourth + 2);
	snprintf(ns->net, sizeof ns->net, "10.%u.%u.%u/30", octet, third, fourth);
}

/* The host end of the veth with its far end put into the first process's
   namespace, addressed and up. */
static int ns_veth(struct serve_ns *ns, char *err, size_t errlen)
{
	char pidtxt[16], cidr[24];

	snprintf(pidtxt, sizeof pidtxt, "%d", ns->pid);
	snprintf(cidr, sizeof cidr, "%s/30", ns->host_ip);
	char *add[] = {"link", "add", ns->host_if, "type", "veth", "peer", "name", ns->peer_if,
		       "netns", pidtxt, NULL};
	char *addr[] = {"addr", "add", cidr, "dev", ns->host_if, NULL};
	char *lnk[] = {"link", "set", ns->host_if, "up", NULL};
	return ip_do(ns, add, err, errlen) < 0 || ip_do(ns, addr, err, errlen) < 0 ||
	       ip_do(ns, lnk, err, errlen) < 0 ? -1 : 0;
}

int serve_ns_up(struct serve_ns *ns, const char *what, unsigned octet, const char *prefix,
		int private, serve_ns_fn inside, void *arg, char *err, size_t errlen)
{
	int up[2] = {-1, -1}, go[2] = {-1, -1};
	struct first_args start = { .ns = ns, .parent = getpid(), .inside = inside, .arg = arg };
	struct supervise first;
	char c;

	memset(ns, 0, sizeof *ns);
	ns->what = what;
	ns->private = private;
	ns_names(ns, octet, prefix);
	err[0] = '\0';
	if (pipe2(up, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "%s: pipe: %s", what, strerror(errno));
		goto fail;
	}
	start.up_w = up[1];
	start.go_r = go[0];
	if (supervise_spawn(&first, first_start, &start) < 0) {
		snprintf(err, errlen, "%s: fork: %s", what, strerror(errno));
		goto fail;
	}
	ns->pid = first.pid;	/* stopped by serve_ns_stop */
	close(up[1]);
	close(go[0]);
	up[1] = go[0] = -1;
	if (read(up[0], &c, 1) != 1) {
		snprintf(err, errlen, "%s: cannot create a network namespace (unshare %s failed)", what,
			 private ? "CLONE_NEWNET|CLONE_NEWNS|CLONE_NEWPID" : "CLONE_NEWNET");
		goto fail;
	}
	if (ns_veth(ns, err, errlen) < 0)
		goto fail;
	if (write(go[1], "g", 1) != 1 || (!inside && read(up[0], &c, 1) != 1)) {
		snprintf(err, errlen, "%s: the namespace's first process exited", what);
		goto fail;
	}
	close(up[0]);
	close(go[1]);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (up[i] >= 0) close(up[i]);
		if (go[i] >= 0) close(go[i]);
	}
	serve_ns_stop(ns->pid, 0);
	ns->pid = 0;
	serve_ns_down(ns);
	return -1;
}

/* In the forked child: join the namespaces of the holder (for a private
   one, its PID namespace for the children to come).  0 or -1. */
static int join_ns(const struct serve_ns *ns, char *msg, size_t len)
{
	static const char *const kinds[] = {"net", "mnt", "pid_for_children"};
	int fds[3], n = ns->private ? 3 : 1;

	for (int k = 0; k < n; k++) {
		char path[64];

		snprintf(path, sizeof path, "/proc/%d/ns/%s", ns->pid, kinds[k]);
		if ((fds[k] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			snprintf(msg, len, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	/* setns into a mount namespace puts us at that namespace's real root;
	   under a chroot (a build root, a container) that is not the runner's
	   root, where the server's files are: take the holder's root, as
	   nsenter --root does. */
	char rootp[64];
	int root = -1;

	snprintf(rootp, sizeof rootp, "/proc/%d/root", ns->pid);
	if (ns->private && (root = open(rootp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(msg, len, "%s: %s", rootp, strerror(errno));
		return -1;
	}
	for (int k = 0; k < n; k++)
		if (setns(fds[k], 0) < 0) {
			snprintf(msg, len, "setns %s: %s", kinds[k], strerror(errno));
			return -1;
		}
	if (root >= 0 && (fchdir(root) < 0 || chroot(".") < 0)) {
		snprintf(msg, len, "the namespace's root: %s", strerror(errno));
		return -1;
	}
	return chdir("/");
}

static volatile sig_atomic_t shim_child;

static void shim_pass(int sig)
{
	if (shim_child > 0)
		kill(shim_child, sig);
}

/* Outside the PID namespace, the daemon's parent: passes signals on and
   ends as the daemon ended, so the runner stops and reaps it as its own. */
static void shim_main(pid_t daemon) __attribute__((noreturn));
static void shim_main(pid_t daemon)
{
	struct sigaction sa = {.sa_handler = shim_pass};
	int status;

	shim_child = daemon;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (waitpid(daemon, &status, 0) < 0)
		if (errno != EINTR)
			_exit(125);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	signal(WTERMSIG(status), SIG_DFL);
	raise(WTERMSIG(status));
	_exit(128 + WTERMSIG(status));
}

/* The forked child of serve_ns_spawn.  Never returns. */
static void spawn_main(const struct serve_ns *ns, pid_t parent, char *const argv[],
		       const char *out_path) __attribute__((noreturn));
static void spawn_main(const struct serve_ns *ns, pid_t parent, char *const argv[],
		       const char *out_path)
{
	char msg[300];
	int null = open("/dev/null", O_RDONLY),
	    out = open(out_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	pid_t daemon = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(89);
	if (null < 0 || out < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	/* nothing of the runner's (a test harness's pipe, say) in a daemon */
	close_range(3, ~0u, 0);
	if (join_ns(ns, msg, sizeof msg) < 0) {
		fprintf(stderr, "runner: %s: %s\n", ns->what, msg);
		_exit(126);
	}
	/* setns into a PID namespace counts for children only */
	if (ns->private && (daemon = fork()) < 0)
		_exit(126);
	if (daemon > 0)
		shim_main(daemon);
	/* With the shim, if it keeps its user (a daemon that does not dies
	   with the PID namespace: at the latest with the runner). */
	if (ns->private)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (ns->pin) {
		/* a server on one CPU: its clients choose same- or cross-CPU */
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(ns->cpu, &set);
		if (sched_setaffinity(0, sizeof set, &set) != 0)
			fprintf(stderr, "runner: %s: cannot pin to CPU %d: %s\n", ns->what, ns->cpu,
				strerror(errno));
	}
	execv(argv[0], argv);
	fprintf(stderr, "runner: %s: %s: %s\n", ns->what, argv[0], strerror(errno));
	_exit(127);
}

struct spawn_args {
	const struct serve_ns *ns;
	pid_t parent;
	char *const *argv;
	const char *out_path;
};

static void spawn_start(void *arg)
{
	const struct spawn_args *a = arg;

	spawn_main(a->ns, a->parent, a->argv, a->out_path);
}

int serve_ns_spawn(const struct serve_ns *ns, char *const argv[], const char *out_path,
		   char *err, size_t errlen)
{
	struct spawn_args start = { .ns = ns, .parent = getpid(), .argv = argv,
				     .out_path = out_path };
	struct supervise c;

	if (supervise_spawn(&c, spawn_start, &start) < 0) {
		snprintf(err, errlen, "%s: fork: %s", ns->what, strerror(errno));
		return -1;
	}
	return c.pid;	/* stopped by serve_ns_stop */
}

void serve_ns_stop(int pid, double grace_s)
{
	struct supervise c;

	if (pid <= 0)
		return;
	supervise_adopt(&c, pid);
	kill(pid, SIGTERM);
	/* past the grace, the wait kills its whole process group */
	supervise_wait(&c, NULL, 0, monotonic_s() + grace_s, NULL);
	supervise_reap(&c, NULL);
}

/* Wait (3 s at most) for a veth end to go away; delete it after 200 ms. */
static void link_gone(const char *ifname)
{
	char path[300], msg[200];
	char *del[] = {"link", "del", (char *)ifname, NULL};

	snprintf(path, sizeof path, "/sys/class/net/%s", ifname);
	/* Gone with the namespace, asynchronously; delete it if it lingers. */
	for (int i = 0; i < 300 && access(path, F_OK) == 0; i++) {
		if (i == 20)
			(void)run_ip(del, msg, sizeof msg);
		sleep_ms(10);
	}
}

void serve_ns_down(struct serve_ns *ns)
{
	if (ns->pid > 0) {
		serve_ns_stop(ns->pid, 2.0);
		ns->pid = 0;
	}
	if (ns->host_if[0]) {
		link_gone(ns->host_if);
		ns->host_if[0] = '\0';
	}
}

unsigned long long serve_ns_proc_start(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	size_t len;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	len = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[len] = '\0';
	/* "pid (comm) state ppid ...": field 3 is the state, 22 the start time */
	if (!(p = strrchr(buf, ')')) || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	p++;			/* the space before field 3 */
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

/* --- --peer netns ------------------------------------------------------ */

/* The serve, listening on the namespace's address (any port). */
struct peer_inside {
	const char *exe, *token, *ready;
};

static void peer_exec(const struct serve_ns *ns, void *arg)
{
	const struct peer_inside *in = arg;
	char listen[32];

	snprintf(listen, sizeof listen, "%s:0", ns->peer_ip);
	char *argv[] = {"runner", "serve", "--listen", listen, "--token", (char *)in->token,
			"--ready-file", (char *)in->ready, "--quiet", NULL};
	execv(in->exe, argv);
}

static int make_token(struct serve_peer *p, char *dir, size_t dirlen)
{
	const char *tmp = getenv("TMPDIR");
	unsigned char rnd[32];
	char hex[65];
	FILE *f;

	snprintf(dir, dirlen, "%s/sysmeter-peer.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		snprintf(p->reason, sizeof p->reason, "!--peer netns: temporary folder: %s",
			 strerror(errno));
		return -1;
	}
	for (int i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", rnd[i]);
	snprintf(p->token_path, sizeof p->token_path, "%s/token", dir);
	int fd = open(p->token_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w")) || fprintf(f, "%s\n", hex) < 0 || fclose(f) != 0) {
		snprintf(p->reason, sizeof p->reason, "!--peer netns: token file: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Wait (5 s at most) for the serve's ready file; its text into p->addr. */
static int wait_ready(struct serve_peer *p, const char *ready)
{
	struct supervise serve;

	supervise_adopt(&serve, p->ns.pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(ready, "r");
		struct supervise_end end;

		if (f) {
			int ok = fgets(p->addr, sizeof p->addr, f) != NULL;
			fclose(f);
			p->addr[strcspn(p->addr, "\n")] = '\0';
			if (ok && p->addr[0])
				return 0;
		}
		if (supervise_exited(&serve) && supervise_reap(&serve, &end) == 0) {
			p->ns.pid = 0;
			snprintf(p->reason, sizeof p->reason, "!--peer netns: the serve in the "
				 "namespace exited (status %d)",
				 end.how == SUPERVISE_END_EXIT ? end.code : -1);
			return -1;
		}
		sleep_ms(10);
	}
	snprintf(p->reason, sizeof p->reason, "!--peer netns: the serve did not start in 5 s");
	return -1;
}

int serve_peer_up(struct serve_peer *p, const char *spec, int quiet)
{
	char exe[PATH_MAX], dir[300], ready[320];
	struct peer_inside in = {.exe = exe, .ready = ready};
	ssize_t n;

	memset(p, 0, sizeof *p);
	p->given = spec;
	if (!spec || strcmp(spec, "netns") != 0)
		return 0;
	p->netns = 1;
	if (geteuid() != 0) {
		snprintf(p->reason, sizeof p->reason, "!--peer netns needs root (it creates a network "
			 "namespace and a veth pair); run as root: sudo runner --peer netns SPECS...");
		return -1;
	}
	if (!ip_path()) {
		snprintf(p->reason, sizeof p->reason, "!--peer netns needs 'ip' from iproute2 "
			 "(apt-get install iproute2, or make deps)");
		return -1;
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0) {
		snprintf(p->reason, sizeof p->reason, "!--peer netns: /proc/self/exe: %s",
			 strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	if (make_token(p, dir, sizeof dir) < 0)
		goto fail;
	in.token = p->token_path;
	snprintf(ready, sizeof ready, "%s/ready", dir);
	if (serve_ns_up(&p->ns, "--peer netns", 200, "sm", 0, peer_exec, &in, p->reason + 1,
			sizeof p->reason - 1) < 0) {
		p->reason[0] = '!';
		goto fail;
	}
	if (wait_ready(p, ready) < 0)
		goto fail;
	if (!quiet)
		fprintf(stderr, "runner: --peer netns: serve at %s in a namespace (veth %s/%s)\n",
			p->addr, p->ns.host_if, p->ns.peer_if);
	return 0;
fail:
	if (!p->reason[0])
		snprintf(p->reason, sizeof p->reason, "!--peer netns: %s", strerror(errno));
	fprintf(stderr, "runner: %s\n", p->reason + 1);
	serve_peer_down(p);
	p->netns = 1;
	return -1;
}

const char *serve_peer_addr(const struct serve_peer *p)
{
	if (!p->netns)
		return p->given;
	return p->addr[0] ? p->addr : p->reason[0] ? p->reason : NULL;
}

void serve_peer_down(struct serve_peer *p)
{
	serve_ns_down(&p->ns);
	if (p->token_path[0]) {
		char *slash = strrchr(p->token_path, '/');

		if (slash) {
			*slash = '\0';
			nftw(p->token_path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
		}
		p->token_path[0] = '\0';
	}
	p->addr[0] = '\0';
}
