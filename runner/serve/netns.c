/*
 * netns.c - `--peer netns`: a `runner serve` in a private network
 * namespace on this host, joined by a veth pair (serve.h).
 *
 * The namespace is unnamed: a child unshare()s it and later exec()s the
 * serve, so the namespace lives exactly as long as that process.  The
 * child has PR_SET_PDEATHSIG(SIGKILL) and its own process group (Ctrl-C at
 * the terminal reaches the runner, which tears down in order), so even a
 * runner killed with SIGKILL leaves nothing: the serve dies, the namespace
 * with it, and the veth end inside takes its host end along.  The veth is
 * created with its far end already inside (`ip link add ... peer name ...
 * netns PID`), so no moment exists where both ends sit in this namespace.
 * `ip` runs by fork/exec with an argv: no shell, no string is ever parsed.
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
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve.h"

static const char *const ip_paths[] = {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"};

static const char *ip_path(void)
{
	for (size_t i = 0; i < sizeof ip_paths / sizeof *ip_paths; i++)
		if (access(ip_paths[i], X_OK) == 0)
			return ip_paths[i];
	return NULL;
}

/* Run `ip ARGS...` (argv, no shell); 0, or -1 with its stderr in err. */
static int run_ip(char *const *args, char *err, size_t errlen)
{
	const char *ip = ip_path();
	char *argv[16];
	int p[2], status;
	size_t n = 0;
	pid_t pid;

	if (!ip) {
		snprintf(err, errlen, "'ip' (iproute2) not found");
		return -1;
	}
	argv[0] = "ip";
	for (size_t i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i], argv[i + 2] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(p[1], 2);
		execv(ip, argv);
		_exit(127);
	}
	close(p[1]);
	err[0] = '\0';
	if (pid > 0) {
		ssize_t r;
		while (n + 1 < errlen && (r = read(p[0], err + n, errlen - 1 - n)) > 0)
			n += (size_t)r;
		err[n] = '\0';
		while (n && (err[n - 1] == '\n'))
			err[--n] = '\0';
	}
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (!err[0])
		snprintf(err, errlen, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -1;
}

static int ip_do(struct serve_peer *p, char *const *args)
{
	char msg[300];

	if (run_ip(args, msg, sizeof msg) == 0)
		return 0;
	snprintf(p->reason, sizeof p->reason, "!--peer netns: ip %s %s %s: %s", args[0], args[1],
		 args[2] ? args[2] : "", msg);
	return -1;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

/* The child: a new network namespace, then (after the parent's go) its
   addresses, then the serve.  Never returns. */
static void child_main(struct serve_peer *p, const char *exe, int up_w, int go_r,
		       const char *ip_peer, const char *ready)
{
	char go, msg[200], listen[64];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	setpgid(0, 0);
	if (unshare(CLONE_NEWNET) < 0)
		_exit(90);
	if (write(up_w, "u", 1) != 1 || read(go_r, &go, 1) != 1)
		_exit(91);
	char *lo[] = {"link", "set", "lo", "up", NULL};
	char *addr[] = {"addr", "add", (char *)ip_peer, "dev", p->peer_if, NULL};
	char *up[] = {"link", "set", p->peer_if, "up", NULL};
	if (run_ip(lo, msg, sizeof msg) < 0 || run_ip(addr, msg, sizeof msg) < 0 ||
	    run_ip(up, msg, sizeof msg) < 0) {
		fprintf(stderr, "runner: --peer netns: inside the namespace: %s\n", msg);
		_exit(92);
	}
	snprintf(listen, sizeof listen, "%.*s:0", (int)strcspn(ip_peer, "/"), ip_peer);
	char *argv[] = {"runner", "serve", "--listen", listen, "--token", p->token_path,
			"--ready-file", (char *)ready, "--quiet", NULL};
	execv(exe, argv);
	_exit(93);
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
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(ready, "r");
		int status;

		if (f) {
			int ok = fgets(p->addr, sizeof p->addr, f) != NULL;
			fclose(f);
			p->addr[strcspn(p->addr, "\n")] = '\0';
			if (ok && p->addr[0])
				return 0;
		}
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			p->pid = 0;
			snprintf(p->reason, sizeof p->reason, "!--peer netns: the serve in the "
				 "namespace exited (status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			return -1;
		}
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	snprintf(p->reason, sizeof p->reason, "!--peer netns: the serve did not start in 5 s");
	return -1;
}

int serve_peer_up(struct serve_peer *p, const char *spec, int quiet)
{
	char exe[PATH_MAX], dir[300], ready[320], ip_host[32], ip_peer[32], pidtxt[16];
	int up[2] = {-1, -1}, go[2] = {-1, -1};
	unsigned idx = (unsigned)getpid() % 16384u;
	ssize_t n;
	char c;

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
	snprintf(ready, sizeof ready, "%s/ready", dir);
	snprintf(p->host_if, sizeof p->host_if, "smh%d", (int)getpid());
	snprintf(p->peer_if, sizeof p->peer_if, "smp%d", (int)getpid());
	snprintf(ip_host, sizeof ip_host, "10.200.%u.%u/30", idx / 64, (idx % 64) * 4 + 1);
	snprintf(ip_peer, sizeof ip_peer, "10.200.%u.%u/30", idx / 64, (idx % 64) * 4 + 2);
	if (pipe2(up, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0)
		goto fail;
	fflush(NULL);
	p->pid = fork();
	if (p->pid == 0)
		child_main(p, exe, up[1], go[0], ip_peer, ready);
	if (p->pid < 0) {
		p->pid = 0;
		snprintf(p->reason, sizeof p->reason, "!--peer netns: fork: %s", strerror(errno));
		goto fail;
	}
	close(up[1]);
	close(go[0]);
	up[1] = go[0] = -1;
	if (read(up[0], &c, 1) != 1) {
		snprintf(p->reason, sizeof p->reason, "!--peer netns: cannot create a network "
			 "namespace (unshare CLONE_NEWNET failed)");
		goto fail;
	}
	snprintf(pidtxt, sizeof pidtxt, "%d", (int)p->pid);
	char *add[] = {"link", "add", p->host_if, "type", "veth", "peer", "name", p->peer_if,
		       "netns", pidtxt, NULL};
	char *addr[] = {"addr", "add", ip_host, "dev", p->host_if, NULL};
	char *lnk[] = {"link", "set", p->host_if, "up", NULL};
	if (ip_do(p, add) < 0 || ip_do(p, addr) < 0 || ip_do(p, lnk) < 0)
		goto fail;
	if (write(go[1], "g", 1) != 1 || wait_ready(p, ready) < 0)
		goto fail;
	close(up[0]);
	close(go[1]);
	setenv("SYSMETER_PEER_TOKEN", p->token_path, 1);
	if (!quiet)
		fprintf(stderr, "runner: --peer netns: serve at %s in a namespace (veth %s/%s)\n",
			p->addr, p->host_if, p->peer_if);
	return 0;
fail:
	if (!p->reason[0])
		snprintf(p->reason, sizeof p->reason, "!--peer netns: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		if (up[i] >= 0) close(up[i]);
		if (go[i] >= 0) close(go[i]);
	}
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
	char path[300], msg[200];

	if (p->pid > 0) {
		int i;

		kill(p->pid, SIGTERM);
		for (i = 0; i < 200 && waitpid(p->pid, NULL, WNOHANG) == 0; i++)
			nanosleep(&(struct timespec){0, 10000000}, NULL);
		if (i == 200) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, NULL, 0);
		}
		p->pid = 0;
	}
	if (p->host_if[0]) {
		char *del[] = {"link", "del", p->host_if, NULL};

		snprintf(path, sizeof path, "/sys/class/net/%s", p->host_if);
		/* Gone with the namespace, asynchronously; delete it if it lingers. */
		for (int i = 0; i < 300 && access(path, F_OK) == 0; i++) {
			if (i == 20)
				(void)run_ip(del, msg, sizeof msg);
			nanosleep(&(struct timespec){0, 10000000}, NULL);
		}
		p->host_if[0] = '\0';
	}
	if (p->token_path[0]) {
		char *slash = strrchr(p->token_path, '/');

		if (slash) {
			*slash = '\0';
			nftw(p->token_path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
		}
		p->token_path[0] = '\0';
		unsetenv("SYSMETER_PEER_TOKEN");
	}
	p->addr[0] = '\0';
}
