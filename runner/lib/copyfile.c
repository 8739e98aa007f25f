/* copyfile.c - see copyfile.h. */
#include "lib/copyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int copyfile(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, e;
	ssize_t r = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while ((r = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)r) != r) {
			r = -1;
			errno = EIO;
			break;
		}
	e = errno;
	close(in);
	if (close(out) < 0 || r < 0) {
		if (r < 0)
			errno = e;
		return -1;
	}
	return 0;
}
