/*
 * syscall - the cost of a minimal kernel entry, next to a vDSO call that
 * does not enter the kernel.
 *
 * What:   one call of `call`:
 *           getpid              syscall(SYS_getpid): glibc's syscall(2)
 *                               wrapper, `syscall` instruction, the kernel's
 *                               entry/exit path, a trivial handler
 *           gettid              syscall(SYS_gettid): the same, another handler
 *           clock_gettime_vdso  clock_gettime(CLOCK_MONOTONIC): glibc -> vDSO,
 *                               no kernel entry while the clocksource allows
 * Unit:   ns per call.
 * Method: `iterations` calls in a loop, one timed region around it; ticks /
 *         iterations through host->tsc_hz.  syscall(2) is never cached by
 *         glibc, so every call enters the kernel.  This probe's exported
 *         symbol is itself named `syscall`, so glibc's syscall() is reached
 *         through a pointer (dlsym(RTLD_DEFAULT) in setup): the same code as a
 *         call through the PLT, one indirect call.  The spec subtracts the
 *         empty loop's cost (loop_overhead).  The returns are summed: after
 *         the loop the sum must equal iterations * pid (or tid), so a
 *         failed call (-1) marks the sample invalid; the vDSO path's return
 *         codes are checked the same way.
 * Confounders: speculative-execution mitigations on the entry/exit path
 *         (retpolines, RSB filling, IBRS/IBPB, page-table isolation when
 *         enabled) dominate the cost and differ per kernel and boot line:
 *         the machine description records the kernel.  On a KVM guest a
 *         syscall does not exit to the host, but host interrupts and steal
 *         time do land in samples.  Audit, seccomp filters and ptrace
 *         (strace) make every call much slower.  The vDSO call becomes a
 *         real syscall when the clocksource cannot be read from user space
 *         (setup logs the clocksource).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
/* unistd.h declares the function syscall(), whose name this probe's
   exported struct must have (design §4): keep its declaration out of sight. */
#define syscall syscall_declared_by_unistd_h
#include <unistd.h>
#undef syscall

#include "probe.h"
#include "probe_time.h"

#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"

enum syscall_call { CALL_GETPID, CALL_GETTID, CALL_VDSO };

typedef long (*syscall_fn)(long nr, ...);

struct syscall_state {
	enum syscall_call call;
	syscall_fn sys;			/* glibc's syscall() */
	long expect;			/* what getpid/gettid must return */
	uint64_t bad_samples;
	char first_bad[120];
};

struct syscall_cfg {
	int call;			/* enum syscall_call */
};

static const struct probe_param syscall_params[] = {
	PROBE_PARAM_CHOICE(struct syscall_cfg, call, "getpid",
		"syscall(SYS_getpid), syscall(SYS_gettid), or clock_gettime(CLOCK_MONOTONIC) via the vDSO",
		{ "getpid", CALL_GETPID }, { "gettid", CALL_GETTID },
		{ "clock_gettime_vdso", CALL_VDSO }),
	PROBE_PARAM_END,
};

static void syscall_log_clocksource(const struct probe_host *h)
{
	char buf[64] = "";
	FILE *f;

	if (!h->log)
		return;
	f = fopen(CLOCKSOURCE_PATH, "r");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	h->log(h, PROBE_LOG_INFO, "clocksource: %s", buf);
}

static int syscall_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
			 size_t errlen)
{
	const struct syscall_cfg *c = cfg;
	struct syscall_state *st = state;
	enum syscall_call call = (enum syscall_call)c->call;

	if (call == CALL_VDSO) {
		if (getauxval(AT_SYSINFO_EHDR) == 0) {
			snprintf(err, errlen, "no vDSO mapped in this process");
			return PROBE_SKIP;
		}
		syscall_log_clocksource(h);
	}
	st->call = call;
	if (call != CALL_VDSO) {
		/* The C library's syscall() from the global scope: check that
		   it lives in another object than this probe, then that it
		   works. */
		void *fn = dlsym(RTLD_DEFAULT, "syscall");
		Dl_info in_fn, in_me;

		if (!fn || !dladdr(fn, &in_fn) || !dladdr((void *)syscall_setup, &in_me) ||
		    in_fn.dli_fbase == in_me.dli_fbase ||
		    ((syscall_fn)fn)(SYS_getpid) != (long)getpid()) {
			snprintf(err, errlen, "cannot find the C library's syscall()");
			return -ENOENT;
		}
		st->sys = (syscall_fn)fn;
	}
	if (call == CALL_GETPID)
		st->expect = (long)getpid();
	else if (call == CALL_GETTID)
		st->expect = (long)gettid();
	return 0;
}

static int syscall_sample(void *state, uint64_t iterations, const struct probe_host *h,
			  struct probe_sample *out, char *err, size_t errlen)
{
	struct syscall_state *st = state;
	uint64_t t0, t1, sum = 0, want = 0;
	long nr = st->call == CALL_GETPID ? SYS_getpid : SYS_gettid;
	syscall_fn sys = st->sys;
	int bad = 0;

	(void)err, (void)errlen;
	if (st->call == CALL_VDSO) {
		struct timespec ts;

		t0 = pt_start();
		for (uint64_t i = 0; i < iterations; i++) {
			bad |= clock_gettime(CLOCK_MONOTONIC, &ts);
			pt_sink_u64((uint64_t)ts.tv_nsec);
		}
		t1 = pt_stop();
	} else {
		nr = (long)pt_opaque_u64((uint64_t)nr);
		t0 = pt_start();
		for (uint64_t i = 0; i < iterations; i++)
			sum += (uint64_t)sys(nr);
		t1 = pt_stop();
		want = iterations * (uint64_t)st->expect;	/* mod 2^64, like sum */
		bad = sum != want;
	}
	out->value = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / (double)iterations;
	if (bad) {
		out->flags |= PROBE_SAMPLE_INVALID;
		snprintf(out->note, sizeof(out->note), "%s",
			 st->call == CALL_VDSO ? "clock_gettime failed in the timed loop"
					       : "a call returned something else than the expected id");
		if (st->bad_samples++ == 0)
			snprintf(st->first_bad, sizeof(st->first_bad), "%s", out->note);
	}
	return 0;
}

static int syscall_sanity(void *state, char *err, size_t errlen)
{
	const struct syscall_state *st = state;

	if (st->bad_samples == 0)
		return 0;
	snprintf(err, errlen, "%llu samples invalid: %s",
		 (unsigned long long)st->bad_samples, st->first_bad);
	return -EIO;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "syscall",
	.version = "1.0",
	.summary = "minimal system call (getpid/gettid via syscall(2)) vs a vDSO clock_gettime",
	.unit = "ns",
	.bigger_is_better = 0,
	.params = syscall_params,
	.config_size = sizeof(struct syscall_cfg),
	.state_size = sizeof(struct syscall_state),
	.needs_counter_hz = 1,
	.setup = syscall_setup,
	.sample = syscall_sample,
	.sanity = syscall_sanity,
};
