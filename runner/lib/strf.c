/*
 * strf.c - snprintf whose truncation is harmless (strf.h).
 */
#include "lib/strf.h"

#include <stdarg.h>
#include <stdio.h>

void strf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
