/*
 * copyfile.h - one regular file copied into a new one, for the folders a
 * merge or a fleet assembles (a host's run, the build sent to the hosts).
 */
#ifndef SYSMETER_COPYFILE_H
#define SYSMETER_COPYFILE_H

#include <sys/types.h>

/* from into the new file `to` (O_EXCL: never over an existing one), of mode
   `mode`.  0, or -1 with errno set (a short write: EIO). */
int copyfile(const char *from, const char *to, mode_t mode);

#endif
