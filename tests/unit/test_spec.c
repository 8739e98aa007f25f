/*
 * test_spec.c - spec.c and friends: parsing every key, defaults, the exact
 * error messages (file:line:col), binding to a probe's table, --set
 * overrides, "did you mean", sha256, freeing.  Table-driven; the probe
 * bound to is defined here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/spec.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define GiB (1024.0 * 1024 * 1024)

static int dummy_setup(void *st, const void *cfg, const struct probe_host *h, char *err,
		   size_t errlen)
{
	(void)st, (void)cfg, (void)h, (void)err, (void)errlen;
	return 0;
}

static int dummy_sample(void *st, uint64_t it, const struct probe_host *h,
			struct probe_sample *out, char *err, size_t errlen)
{
	(void)st, (void)it, (void)h, (void)err, (void)errlen;
	out->value = 1;
	return 0;
}

static void dummy_teardown(void *st)
{
	(void)st;
}

static const struct probe_choice tp_patterns[] = {
	{"random", 0}, {"sequential", 1}, {"stride", 2}, {NULL, 0},
};

static const struct probe_param tp_params[] = {
	{"size", PROBE_SIZE, "4KiB", "working set", NULL, 1, GiB, 0, 0, NULL},
	{"stride", PROBE_INT, "64", "bytes between loads", NULL, 1, 1 << 20, 0, 0, NULL},
	{"pattern", PROBE_STRING, "random", "access order", NULL, 0, 0, 0, 0, tp_patterns},
	{"wait", PROBE_TIME, "1ms", "pause", NULL, 0, 10, 0, 0, NULL},
	{"ratio", PROBE_DOUBLE, "0.5", "a fraction", NULL, 0, 1, 0, 0, NULL},
	{"flag", PROBE_BOOL, "false", "a switch", NULL, 0, 0, 0, 0, NULL},
	{"label", PROBE_STRING, "x", "any text", NULL, 0, 0, 0, 0, NULL},
	{NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0, NULL},
};

static const struct probe tp = {
	.abi = PROBE_ABI_VERSION, .name = "mem_latency", .version = "1", .summary = "test",
	.unit = "ns", .params = tp_params, .setup = dummy_setup, .sample = dummy_sample,
	.teardown = dummy_teardown,
};

static const struct probe_param nodef_params[] = {
	{"peer", PROBE_STRING, NULL, "required", NULL, 0, 0, 0, 0, NULL},
	{NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0, NULL},
};

static const struct probe nodef = {
	.abi = PROBE_ABI_VERSION, .name = "nodef", .version = "1", .summary = "test",
	.unit = "GB/s", .params = nodef_params, .setup = dummy_setup, .sample = dummy_sample,
	.teardown = dummy_teardown,
};

static int parse(const char *text, struct spec *s, char *err, size_t len)
{
	return spec_parse("t.yaml", text, strlen(text), s, err, len);
}

/* ---- spec_parse errors: text -> exact message ---------------------------- */

struct err_case {
	const char *text, *err;
};

static const struct err_case parse_errors[] = {
	{"", "t.yaml:1:1: empty spec: expected a mapping with at least a 'probe' key"},
	{"# only a comment\n", "t.yaml:1:1: empty spec: expected a mapping with at least a 'probe' key"},
	{"- a\n- b\n", "t.yaml:1:1: expected a mapping of keys (probe, params, ...) at the top level, got a list"},
	{"hello\n", "t.yaml:1:1: expected a mapping of keys (probe, params, ...) at the top level, got 'hello'"},
	{"name: x\n", "t.yaml:1:1: missing required key 'probe'"},
	{"probe: p\nrepetitons: 5\n", "t.yaml:2:1: unknown key 'repetitons' (did you mean 'repetitions'?)"},
	{"probe: p\nWarmup: 5\n", "t.yaml:2:1: unknown key 'Warmup' (did you mean 'warmup'?)"},
	{"probe: p\nrep: 5\n", "t.yaml:2:1: unknown key 'rep' (did you mean 'repetitions'?)"},
	{"probe: p\nzzzzzz: 5\n", "t.yaml:2:1: unknown key 'zzzzzz'"},
	{"probe: p\n[a]: 5\n", "t.yaml:2:1: keys must be plain words, got a list"},
	{"probe: p\nwarmup: 1\nwarmup: 2\n", "t.yaml:3:1: duplicate key 'warmup' (first at line 2)"},
	{"probe: p\nwarmup: [1, 2\n", "t.yaml:3:1: yaml: did not find expected ',' or ']' while parsing a flow sequence (started at line 2)"},
	{"probe: p\nwarmup: 1\n  x: 2\n", "t.yaml:3:4: yaml: mapping values are not allowed in this context"},
	{"probe: p\nparams:\n\tsize: 1\n", "t.yaml:3:1: tab character in indentation (use spaces)"},
	{"probe: p\nparams:\n  size: 1\n \tstride: 2\n", "t.yaml:4:2: tab character in indentation (use spaces)"},
	{"probe: p\n---\nprobe: q\n", "t.yaml:3:1: yaml: a spec is one document, found a second one"},
	{"probe: p\nx: \"\xff\"\n", "t.yaml:2:5: yaml: invalid leading UTF-8 octet (byte 0xff)"},
	/* name, title, group, probe, description */
	{"probe: p\nname: my spec\n", "t.yaml:2:7: name: expected a name of letters, digits, '_' or '-', got 'my spec'"},
	{"probe: p\nname: a.b\n", "t.yaml:2:7: name: expected a name of letters, digits, '_' or '-', got 'a.b'"},
	{"probe: p\ntitle: [a]\n", "t.yaml:2:8: title: expected a text, got a list"},
	{"probe: p\ntitle:\n", "t.yaml:2:7: title: expected a text, got nothing"},
	{"probe: p\ngroup: two words\n", "t.yaml:2:8: group: expected a word like cpu, memory, network or filesystem, got 'two words'"},
	{"probe: {a: b}\n", "t.yaml:1:8: probe: expected a probe name like mem_latency or a path to a .so, got a mapping"},
	{"probe: ''\n", "t.yaml:1:8: probe: expected a probe name like mem_latency or a path to a .so, got ''"},
	{"probe: p\ndescription: {a: 1}\n", "t.yaml:2:14: description: expected a text, got a mapping"},
	/* params (what can be checked without the probe) */
	{"probe: p\nparams: [a]\n", "t.yaml:2:9: params: expected a mapping {name: value, ...}, got a list"},
	{"probe: p\nparams:\n  size: []\n", "t.yaml:3:9: params.size: empty list"},
	{"probe: p\nparams:\n  size: [1, [2]]\n", "t.yaml:3:13: params.size: list items must be single values, got a list"},
	{"probe: p\nparams:\n  size: 1\n  size: 2\n", "t.yaml:4:3: params: duplicate key 'size' (first at line 3)"},
	{"probe: p\nparams:\n  size: {from: 1, to: 4}\n", "t.yaml:3:9: params.size: a range needs exactly one of 'factor' (geometric) or 'step' (linear)"},
	{"probe: p\nparams:\n  size: {from: 1, factor: 2}\n", "t.yaml:3:9: params.size: a range needs 'from' and 'to'"},
	{"probe: p\nparams:\n  size: {from: 1, to: 4, fator: 2}\n", "t.yaml:3:26: params.size: unknown key 'fator' (did you mean 'factor'?)"},
	{"probe: p\nparams:\n  size: {from: 1, to: 4, factor: 1}\n", "t.yaml:3:34: params.size.factor: expected a number > 1, got '1'"},
	{"probe: p\nparams:\n  size: {from: 1, to: 4, factor: x}\n", "t.yaml:3:34: params.size.factor: expected a number > 1, got 'x'"},
	{"probe: p\nparams:\n  size: {from: [1], to: 4, step: 1}\n", "t.yaml:3:16: params.size.from: expected a single value, got a list"},
	/* sweep, repetitions, warmup, iterations, min_sample_time, timeout */
	{"probe: p\nsweep: diagonal\n", "t.yaml:2:8: sweep: expected cross or zip, got 'diagonal'"},
	{"probe: p\nrepetitions: many\n", "t.yaml:2:14: repetitions: expected an integer >= 1 or a mapping {min, max, target_ci, max_time}, got 'many'"},
	{"probe: p\nrepetitions: 0\n", "t.yaml:2:14: repetitions: expected an integer >= 1 or a mapping {min, max, target_ci, max_time}, got '0'"},
	{"probe: p\nrepetitions: [5]\n", "t.yaml:2:14: repetitions: expected an integer >= 1 or a mapping {min, max, target_ci, max_time}, got a list"},
	{"probe: p\nrepetitions: {min: 1}\n", "t.yaml:2:20: repetitions.min: expected an integer >= 2, got '1'"},
	{"probe: p\nrepetitions: {min: 20, max: 10}\n", "t.yaml:2:29: repetitions: max (10) is below min (20)"},
	{"probe: p\nrepetitions: {mni: 2}\n", "t.yaml:2:15: repetitions: unknown key 'mni' (did you mean 'min'?)"},
	{"probe: p\nrepetitions: {foo: 2}\n", "t.yaml:2:15: repetitions: unknown key 'foo' (expected min, max, target_ci, max_time)"},
	{"probe: p\nrepetitions: {target_ci: 0}\n", "t.yaml:2:26: repetitions.target_ci: expected a fraction above 0 and below 100% like 1%, got '0'"},
	{"probe: p\nrepetitions: {target_ci: 1x}\n", "t.yaml:2:26: repetitions.target_ci: expected a fraction like 0.25 or 25%, got '1x'"},
	{"probe: p\nrepetitions: {max_time: 0}\n", "t.yaml:2:25: repetitions.max_time: expected a time > 0, got '0'"},
	{"probe: p\nwarmup: -1\n", "t.yaml:2:9: warmup: expected an integer >= 0, got '-1'"},
	{"probe: p\nwarmup:\n", "t.yaml:2:8: warmup: expected an integer >= 0, got nothing"},
	{"probe: p\niterations: lots\n", "t.yaml:2:13: iterations: expected 'auto' or an integer >= 1, got 'lots'"},
	{"probe: p\niterations: 0\n", "t.yaml:2:13: iterations: expected 'auto' or an integer >= 1, got '0'"},
	{"probe: p\nmin_sample_time: 10xs\n", "t.yaml:2:18: min_sample_time: expected a time like 10ms or 2s, got '10xs'"},
	{"probe: p\nmin_sample_time: 0\n", "t.yaml:2:18: min_sample_time: expected a time > 0, got '0'"},
	{"probe: p\nmin_sample_time: [1ms]\n", "t.yaml:2:18: min_sample_time: expected a time like 10ms or 2s, got a list"},
	{"probe: p\ntimeout: 0s\n", "t.yaml:2:10: timeout: expected a time > 0, got '0s'"},
	/* outliers, estimate */
	{"probe: p\noutliers: tukee\n", "t.yaml:2:11: outliers: unknown rule 'tukee' (did you mean 'tukey'?)"},
	{"probe: p\noutliers: zzz\n", "t.yaml:2:11: outliers: unknown rule 'zzz' (expected none, tukey, mad, median_ratio or trim)"},
	{"probe: p\noutliers: [tukey]\n", "t.yaml:2:11: outliers: expected a rule name or a mapping {rule, k, lo, hi}, got a list"},
	{"probe: p\noutliers: {k: 3}\n", "t.yaml:2:11: outliers: missing required key 'rule'"},
	{"probe: p\noutliers: {rule: tukey, kk: 3}\n", "t.yaml:2:25: outliers: unknown key 'kk' (did you mean 'k'?)"},
	{"probe: p\noutliers: {rule: trim, k: 3}\n", "t.yaml:2:24: outliers: 'k' does not apply to rule 'trim'"},
	{"probe: p\noutliers: {rule: mad, lo: 1%}\n", "t.yaml:2:23: outliers: 'lo' does not apply to rule 'mad'"},
	{"probe: p\noutliers: {rule: tukey, k: 0}\n", "t.yaml:2:28: outliers.k: expected a number > 0, got '0'"},
	{"probe: p\noutliers: {rule: median_ratio, k: 0.5}\n", "t.yaml:2:35: outliers.k: median_ratio needs k > 1, got '0.5'"},
	{"probe: p\noutliers: {rule: trim, lo: 50%, hi: 50%}\n", "t.yaml:2:11: outliers: lo + hi must be below 100% (nothing would be left)"},
	{"probe: p\noutliers: {rule: trim, lo: -1%}\n", "t.yaml:2:28: outliers.lo: expected a fraction from 0 to below 100%, got '-1%'"},
	{"probe: p\nestimate: medain\n", "t.yaml:2:11: estimate: unknown estimator 'medain' (did you mean 'median'?)"},
	{"probe: p\nestimate: {name: median, p: 10%}\n", "t.yaml:2:26: estimate: 'p' does not apply to estimator 'median'"},
	{"probe: p\nestimate: {name: trimmed_mean, p: 60%}\n", "t.yaml:2:35: estimate.p: expected a fraction above 0 and below 50% like 10%, got '60%'"},
	{"probe: p\nestimate: {p: 10%}\n", "t.yaml:2:11: estimate: missing required key 'name'"},
	{"probe: p\nestimate: [mean]\n", "t.yaml:2:11: estimate: expected an estimator (mean, median, min, max or trimmed_mean) or a mapping {name, p}, got a list"},
	/* subtract, cpu, priority */
	{"probe: p\nsubtract: {a: b}\n", "t.yaml:2:11: subtract: expected an experiment name or a list of names, got a mapping"},
	{"probe: p\nsubtract: [a, {b: c}]\n", "t.yaml:2:15: subtract: expected an experiment name, got a mapping"},
	{"probe: p\nsubtract: [a, b, a]\n", "t.yaml:2:18: subtract: 'a' is listed twice"},
	{"probe: p\ncpu: first\n", "t.yaml:2:6: cpu: expected a CPU number >= 0 or 'none', got 'first'"},
	{"probe: p\ncpu: -1\n", "t.yaml:2:6: cpu: expected a CPU number >= 0 or 'none', got '-1'"},
	{"probe: p\npriority: -25\n", "t.yaml:2:11: priority: -25 is out of range [-20, 19]"},
	{"probe: p\npriority: high\n", "t.yaml:2:11: priority: expected an integer from -20 to 19, got 'high'"},
	/* predict, reference */
	{"probe: p\npredict: {value: 1ns}\n", "t.yaml:2:10: predict: expected a list of {where, value, why}, got a mapping"},
	{"probe: p\npredict: [1ns]\n", "t.yaml:2:11: predict: expected a mapping {where, value, why}, got '1ns'"},
	{"probe: p\npredict:\n  - {vaule: 1ns}\n", "t.yaml:3:6: predict: unknown key 'vaule' (did you mean 'value'?)"},
	{"probe: p\npredict:\n  - {why: x}\n", "t.yaml:3:5: predict: missing required key 'value' (or both 'hw' and 'sw', which it is the sum of)"},
	{"probe: p\npredict:\n  - {value: [1]}\n", "t.yaml:3:13: predict.value: expected a value like 1.2ns or a formula like \"l1_cycles / core_hz\", got a list"},
	{"probe: p\npredict:\n  - {value: 1, where: [size]}\n", "t.yaml:3:23: predict.where: expected a mapping {param: value}, got a list"},
	{"probe: p\npredict:\n  - {value: 1, where: {size: [1]}}\n", "t.yaml:3:30: predict.where.size: expected a single value, got a list"},
	{"probe: p\nreference: [a]\n", "t.yaml:2:12: reference: expected a mapping of machine names ('*' for any) to {value, where, tolerance}, got a list"},
	{"probe: p\nreference:\n  '*': 90ns\n", "t.yaml:3:8: reference.*: expected a mapping {value, where, tolerance}, got '90ns'"},
	{"probe: p\nreference:\n  '*': {tolerance: 5%}\n", "t.yaml:3:8: reference.*: missing required key 'value'"},
	{"probe: p\nreference:\n  '*': {value: 1, tolerance: [1%]}\n", "t.yaml:3:30: reference.*.tolerance: expected [low, high] like [-50%, +100%], got a list"},
	{"probe: p\nreference:\n  '*': {value: 1, tolerance: [10%, 20%]}\n", "t.yaml:3:30: reference.*.tolerance: expected low <= 0 <= high, got [10%, 20%]"},
	{"probe: p\nreference:\n  h1: {value: 1, tolerance: [-1%, 2x]}\n", "t.yaml:3:35: reference.h1.tolerance: expected a fraction like 0.25 or 25%, got '2x'"},
	{"probe: p\nreference:\n  h1: {value: 1}\n  h1: {value: 2}\n", "t.yaml:4:3: reference: duplicate key 'h1' (first at line 3)"},
	/* chart, findings */
	{"probe: p\nchart: size\n", "t.yaml:2:8: chart: expected a mapping {x, y, series, logx, logy, xlabel, ylabel, title, kind}, got 'size'"},
	{"probe: p\nchart: {x: size, serie: stride}\n", "t.yaml:2:18: chart: unknown key 'serie' (did you mean 'series'?)"},
	{"probe: p\nchart: {logx: 3}\n", "t.yaml:2:15: chart.logx: expected 0, 2, 10, true or false, got '3'"},
	{"probe: p\nchart: {kind: pie}\n", "t.yaml:2:15: chart.kind: expected line or bar, got 'pie'"},
	{"probe: p\nchart: {x: a b}\n", "t.yaml:2:12: chart.x: expected a parameter name, got 'a b'"},
	{"probe: p\nfindings: [knee]\n", "t.yaml:2:12: findings: unknown analysis 'knee' (did you mean 'knees'?)"},
	{"probe: p\nfindings: [zzzzz]\n", "t.yaml:2:12: findings: unknown analysis 'zzzzz' (expected knees, ratios or file_cache)"},
	{"probe: p\nfindings: {knees: 1}\n", "t.yaml:2:11: findings: expected a list like [knees, ratios], got a mapping"},
	/* the first error in the file wins */
	{"probe: p\nwarmup: x\ncpu: y\n", "t.yaml:2:9: warmup: expected an integer >= 0, got 'x'"},
};

/* ---- spec_bind errors ---------------------------------------------------- */

static const struct err_case bind_errors[] = {
	{"probe: mem_latency\nparams:\n  strid: 64\n", "t.yaml:3:3: params: unknown parameter 'strid' for probe 'mem_latency' (did you mean 'stride'?)"},
	{"probe: mem_latency\nparams:\n  qqqq: 64\n", "t.yaml:3:3: params: unknown parameter 'qqqq' for probe 'mem_latency' (it has size, stride, pattern, wait, ratio, flag, label)"},
	{"probe: mem_latency\nparams:\n  pattern: rnd\n", "t.yaml:3:12: params.pattern: 'rnd' is not one of random|sequential|stride"},
	{"probe: mem_latency\nparams:\n  stride: [64, 0]\n", "t.yaml:3:16: params.stride: 0 is out of range [1, 1048576]"},
	{"probe: mem_latency\nparams:\n  stride: 1.5\n", "t.yaml:3:11: params.stride: expected an integer, got '1.5'"},
	{"probe: mem_latency\nparams:\n  size: 4Kx\n", "t.yaml:3:9: params.size: expected a size like 4KiB or 1.5GB, got '4Kx'"},
	{"probe: mem_latency\nparams:\n  size: 2GiB\n", "t.yaml:3:9: params.size: 2GiB is out of range [1B, 1GiB]"},
	{"probe: mem_latency\nparams:\n  wait: 11s\n", "t.yaml:3:9: params.wait: 11s is out of range [0s, 10s]"},
	{"probe: mem_latency\nparams:\n  ratio: 150%\n", "t.yaml:3:10: params.ratio: 150% is out of range [0, 1]"},
	{"probe: mem_latency\nparams:\n  flag: maybe\n", "t.yaml:3:9: params.flag: expected true or false, got 'maybe'"},
	{"probe: mem_latency\nparams:\n  size: {from: 1MiB, to: 4KiB, factor: 2}\n", "t.yaml:3:16: params.size: empty range: from 1MiB is above to 4KiB"},
	{"probe: mem_latency\nparams:\n  size: {from: 4KiB, to: 2GiB, factor: 2}\n", "t.yaml:3:26: params.size: 2GiB is out of range [1B, 1GiB]"},
	{"probe: mem_latency\nparams:\n  wait: {from: 0s, to: 1s, factor: 2}\n", "t.yaml:3:16: params.wait: a geometric range needs from > 0, got '0s'"},
	{"probe: mem_latency\nparams:\n  wait: {from: 1ms, to: 1s, step: 0}\n", "t.yaml:3:35: params.wait.step: expected a step > 0, got '0'"},
	{"probe: mem_latency\nparams:\n  wait: {from: 1xs, to: 1s, step: 1ms}\n", "t.yaml:3:16: params.wait.from: expected a time like 10ms or 2s, got '1xs'"},
	{"probe: mem_latency\nparams:\n  ratio: {from: 0, to: 1, step: 0.00001}\n", "t.yaml:3:3: params.ratio: range expands to more than 10000 values"},
	{"probe: mem_latency\nparams:\n  pattern: {from: a, to: b, step: 1}\n", "t.yaml:3:3: params.pattern: a range needs a numeric parameter, 'pattern' is a string"},
	{"probe: mem_latency\nparams:\n  size: [4KiB, 8KiB, 16KiB]\n  stride: [64, 128]\nsweep: zip\n", "t.yaml:5:1: sweep: zip needs lists of equal length (size has 3, stride has 2)"},
	{"probe: mem_latency\npredict:\n  - {where: {siz: 4KiB}, value: 1ns}\n", "t.yaml:3:14: predict.where: unknown parameter 'siz' for probe 'mem_latency' (did you mean 'size'?)"},
	{"probe: mem_latency\npredict:\n  - {where: {size: 4Kx}, value: 1ns}\n", "t.yaml:3:20: predict.where.size: expected a size like 4KiB or 1.5GB, got '4Kx'"},
	{"probe: mem_latency\npredict:\n  - {value: 5GB}\n", "t.yaml:3:13: predict.value: expected a number in ns or a time like 10ns, got '5GB'"},
	{"probe: mem_latency\nreference:\n  '*': {value: 1GB/s}\n", "t.yaml:3:16: reference.*.value: expected a number in ns or a time like 10ns, got '1GB/s'"},
	{"probe: mem_latency\nreference:\n  '*': {value: 1ns, where: {pattern: rnd}}\n", "t.yaml:3:38: reference.*.where.pattern: 'rnd' is not one of random|sequential|stride"},
	{"probe: mem_latency\nchart: {x: sise}\n", "t.yaml:2:12: chart.x: unknown parameter 'sise' for probe 'mem_latency' (did you mean 'size'?)"},
	{"probe: mem_latency\nchart: {x: size, series: strid}\n", "t.yaml:2:26: chart.series: unknown parameter 'strid' for probe 'mem_latency' (did you mean 'stride'?)"},
};

static void test_errors(void)
{
	char err[1024];
	struct spec s;

	for (size_t i = 0; i < N(parse_errors); i++) {
		int rc;
		memset(&s, 0x5a, sizeof(s));	/* must be reset on failure */
		err[0] = '\0';
		rc = parse(parse_errors[i].text, &s, err, sizeof(err));
		ok(rc == -1, "parse error %zu fails", i);
		is_str(err, parse_errors[i].err, "  message");
		ok(s.file == NULL && s.params == NULL, "  *out is cleared");
		spec_free(&s);
	}
	for (size_t i = 0; i < N(bind_errors); i++) {
		err[0] = '\0';
		if (!ok(parse(bind_errors[i].text, &s, err, sizeof(err)) == 0, "bind case %zu parses", i)) {
			printf("#   %s\n", err);
			continue;
		}
		ok(spec_bind(&s, &tp, err, sizeof(err)) == -1, "  bind fails");
		is_str(err, bind_errors[i].err, "  message");
		ok(s.bound == NULL && s.axis == NULL, "  nothing left bound");
		spec_free(&s);
	}
	/* a parameter without a default must be given */
	ok(parse("probe: nodef\n", &s, err, sizeof(err)) == 0, "nodef parses");
	ok(spec_bind(&s, &nodef, err, sizeof(err)) == -1, "nodef: bind without peer fails");
	is_str(err, "t.yaml:1:8: missing parameter 'peer' (probe 'nodef' has no default for it)",
	       "  message");
	spec_free(&s);
}

static void test_defaults(void)
{
	char err[512];
	struct spec s;

	if (!ok(spec_parse("specs/ram_access.yaml", "probe: mem_latency\n", 19, &s, err, sizeof(err)) == 0,
		"minimal spec parses"))
		return;
	is_str(s.name, "ram_access", "name = file stem");
	is_str(s.title, "ram_access", "title = name");
	is_str(s.group, "other", "group = other");
	is_str(s.probe, "mem_latency", "probe");
	is_str(s.description, "", "description = \"\"");
	ok(s.probe_pos.line == 1 && s.probe_pos.col == 8, "probe_pos 1:8");
	ok(s.sweep == SWEEP_CROSS, "sweep = cross");
	ok(!s.reps.adaptive && s.reps.min == SPEC_DEFAULT_REPETITIONS &&
	   s.reps.max == SPEC_DEFAULT_REPETITIONS, "repetitions = 15");
	ok(s.warmup == SPEC_DEFAULT_WARMUP, "warmup = 2");
	ok(s.iterations == 0, "iterations = auto");
	is_num(s.min_sample_time, 0.010, 0, "min_sample_time = 10ms");
	ok(s.outliers == SPEC_DEFAULT_OUTLIERS, "outliers default");
	ok(s.estimate == SPEC_DEFAULT_ESTIMATE, "estimate default");
	ok(s.cpu == SPEC_DEFAULT_CPU, "cpu default");
	ok(!s.has_priority, "no priority");
	is_num(s.timeout, 120, 0, "timeout = 120s");
	ok(!s.chart.present && !s.n_predict && !s.n_reference && !s.n_findings && !s.n_subtract,
	   "no chart/predict/reference/findings/subtract");
	is_str(s.text, "probe: mem_latency\n", "text kept");
	is_str(s.sha256, "d3eda9a91fe8d301c3affec4d1866ce71b8332e3ad58f3838537799ccc8e13eb",
	       "sha256 of the text (sha256sum)");
	ok(spec_bind(&s, &tp, err, sizeof(err)) == 0, "binds");
	ok(s.bound == &tp && s.n_axis == 7, "7 axes");
	for (size_t i = 0; i < s.n_axis; i++)
		ok(s.axis_n[i] == 1 && !s.axis_swept[i] && strcmp(s.axis[i][0].text, tp_params[i].def) == 0,
		   "axis %s = default %s", tp_params[i].name, tp_params[i].def);
	is_num(s.axis[0][0].num, 4096, 0, "size default 4096 bytes");
	is_num(s.axis[3][0].num, 0.001, 1e-15, "wait default 1ms");
	spec_free(&s);
	spec_free(&s);	/* harmless twice */
}

static const char full_spec[] =
	"name: ram_access\n"
	"title: RAM access time\n"
	"group: memory\n"
	"probe: mem_latency\n"
	"description: |\n"
	"  Back-to-back dependent loads.\n"
	"params:\n"
	"  size:    {from: 4KiB, to: 64KiB, factor: 2}\n"
	"  stride:  [64, 4096]\n"
	"  pattern: random\n"
	"  wait:    {from: 1ms, to: 2ms, step: 250us}\n"
	"  ratio:   {from: -0, to: 0.3, step: 0.1}\n"
	"  flag:    [true, no]\n"
	"sweep: cross\n"
	"repetitions: {min: 10, max: 200, target_ci: 1%, max_time: 20s}\n"
	"warmup: 0\n"
	"iterations: 1000\n"
	"min_sample_time: 2ms\n"
	"outliers: {rule: tukey, k: 1.5}\n"
	"estimate: {name: trimmed_mean, p: 20%}\n"
	"subtract: timer_overhead\n"
	"cpu: none\n"
	"priority: -20\n"
	"timeout: 2m\n"
	"predict:\n"
	"  - {where: {size: 16KiB}, value: 1.2ns, why: \"L1 hit\"}\n"
	"  - {value: 0.1us}\n"
	"reference:\n"
	"  '*': {value: 90ns, where: {size: 32KiB}, tolerance: [-50%, +100%]}\n"
	"  box: {value: 80ns, tolerance: 10%}\n"
	"  other: {value: 70}\n"
	"chart: {x: size, series: stride, logx: 2, logy: true, ylabel: \"latency (ns)\", kind: bar}\n"
	"findings: [knees, ratios, knees]\n";

static void test_full(void)
{
	char err[512];
	struct spec s;
	static const char *const sizes[] = {"4KiB", "8KiB", "16KiB", "32KiB", "64KiB"};
	static const char *const waits[] = {"1ms", "1.25ms", "1.5ms", "1.75ms", "2ms"};

	if (!ok(parse(full_spec, &s, err, sizeof(err)) == 0, "full spec parses")) {
		printf("#   %s\n", err);
		return;
	}
	is_str(s.name, "ram_access", "name");
	is_str(s.title, "RAM access time", "title");
	is_str(s.group, "memory", "group");
	is_str(s.description, "Back-to-back dependent loads.\n", "description verbatim");
	ok(s.n_params == 6, "6 params as written");
	ok(s.params[0].form == SPEC_RANGE && s.params[0].geometric && !strcmp(s.params[0].by, "2"),
	   "size is a geometric range");
	ok(s.params[0].pos.line == 8 && s.params[0].pos.col == 3, "size key at 8:3");
	ok(s.params[1].form == SPEC_LIST && s.params[1].n_raw == 2, "stride is a list");
	ok(s.params[1].raw_pos[1].line == 9 && s.params[1].raw_pos[1].col == 17, "4096 at 9:17");
	ok(s.params[2].form == SPEC_SCALAR, "pattern is a scalar");
	ok(s.reps.adaptive && s.reps.min == 10 && s.reps.max == 200, "adaptive 10..200");
	is_num(s.reps.target_ci, 0.01, 1e-15, "target_ci 1%");
	is_num(s.reps.max_time, 20, 0, "max_time 20s");
	ok(s.warmup == 0 && s.iterations == 1000, "warmup 0, iterations 1000");
	is_num(s.min_sample_time, 0.002, 1e-15, "min_sample_time 2ms");
	ok(s.outliers == OUT_TUKEY, "tukey");
	is_num(s.out_k, 1.5, 0, "k 1.5");
	ok(s.estimate == EST_TRIMMED_MEAN, "trimmed_mean");
	is_num(s.est_p, 0.2, 1e-15, "p 20%");
	ok(s.n_subtract == 1 && !strcmp(s.subtract[0], "timer_overhead") &&
	   s.subtract_pos[0].line == 21, "subtract: single name");
	ok(s.cpu == -1, "cpu none");
	ok(s.has_priority && s.priority == -20, "priority -20");
	is_num(s.timeout, 120, 0, "timeout 2m");
	ok(s.n_predict == 2 && s.predict[0].n_where == 1 && !strcmp(s.predict[0].why, "L1 hit") &&
	   !strcmp(s.predict[1].why, ""), "predictions");
	ok(s.n_reference == 3 && !strcmp(s.reference[0].machine, "*") &&
	   !strcmp(s.reference[1].machine, "box"), "references");
	is_num(s.reference[0].tol_lo, -0.5, 1e-15, "tolerance lo -50%");
	is_num(s.reference[0].tol_hi, 1.0, 1e-15, "tolerance hi +100%");
	is_num(s.reference[1].tol_lo, -0.1, 1e-15, "tolerance 10% -> lo -10%");
	is_num(s.reference[1].tol_hi, 0.1, 1e-15, "tolerance 10% -> hi +10%");
	is_num(s.reference[2].tol_lo, -0.5, 0, "default tolerance lo");
	is_num(s.reference[2].tol_hi, 1.0, 0, "default tolerance hi");
	ok(s.chart.present && !strcmp(s.chart.x, "size") && !strcmp(s.chart.series, "stride") &&
	   s.chart.logx == 2 && s.chart.logy == 10 && !strcmp(s.chart.kind, "bar") &&
	   !strcmp(s.chart.ylabel, "latency (ns)") && !s.chart.y, "chart");
	ok(s.n_findings == 2 && !strcmp(s.findings[0], "knees") && !strcmp(s.findings[1], "ratios"),
	   "findings, duplicates dropped");

	if (!ok(spec_bind(&s, &tp, err, sizeof(err)) == 0, "full spec binds")) {
		printf("#   %s\n", err);
		spec_free(&s);
		return;
	}
	ok(s.axis_n[0] == 5, "size: 5 values");
	for (size_t i = 0; i < 5 && i < s.axis_n[0]; i++) {
		is_str(s.axis[0][i].text, sizes[i], "  size text");
		is_num(s.axis[0][i].num, 4096.0 * (1 << i), 0, "  size bytes");
	}
	ok(s.axis_n[1] == 2 && s.axis[1][1].num == 4096 && !strcmp(s.axis[1][1].text, "4096"),
	   "stride list");
	ok(s.axis_swept[0] && s.axis_swept[1] && !s.axis_swept[2], "swept flags");
	ok(s.axis_n[3] == 5, "wait: 5 values");
	for (size_t i = 0; i < 5 && i < s.axis_n[3]; i++)
		is_str(s.axis[3][i].text, waits[i], "  wait text");
	ok(s.axis_n[4] == 4, "ratio: 0, 0.1, 0.2, 0.3 (last kept despite rounding)");
	if (s.axis_n[4] == 4) {
		is_str(s.axis[4][0].text, "0", "  ratio 0");
		is_num(s.axis[4][3].num, 0.3, 1e-12, "  ratio 0.3");
	}
	ok(s.axis_n[5] == 2 && s.axis[5][0].num == 1 && s.axis[5][1].num == 0 &&
	   !strcmp(s.axis[5][1].text, "no"), "flag list keeps text as written");
	ok(s.params[0].index == 0 && s.params[5].index == 5, "param -> table index");
	ok(s.params[0].n_vals == 5, "param vals filled");
	is_num(s.predict[0].value, 1.2, 1e-12, "predict value in ns");
	is_num(s.predict[1].value, 100, 1e-9, "predict 0.1us = 100ns");
	ok(s.predict[0].where[0].bound, "where bound");
	is_num(s.predict[0].where[0].num, 16384, 0, "where size = 16KiB");
	is_num(s.reference[2].value, 70, 0, "bare reference value in probe unit");
	/* binding again is allowed and gives the same */
	ok(spec_bind(&s, &tp, err, sizeof(err)) == 0 && s.axis_n[0] == 5, "re-bind");
	spec_free(&s);
}

static void test_ranges(void)
{
	static const struct {
		const char *param, *range;
		size_t n;
		const char *first, *last;
	} cases[] = {
		{"size", "{from: 1KiB, to: 1MiB, factor: 2}", 11, "1KiB", "1MiB"},
		{"size", "{from: 1KiB, to: 1000KiB, factor: 2}", 10, "1KiB", "512KiB"},
		{"size", "{from: 1KiB, to: 3KiB, factor: 1.5}", 3, "1KiB", "2.25KiB"},
		{"size", "{from: 4KiB, to: 16KiB, step: 4KiB}", 4, "4KiB", "16KiB"},
		{"size", "{from: 1, to: 1, step: 1}", 1, "1B", "1B"},
		{"stride", "{from: 1, to: 10, factor: 1.5}", 5, "1", "8"},	/* 1 2 3 5 8 (1.5 and 2.25 round) */
		{"stride", "{from: 1, to: 1000000, factor: 10}", 7, "1", "1000000"},
		{"stride", "{from: 1, to: 9, step: 2}", 5, "1", "9"},
		{"wait", "{from: 1us, to: 1ms, factor: 10}", 4, "1us", "1ms"},
		{"wait", "{from: 0s, to: 0.3s, step: 0.1s}", 4, "0s", "300ms"},
		{"ratio", "{from: 0.1, to: 0.9, step: 0.1}", 9, "0.1", "0.9"},
		{"ratio", "{from: 0, to: 1, step: 0.001}", 1001, "0", "1"},
		{"ratio", "{from: 0, to: 0.9999, step: 0.0001}", 10000, "0", "0.9999"},
	};
	char text[256], err[512];
	struct spec s;

	for (size_t i = 0; i < N(cases); i++) {
		snprintf(text, sizeof(text), "probe: mem_latency\nparams:\n  %s: %s\n", cases[i].param,
			 cases[i].range);
		if (parse(text, &s, err, sizeof(err)) < 0 || spec_bind(&s, &tp, err, sizeof(err)) < 0) {
			ok(0, "range %s: %s", cases[i].range, err);
			spec_free(&s);
			continue;
		}
		ok(s.params[0].n_vals == cases[i].n, "range %s %s: %zu values (got %zu)", cases[i].param,
		   cases[i].range, cases[i].n, s.params[0].n_vals);
		is_str(s.params[0].vals[0].text, cases[i].first, "  first");
		is_str(s.params[0].vals[s.params[0].n_vals - 1].text, cases[i].last, "  last");
		spec_free(&s);
	}
}

static void test_overrides(void)
{
	static const struct {
		const char *set, *err;	/* err NULL = must succeed */
	} cases[] = {
		{"params.stride=64", NULL},
		{"params.stride=[64, 4096]", NULL},
		{"params.size={from: 4KiB, to: 16KiB, factor: 2}", NULL},
		{"repetitions=5", NULL},
		{"repetitions.max=50", NULL},
		{"cpu=none", NULL},
		{"warmup=0", NULL},
		{"chart.x=size", NULL},
		{"repetitons=5", "unknown key 'repetitons' (did you mean 'repetitions'?)"},
		{"repetitions=many", "repetitions: expected an integer >= 1 or a mapping {min, max, target_ci, max_time}, got 'many'"},
		{"warmup=", "warmup: expected an integer >= 0, got nothing"},
		{"outliers.kk=3", "outliers: unknown key 'kk' (did you mean 'k'?)"},
		{"params.stride=[64,", "yaml: did not find expected node content while parsing a flow node"},
		{"noequals", "expected KEY=VALUE like params.stride=64, got 'noequals'"},
		{"=5", "expected KEY=VALUE like params.stride=64, got '=5'"},
		{"a..b=1", "bad key 'a..b'"},
		{"warmup.x=1", "cannot set 'warmup.x': 'warmup' is not a mapping"},
		{"params.stride=[]", "params.stride: empty list"},
		/* checked against the probe because the spec is bound */
		{"params.strid=64", "params: unknown parameter 'strid' for probe 'mem_latency' (did you mean 'stride'?)"},
		{"params.stride=0", "params.stride: 0 is out of range [1, 1048576]"},
		/* an error at a node of the file keeps its position */
		{"outliers.rule=trim", "t.yaml:3:25: outliers: 'k' does not apply to rule 'trim'"},
	};
	const char *base = "probe: mem_latency\nwarmup: 3\noutliers: {rule: tukey, k: 3}\n";
	char err[512];
	struct spec s;

	for (size_t i = 0; i < N(cases); i++) {
		if (parse(base, &s, err, sizeof(err)) < 0 || spec_bind(&s, &tp, err, sizeof(err)) < 0) {
			ok(0, "base parses: %s", err);
			return;
		}
		err[0] = '\0';
		if (cases[i].err) {
			ok(spec_override(&s, cases[i].set, err, sizeof(err)) == -1, "--set %s fails",
			   cases[i].set);
			is_str(err, cases[i].err, "  message");
			ok(s.warmup == 3 && s.n_overrides == 0 && s.bound == &tp, "  spec unchanged");
		} else {
			ok(spec_override(&s, cases[i].set, err, sizeof(err)) == 0, "--set %s%s%s",
			   cases[i].set, *err ? ": " : "", err);
			ok(s.bound == &tp && s.n_overrides == 1, "  still bound, override recorded");
		}
		spec_free(&s);
	}

	/* values land where they should, several in a row */
	if (parse(base, &s, err, sizeof(err)) == 0) {
		ok(spec_override(&s, "params.stride=[64, 4096]", err, sizeof(err)) == 0 &&
		   spec_override(&s, "repetitions=5", err, sizeof(err)) == 0 &&
		   spec_override(&s, "cpu=none", err, sizeof(err)) == 0 &&
		   spec_override(&s, "warmup=0", err, sizeof(err)) == 0 &&
		   spec_override(&s, "params.stride=[8, 16, 32]", err, sizeof(err)) == 0,
		   "five overrides on an unbound spec");
		ok(s.reps.min == 5 && s.reps.max == 5 && s.cpu == -1 && s.warmup == 0, "  values set");
		ok(s.n_params == 1 && s.params[0].n_raw == 3 && !strcmp(s.params[0].raw[2], "32"),
		   "  the last override of a key wins");
		ok(s.n_overrides == 5, "  overrides recorded");
		ok(s.params[0].pos.line == 0 && s.params[0].pos.col == 1, "  the key came from override 1");
		ok(s.params[0].raw_pos[0].line == 0 && s.params[0].raw_pos[0].col == 5,
		   "  the values from override 5");
		is_str(s.text, base, "  text is the file's");
		/* a bind error about an override's value names it */
		ok(spec_override(&s, "params.strid=1", err, sizeof(err)) == 0, "  unknown param accepted unbound");
		ok(spec_bind(&s, &tp, err, sizeof(err)) == -1, "  bind fails");
		is_str(err, "--set t.params.strid=1: params: unknown parameter 'strid' for probe 'mem_latency' (did you mean 'stride'?)",
		       "  bind message names the override");
		spec_free(&s);
	}
	/* overrides re-check cross-key rules: zip lengths */
	if (parse("probe: mem_latency\nparams:\n  size: [1, 2]\n  stride: [1, 2]\nsweep: zip\n", &s, err,
		  sizeof(err)) == 0 && spec_bind(&s, &tp, err, sizeof(err)) == 0) {
		ok(spec_override(&s, "params.stride=[1, 2, 3]", err, sizeof(err)) == -1, "zip re-checked");
		is_str(err, "sweep: zip needs lists of equal length (size has 2, stride has 3)",
		       "  message names the override (the caller prefixes it)");
		spec_free(&s);
	}
	/* ... and so does a bind after the override */
	if (parse("probe: mem_latency\nparams:\n  size: [1, 2]\n  stride: [1, 2]\nsweep: zip\n", &s, err,
		  sizeof(err)) == 0) {
		ok(spec_override(&s, "params.stride=[1, 2, 3]", err, sizeof(err)) == 0, "zip override unbound");
		ok(spec_bind(&s, &tp, err, sizeof(err)) == -1, "  bind fails");
		is_str(err, "--set t.params.stride=[1, 2, 3]: sweep: zip needs lists of equal length (size has 2, stride has 3)",
		       "  message names the override");
		spec_free(&s);
	}
	/* a zip mismatch in the file itself points at the sweep key */
	if (parse("probe: mem_latency\nsweep: zip\nparams:\n  size: [1, 2]\n  stride: {from: 1, to: 3, step: 1}\n",
		  &s, err, sizeof(err)) == 0) {
		ok(spec_bind(&s, &tp, err, sizeof(err)) == -1, "zip mismatch list vs range");
		is_str(err, "t.yaml:2:1: sweep: zip needs lists of equal length (size has 2, stride has 3)",
		       "  message at the sweep key");
		spec_free(&s);
	}
}

static void test_suggest(void)
{
	static const char *const keys[] = {"name", "title", "repetitions", "warmup", "iterations",
					   "min_sample_time", "k", "max", "min", "cpu"};
	static const struct {
		const char *word, *want;
	} cases[] = {
		{"repetitons", "repetitions"},
		{"repetitionss", "repetitions"},
		{"warmpu", "warmup"},	/* swapped letters */
		{"WARMUP", "warmup"},
		{"tilte", "title"},
		{"iteration", "iterations"},
		{"rep", "repetitions"},
		{"min_sample", "min_sample_time"},
		{"kk", "k"},
		{"mx", "max"},
		{"cpus", "cpu"},
		{"xyz", NULL},
		{"zzzzzzzz", NULL},
		{"wrmp", "warmup"},	/* 2 edits */
		{"cpx", "cpu"},
		{"cxx", NULL},	/* 2 edits away and short: too far */
		{"", NULL},
	};

	for (size_t i = 0; i < N(cases); i++) {
		char name[80];
		snprintf(name, sizeof(name), "spec_suggest(\"%s\")", cases[i].word);
		is_str(spec_suggest(cases[i].word, keys, N(keys)), cases[i].want, name);
	}
}

/* A choice parameter's rows: found by name, listed as "a|b|c". */
static void test_choices(void)
{
	static const struct probe_choice rows[] = {
		{"random", 7}, {"sequential", -2}, {"stride", 0}, {NULL, 0},
	};
	const struct probe_choice *c;
	char buf[64];

	c = spec_choice(rows, "sequential");
	ok(c && c->value == -2, "spec_choice finds a row by name, with its value");
	ok(!spec_choice(rows, "rnd") && !spec_choice(rows, "") && !spec_choice(NULL, "random"),
	   "spec_choice: no such row, or no rows");
	is_str(spec_choices_text(rows, buf, sizeof buf), "random|sequential|stride",
	       "spec_choices_text joins the names with '|'");
	is_str(spec_choices_text(rows, buf, 10), "random|se", "spec_choices_text cuts to fit");
	is_str(spec_choices_text(NULL, buf, sizeof buf), "", "spec_choices_text: no rows");
}

static void test_load(void)
{
	char err[512], path[] = "/tmp/test_spec_XXXXXX";
	struct spec s;
	int fd;

	ok(spec_load("/nonexistent/x.yaml", &s, err, sizeof(err)) == -1, "load of a missing file fails");
	is_str(err, "/nonexistent/x.yaml: cannot read: No such file or directory", "  message");
	ok(spec_load("/", &s, err, sizeof(err)) == -1, "load of a directory fails");
	is_str(err, "/: cannot read: Is a directory", "  message");
	fd = mkstemp(path);
	if (!ok(fd >= 0, "temp file"))
		return;
	ok(write(fd, "probe: mem_latency\nwarmup: 7\n", 29) == 29, "written");
	close(fd);
	ok(spec_load(path, &s, err, sizeof(err)) == 0 && s.warmup == 7, "load reads the file");
	ok(strncmp(s.name, "test_spec_", 10) == 0, "name from the stem");
	is_str(s.file, path, "file kept as given");
	spec_free(&s);
	unlink(path);
}

static void test_sha(void)
{
	char err[256];
	struct spec s;

	/* sha256("probe: p\n") computed with sha256sum */
	if (parse("probe: p\n", &s, err, sizeof(err)) == 0) {
		is_str(s.sha256, "4cfea8956cef7fd4e5658f106adf7f3ec7a132b9706201097dda65798b602339", "sha256 of the text");
		ok(strlen(s.sha256) == 64, "64 hex digits");
		spec_free(&s);
	}
}

int main(void)
{
	test_errors();
	test_defaults();
	test_full();
	test_ranges();
	test_overrides();
	test_suggest();
	test_choices();
	test_load();
	test_sha();
	return done_testing();
}
