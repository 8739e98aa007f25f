/*
 * loop - the cost of one empty loop iteration: what other CPU probes
 * subtract (`subtract: [loop_overhead]`).
 *
 * What:   `for (i = 0; i < n; i++)` with an empty body the compiler cannot
 *         delete: an empty asm statement takes the counter as an in/out
 *         register operand, so at -O2 every iteration really increments,
 *         compares and branches (objdump shows add/cmp/jne and nothing
 *         else), but no memory access, call or load is added.
 * Unit:   ns per iteration.
 * Method: one timed region (pt_start/pt_stop) around `iterations`
 *         iterations; ticks / iterations through host->tsc_hz.  With
 *         `iterations: auto` a sample lasts min_sample_time, so the timing
 *         pair's own cost (the null probe) is amortised to nothing.
 * Confounders: the loop runs at the core clock, the figure is in ns from a
 *         constant-rate TSC: at a varying (boost) clock ns are right but
 *         TSC ticks are not core cycles.  The branch predictor and the
 *         op cache make it about one core cycle; in a real probe's loop
 *         the increment and branch overlap with the body out of order, so
 *         subtracting it is an approximation of at most a cycle or so.
 *         On a KVM guest the host may run another vCPU on the physical
 *         core's SMT sibling (invisible to the guest): a one-cycle loop then
 *         gets about half the core, and that changes from run to run.  Steal
 *         time and host interrupts land in some samples: the spec's median
 *         and outlier rule handle them.
 */
#include "probe.h"
#include "probe_time.h"

static int loop_setup(void *state, const void *cfg, const struct probe_host *h, char *err,
		      size_t errlen)
{
	(void)state, (void)cfg, (void)h, (void)err, (void)errlen;
	return 0;
}

static int loop_sample(void *state, uint64_t iterations, const struct probe_host *h,
		       struct probe_sample *out, char *err, size_t errlen)
{
	uint64_t t0, t1;

	(void)state, (void)err, (void)errlen;
	t0 = pt_start();
	for (uint64_t i = 0; i < iterations; i++)
		__asm__ volatile("" : "+r"(i));
	t1 = pt_stop();
	out->value = pt_ticks_to_ns(t1 - t0, h->tsc_hz) / (double)iterations;
	return 0;
}

PROBE_DEFINE = {
	.abi = PROBE_ABI_VERSION,
	.name = "loop",
	.version = "1.0",
	.summary = "one empty loop iteration (increment, compare, branch)",
	.unit = "ns",
	.needs_counter_hz = 1,
	.setup = loop_setup,
	.sample = loop_sample,
};
