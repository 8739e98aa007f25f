/*
 * test_expr.c - spec_expr.c (the predict: formula language) and
 * results/predict.c (its evaluation over a machine object and other
 * results).  Table-driven.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "tap.h"
#include "spec/spec.h"
#include "results/results.h"
#include "machine/machine.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* names evaluate to fixed values, as a machine would give them */
static int fake(void *ctx, const struct spec_expr_node *n, double *v, enum spec_qty *q, char *missing,
		size_t mlen)
{
	(void)ctx;
	if (n->op == SPEC_X_REF) {
		*v = 20e-6;
		*q = SPEC_Q_SECONDS;
		return n->n_sel == 1 && !strcmp(n->sel_param[0], "target") && !strcmp(n->sel_text[0], "remote")
			? 0 : (snprintf(missing, mlen, "@%s", n->name), -1);
	}
	if (!strcmp(n->name, "core_hz")) {
		*v = 3e9;
		*q = SPEC_Q_HZ;
		return 0;
	}
	if (!strcmp(n->name, "l1_cycles")) {
		*v = 4;
		*q = SPEC_Q_CYCLES;
		return 0;
	}
	if (!strcmp(n->name, "size")) {
		*v = 4096;
		*q = SPEC_Q_BYTES;
		return 0;
	}
	snprintf(missing, mlen, "%s (give it with --machine FILE)", n->name);
	return -1;
}

struct eval_case {
	const char *text;
	double want;		/* NAN: evaluation fails */
	const char *filled;	/* or the missing text when it fails */
};

static const struct eval_case evals[] = {
	{"1 + 2 * 3", 7, "1 + 2 * 3"},
	{"(1 + 2) * 3", 9, "(1 + 2) * 3"},
	{"10 - 4 - 3", 3, NULL},
	{"2 * -3 + 1", -5, NULL},
	{"8 / 4 / 2", 1, NULL},
	{"4KiB", 4096, NULL},
	{"100ns", 100e-9, NULL},
	{"1.5", 1.5, NULL},
	{"3GHz", 3e9, NULL},
	{"1GB/s", 1e9, NULL},
	{"10cycles / core_hz", 10 / 3e9, "10cycles / 3 GHz"},
	{"l1_cycles / core_hz", 4 / 3e9, "4 cycles / 3 GHz"},
	{"size / 1GB/s", 4096e-9, "4KiB / 1GB/s"},
	{"@tcp_rtt[target=remote] * 1.5", 30e-6, "20 us * 1.5"},
	{"memory_bus_bandwidth / 2", NAN, "memory_bus_bandwidth (give it with --machine FILE)"},
	{"1 / (size - 4KiB)", NAN, NULL},
	{"@tcp_rtt[target=loopback]", NAN, "@tcp_rtt"},
};

struct bad_case {
	const char *text;
	size_t off;		/* byte offset of the fault */
	const char *msg;
};

static const struct bad_case bads[] = {
	{"l1_cycles / * core_hz", 12, "expected a name, a number or '(', got '*'"},
	{"(1 + 2", 6, "expected ')' to close the '(' at column 1"},
	{"1 +", 3, "expected a name, a number or '(' at the end of the formula"},
	{"min(1, 2)", 0, "'min(': a formula has no functions"},
	{"4Kix", 1, "unknown unit 'Kix' (sizes 4KiB, times 100ns, rates 1GB/s, frequencies 3GHz, cycles)"},
	{"1 2", 2, "unexpected '2' after a complete formula (operators: + - * /)"},
	{"@", 1, "expected an experiment's name after '@'"},
	{"@x[a]", 4, "expected '=' after 'a' in @x[...]"},
	{"@x[a=1", 6, "missing ']' after @x["},
	{"", 0, "expected a name, a number or '(' at the end of the formula"},
};

static void test_depth(void)
{
	char deep[400];
	struct spec_formula f;
	size_t off;
	char err[256];

	memset(deep, '(', 200);
	deep[200] = '\0';
	ok(spec_expr_parse(deep, &f, &off, err, sizeof err) < 0 && strstr(err, "nested too deeply"),
	   "200 parentheses: nested too deeply, not a stack overflow");
	memset(deep, '-', 300);
	strcpy(deep + 300, "1");
	ok(spec_expr_parse(deep, &f, &off, err, sizeof err) < 0 && strstr(err, "nested too deeply"),
	   "300 minus signs: nested too deeply");
}

/* results_predict over a machine object: Tiger Lake vs Zen 3 facts. */
static void test_predict(void)
{
	const char *mach[2] = {
		"{\"cpu\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 140},"
		" \"core_clock\": {\"hz\": 4.7e9, \"holds\": true}, \"tsc_hz\": 2.8e9,"
		" \"caches\": [{\"level\": 1, \"type\": \"Data\", \"size_bytes\": 49152, \"line_bytes\": 64}],"
		" \"memory_bus_bandwidth\": 68.3e9}",
		"{\"cpu\": {\"vendor\": \"AuthenticAMD\", \"family\": 25, \"model\": 33},"
		" \"core_clock\": {\"hz\": 4.7e9, \"holds\": false}, \"tsc_hz\": 3.8e9,"
		" \"caches\": [{\"level\": 1, \"type\": \"Data\", \"size_bytes\": 32768, \"line_bytes\": 64}]}",
	};
	const char *row[2] = {"Ice Lake / Tiger Lake", "Zen 3"};
	double want[2] = {5 / 4.7e9 * 1e9 + 4096 / 68.3e9 * 1e9, 4 / 3.8e9 * 1e9};

	for (int m = 0; m < 2; m++) {
		json_error_t je;
		json_t *machine = json_loads(mach[m], 0, &je);
		json_t *res = json_pack("{s:{s:s,s:[{s:s,s:s}]},s:[{s:{s:i},s:{s:i},s:f,s:s,s:[],"
					"s:{s:{s:s,s:s,s:n}}}]}",
			"probe", "unit", "ns", "params", "name", "size", "type", "size",
			"points", "params", "size", 4096, "params_text", "size", 4096, "estimate", 3.0,
			"status", "ok", "sanity", "prediction", "formula", "hardware", "l1_cycles / core_hz",
			"software", m == 0 ? "size / memory_bus_bandwidth" : "0ns", "value");
		json_t *by = json_object(), *pred;
		char name[128];

		results_predict(res, machine, by);
		pred = json_object_get(json_array_get(json_object_get(res, "points"), 0), "prediction");
		snprintf(name, sizeof name, "%s: total from its own facts", row[m]);
		is_num(json_number_value(json_object_get(pred, "value")), want[m], 1e-9, name);
		is_str(json_string_value(json_object_get(pred, "table_row")), row[m], "  its table row");
		ok(json_is_null(json_object_get(pred, "missing")), "  nothing missing");
		snprintf(name, sizeof name, "%s / %s = %.3g ns", m == 0 ? "5 cycles" : "4 cycles",
			 m == 0 ? "4.7 GHz" : "3.8 GHz", m == 0 ? 5 / 4.7 : 4 / 3.8);
		is_str(json_string_value(json_object_get(json_object_get(pred, "filled"), "hardware")), name,
		       "  the hardware formula filled in");
		/* the other machine's facts are missing: named, not silent */
		json_object_set_new(json_object_get(pred, "formula"), "software",
				    json_string("size / memory_bus_bandwidth"));
		if (m == 1) {
			results_predict(res, machine, by);
			is_str(json_string_value(json_object_get(pred, "missing")),
			       "memory_bus_bandwidth (give it with --machine FILE)", "  a missing fact is named");
			ok(json_is_null(json_object_get(pred, "value")), "  and there is no value");
		}
		json_decref(res);
		json_decref(by);
		json_decref(machine);
	}
	/* an unknown CPU: the generic row, named as such */
	{
		json_t *machine = json_pack("{s:{s:s,s:i,s:i},s:f}", "cpu", "vendor", "CentaurHauls", "family", 7,
					    "model", 1, "tsc_hz", 2e9);
		is_str(results_predict_row(machine), "generic x86-64 (not in the table)", "unknown CPU: generic row");
		json_decref(machine);
	}
}

/* Every constant names where it comes from: a row of the table, the
   generic rows and every mitigation row carry a source that names a
   document (a manual, a guide, a paper, the kernel's documentation). */
static void test_sources(void)
{
	size_t n, bad = 0;
	const struct machine_model *rows = machine_model_rows(&n, NULL), *fb;
	const struct machine_mitigation *mit;

	for (size_t i = 0; i < n; i++)
		if (!rows[i].source || strlen(rows[i].source) < 30) {
			printf("#   row '%s' has no source\n", rows[i].name);
			bad++;
		}
	machine_model_rows(&n, &fb);
	if (!fb->source || strlen(fb->source) < 30)
		bad++;
	if (strlen(machine_model_find("ARM", 0x99, 0x1)->source) < 30)
		bad++;
	if (!machine_model_kernel()->source || strlen(machine_model_kernel()->source) < 30)
		bad++;
	ok(bad == 0, "every row of the constants table names its source");
	mit = machine_model_mitigation_rows(&n);
	bad = 0;
	for (size_t i = 0; i < n; i++)
		if (!mit[i].source || strlen(mit[i].source) < 30 || !mit[i].file || !mit[i].match) {
			printf("#   mitigation row %zu (%s) has no source\n", i, mit[i].file ? mit[i].file : "?");
			bad++;
		}
	ok(bad == 0 && n >= 10, "every mitigation row names its source (%zu rows)", n);
}

struct mit_seen { int n; char names[512]; };

static void mit_seen(void *ctx, const struct machine_mitigation *row, double cycles, int per_switch)
{
	struct mit_seen *s = ctx;
	size_t used = strlen(s->names);

	snprintf(s->names + used, sizeof s->names - used, "%s%s=%.0f%s", s->n++ ? "," : "", row->match,
		 cycles, per_switch ? "/switch" : "");
}

/* One term per mitigation the kernel lists: "Vulnerable" and "Not
   affected" add nothing, Enhanced IBRS is not legacy IBRS, and VERW
   reached through MDS and TAA counts once. */
static void test_mitigations(void)
{
	const struct machine_model *skx = machine_model_find("GenuineIntel", 6, 0x55);
	json_error_t je;
	json_t *v = json_loads(
		"{\"meltdown\": \"Mitigation: PTI\","
		" \"spectre_v2\": \"Mitigation: Retpolines; IBPB: conditional; RSB filling; PBRSB-eIBRS: Not affected\","
		" \"mds\": \"Mitigation: Clear CPU buffers; SMT vulnerable\","
		" \"tsx_async_abort\": \"Mitigation: Clear CPU buffers; SMT vulnerable\","
		" \"retbleed\": \"Mitigation: Enhanced IBRS\","
		" \"spec_rstack_overflow\": \"Vulnerable: No microcode\","
		" \"l1tf\": \"Not affected\"}", 0, &je);
	struct mit_seen seen = {0, ""};
	double entry, sw;
	size_t n = machine_model_mitigations(skx, v, &entry, &sw, mit_seen, &seen);

	ok(n == 4, "PTI, retpolines, RSB filling and VERW once: %s", seen.names);
	is_num(entry, (skx->syscall_pti - skx->syscall) + 40 + 100, 1e-9,
	       "  per entry: the PTI column's extra, retpolines, one VERW");
	is_num(sw, 64, 1e-9, "  per switch: RSB filling (IBPB conditional adds nothing)");
	json_decref(v);
	v = json_loads("{\"meltdown\": \"Not affected\", \"spectre_v2\": \"Vulnerable\"}", 0, &je);
	n = machine_model_mitigations(skx, v, &entry, &sw, NULL, NULL);
	ok(n == 0 && entry == 0 && sw == 0, "nothing listed that runs: no term");
	json_decref(v);
}

/* A formula naming a fact this machine lacks says so: every machine or
   given name, alone, over an empty machine, either has a value with its
   source or leaves prediction.missing naming it. */
static void test_missing_named(void)
{
	size_t n, bad = 0;
	const struct spec_expr_name *t = spec_expr_names(&n);

	for (size_t i = 0; i < n; i++) {
		json_t *machine, *by, *pred, *res;
		const char *miss;
		int sourced = 0;
		size_t k;
		json_t *s;

		if (!strcmp(t[i].group, "table"))
			continue;
		machine = json_object();
		by = json_object();
		res = json_pack("{s:{s:s,s:[]},s:[{s:{},s:{},s:f,s:s,s:[],s:{s:{s:s,s:s,s:n}}}]}",
				"probe", "unit", "ns", "params", "points", "params", "params_text",
				"estimate", 3.0, "status", "ok", "sanity", "prediction", "formula",
				"hardware", t[i].name, "software", "0ns", "value");
		results_predict(res, machine, by);
		pred = json_object_get(json_array_get(json_object_get(res, "points"), 0), "prediction");
		miss = json_string_value(json_object_get(pred, "missing"));
		json_array_foreach(json_object_get(pred, "sources"), k, s)
			sourced |= !strcmp(json_string_value(json_object_get(s, "name")) ?: "", t[i].name);
		if (miss ? !strstr(miss, t[i].name) : !sourced) {
			printf("#   '%s': missing '%s', sourced %d\n", t[i].name, miss ? miss : "(none)", sourced);
			bad++;
		}
		json_decref(res);
		json_decref(by);
		json_decref(machine);
	}
	ok(bad == 0, "over an empty machine, every fact a formula names has a source or is named as missing");
}

/* @name[...].METRIC: a value the other experiment's point recorded (its
   extra.METRIC.median), not its estimate; named as missing when absent. */
static void test_ref_metric(void)
{
	json_error_t je;
	json_t *machine = json_loads("{\"tsc_hz\": 2e9}", 0, &je);
	json_t *by = json_loads("{\"page_fault\": {\"probe\": {\"unit\": \"us\"}, \"points\": ["
				"{\"status\": \"ok\", \"estimate\": 119, \"params\": {\"kind\": \"file\"},"
				" \"params_text\": {\"kind\": \"file\"},"
				" \"extra\": {\"pages_per_fault\": {\"median\": 16, \"mean\": 15}}}]}}", 0, &je);
	json_t *res = json_pack("{s:{s:s,s:[]},s:[{s:{},s:{},s:f,s:s,s:[],s:{s:{s:s,s:s,s:n}}}]}",
				"probe", "unit", "us", "params", "points", "params", "params_text",
				"estimate", 10.0, "status", "ok", "sanity", "prediction", "formula",
				"hardware", "@page_fault[kind=file] / @page_fault[kind=file].pages_per_fault",
				"software", "0ns", "value");
	json_t *pred;

	results_predict(res, machine, by);
	pred = json_object_get(json_array_get(json_object_get(res, "points"), 0), "prediction");
	is_num(json_number_value(json_object_get(pred, "value")), 119.0 / 16, 1e-9,
	       "@page_fault[kind=file].pages_per_fault is the recorded median, the estimate over it");
	json_object_set_new(json_object_get(pred, "formula"), "hardware",
			    json_string("@page_fault[kind=file].faults_taken"));
	results_predict(res, machine, by);
	ok(strstr(json_string_value(json_object_get(pred, "missing")) ?: "", "faults_taken") != NULL,
	   "a value the point did not record is named as missing");
	json_decref(res);
	json_decref(by);
	json_decref(machine);
}

int main(void)
{
	struct spec_formula f;
	size_t off;
	char err[256], filled[256], missing[256];
	double v;

	for (size_t i = 0; i < N(evals); i++) {
		const struct eval_case *c = &evals[i];
		char name[160];
		int rc;

		snprintf(name, sizeof name, "parse '%s'", c->text);
		if (!ok(spec_expr_parse(c->text, &f, &off, err, sizeof err) == 0, "%s", name)) {
			printf("#   %s at %zu\n", err, off);
			continue;
		}
		rc = spec_expr_eval(&f, fake, NULL, &v, filled, sizeof filled, missing, sizeof missing);
		if (isnan(c->want)) {
			ok(rc < 0, "  fails to evaluate");
			if (c->filled)
				is_str(missing, c->filled, "  names what is missing");
		} else {
			ok(rc == 0, "  evaluates");
			is_num(v, c->want, 1e-12, "  value");
			if (c->filled)
				is_str(filled, c->filled, "  filled in");
		}
		spec_expr_free(&f);
	}
	for (size_t i = 0; i < N(bads); i++) {
		const struct bad_case *c = &bads[i];
		char name[160];

		snprintf(name, sizeof name, "'%s' is an error", c->text);
		ok(spec_expr_parse(c->text, &f, &off, err, sizeof err) < 0, "%s", name);
		is_str(err, c->msg, "  its message");
		is_num((double)off, (double)c->off, 0, "  its offset");
	}
	/* plain quantities stay the old numeric form */
	ok(!spec_expr_is_formula("1.2ns") && !spec_expr_is_formula("25GB/s") && !spec_expr_is_formula("5") &&
	   !spec_expr_is_formula("1e-3") && !spec_expr_is_formula("1.5 us"), "plain quantities are not formulas");
	ok(spec_expr_is_formula("l1_cycles / core_hz") && spec_expr_is_formula("2 * 3ns") &&
	   spec_expr_is_formula("@tcp_rtt") && spec_expr_is_formula("(1ns)") && spec_expr_is_formula("1ns-2ns"),
	   "formulas are formulas");
	/* every table name is one the table answers */
	{
		size_t n, bad = 0;
		const struct spec_expr_name *t = spec_expr_names(&n);
		const struct machine_model *fb;
		double x;

		machine_model_rows(&n, &fb);
		t = spec_expr_names(&n);
		for (size_t i = 0; i < n; i++)
			/* the two mitigation sums come from machine.vulnerabilities
			   and the mitigation rows (test_sources) */
			if (!strcmp(t[i].group, "table") && strcmp(t[i].name, "mitigation_cycles") &&
			    strcmp(t[i].name, "switch_mitigation_cycles") &&
			    machine_model_value(fb, t[i].name, 0, &x) < 0) {
				printf("#   table has no '%s'\n", t[i].name);
				bad++;
			}
		ok(bad == 0, "every table name has a column");
	}
	test_depth();
	test_predict();
	test_sources();
	test_mitigations();
	test_missing_named();
	test_ref_metric();
	return done_testing();
}
