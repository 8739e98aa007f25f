/*
 * probe.h - the sysmeter probe ABI: the only runner header a probe includes
 * (together with probe_time.h, the inline timing primitives).
 *
 * A probe is a shared object exporting exactly one symbol, named after the
 * file stem, of type `const struct probe`:
 *
 *     PROBE_EXPORT const struct probe syscall = { .abi = PROBE_ABI_VERSION, ... };
 *
 * The runner dlopen()s build/probes/<name>.so, dlsym()s <name>, checks `abi`
 * for an exact match, then `name` (must equal the file stem), then that the
 * required hooks (setup, sample, teardown) are present.
 *
 * Rules for probes: build with -O2 -fvisibility=hidden; no constructors, no
 * exit(), no printing of results.  Every hook returns 0 or a negative errno
 * and, on error, writes a one-line lowercase message (no final full stop)
 * into `err` (at most `errlen` bytes).  Returning PROBE_SKIP from setup()
 * means "this cannot be measured here" (no root, no peer, ...): the point is
 * recorded as skipped with the message as the reason, never as a number.
 *
 * Compatibility: this struct only ever grows at the end; any change to an
 * existing field bumps PROBE_ABI_VERSION.
 */
#ifndef SYSMETER_PROBE_H
#define SYSMETER_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PROBE_ABI_VERSION 1

#define PROBE_EXPORT __attribute__((visibility("default")))

/* setup() returns this (with a reason in err) when the probe cannot run here. */
#define PROBE_SKIP 1

/* Most secondary values a probe may declare (struct probe_metric). */
#define PROBE_MAX_EXTRA 8

enum probe_param_type {
	PROBE_INT = 1,	/* integer, plain number ("7", "1000") */
	PROBE_SIZE,	/* bytes: "4KiB", "1.5GB", "512" -> num in bytes */
	PROBE_TIME,	/* duration: "10ms", "800ns", "2s" -> num in seconds */
	PROBE_DOUBLE,	/* real number, "%" allowed: "2.5", "50%" (= 0.5) */
	PROBE_STRING,	/* text; `choices` ("a|b|c") restricts it when set */
	PROBE_BOOL,	/* true/false/yes/no/on/off -> num 1 or 0 */
};

/*
 * One row of a probe's parameter table.  The runner alone parses and checks
 * values against it; `runner probe-help NAME` prints it.
 */
struct probe_param {
	const char *name;
	enum probe_param_type type;
	const char *def;	/* default, in spec syntax ("64", "4KiB", "random") */
	const char *help;	/* one line */
	const char *choices;	/* PROBE_STRING only: "fork|vfork|pthread"; NULL = any */
	double min, max;	/* numeric bounds, inclusive, in base units
				   (bytes, seconds); ignored when min == max */
};

/* A secondary value a sample may report besides its primary value. */
struct probe_metric {
	const char *name;	/* "pipe_ns", "bytes_read" */
	const char *unit;	/* "ns", "bytes" */
	const char *help;
};

/* One parameter value as handed to setup(): already parsed and checked. */
struct probe_value {
	const char *name;
	const char *text;	/* the value as written (after unit normalisation) */
	double num;		/* numeric value in base units; 0/1 for bool; 0 for strings */
};

/* All parameters of one point, in the order of the probe's table. */
struct probe_params {
	size_t n;
	const struct probe_value *v;
};

/* What one call of sample() yields. */
struct probe_sample {
	double value;			/* primary value, per operation, in probe->unit */
	double extra[PROBE_MAX_EXTRA];	/* secondary values, in probe->metrics order */
	uint32_t flags;			/* PROBE_SAMPLE_* */
	char note[120];			/* why the sample is invalid, when flagged */
};

/* The sample is not valid (tasks not on one CPU, token count wrong, ...):
   it is recorded with its note but never used in an estimate. */
#define PROBE_SAMPLE_INVALID 0x1u

enum probe_log_level { PROBE_LOG_DEBUG = 0, PROBE_LOG_INFO, PROBE_LOG_WARN };

/* Services the runner offers a probe; probes never link back into the runner. */
struct probe_host {
	unsigned abi;			/* PROBE_ABI_VERSION */
	void (*log)(const struct probe_host *h, int level, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));
	const char *scratch_dir;	/* private, writable, removed after the point */
	uint64_t seed;			/* run seed mixed with the point index */
	const char *peer;		/* "host:port" of a `runner serve` peer, or NULL */
	double tsc_hz;			/* calibrated TSC (or counter) frequency, 0 if none */
	int cpu;			/* CPU the sampling thread is pinned to, -1 if none */
	int ncpus;			/* online CPUs */
	int privileged;			/* may drop caches, raise priority, ... */
	int quick;			/* --quick: keep setup small where it matters */
	void *user;			/* runner-private */
	const char *probe_dir;		/* where the probes (and their helper
					   programs, probe_dir/bin/) are */
};

struct probe {
	unsigned abi;			/* must be PROBE_ABI_VERSION: checked first */
	const char *name;		/* must equal the file stem */
	const char *version;		/* the probe's own version, "1.0" */
	const char *summary;		/* one line: what it measures */
	const char *unit;		/* unit of the primary value: "ns", "GB/s" */
	int bigger_is_better;		/* 1 for throughputs */
	const struct probe_param *params;	/* terminated by a row with name == NULL */
	const struct probe_metric *metrics;	/* terminated by name == NULL; may be NULL */

	/* Required.  Allocate and prepare everything untimed; *state is opaque. */
	int (*setup)(const struct probe_params *p, const struct probe_host *h,
		     void **state, char *err, size_t errlen);
	/* Optional.  A first guess for `iterations: auto` (ops per sample);
	   the runner still doubles it until a sample lasts min_sample_time. */
	int (*calibrate)(void *state, uint64_t *iterations, char *err, size_t errlen);
	/* Optional.  Runs before every sample, untimed (e.g. drop caches). */
	int (*prepare)(void *state, char *err, size_t errlen);
	/* Required.  Perform `iterations` operations; report the cost per op. */
	int (*sample)(void *state, uint64_t iterations, struct probe_sample *out,
		      char *err, size_t errlen);
	/* Optional.  After the last sample: did the work really happen?  A
	   non-zero return is recorded as a sanity flag with the message. */
	int (*sanity)(void *state, char *err, size_t errlen);
	/* Required.  Free everything; must be safe after a failed setup. */
	void (*teardown)(void *state);

	/* Optional fixed iteration count: when non-zero `iterations: auto`
	   uses it instead of calibrating (a probe whose op is a whole pass). */
	uint64_t fixed_iterations;
};

/* Convenience for probes: the value of parameter `name` (NULL if absent). */
static inline const struct probe_value *probe_param(const struct probe_params *p,
						    const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].name, name) == 0)
			return &p->v[i];
	return NULL;
}

/* For probes that convert counter ticks with pt_ticks_to_ns: the runner
   always calibrates host->tsc_hz; a host that did not is refused once, here. */
static inline int probe_require_hz(const struct probe_host *h, char *err, size_t errlen)
{
	if (h->tsc_hz > 0)
		return 0;
	snprintf(err, errlen, "no calibrated counter frequency (tsc_hz is 0)");
	return -1;
}

static inline double probe_num(const struct probe_params *p, const char *name)
{
	const struct probe_value *v = probe_param(p, name);
	return v ? v->num : 0.0;
}

static inline const char *probe_str(const struct probe_params *p, const char *name)
{
	const struct probe_value *v = probe_param(p, name);
	return v ? v->text : "";
}

#endif
