/*
 * safe_open.h - open a file that should be a regular file, for reading,
 * when its name comes from a user or from a folder anyone may have edited.
 *
 * open(2) of a FIFO with no writer waits forever, /dev/zero never ends, a
 * directory reads as an error much later, and a symbolic link in a run
 * folder can point anywhere (its target's text then lands in a message or
 * a copy).  These open with O_NONBLOCK (a FIFO is not waited on), require
 * S_ISREG from fstat of the open file (no window between a check and the
 * open), then clear O_NONBLOCK, and on request refuse a symbolic link as
 * the last component (O_NOFOLLOW).
 */
#ifndef SYSMETER_SAFE_OPEN_H
#define SYSMETER_SAFE_OPEN_H

#include <stddef.h>
#include <sys/types.h>

/* safe_open_read's flags */
#define SAFE_OPEN_NOFOLLOW 1	/* a symbolic link (the last component) is refused */

/* path opened for reading (O_CLOEXEC, blocking), only if it is a regular
   file; *size (when not NULL) gets its size.  The fd, or -1 with one of
   "PATH: cannot read: <strerror>", "PATH: not a regular file" or
   "PATH: a symbolic link: not followed" in err (PATH escaped as
   text_escape does: never raw control characters). */
int safe_open_read(const char *path, int flags, off_t *size, char *err, size_t errlen);

/* The whole regular file at path, NUL-terminated, of at most max bytes
   (malloc'd; *len its length, which may hold NULs): NULL with "PATH: why"
   in err when safe_open_read refuses it, it is larger than max ("PATH:
   N bytes: larger than MAX bytes", errno EFBIG) or grows past what fstat
   said while read (a reader never holds more than max + 1 bytes). */
char *safe_read_file(const char *path, int flags, size_t max, size_t *len, char *err,
		     size_t errlen);

#endif
