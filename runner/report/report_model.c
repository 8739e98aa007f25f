/*
 * report_model.c - the run's view model: experiments in groups, the
 * summary in the report's order, the counts, the run and machine blocks
 * (report_model.h).
 */
#include "report/report_env.h"
#include "report/report_model.h"
#include "report/report_experiment.h"
#include "report/report_fleet.h"
#include "report/report_run.h"
#include "report/report_view.h"
#include "lib/jsonutil.h"
#include "lib/strf.h"

#include <string.h>

#define GROUPS_KNOWN 4

/* The groups the seeds use, in the report's order: CPU, memory, network,
   file system. */
static const struct { const char *g, *t; } known[GROUPS_KNOWN] = {
	{"cpu", "CPU and OS services"}, {"memory", "Memory"},
	{"network", "Network"}, {"filesystem", "File system"} };

static const char *group_title(const char *g)
{
	size_t i;

	for (i = 0; i < GROUPS_KNOWN; i++)
		if (strcmp(g, known[i].g) == 0)
			return known[i].t;
	return NULL;
}

/* view.groups: the known groups in their order, then the others as first
   seen; each {name, title, anchor, experiments}. */
static json_t *make_groups(json_t *by_group, json_t *group_order)
{
	json_t *groups = json_array(), *g;
	size_t i;

	for (i = 0; i < GROUPS_KNOWN + json_array_size(group_order); i++) {
		const char *gname = i < GROUPS_KNOWN ? known[i].g :
			json_string_value(json_array_get(group_order, i - GROUPS_KNOWN));
		json_t *list = json_object_get(by_group, gname);
		char anchor[160], title[256];

		if (!list || (i >= GROUPS_KNOWN && group_title(gname)))
			continue;
		g = json_object();
		report_view_safe_name(gname, anchor, sizeof anchor);
		if (group_title(gname))
			strf(title, sizeof title, "%s", group_title(gname));
		else
			strf(title, sizeof title, "%c%s", gname[0] >= 'a' && gname[0] <= 'z' ?
				 gname[0] - 'a' + 'A' : gname[0], gname + 1);
		report_view_put(g, "name", report_view_str(gname));
		report_view_put(g, "title", report_view_line(title));
		report_view_put(g, "anchor", report_view_strf("group-%s", anchor));
		report_view_put(g, "experiments", json_incref(list));
		jsonutil_append(groups, g);
	}
	return groups;
}

/* The summary rows in the report's order (by group), not the run's;
   takes summary's reference. */
static json_t *sort_summary(json_t *summary, json_t *groups)
{
	json_t *sorted = json_array(), *g, *e, *r;
	size_t i, j, k;

	json_array_foreach(groups, i, g)
		json_array_foreach(json_object_get(g, "experiments"), j, e)
			json_array_foreach(summary, k, r)
				if (!strcmp(jsonutil_str(r, "anchor"), jsonutil_str(e, "anchor")))
					json_array_append(sorted, r);
	json_decref(summary);
	return sorted;
}

/* n_experiments, n_ok ... n_interrupted and the "counts" sentence. */
static void put_counts(json_t *view, size_t n_exps, const int counts[5])
{
	report_view_put(view, "n_experiments", report_view_strf("%zu", n_exps));
	report_view_put(view, "n_ok", report_view_strf("%d", counts[0]));
	report_view_put(view, "n_partial", report_view_strf("%d", counts[1]));
	report_view_put(view, "n_failed", report_view_strf("%d", counts[2]));
	report_view_put(view, "n_skipped", report_view_strf("%d", counts[3]));
	report_view_put(view, "n_interrupted", report_view_strf("%d", counts[4]));
	report_view_put(view, "counts", counts[4] ?
		 report_view_strf("%d complete, %d partial, %d failed, %d skipped, %d interrupted",
			   counts[0], counts[1], counts[2], counts[3], counts[4]) :
		 report_view_strf("%d complete, %d partial, %d failed, %d skipped",
			   counts[0], counts[1], counts[2], counts[3]));
}

static json_t *build(struct report_model *rm, json_t *man)
{
	json_t *view = json_object(), *groups, *all = json_array(), *summary = json_array();
	json_t *exps = json_object_get(man, "experiments"), *mexp, *e;
	size_t i;
	int counts[5] = { 0, 0, 0, 0, 0 };	/* ok, partial, failed, skipped, interrupted */
	json_t *by_group = json_object();	/* group -> array of experiment views */
	json_t *group_order = json_array();	/* groups, first seen first */

	/* every result, for the prediction formulas that read another's */
	rm->machine = json_object_get(man, "machine");
	rm->by_name = json_object();
	json_array_foreach(exps, i, mexp) {
		const char *name = jsonutil_str(mexp, "name"), *rpath = jsonutil_str(mexp, "result");
		char path[4096], msg[256];
		int missing = 0;
		json_t *res;

		if (!name || !rpath)
			continue;
		strf(path, sizeof path, "%s/%s", rm->run, rpath);
		if ((res = jsonutil_load(path, msg, sizeof msg, &missing)))
			json_object_set_new(rm->by_name, name, res);
	}
	json_array_foreach(exps, i, mexp) {
		const char *gname, *st;

		e = report_experiment_view(rm, mexp, summary);
		if (!e)
			goto fail;
		gname = jsonutil_str(e, "group");
		if (!gname || !*gname)
			gname = "other";
		st = jsonutil_str(e, "status");
		counts[!strcmp(st, "ok") ? 0 : !strcmp(st, "partial") ? 1 : !strcmp(st, "skipped") ? 3 :
		       !strcmp(st, "interrupted") ? 4 : 2]++;
		if (!json_object_get(by_group, gname)) {
			jsonutil_set(by_group, gname, json_array());
			jsonutil_append(group_order, jsonutil_text(gname));
		}
		json_array_append(json_object_get(by_group, gname), e);
		jsonutil_append(all, e);
	}
	/* a folder of `merge --hosts`: its hosts side by side (null otherwise) */
	if (!(e = report_fleet_view(rm, man)))
		goto fail;
	report_view_put(view, "fleet", e);
	groups = make_groups(by_group, group_order);
	summary = sort_summary(summary, groups);
	report_view_put(view, "run", report_run_view(man));
	report_view_put(view, "machine", report_run_machine(json_object_get(man, "machine"),
							  json_object_get(man, "nfs")));
	report_view_put(view, "peer", report_run_peer(man));
	report_view_put(view, "environment", report_env_rows(man));
	report_view_put(view, "cycle_note", report_env_cycle_note(man));
	report_view_put(view, "cycle_head", report_view_str(rm->cycles_core ? "Cycles" : "TSC ticks"));
	report_view_put(view, "groups", groups);
	report_view_put(view, "experiments", all);
	report_view_put(view, "summary", summary);
	report_view_put(view, "has_summary", json_boolean(json_array_size(summary) > 0));
	put_counts(view, json_array_size(exps), counts);
	json_decref(by_group);
	json_decref(group_order);
	return view;
fail:
	json_decref(by_group);
	json_decref(group_order);
	json_decref(all);
	json_decref(summary);
	json_decref(view);
	return NULL;
}

json_t *report_model_build(struct report_model *rm, json_t *man)
{
	json_t *view;

	rm->tsc_hz = jsonutil_num(json_object_get(man, "machine"), "tsc_hz");
	rm->cycles_core = report_env_cycle_clock(man, &rm->cycle_hz) == 1;
	rm->bases = json_object();
	rm->chart_msg[0] = '\0';
	view = build(rm, man);
	json_decref(rm->by_name);
	rm->by_name = NULL;
	json_decref(rm->bases);
	rm->bases = NULL;
	return view;
}
