/*
 * test_plan.c - plan.c: sweep expansion (cross, zip), the --quick cut, and
 * the subtract: ordering with its errors.  Table-driven: each case is a
 * spec text, bound to a probe defined here, and the points it must expand
 * to, written as "a=1,b=x" strings in plan order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "spec/spec.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int t_setup(void *st, const void *cfg, const struct probe_host *h, char *err,
		   size_t errlen)
{
	(void)st, (void)cfg, (void)h, (void)err, (void)errlen;
	return 0;
}

static int t_sample(void *st, uint64_t it, const struct probe_host *h,
		    struct probe_sample *out, char *err, size_t errlen)
{
	(void)st, (void)it, (void)h, (void)err, (void)errlen;
	out->value = 1;
	return 0;
}

static void t_teardown(void *st)
{
	(void)st;
}

static const struct probe_choice t_modes[] = { {"a", 0}, {"b", 1}, {"c", 2}, {NULL, 0} };

static const struct probe_param t_params[] = {
	{"size", PROBE_SIZE, "4KiB", "working set", NULL, 1, 1e12, 0, 0, NULL},
	{"stride", PROBE_INT, "64", "bytes between loads", NULL, 1, 1 << 20, 0, 0, NULL},
	{"mode", PROBE_STRING, "a", "mode", NULL, 0, 0, 0, 0, t_modes},
	{NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0, NULL},
};

static const struct probe t_probe = {
	.abi = PROBE_ABI_VERSION, .name = "t", .version = "1", .summary = "test", .unit = "ns",
	.params = t_params, .setup = t_setup, .sample = t_sample, .teardown = t_teardown,
};

/* "size=4KiB,stride=64,mode=a" for a point. */
static void point_text(const struct spec *s, const struct plan_point *pt, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t a = 0; a < s->n_axis; a++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s=%s", a ? "," : "", t_params[a].name,
			 pt->vals[a]->text);
	}
}

static int load(const char *text, struct spec *s)
{
	char err[1024];
	if (spec_parse("t.yaml", text, strlen(text), s, err, sizeof err) < 0 ||
	    spec_bind(s, &t_probe, err, sizeof err) < 0) {
		printf("# %s\n", err);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name, *text;
	int quick;
	const char *points[12];		/* NULL-terminated */
} cases[] = {
	{"no params: one point of defaults", "probe: t\n", 0,
	 {"size=4KiB,stride=64,mode=a", NULL}},
	{"a scalar is fixed", "probe: t\nparams: {mode: c}\n", 0,
	 {"size=4KiB,stride=64,mode=c", NULL}},
	{"cross: the first table row varies slowest",
	 "probe: t\nparams: {size: [1KiB, 2KiB], mode: [a, b]}\n", 0,
	 {"size=1KiB,stride=64,mode=a", "size=1KiB,stride=64,mode=b",
	  "size=2KiB,stride=64,mode=a", "size=2KiB,stride=64,mode=b", NULL}},
	{"cross of three lists",
	 "probe: t\nparams: {size: [1KiB, 2KiB], stride: [8, 16], mode: [a, c]}\n", 0,
	 {"size=1KiB,stride=8,mode=a", "size=1KiB,stride=8,mode=c", "size=1KiB,stride=16,mode=a",
	  "size=1KiB,stride=16,mode=c", "size=2KiB,stride=8,mode=a", "size=2KiB,stride=8,mode=c",
	  "size=2KiB,stride=16,mode=a", "size=2KiB,stride=16,mode=c", NULL}},
	{"zip pairs the i-th values; unswept axes repeat",
	 "probe: t\nsweep: zip\nparams: {size: [1KiB, 2KiB, 4KiB], stride: [8, 16, 32]}\n", 0,
	 {"size=1KiB,stride=8,mode=a", "size=2KiB,stride=16,mode=a", "size=4KiB,stride=32,mode=a",
	  NULL}},
	{"a geometric range expands in order",
	 "probe: t\nparams: {size: {from: 1KiB, to: 8KiB, factor: 2}}\n", 0,
	 {"size=1KiB,stride=64,mode=a", "size=2KiB,stride=64,mode=a", "size=4KiB,stride=64,mode=a",
	  "size=8KiB,stride=64,mode=a", NULL}},
	{"--quick keeps first, last and evenly spaced values (at most 4)",
	 "probe: t\nparams: {stride: {from: 10, to: 100, step: 10}}\n", 1,
	 {"size=4KiB,stride=10,mode=a", "size=4KiB,stride=40,mode=a", "size=4KiB,stride=70,mode=a",
	  "size=4KiB,stride=100,mode=a", NULL}},
	{"--quick leaves short sweeps alone",
	 "probe: t\nparams: {mode: [a, b, c]}\n", 1,
	 {"size=4KiB,stride=64,mode=a", "size=4KiB,stride=64,mode=b", "size=4KiB,stride=64,mode=c",
	  NULL}},
};

static void test_expand(void)
{
	for (size_t c = 0; c < N(cases); c++) {
		struct spec s;
		struct plan_point *pts = NULL;
		size_t n = 0, want = 0;
		char err[512];
		if (!ok(load(cases[c].text, &s) == 0, "%s: spec loads", cases[c].name))
			continue;
		if (cases[c].quick)
			plan_quick(&s);
		if (!ok(plan_points(&s, &pts, &n, err, sizeof err) == 0, "%s: expands", cases[c].name)) {
			spec_free(&s);
			continue;
		}
		while (cases[c].points[want])
			want++;
		ok(n == want, "%s: %zu points (want %zu)", cases[c].name, n, want);
		for (size_t i = 0; i < n && i < want; i++) {
			char got[256], label[300];
			point_text(&s, &pts[i], got, sizeof got);
			snprintf(label, sizeof label, "%s: point %zu", cases[c].name, i);
			is_str(got, cases[c].points[i], label);
			ok(pts[i].index == i, "%s: point %zu has index %zu", cases[c].name, i, pts[i].index);
		}
		plan_points_free(pts, n);
		spec_free(&s);
	}
}

static void test_quick_repetitions(void)
{
	struct spec s;
	if (!ok(load("probe: t\nrepetitions: {min: 10, max: 50, target_ci: 1%}\nwarmup: 5\n"
		     "min_sample_time: 20ms\n", &s) == 0, "quick: spec loads"))
		return;
	plan_quick(&s);
	ok(!s.reps.adaptive && s.reps.min == 3 && s.reps.max == 3, "quick: 3 fixed repetitions");
	ok(s.warmup == 1, "quick: 1 warmup");
	is_num(s.min_sample_time, 0.001, 1e-12, "quick: 1 ms samples");
	spec_free(&s);
}

/* Order: names[i] with its subtract list; want the run order, or an error. */
static const struct {
	const char *name;
	const char *specs[4];		/* texts; the name is "e<i>" */
	const char *order;		/* "e1 e0", or NULL for an error */
	const char *error;
} orders[] = {
	{"no dependencies: file order", {"probe: t\n", "probe: t\n", NULL}, "e0 e1", NULL},
	{"a dependency runs first", {"probe: t\nsubtract: [e1]\n", "probe: t\n", NULL}, "e1 e0", NULL},
	{"a chain", {"probe: t\nsubtract: [e1]\n", "probe: t\nsubtract: [e2]\n", "probe: t\n", NULL},
	 "e2 e1 e0", NULL},
	{"a missing dependency is an error at its position",
	 {"probe: t\nsubtract: [nosuch]\n", NULL}, NULL,
	 "e0.yaml:3:12: subtract: experiment 'nosuch' is not part of this run"},
	{"a cycle is an error", {"probe: t\nsubtract: [e1]\n", "probe: t\nsubtract: [e0]\n", NULL},
	 NULL, "subtract: cycle through experiment"},
};

static void test_order(void)
{
	for (size_t c = 0; c < N(orders); c++) {
		struct spec s[4], *sp[4];
		size_t n = 0, order[4];
		char err[512] = "", file[32], got[64] = "";
		int loaded = 1;
		for (; orders[c].specs[n]; n++) {
			char text[256];
			snprintf(file, sizeof file, "e%zu.yaml", n);
			snprintf(text, sizeof text, "name: e%zu\n%s", n, orders[c].specs[n]);
			if (spec_parse(file, text, strlen(text), &s[n], err, sizeof err) < 0) {
				printf("# %s\n", err);
				loaded = 0;
			}
			sp[n] = &s[n];
		}
		if (!ok(loaded, "%s: specs load", orders[c].name))
			continue;
		int rc = plan_order(sp, n, order, err, sizeof err);
		if (orders[c].order) {
			for (size_t i = 0; rc == 0 && i < n; i++) {
				size_t used = strlen(got);
				snprintf(got + used, sizeof got - used, "%s%s", i ? " " : "", s[order[i]].name);
			}
			ok(rc == 0, "%s: ordered", orders[c].name);
			is_str(got, orders[c].order, orders[c].name);
		} else {
			ok(rc < 0, "%s: refused", orders[c].name);
			if (!ok(strstr(err, orders[c].error) != NULL, "%s: message", orders[c].name))
				printf("#   got '%s'\n#   want it to contain '%s'\n", err, orders[c].error);
		}
		for (size_t i = 0; i < n; i++)
			spec_free(&s[i]);
	}
}

int main(void)
{
	test_expand();
	test_quick_repetitions();
	test_order();
	return done_testing();
}
