/*
 * lock.c - the run folder's lock (results.h): flock(2) on the folder
 * itself, so no lock file is left behind and a killed runner's lock is gone
 * with it.  `runner resume` takes it before touching a run, so it cannot
 * continue a run whose runner is still measuring (the manifest of such a
 * run says "running", as does one whose runner was killed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "results/results.h"

int results_lock_run(const char *run_dir, char *err, size_t errlen)
{
	int fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", run_dir, strerror(errno));
		return -2;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		close(fd);
		if (e == EWOULDBLOCK)
			return -1;
		snprintf(err, errlen, "%s: cannot lock: %s", run_dir, strerror(e));
		return -2;
	}
	return fd;
}
