/*
 * safe_open.c - open and read a file that must be a regular one
 * (safe_open.h).
 */
#include "lib/safe_open.h"
#include "lib/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int safe_open_read(const char *path, int flags, off_t *size, char *err, size_t errlen)
{
	char shown[1024];
	struct stat st;
	int fd, fl, e;

	text_escape(path, shown, sizeof shown);
	/* O_NONBLOCK: opening a FIFO with no writer must not wait */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
		  (flags & SAFE_OPEN_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd < 0) {
		e = errno;
		/* with O_NOFOLLOW, ELOOP is the last component being a link */
		if (e == ELOOP && (flags & SAFE_OPEN_NOFOLLOW))
			snprintf(err, errlen, "%s: a symbolic link: not followed", shown);
		else
			snprintf(err, errlen, "%s: cannot read: %s", shown, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot read: %s", shown, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", shown);
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* a regular file: reads block as usual from here */
	if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot read: %s", shown, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (size)
		*size = st.st_size;
	return fd;
}

char *safe_read_file(const char *path, int flags, size_t max, size_t *len, char *err,
		     size_t errlen)
{
	char shown[1024], *buf;
	off_t size;
	size_t n = 0;
	int fd = safe_open_read(path, flags, &size, err, errlen);

	*len = 0;
	if (fd < 0)
		return NULL;
	text_escape(path, shown, sizeof shown);
	if ((unsigned long long)size > max) {
		snprintf(err, errlen, "%s: %lld bytes: larger than %zu bytes", shown, (long long)size,
			 max);
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	if (!(buf = malloc((size_t)size + 1))) {
		snprintf(err, errlen, "%s: out of memory", shown);
		close(fd);
		return NULL;
	}
	/* to the end, but never past what fstat said (the file may grow) */
	for (;;) {
		ssize_t got = read(fd, buf + n, (size_t)size + 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "%s: cannot read: %s", shown, strerror(errno));
			break;
		}
		if (got == 0) {
			close(fd);
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		n += (size_t)got;
		if (n > (size_t)size) {
			snprintf(err, errlen, "%s: the file grew while it was read", shown);
			break;
		}
	}
	close(fd);
	free(buf);
	return NULL;
}
