/*
 * experiment.c - the skeleton of results/<experiment>.json (schema
 * sysmeter.result/1, docs/results-format.md): the experiment, its probe,
 * the spec as resolved; analyze.c adds the points and findings.
 */
#include <stdio.h>
#include <string.h>

#include "exec/loader.h"
#include "results/results.h"
#include "spec/spec.h"
#include "lib/jsonutil.h"

static json_t *argv_json(const struct spec_argv *a)
{
	json_t *j;

	if (!a->n)
		return json_null();
	j = json_array();
	for (size_t i = 0; i < a->n; i++)
		jsonutil_append(j, jsonutil_text(a->arg[i]));
	return j;
}

/* `command:` as written ({param} placeholders kept: each point's values
   are in its params). */
static json_t *command_json(const struct spec_command *c)
{
	json_t *ok = json_array();

	if (!c->present)
		return (json_decref(ok), json_null());
	for (size_t i = 0; i < c->n_ok_exit; i++)
		jsonutil_append(ok, json_integer(c->ok_exit[i]));
	return json_pack("{s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o}", "argv", argv_json(&c->argv),
			 "shell", c->shell, "setup", argv_json(&c->setup), "cleanup",
			 argv_json(&c->cleanup), "prepare", argv_json(&c->prepare), "conclude",
			 argv_json(&c->conclude), "ok_exit", ok, "stdin",
			 c->stdin_path ? jsonutil_text(c->stdin_path) : json_null(), "keep_output",
			 c->keep_output, "timeout_s", c->timeout > 0 ? json_real(c->timeout) : json_null());
}

/* The spec as resolved (defaults filled, --set and quick: applied). */
static json_t *resolved_spec(const struct spec *s)
{
	static const char *outl[] = {"none", "tukey", "mad", "median_ratio", "trim"};
	static const char *est[] = {"mean", "median", "min", "max", "trimmed_mean"};
	json_t *j = json_object(), *params = json_object(), *sub = json_array(), *fi = json_array();

	if (s->bound)
		for (size_t a = 0; a < s->n_axis; a++) {
			json_t *vals = json_array();
			for (size_t v = 0; v < s->axis_n[a]; v++)
				jsonutil_append(vals, jsonutil_text(s->axis[a][v].text));
			jsonutil_set(params, s->bound->params[a].name, vals);
		}
	for (size_t i = 0; i < s->n_subtract; i++)
		jsonutil_append(sub, jsonutil_text(s->subtract[i]));
	for (size_t i = 0; i < s->n_findings; i++)
		jsonutil_append(fi, jsonutil_text(s->findings[i]));
	jsonutil_set(j, "file", jsonutil_text(s->file));
	jsonutil_set(j, "name", jsonutil_text(s->name));
	jsonutil_set(j, "title", jsonutil_text(s->title));
	jsonutil_set(j, "group", jsonutil_text(s->group));
	jsonutil_set(j, "probe", jsonutil_text(s->probe));
	jsonutil_set(j, "sweep", jsonutil_text(s->sweep == SWEEP_ZIP ? "zip" : "cross"));
	jsonutil_set(j, "repetitions", json_pack("{s:i,s:i,s:o,s:o,s:b}",
		"min", s->reps.min, "max", s->reps.max, "target_ci", results_num(s->reps.target_ci),
		"max_time_s", results_num(s->reps.max_time), "adaptive", s->reps.adaptive));
	jsonutil_set(j, "warmup", s->warmup == SPEC_WARMUP_AUTO ? jsonutil_text("auto")
							       : json_integer(s->warmup));
	jsonutil_set(j, "rounds", json_integer(s->rounds));
	jsonutil_set(j, "rounds_adaptive", s->rounds_rule.adaptive
		? json_pack("{s:i,s:i,s:f,s:o}", "min", s->rounds, "max", s->rounds_rule.max,
			    "target", s->rounds_rule.target, "budget_s",
			    s->rounds_rule.budget > 0 ? json_real(s->rounds_rule.budget) : json_null())
		: json_null());
	jsonutil_set(j, "iterations", s->iterations ? json_integer((json_int_t)s->iterations)
							   : jsonutil_text("auto"));
	jsonutil_set(j, "min_sample_time_s", results_num(s->min_sample_time));
	jsonutil_set(j, "outliers", json_pack("{s:s,s:o,s:o,s:o}", "rule", outl[s->outliers],
		"k", results_num(s->out_k), "lo", results_num(s->out_lo), "hi", results_num(s->out_hi)));
	jsonutil_set(j, "estimate", json_pack("{s:s,s:o}", "name", est[s->estimate],
						     "p", results_num(s->est_p)));
	jsonutil_set(j, "subtract", sub);
	jsonutil_set(j, "cpu", s->cpu >= 0 ? json_integer(s->cpu) : json_null());
	jsonutil_set(j, "priority", s->has_priority ? json_integer(s->priority) : json_null());
	jsonutil_set(j, "timeout_s", results_num(s->timeout));
	jsonutil_set(j, "params", params);
	if (s->chart.present) {
		json_t *c = json_object();
#define CH(k) jsonutil_set(c, #k, s->chart.k ? jsonutil_text(s->chart.k) : json_null())
		CH(x); CH(y); CH(series); CH(xlabel); CH(ylabel); CH(title); CH(kind);
#undef CH
		jsonutil_set(c, "logx", json_integer(s->chart.logx));
		jsonutil_set(c, "logy", json_integer(s->chart.logy));
		jsonutil_set(j, "chart", c);
	} else {
		jsonutil_set(j, "chart", json_null());
	}
	json_t *pred = json_array();
	for (size_t i = 0; i < s->n_predict; i++) {
		json_t *w = json_object();
		for (size_t k = 0; k < s->predict[i].n_where; k++)
			jsonutil_set(w, s->predict[i].where[k].param,
					    jsonutil_text(s->predict[i].where[k].text));
		jsonutil_append(pred, json_pack("{s:o,s:s,s:o,s:s,s:o,s:o,s:s}", "where", w,
			"machine", s->predict[i].machine ? s->predict[i].machine : "*",
			"value", results_num(s->predict[i].value),
			"value_text", s->predict[i].value_text ? s->predict[i].value_text : "",
			"hardware", results_num(s->predict[i].hw),
			"software", results_num(s->predict[i].sw),
			"why", s->predict[i].why ? s->predict[i].why : ""));
	}
	jsonutil_set(j, "predict", pred);
	jsonutil_set(j, "findings", fi);
	json_t *bw = json_object();
	for (size_t i = 0; i < s->n_beside_where; i++) {
		const char *eq = strchr(s->beside_where[i], '=');
		char key[128];

		snprintf(key, sizeof key, "%.*s", (int)(eq - s->beside_where[i]), s->beside_where[i]);
		jsonutil_set(bw, key, jsonutil_text(eq + 1));
	}
	jsonutil_set(j, "beside", s->beside ? json_pack("{s:s,s:o,s:o}", "experiment",
		s->beside, "rtt", s->beside_rtt ? jsonutil_text(s->beside_rtt) : json_null(),
		"rtt_where", bw) : (json_decref(bw), json_null()));
	jsonutil_set(j, "command", command_json(&s->command));
	return j;
}

static json_t *probe_json(const struct loaded_probe *lp)
{
	const struct probe *p = lp->p;
	json_t *metrics = json_array(), *params = json_array();
	static const char *types[] = {"?", "int", "size", "time", "double", "string", "bool"};
	for (size_t i = 0; i < lp->n_metrics; i++)
		jsonutil_append(metrics, json_pack("{s:s,s:s,s:s}", "name", p->metrics[i].name,
			"unit", p->metrics[i].unit ? p->metrics[i].unit : "",
			"help", p->metrics[i].help ? p->metrics[i].help : ""));
	for (size_t i = 0; i < lp->n_params; i++) {
		const struct probe_param *pp = &p->params[i];
		jsonutil_append(params, json_pack("{s:s,s:s,s:s,s:s}", "name", pp->name,
			"type", pp->type >= 1 && pp->type <= 6 ? types[pp->type] : "?",
			"default", pp->def ? pp->def : "", "help", pp->help ? pp->help : ""));
	}
	return json_pack("{s:s,s:s,s:s,s:s,s:b,s:s,s:s,s:i,s:o,s:o}", "name", p->name,
			 "version", p->version ? p->version : "", "summary", p->summary ? p->summary : "",
			 "unit", p->unit ? p->unit : "", "bigger_is_better", p->bigger_is_better,
			 "path", lp->path, "sha256", lp->sha256, "abi", (int)PROBE_ABI_MAJOR_OF(p->abi),
			 "metrics", metrics, "params", params);
}

json_t *results_experiment_new(const struct spec *s, const struct loaded_probe *lp, double tsc_hz)
{
	json_t *r = json_object();
	jsonutil_set(r, "schema", jsonutil_text("sysmeter.result/1"));
	jsonutil_set(r, "experiment", jsonutil_text(s->name));
	jsonutil_set(r, "title", jsonutil_text(s->title));
	jsonutil_set(r, "group", jsonutil_text(s->group));
	jsonutil_set(r, "description", jsonutil_text(s->description ? s->description : ""));
	jsonutil_set(r, "discussion", s->discussion ? jsonutil_text(s->discussion) : json_null());
	jsonutil_set(r, "status", jsonutil_text("running"));
	if (lp)
		jsonutil_set(r, "probe", probe_json(lp));
	else
		jsonutil_set(r, "probe", json_pack("{s:s,s:n,s:s,s:b,s:n,s:n,s:[],s:[]}",
			"name", s->probe, "version", "unit", "", "bigger_is_better", 0, "path", "sha256",
			"metrics", "params"));
	jsonutil_set(r, "tsc_hz", results_num(tsc_hz));
	jsonutil_set(r, "spec", resolved_spec(s));
	jsonutil_set(r, "points", json_array());
	jsonutil_set(r, "findings", json_object());
	return r;
}

json_t *results_failed_point(const char *reason)
{
	return json_pack("{s:i,s:{},s:{},s:s,s:s,s:[],s:i,s:n,s:n,s:[]}", "index", 0, "params",
			 "params_text", "status", "failed", "reason", reason, "samples", "n", 0,
			 "estimate", "ci", "sanity");
}
