/*
 * models_run.c - one run folder judged by the current specs: the recorded
 * predictions are replaced in memory by the current specs' entries and
 * evaluated again over the run's machine and results, the way `runner
 * report` evaluates them; each point then goes to its host's lists.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/models_run.h"
#include "results/results.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"

/* "AMD EPYC (Zen 5), guest of bhyve, PTI on": the machine as a host kind. */
static void host_label(const json_t *machine, char *buf, size_t len)
{
	const json_t *cpu = json_object_get(machine, "cpu");
	const char *model = jsonutil_str((json_t *)machine, "cpu_model");
	const char *uarch = jsonutil_str((json_t *)cpu, "microarchitecture");
	const char *virt = jsonutil_str((json_t *)machine, "virtualization");
	const char *hv = jsonutil_str((json_t *)cpu, "hypervisor");
	const char *pti = jsonutil_str(json_object_get(machine, "pti"), "state");
	char hyp[128] = "";
	size_t n;

	/* CPUID's hypervisor vendor is 12 bytes, padded ("bhyve bhyve "):
	   its first word names it */
	if (hv) {
		snprintf(hyp, sizeof hyp, "%s", hv);
		n = strcspn(hyp, " ");
		hyp[n] = '\0';
	}
	strf(buf, len, "%s (%s), %s%s, PTI %s", model && *model ? model : "unknown CPU",
	     uarch && *uarch ? uarch : "unknown microarchitecture",
	     virt && !strncmp(virt, "guest", 5) ? "guest of " : "",
	     virt && !strncmp(virt, "guest", 5) ? (*hyp ? hyp : "an unnamed hypervisor")
						 : "no hypervisor detected",
	     pti && *pti ? pti : "unknown");
}

/* The host object for the run's machine in hosts, added when new. */
static json_t *host_of(json_t *hosts, const json_t *machine)
{
	const json_t *cpu = json_object_get(machine, "cpu");
	char label[512];
	json_t *h;
	size_t i;

	host_label(machine, label, sizeof label);
	json_array_foreach(hosts, i, h)
		if (!strcmp(jsonutil_str(h, "host") ?: "", label))
			return h;
	h = json_object();
	jsonutil_set(h, "host", jsonutil_text(label));
	jsonutil_set(h, "cpu_model", json_deep_copy(json_object_get(machine, "cpu_model")) ?: json_null());
	jsonutil_set(h, "microarchitecture",
		     json_deep_copy(json_object_get(cpu, "microarchitecture")) ?: json_null());
	jsonutil_set(h, "virtualization",
		     json_deep_copy(json_object_get(machine, "virtualization")) ?: json_null());
	jsonutil_set(h, "hypervisor", json_deep_copy(json_object_get(cpu, "hypervisor")) ?: json_null());
	jsonutil_set(h, "pti", json_deep_copy(json_object_get(json_object_get(machine, "pti"), "state"))
			       ?: json_null());
	jsonutil_set(h, "runs", json_array());
	jsonutil_set(h, "judged", json_array());
	jsonutil_set(h, "not_judged", json_array());
	jsonutil_set(h, "no_spec", json_array());
	jsonutil_append(hosts, h);
	return h;
}

static json_t *copy_or_null(const json_t *j)
{
	return j ? json_deep_copy(j) : json_null();
}

static void not_judged(json_t *host, const char *run_id, const char *exp, const json_t *point,
		       const char *why)
{
	jsonutil_append(json_object_get(host, "not_judged"),
			json_pack("{s:o,s:o,s:o,s:o,s:o}", "run_id", jsonutil_text(run_id),
				  "experiment", jsonutil_text(exp),
				  "params", point ? copy_or_null(json_object_get(point, "params_text"))
						  : json_object(),
				  "status", point ? copy_or_null(json_object_get(point, "status")) : json_null(),
				  "why", jsonutil_text(why)));
}

/* Each point of one experiment, now predicted, to judged or not_judged. */
static void sort_points(json_t *host, const char *run_id, const char *exp, const json_t *result,
			const char *const *why)
{
	const char *unit = jsonutil_str(json_object_get(result, "probe"), "unit");
	json_t *pt;
	size_t i;

	json_array_foreach(json_object_get(result, "points"), i, pt) {
		json_t *pred = json_object_get(pt, "prediction");
		const char *st = jsonutil_str(pt, "status") ?: "unknown";
		const char *missing = jsonutil_str(pred, "missing");
		double r = jsonutil_num(pred, "ratio");
		char msg[1024];

		if (strcmp(st, "ok") != 0) {
			const char *reason = jsonutil_str(pt, "reason");
			strf(msg, sizeof msg, "%s%s%s", st, reason ? ": " : "", reason ? reason : "");
			not_judged(host, run_id, exp, pt, msg);
		} else if (!json_is_object(pred)) {
			not_judged(host, run_id, exp, pt, why[i] ? why[i] : "no prediction");
		} else if (missing) {
			strf(msg, sizeof msg, "the prediction cannot be evaluated: %s", missing);
			not_judged(host, run_id, exp, pt, msg);
		} else if (!isfinite(r) || r <= 0) {
			strf(msg, sizeof msg, "no positive ratio (measured %g, predicted %g)",
			     jsonutil_num(pt, "estimate"), jsonutil_num(pred, "value"));
			not_judged(host, run_id, exp, pt, msg);
		} else {
			jsonutil_append(json_object_get(host, "judged"),
				json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
					  "run_id", jsonutil_text(run_id), "experiment", jsonutil_text(exp),
					  "params", copy_or_null(json_object_get(pt, "params_text")),
					  "unit", jsonutil_text(unit ? unit : ""),
					  "estimate", results_num(jsonutil_num(pt, "estimate")),
					  "predicted", results_num(jsonutil_num(pred, "value")),
					  "hardware", results_num(jsonutil_num(pred, "hardware")),
					  "software", results_num(jsonutil_num(pred, "software")),
					  "ratio", results_num(r),
					  /* where each number came from, for the reader who
					     asks why (and the test of --machine) */
					  "table_row", copy_or_null(json_object_get(pred, "table_row")),
					  "sources", copy_or_null(json_object_get(pred, "sources"))));
		}
	}
}

/* One experiment of the run: its points given the current predictions,
   evaluated, sorted. */
static void judge_experiment(json_t *host, const char *run_id, const char *exp, json_t *result,
			     const struct models_spec *m, const json_t *machine,
			     const json_t *by_name)
{
	json_t *pts = json_object_get(result, "points"), *pt;
	size_t i, n = json_array_size(pts);
	const char **why = calloc(n + 1, sizeof *why);

	if (!why) {
		not_judged(host, run_id, exp, NULL, "out of memory");
		return;
	}
	/* every recorded prediction goes: only the current spec's counts */
	json_array_foreach(pts, i, pt)
		json_object_set_new(pt, "prediction", models_spec_prediction(m, pt, machine, &why[i]));
	results_predict(result, machine, by_name);
	sort_points(host, run_id, exp, result, why);
	free(why);
}

/* {experiment: result} of every experiment of the run whose result file
   exists (the prediction formulas read other experiments' estimates). */
static json_t *load_results(const char *run, const json_t *man, char *err, size_t errlen)
{
	json_t *by_name = json_object(), *e;
	size_t i;

	json_array_foreach(json_object_get(man, "experiments"), i, e) {
		const char *name = jsonutil_str(e, "name"), *rpath = jsonutil_str(e, "result");
		char path[4200];
		struct stat st;
		json_t *res;

		if (!name || !rpath)
			continue;
		strf(path, sizeof path, "%s/%s", run, rpath);
		if (lstat(path, &st) < 0 && errno == ENOENT)
			continue;	/* never measured: said per experiment */
		if (!(res = results_load(path, err, errlen))) {
			json_decref(by_name);
			return NULL;
		}
		jsonutil_set(by_name, name, res);
	}
	return by_name;
}

int models_run_judge(const char *run, const struct models_specs *ms,
		     const struct machine_facts *facts, json_t *hosts, char *err, size_t errlen)
{
	json_t *man = results_manifest_read(run, err, errlen), *by_name, *host, *e;
	const json_t *machine;
	const char *run_id;
	size_t i;

	if (!man)
		return -1;
	if (!(by_name = load_results(run, man, err, errlen))) {
		json_decref(man);
		return -1;
	}
	if (facts && json_is_object(json_object_get(man, "machine")))
		machine_facts_apply(json_object_get(man, "machine"), facts, NULL);
	machine = json_object_get(man, "machine");
	run_id = jsonutil_str(man, "run_id") ?: "";
	host = host_of(hosts, machine);
	jsonutil_append(json_object_get(host, "runs"),
		json_pack("{s:o,s:o,s:o,s:o,s:o}", "run", jsonutil_text(run), "run_id", jsonutil_text(run_id),
			  "started", copy_or_null(json_object_get(man, "started")),
			  "commit", copy_or_null(json_object_get(json_object_get(man, "runner"), "git_commit")),
			  "kernel", copy_or_null(json_object_get(machine, "kernel"))));
	json_array_foreach(json_object_get(man, "experiments"), i, e) {
		const char *name = jsonutil_str(e, "name");
		const struct models_spec *m = models_specs_find(ms, name);
		json_t *res = name ? json_object_get(by_name, name) : NULL;
		char why[256];

		if (!name)
			continue;
		if (!m) {
			jsonutil_append(json_object_get(host, "no_spec"), jsonutil_text(name));
			continue;
		}
		if (!res || !json_is_array(json_object_get(res, "points"))) {
			strf(why, sizeof why, "no result file (the experiment is %s)",
			     jsonutil_str(e, "status") ?: "not finished");
			not_judged(host, run_id, name, NULL, why);
			continue;
		}
		judge_experiment(host, run_id, name, res, m, machine, by_name);
	}
	json_decref(by_name);
	json_decref(man);
	return 0;
}
