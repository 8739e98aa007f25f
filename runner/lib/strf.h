/*
 * strf.h - snprintf for paths and messages whose truncation is harmless:
 * the result is checked where it matters, by the open() that follows, and
 * a cut message is still a message.  Used by the report modules for their
 * file names and for the errors they return.
 */
#ifndef SYSMETER_STRF_H
#define SYSMETER_STRF_H

#include <stddef.h>

/* Format into buf (at most len bytes, always terminated when len > 0). */
void strf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
