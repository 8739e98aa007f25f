/*
 * probe.h - the sysmeter probe ABI: the only runner header a probe includes
 * (together with probe_time.h, the inline timing primitives).
 *
 * A probe is a shared object exporting exactly one symbol, the same for
 * every probe (as fio's external engines do), a `const struct probe`:
 *
 *     enum pattern { RANDOM, SEQUENTIAL };
 *     struct cfg { uint64_t size; int pattern; };
 *     static const struct probe_param params[] = {
 *             PROBE_PARAM_SIZE(struct cfg, size, "4KiB", "working set", 4096, 1 << 30),
 *             PROBE_PARAM_CHOICE(struct cfg, pattern, "random", "order",
 *                                { "random", RANDOM }, { "sequential", SEQUENTIAL }),
 *             PROBE_PARAM_END,
 *     };
 *     PROBE_DEFINE = { .abi = PROBE_ABI_VERSION, .name = "x", ..., .params = params,
 *                      .config_size = sizeof(struct cfg), .setup = ..., .sample = ... };
 *
 * The runner dlopen()s build/probes/<name>.so, dlsym()s PROBE_SYMBOL,
 * checks with dladdr() that the symbol lies in that very file, reads `abi`
 * (and nothing else: see "Compatibility" below), then `name` (must equal
 * the file stem), then the required hooks (setup, sample), then that every
 * parameter's field lies inside config_size.  Metadata (list, probe-help,
 * check, binding) is read in a short-lived child process, so a probe whose
 * constructor crashes, hangs or exits is reported, never fatal.
 *
 * What the runner guarantees, so that a probe does not check it again:
 *   - parameters arrive parsed, type-checked and range-checked in the
 *     probe's own config struct (`cfg`): a choice as the probe's own value
 *     of its row (enum pattern above), a size in bytes, a time in seconds, a
 *     bool as 0/1;
 *   - `state` is a zeroed buffer of state_size bytes, freed by the runner
 *     after teardown (NULL when state_size is 0);
 *   - sample() is called with iterations >= 1 and the same host as setup(),
 *     so a probe converts ticks with pt_ticks_to_ns(t, h->tsc_hz) there and
 *     keeps no copy of the rate in its state;
 *   - with needs_counter_hz set, host->tsc_hz > 0 (else the point fails
 *     before setup with "setup: no calibrated counter frequency ...").
 *
 * Rules for probes: build with -O2 -fvisibility=hidden; no constructors, no
 * exit(), no printing of results.  Every hook returns 0 or a negative errno
 * and, on error, writes a one-line lowercase message (no final full stop)
 * into `err` (at most `errlen` bytes); with `err` left empty the runner
 * says strerror() of the errno ("setup: Cannot allocate memory"), so a bare
 * `return -ENOMEM;` needs no message of its own.  Returning PROBE_SKIP
 * from setup() means "this cannot be measured here" (no root, no peer,
 * ...): the point is recorded as skipped with the message as the reason,
 * never as a number.
 *
 * A probe that makes cgroups of its own (a memory limit, one per run of a
 * program) makes them below its own cgroup and names them
 * sysmeter-PID-..., PID its own getpid(): the runner removes them (killing
 * what is left in them) after the point, however it ended, and at the
 * start of a later run those of a process that is gone, so a point killed
 * before its teardown (a timeout, Ctrl-C) leaves none behind.
 *
 * Compatibility.  `abi` is the ABI's major and minor in one number,
 * PROBE_ABI(major, minor); PROBE_ABI_VERSION is this header's.  The runner
 * reads it before any other field and refuses a probe of another major
 * ("ABI version 4, runner expects 5") or of a newer minor than its own
 * ("ABI version 5.3, runner expects 5.0 to 5.2": the probe may rely on
 * what this runner does not know).  A probe built for an older minor of
 * the same major loads: within a major the structs a probe provides
 * (struct probe, probe_param, probe_metric, probe_choice) only ever grow
 * at the end, and the loader knows their size in every minor (abi_minors[]
 * in runner/exec/loader.c).  It copies a probe's struct and the rows of
 * its tables only as far as that probe's minor had them, stepping through
 * a table by that minor's row size, into the current layout with every
 * later field zero (a hook the minor did not have is absent), so it never
 * reads a field the probe's minor did not have.  The structs the runner
 * provides (probe_host, probe_sample, probe_command) also only grow at the
 * end: a probe of an older minor reads the part it knows.  A new minor
 * appends fields, adds a row to abi_minors[] and bumps PROBE_ABI_MINOR; a
 * change to an existing field or to a hook's signature bumps
 * PROBE_ABI_MAJOR (and resets the minor to 0).
 *
 * History: ABI 3: the check hook.  ABI 4: PROBE_MAX_EXTRA 8 -> 12 (struct
 * probe_sample grew) and probe_host.command appended.  ABI 5.0: sample()
 * gets the host (no probe keeps tsc_hz in its state), and `abi` carries a
 * minor.  ABI 5.1: a choice parameter's values are rows {name, value}
 * (struct probe_choice, probe_param.choices appended), and the config
 * field receives the row's value; 5.0's "a|b|c" text (then called
 * `choices`, now `choices_text`), whose field received the index, still
 * loads.  ABI 5.2: probe_host.llc_bytes appended (the last-level cache as
 * the runner knows it, sysfs or CPUID, 0 when unknown or implausible), so
 * a probe that sizes a working set from the LLC never reads sysfs itself.
 */
#ifndef SYSMETER_PROBE_H
#define SYSMETER_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The ABI's version: a probe sets .abi = PROBE_ABI_VERSION. */
#define PROBE_ABI_MAJOR 5
#define PROBE_ABI_MINOR 2
#define PROBE_ABI(major, minor) (((unsigned)(major) << 16) | (unsigned)(minor))
#define PROBE_ABI_VERSION PROBE_ABI(PROBE_ABI_MAJOR, PROBE_ABI_MINOR)
/* The major and minor of an `abi` value; the ABIs before 5 were a single
   small number (a major alone). */
#define PROBE_ABI_MAJOR_OF(v) ((unsigned)(v) > 0xffffu ? (unsigned)(v) >> 16 : (unsigned)(v))
#define PROBE_ABI_MINOR_OF(v) ((unsigned)(v) > 0xffffu ? (unsigned)(v) & 0xffffu : 0u)

#define PROBE_EXPORT __attribute__((visibility("default")))

/* The one symbol every probe exports; PROBE_DEFINE declares it. */
#define PROBE_SYMBOL "sysmeter_probe"
#define PROBE_DEFINE PROBE_EXPORT const struct probe sysmeter_probe

/* setup() returns this (with a reason in err) when the probe cannot run here. */
#define PROBE_SKIP 1

/* Most secondary values a probe may declare (struct probe_metric); 12 since
   ABI 4 (the command probe's wall, CPU, memory, fault and switch counts). */
#define PROBE_MAX_EXTRA 12

/* Parameter types, and the C type of the config field each one fills. */
enum probe_param_type {
	PROBE_INT = 1,	/* int64_t:  plain integer ("7", "1000") */
	PROBE_SIZE,	/* uint64_t: bytes ("4KiB", "1.5GB", "512") */
	PROBE_TIME,	/* double:   seconds ("10ms", "800ns", "2s") */
	PROBE_DOUBLE,	/* double:   real number, "%" allowed ("2.5", "50%" = 0.5) */
	PROBE_STRING,	/* int: the chosen row's value when `choices` is set;
			   const char *: the text (valid until teardown) when not */
	PROBE_BOOL,	/* int: 0 or 1 (true/false/yes/no/on/off) */
};

/*
 * One allowed value of a choice parameter (ABI 5.1): the word a spec writes
 * and the value the config field receives, the probe's own enum, so no
 * probe keeps an enum in step with the order of a list.  A table of them
 * ends with { NULL }.  The loader checks the rows: every name non-empty,
 * without '|', listed once; every value once; the default one of the
 * names.
 */
struct probe_choice {
	const char *name;	/* "random" */
	int value;		/* RANDOM */
};

/*
 * One row of a probe's parameter table; write rows with the PROBE_PARAM_*
 * macros below, which take the name from the config field, so a misspelt
 * name or a field of the wrong C type does not compile.  The runner alone
 * parses and checks values against the table; `runner probe-help NAME`
 * prints it.
 */
struct probe_param {
	const char *name;
	enum probe_param_type type;
	const char *def;	/* default, in spec syntax ("64", "4KiB", "random") */
	const char *help;	/* one line */
	const char *choices_text;	/* ABI 5.0's choices, "fork|vfork" (the field got
					   the index); the loader turns them into rows.
					   NULL since 5.1: set `choices` */
	double min, max;	/* numeric bounds, inclusive, in base units
				   (bytes, seconds); ignored when min == max */
	size_t offset;		/* of the field in the probe's config struct */
	size_t size;		/* of that field: checked against the type */
	/* ABI 5.1: PROBE_STRING only, the allowed values as rows ending with
	   { NULL }; NULL = any text. */
	const struct probe_choice *choices;
};

/* sizeof(T.f), or a compile error when T.f is not of type C. */
#define PROBE_FIELD_(T, f, C) \
	.offset = offsetof(T, f), .size = sizeof(_Generic(((T *)0)->f, C: ((T *)0)->f))
#define PROBE_ROW_(T, f, ty, C, d_, h_, ch_, lo_, hi_) \
	{ .name = #f, .type = ty, .def = d_, .help = h_, .choices = ch_, .min = lo_, \
	  .max = hi_, PROBE_FIELD_(T, f, C) }

#define PROBE_PARAM_INT(T, f, d_, h_, lo_, hi_) \
	PROBE_ROW_(T, f, PROBE_INT, int64_t, d_, h_, NULL, lo_, hi_)
#define PROBE_PARAM_SIZE(T, f, d_, h_, lo_, hi_) \
	PROBE_ROW_(T, f, PROBE_SIZE, uint64_t, d_, h_, NULL, lo_, hi_)
#define PROBE_PARAM_TIME(T, f, d_, h_, lo_, hi_) \
	PROBE_ROW_(T, f, PROBE_TIME, double, d_, h_, NULL, lo_, hi_)
#define PROBE_PARAM_DOUBLE(T, f, d_, h_, lo_, hi_) \
	PROBE_ROW_(T, f, PROBE_DOUBLE, double, d_, h_, NULL, lo_, hi_)
/* The rows follow the help, {name, value} each (the { NULL } that ends
   them is added), and the field is an int:
   PROBE_PARAM_CHOICE(struct cfg, pattern, "random", "order",
		      { "random", RANDOM }, { "sequential", SEQUENTIAL }) */
#define PROBE_PARAM_CHOICE(T, f, d_, h_, ...) \
	PROBE_ROW_(T, f, PROBE_STRING, int, d_, h_, \
		   ((const struct probe_choice[]){ __VA_ARGS__, { NULL, 0 } }), 0, 0)
#define PROBE_PARAM_STRING(T, f, d_, h_) \
	PROBE_ROW_(T, f, PROBE_STRING, const char *, d_, h_, NULL, 0, 0)
#define PROBE_PARAM_BOOL(T, f, d_, h_) \
	PROBE_ROW_(T, f, PROBE_BOOL, int, d_, h_, NULL, 0, 0)
#define PROBE_PARAM_END { .name = NULL }

/* A secondary value a sample may report besides its primary value. */
struct probe_metric {
	const char *name;	/* "pipe_ns", "bytes_read" */
	const char *unit;	/* "ns", "bytes" */
	const char *help;
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

/*
 * A program to run, as the runner hands it to a probe (ABI 4): the spec's
 * `command:` key, checked, with every {param} placeholder replaced by this
 * point's value.  Every argv is NULL-terminated and was never near a shell:
 * a probe runs it with execvp().  With `shell`, argv is {"/bin/sh", "-c",
 * SCRIPT, NULL} (the placeholders' values single-quoted in SCRIPT).
 */
struct probe_command {
	const char *const *argv;	/* what is measured */
	int shell;			/* argv runs a shell script: its start-up is
					   measured and subtracted */
	const char *const *setup;	/* once per point (round), before the first run; */
	const char *const *cleanup;	/* once after the last; */
	const char *const *prepare;	/* before every run, untimed; */
	const char *const *conclude;	/* after every run, untimed; each NULL = none */
	const int *ok_exit; size_t n_ok_exit;	/* exit statuses that are a success */
	const char *stdin_path;		/* the program's stdin; NULL = /dev/null */
	/* Where kept output goes: PREFIX + "run-<k>.stdout" / ".stderr" (the
	   directories may not exist yet); NULL = output to /dev/null. */
	const char *output_prefix;
	double timeout;			/* per run, seconds; 0 = none */
};

enum probe_log_level { PROBE_LOG_DEBUG = 0, PROBE_LOG_INFO, PROBE_LOG_WARN };

/* Services the runner offers a probe; probes never link back into the runner. */
struct probe_host {
	unsigned abi;			/* the runner's PROBE_ABI_VERSION */
	void (*log)(const struct probe_host *h, int level, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));
	const char *scratch_dir;	/* private, writable, removed after the point */
	uint64_t seed;			/* run seed mixed with the point index */
	const char *peer;		/* "host:port" of a `runner serve` peer, or NULL */
	double tsc_hz;			/* calibrated TSC (or counter) frequency, 0 if none;
					   > 0 when the probe sets needs_counter_hz */
	int cpu;			/* CPU the sampling thread is pinned to, -1 if none */
	int ncpus;			/* online CPUs */
	int privileged;			/* may drop caches, raise priority, ... */
	int quick;			/* --quick: keep setup small where it matters */
	void *user;			/* runner-private */
	const char *probe_dir;		/* the directory of this probe's .so (its
					   helper programs are in probe_dir/bin/) */
	/* Sign `msg` for the `runner serve` peer: HMAC-SHA256 under the shared
	   token (--token FILE) as 64 hex digits into hex.  0; -ENOENT when no
	   token was given; another negative errno with a message in err.  The
	   secret stays in the runner: a probe never reads it. */
	int (*peer_sign)(const struct probe_host *h, const char *msg, char hex[65],
			 char *err, size_t errlen);
	/* The run's NFS server (--nfs): the base URL of its export, such as
	   "nfs://10.77.0.2/sysmeter", or NULL when there is none.  nfs_local_dir:
	   the export's directory on this host when the server runs here (--nfs
	   netns), so a probe can make test files and evict or verify the
	   server's page cache directly; NULL for a server elsewhere.
	   nfs_label: how the report names the server ("nfs-ganesha in a
	   namespace on this host"), or NULL.  nfs_error: why there is no
	   server although one was asked for ("nfs-ganesha is not installed:
	   make deps"), for the probe to skip with; NULL otherwise. */
	const char *nfs_url;
	const char *nfs_local_dir;
	const char *nfs_label;
	const char *nfs_error;
	/* The CPU the namespace server's daemons are pinned to (--nfs netns),
	   for a probe that offers same- and cross-CPU placement; -1 when not
	   known (a server elsewhere, or none). */
	int nfs_cpu;
	/* (ABI 4) The spec's `command:` with this point's parameters
	   substituted, for the command probe; NULL for every other probe. */
	const struct probe_command *command;
	/* (ABI 5.2) The last-level cache, one instance, in bytes, from the
	   run's machine description (sysfs, else CPUID); 0 when unknown, or
	   when implausible for this machine (a socket-wide L3 reported to a
	   small guest): a probe then uses a size safe without it. */
	uint64_t llc_bytes;
};

struct probe {
	unsigned abi;			/* PROBE_ABI_VERSION: checked first */
	const char *name;		/* must equal the file stem */
	const char *version;		/* the probe's own version, "1.0" */
	const char *summary;		/* one line: what it measures */
	const char *unit;		/* unit of the primary value: "ns", "GB/s" */
	int bigger_is_better;		/* 1 for throughputs */
	const struct probe_param *params;	/* ends with PROBE_PARAM_END; may be NULL */
	const struct probe_metric *metrics;	/* ends with name == NULL; may be NULL */
	size_t config_size;		/* sizeof the config struct params fill */
	size_t state_size;		/* sizeof the zeroed state the runner allocates */
	int needs_counter_hz;		/* converts ticks: run only with tsc_hz > 0 */

	/* Optional fixed iteration count: when non-zero `iterations: auto`
	   uses it instead of calibrating (a probe whose op is a whole pass). */
	uint64_t fixed_iterations;
	/* Optional first guess for `iterations: auto` when it does not depend
	   on the parameters (else write calibrate()); the runner still
	   doubles it until a sample lasts min_sample_time. */
	uint64_t iterations_hint;

	/* Required.  Prepare everything untimed in the zeroed `state`; `cfg`
	   is the filled config struct (NULL when config_size is 0). */
	int (*setup)(void *state, const void *cfg, const struct probe_host *h, char *err,
		     size_t errlen);
	/* Optional.  A first guess for `iterations: auto` (ops per sample). */
	int (*calibrate)(void *state, uint64_t *iterations, char *err, size_t errlen);
	/* Optional.  Runs before every sample, untimed (e.g. drop caches). */
	int (*prepare)(void *state, char *err, size_t errlen);
	/* Required.  Perform `iterations` (>= 1) operations; report the cost per
	   op.  `h` is the host setup() got (ABI 5): convert ticks with
	   pt_ticks_to_ns(ticks, h->tsc_hz). */
	int (*sample)(void *state, uint64_t iterations, const struct probe_host *h,
		      struct probe_sample *out, char *err, size_t errlen);
	/* Optional.  After the last sample: did the work really happen?  A
	   non-zero return is recorded as a sanity flag with the message. */
	int (*sanity)(void *state, char *err, size_t errlen);
	/* Optional.  Release what setup() acquired (not `state` itself: the
	   runner frees it); must be safe after a failed or partial setup. */
	void (*teardown)(void *state);
	/* Optional (ABI 3).  Can this configuration be measured at all (a
	   stride that is not a multiple of the pointer size, a block larger
	   than the file)?  `runner check` calls it for every point, in a child
	   process, so that what setup() would reject is reported before a run;
	   0, or a negative errno with the message.  Must not touch the machine
	   (no files, no memory the size of the test). */
	int (*check)(const void *cfg, char *err, size_t errlen);
};

#endif
