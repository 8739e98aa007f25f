/*
 * outlive - leave a process behind: fork a child that starts its own session
 * (setsid: out of the process group, as a daemon does), writes its pid to
 * PIDFILE and sleeps SECONDS, while the parent exits 0 at once.  The
 * command probe must kill that child with the run (its cgroup, or as an
 * orphan reparented to the probe).  Usage: outlive PIDFILE SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int sync[2];
	pid_t pid;
	char c;

	if (argc != 3) {
		fprintf(stderr, "usage: outlive PIDFILE SECONDS\n");
		return 2;
	}
	if (pipe(sync) != 0)
		return 1;
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		FILE *f;

		close(sync[0]);
		setsid();
		if ((f = fopen(argv[1], "w"))) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
		close(sync[1]);	/* the pid file is written: the parent may go */
		sleep((unsigned)atoi(argv[2]));
		_exit(0);
	}
	close(sync[1]);
	if (read(sync[0], &c, 1) < 0)	/* EOF once the child wrote its pid */
		return 1;
	return 0;
}
