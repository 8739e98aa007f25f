/*
 * tap.h - a minimal TAP producer for the C unit tests (one header, no
 * library): ok(cond, fmt, ...), is_num(got, want, tol, name), is_str(...),
 * done_testing().  Output is TAP version 13; tests/run-all.sh counts it.
 */
#ifndef SYSMETER_TAP_H
#define SYSMETER_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}
#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

/* Numbers equal within tol (absolute); NaN equals NaN. */
static inline int is_num(double got, double want, double tol, const char *name)
{
	int same = (isnan(got) && isnan(want)) || fabs(got - want) <= tol ||
		   (isinf(got) && got == want);
	if (!tap_ok(same, "%s", name))
		printf("#   got %.10g, want %.10g (tol %g)\n", got, want, tol);
	return same;
}

static inline int is_str(const char *got, const char *want, const char *name)
{
	int same = got && want ? strcmp(got, want) == 0 : got == want;
	if (!tap_ok(same, "%s", name))
		printf("#   got  '%s'\n#   want '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return same;
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
