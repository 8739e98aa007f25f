/*
 * fuzz_spec.c - the spec stage on hostile text: spec_parse on arbitrary
 * YAML, then up to four spec_override "key=value" assignments, then
 * spec_bind against a fixed parameter table (one row of every type, as the
 * `params` fixture probe has; a spec naming `command` binds to a small
 * command-probe table so that `command:` placeholders are checked too).
 *
 * Checked for every input: each call returns 0 or -1; -1 comes with a
 * non-empty message free of control characters (it is printed to a
 * terminal); a failed override leaves the spec as it was; a bound spec has
 * one non-empty value list per table row; spec_free frees it all (ASan's
 * leak check); no input takes more than a second (plain mode; libFuzzer
 * has -timeout).
 *
 * Plain mode (built by `make unit` as $(BUILD)/tests/test_fuzz_spec, run
 * by `make test` in the gcc and ASan+UBSan builds):
 *     test_fuzz_spec [ITERATIONS [SEED]]          (default 20000, 1)
 * mutates the .yaml files of specs/, tests/fixtures/specs/ and tests/fuzz/regress/spec/
 * (read from the working directory, the project root; a few built-in specs
 * when they are absent) and prints one TAP line.
 * libFuzzer mode (-DFUZZ_LIBFUZZER): the input is the YAML text, then up
 * to four NUL-separated overrides.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "spec/spec.h"
#include "fuzz_util.h"

struct cfg {
	int64_t count;
	uint64_t size, stride;
	double wait, ratio;
	int mode, flag;
	const char *label;
};

static const struct probe_param table[] = {
	PROBE_PARAM_INT(struct cfg, count, "10", "an integer", 1, 1000),
	PROBE_PARAM_SIZE(struct cfg, size, "4KiB", "a size", 1, 1024.0 * 1024 * 1024),
	PROBE_PARAM_SIZE(struct cfg, stride, "64", "a stride", 0, 0),
	PROBE_PARAM_TIME(struct cfg, wait, "1ms", "a duration", 0, 10),
	PROBE_PARAM_DOUBLE(struct cfg, ratio, "0.5", "a fraction", 0, 1),
	PROBE_PARAM_CHOICE(struct cfg, mode, "a", "a choice", { "a", 0 }, { "b", 1 }, { "random", 2 },
			   { "sequential", 3 }),
	PROBE_PARAM_BOOL(struct cfg, flag, "false", "a flag"),
	PROBE_PARAM_STRING(struct cfg, label, "x", "any text"),
	PROBE_PARAM_END,
};

static const struct probe fz_probe = {
	.abi = PROBE_ABI_VERSION, .name = "params", .version = "1", .summary = "fuzz",
	.unit = "ns", .params = table, .config_size = sizeof(struct cfg),
};

struct ccfg { int64_t n; const char *file; };

static const struct probe_param ctable[] = {
	PROBE_PARAM_INT(struct ccfg, n, "1", "a count", 0, 1000000),
	PROBE_PARAM_STRING(struct ccfg, file, "/dev/null", "a file"),
	PROBE_PARAM_END,
};

static const struct probe fz_command = {
	.abi = PROBE_ABI_VERSION, .name = SPEC_COMMAND_PROBE, .version = "1", .summary = "fuzz",
	.unit = "s", .params = ctable, .config_size = sizeof(struct ccfg),
};

static int fails;

#define FAIL(...) do { printf("# " __VA_ARGS__); printf("\n"); fails++; } while (0)

static size_t table_rows(const struct probe *p)
{
	size_t n = 0;

	while (p->params[n].name)
		n++;
	return n;
}

static void check_bound(const struct spec *s, const struct probe *p)
{
	if (s->bound != p || s->n_axis != table_rows(p)) {
		FAIL("bind returned 0 with %zu axes for %zu rows", s->n_axis, table_rows(p));
		return;
	}
	for (size_t i = 0; i < s->n_axis; i++) {
		if (s->axis_n[i] == 0)
			FAIL("bound axis '%s' is empty", p->params[i].name);
		for (size_t k = 0; k < s->axis_n[i]; k++)
			if (!s->axis[i][k].text)
				FAIL("bound axis '%s' value %zu has no text", p->params[i].name, k);
	}
}

/* yaml: the spec text (NUL-terminated, len bytes); ov: n assignments. */
static void check(const char *yaml, size_t len, const char *const *ov, size_t n)
{
	struct spec s;
	char err[1024];

	memset(&s, 0, sizeof s);
	err[0] = '\0';
	int rc = spec_parse("fuzz.yaml", yaml, len, &s, err, sizeof err);
	if (rc != 0) {
		if (rc != -1 || fz_bad_msg(err, sizeof err))
			FAIL("spec_parse returned %d with a bad message '%.60s'", rc, err);
		spec_free(&s);
		return;
	}
	if (!s.name || !s.title || !s.group || !s.probe || !s.description)
		FAIL("spec_parse returned 0 with a NULL name/title/group/probe/description");
	for (size_t i = 0; i < n; i++) {
		size_t before = s.n_overrides;

		err[0] = '\0';
		rc = spec_override(&s, ov[i], err, sizeof err);
		if (rc == 0 && s.n_overrides != before + 1)
			FAIL("override '%.40s' accepted but not recorded", ov[i]);
		if (rc != 0 && (rc != -1 || fz_bad_msg(err, sizeof err) || s.n_overrides != before))
			FAIL("override '%.40s': rc %d, message '%.60s', spec changed: %d", ov[i], rc,
			     err, s.n_overrides != before);
	}
	const struct probe *p = s.probe && strcmp(s.probe, SPEC_COMMAND_PROBE) == 0 ?
		&fz_command : &fz_probe;
	err[0] = '\0';
	rc = spec_bind(&s, p, err, sizeof err);
	if (rc == 0)
		check_bound(&s, p);
	else if (rc != -1 || fz_bad_msg(err, sizeof err))
		FAIL("spec_bind returned %d with a bad message '%.60s'", rc, err);
	spec_free(&s);
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *ov[4];
	size_t n = 0, yl;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	yl = strlen(buf);
	for (char *p = buf + yl; p < buf + size && n < 4; p += strlen(p))
		ov[n++] = ++p;
	check(buf, yl, (const char *const *)ov, n);
	free(buf);
	if (fails)
		abort();
	return 0;
}
#else
/* Built in, for when the tree's specs are not where the harness runs. */
static const char *const builtin[] = {
	"probe: params\n",
	"name: every_key\ntitle: \"T\"\ngroup: g\nprobe: params\ndescription: |\n  text\n"
	"params:\n  size: {from: 4KiB, to: 1MiB, factor: 4}\n  count: [1, 10, 100]\n"
	"  wait: {from: 1ms, to: 3ms, step: 1ms}\n  ratio: 25%\n  mode: b\n  flag: true\n"
	"sweep: cross\nrepetitions: {min: 5, max: 50, target_ci: 2%, max_time: 10s}\nwarmup: 1\n"
	"iterations: auto\nmin_sample_time: 1ms\noutliers: {rule: tukey, k: 3}\n"
	"estimate: {name: trimmed_mean, p: 10%}\nsubtract: []\ncpu: none\npriority: 0\ntimeout: 30s\n"
	"predict:\n  - {where: {size: 4KiB}, value: 1.2ns, why: \"w\"}\n"
	"reference:\n  '*': {value: 1ns, where: {size: 4KiB}, tolerance: [-50%, +100%]}\n"
	"chart: {x: size, series: count, logx: 2, kind: line}\nfindings: [knees]\n"
	"quick: {params.size: \"[4KiB, 8KiB]\"}\n",
	"probe: params\nsweep: zip\nparams:\n  size: [4KiB, 8KiB]\n  count: [1, 2]\n",
	"probe: command\ncommand:\n  argv: [cat, \"{file}\"]\nparams:\n  n: [1, 2]\n",
	"a: &x [1, *x]\nprobe: params\n",
	"probe: params\npredict:\n  - hw: \"l1_cycles / core_hz * (size - 4KiB) / -(2 + 3GHz)\"\n"
	"    sw: \"@tcp_rtt[target=remote, size=64] * 1.5 + 100ns\"\n    value: \"1GB/s\"\n",
};

static const char *const tokens[] = {
	"\n", " ", ": ", "- ", "[", "]", "{", "}", ", ", "'", "\"", "&a ", "*a", "<<: ", "!!str ",
	"|\n  ", ">\n  ", "#", "%", "\t", "\\", "~", "null", "true", "1e300", "-1", "0",
	"4KiB", "1.5GB", "10ms", "800ns", "50%", "nan", "inf", "0x10", "auto", "none",
	"params", "size", "count", "wait", "ratio", "mode", "flag", "label", "from", "to",
	"factor", "step", "where", "value", "repetitions", "warmup", "predict", "reference",
	"chart", "quick", "sweep", "zip", "cross", "outliers", "estimate", "subtract",
	"command", "argv", "shell", "{n}", "{file}", "{{", "}}", "beside", "\xc3\xa9", "\xff",
	"\x1b[31m", "\r", "---\n", "...\n",
	"hw: ", "sw: ", "\"l1_cycles / core_hz\"", "@tcp_rtt[size=64]", " * ", " / ", "(", ")",
	"3GHz", "core_hz", "syscall_cycles",
};

static const char *const ov_keys[] = {
	"params.size", "params.count", "params.mode", "params.flag", "params.nope", "repetitions",
	"warmup", "cpu", "timeout", "outliers", "estimate", "chart.x", "sweep", "name", "probe",
	"predict", "quick", "params", "subtract", "params.size.from", "command.argv",
};

static const char *const ov_vals[] = {
	"64", "[64, 4096]", "{from: 1KiB, to: 1MiB, factor: 2}", "none", "5", "-1", "1e300s",
	"[getpid]]]", "{", "", "random", "true", "&a [*a]", "\x1b[2J", "x\ny", "[]", "{}",
	"{rule: mad, k: 2}", "zip", "b", "'quoted'", "\xff\xfe",
};

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000, done = 0;
	struct fz_corpus corpus = {0}, regress = {0};
	static char buf[16384], ovbuf[4][256];
	double t0 = fz_now(), worst = 0;

	fz_rng = argc > 2 ? strtoull(argv[2], NULL, 10) | 1 : 1;
	printf("1..1\n");
	fz_add_dir(&corpus, "specs", ".yaml", sizeof buf - 1);
	fz_add_dir(&corpus, "tests/fixtures/specs", ".yaml", sizeof buf - 1);
	fz_add_dir(&regress, "tests/fuzz/regress/spec", "", 1 << 20);
	size_t from_tree = corpus.n;
	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
		fz_add(&corpus, builtin[i], strlen(builtin[i]));
	/* every seed and regression input as it is, then mutations */
	for (size_t i = 0; i < regress.n; i++) {
		size_t yl = strlen(regress.text[i]), n = 0;
		const char *ov[4];
		for (const char *p = regress.text[i] + yl; p < regress.text[i] + regress.len[i] && n < 4;
		     p += strlen(p))
			ov[n++] = ++p;
		check(regress.text[i], yl, ov, n);
	}
	for (size_t i = 0; i < corpus.n; i++)
		check(corpus.text[i], corpus.len[i], NULL, 0);
	for (; done < iters && fails < 10; done++) {
		size_t len = fz_mutate(&corpus, tokens, sizeof tokens / sizeof *tokens, buf, sizeof buf);
		const char *ov[4];
		size_t n = fz_next() % 3 ? 0 : 1 + fz_next() % 4;

		for (size_t k = 0; k < n; k++) {
			const char *v = ov_vals[fz_next() % (sizeof ov_vals / sizeof *ov_vals)];
			snprintf(ovbuf[k], sizeof ovbuf[k], "%s=%s",
				 ov_keys[fz_next() % (sizeof ov_keys / sizeof *ov_keys)], v);
			if (fz_next() % 4 == 0)		/* and now and then a broken byte */
				ovbuf[k][fz_next() % strlen(ovbuf[k])] = (char)(fz_next() | 1);
			ov[k] = ovbuf[k];
		}
		double t = fz_now();
		check(buf, len, ov, n);
		t = fz_now() - t;
		if (t > worst)
			worst = t;
		if (t > 1.0)
			FAIL("input %lu took %.1f s (%zu bytes)", done, t, len);
	}
	printf("%s 1 - fuzz_spec: %zu seeds (%zu from the tree), %zu regression inputs, "
	       "%lu mutations parsed, overridden, bound (%.1f s, slowest %.3f s)\n",
	       fails ? "not ok" : "ok", corpus.n, from_tree, regress.n, done, fz_now() - t0, worst);
	fz_free(&corpus);
	fz_free(&regress);
	return fails ? 1 : 0;
}
#endif
