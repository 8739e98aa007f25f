/*
 * null - the harness's own cost: a probe that measures (almost) nothing.
 *
 * What:   one empty timed region, i.e. a pt_start()/pt_stop() pair with no
 *         work between them.  That pair opens and closes every other
 *         probe's sample, so its cost is the fixed bias a sample carries
 *         once (amortised over `iterations` operations).
 * Unit:   ns per empty timed region.
 * Method: a sample times `iterations` empty regions one after another and
 *         reports their mean (sum of the pairs' ticks / iterations, through
 *         host->tsc_hz).  `iterations: auto` means 1 (fixed_iterations), so
 *         a sample does ~50 ns of work and the wall time of a run of N
 *         samples, divided by N and measured from outside, is the runner's
 *         per-sample overhead (child bookkeeping, pipe to the parent, stats):
 *         tools/bench.d/cpu.sh does exactly that.  The probe also exercises
 *         the whole pipeline (load, setup, samples, results) with no
 *         parameter at all.
 * Confounders: lfence/rdtscp serialisation drains the pipeline, so the
 *         figure is the latency of the pair, not of a single counter read;
 *         under KVM rdtsc/rdtscp do not exit to the hypervisor (TSC offset
 *         and scaling are done in hardware) but an interrupt or a vCPU
 *         preemption landing between the two reads shows up as an outlier.
 */
#include "probe.h"
#include "probe_time.h"

static int null_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		      size_t errlen)
{
	(void)state, (void)cfg, (void)h, (void)err, (void)errlen;
	return 0;
}

static int null_sample(void *state, uint64_t iterations, const struct probe_host *h,
		       struct probe_sample *out, char *err, size_t errlen)
{
	uint64_t total = 0;

	(void)state, (void)err, (void)errlen;
	for (uint64_t i = 0; i < iterations; i++) {
		uint64_t t0 = pt_start();
		uint64_t t1 = pt_stop();
		total += t1 - t0;
	}
	out->value = pt_ticks_to_ns(total, h->tsc_hz) / (double)iterations;
	return 0;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "null",
	.version = "1.0",
	.summary = "empty timed region (pt_start/pt_stop pair): harness and timing overhead",
	.unit = "ns",
	.needs_counter_hz = 1,
	.fixed_iterations = 1,
	.setup = null_setup,
	.sample = null_sample,
};
