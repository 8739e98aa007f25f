/*
 * nfs_serve.c - `runner nfs-serve`: the --nfs netns server on its own,
 * until Ctrl-C, for tools that need one outside a run (the NFS bench's
 * independent libnfs read loop, a user's own client).  Prints the URL and
 * the export's directory on this host, writes them to --ready-file once
 * the server answers, and removes everything on SIGINT or SIGTERM.
 */
#include "cli/nfs_serve.h"
#include "lib/exitcode.h"
#include "serve/serve.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* "URL\nLOCAL_DIR\n" to path, atomically (a reader never sees half). */
static int write_ready(const char *path, const char *url, const char *dir)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	if (!(f = fopen(tmp, "w")))
		return -1;
	fprintf(f, "%s\n%s\n", url, dir);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int nfs_serve_main(const char *ready_file, int quiet)
{
	struct sigaction sa;
	sigset_t block, old;
	struct serve_nfs *n;
	int rc = EXIT_OK;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	n = serve_nfs_up("netns", quiet, &stop);
	if (!serve_nfs_url(n)) {
		fprintf(stderr, "runner: nfs-serve: %s\n",
			serve_nfs_error(n) ? serve_nfs_error(n) : "no server");
		serve_nfs_down(n);
		return EXIT_USAGE;
	}
	printf("%s\n%s\n", serve_nfs_url(n), serve_nfs_local_dir(n));
	fflush(stdout);
	if (ready_file && write_ready(ready_file, serve_nfs_url(n), serve_nfs_local_dir(n)) < 0) {
		fprintf(stderr, "runner: nfs-serve: cannot write %s\n", ready_file);
		rc = EXIT_INTERNAL;
		stop = 1;
	}
	/* wait for the signal without a race: blocked until sigsuspend */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	serve_nfs_down(n);
	if (ready_file)
		unlink(ready_file);
	return rc;
}
