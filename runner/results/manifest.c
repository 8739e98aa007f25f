/*
 * manifest.c - a run's manifest.json (schema sysmeter.manifest/1,
 * docs/results-format.md): which runner, command line, seed, machine, and
 * each experiment's spec text and probe, with their hashes; updated as
 * experiments finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec/loader.h"
#include "lib/version.h"
#include "results/results.h"
#include "spec/spec.h"
#include "lib/jsonutil.h"

void results_iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int results_status_finished(const char *st)
{
	return st && (!strcmp(st, "ok") || !strcmp(st, "partial") || !strcmp(st, "failed") ||
		      !strcmp(st, "skipped"));
}

json_t *results_manifest_new(const struct results_run *o, json_t *machine)
{
	json_t *m = json_object(), *argv = json_array(), *sets = json_array(),
	       *filters = json_array(), *exps = json_array();
	char started[64], cwd[4096] = "";
	char *commit = version_git_commit();

	for (int i = 0; i < o->argc; i++)
		jsonutil_append(argv, jsonutil_text(o->argv[i]));
	for (size_t i = 0; i < o->n_sets; i++)
		jsonutil_append(sets, jsonutil_text(o->sets[i]));
	for (size_t i = 0; i < o->n_filters; i++)
		jsonutil_append(filters, jsonutil_text(o->filters[i]));
	results_iso_now(started, sizeof started);
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = 0;
	jsonutil_set(m, "schema", jsonutil_text("sysmeter.manifest/1"));
	jsonutil_set(m, "run_id", jsonutil_text(o->run_id));
	jsonutil_set(m, "runner", json_pack("{s:s,s:o}", "version", SYSMETER_VERSION,
		"git_commit", commit ? jsonutil_text(commit) : json_null()));
	free(commit);
	jsonutil_set(m, "command_line", argv);
	jsonutil_set(m, "cwd", jsonutil_text(cwd));
	/* JSON numbers are doubles for most readers: keep the seed exact as text too. */
	char seedtxt[32];
	snprintf(seedtxt, sizeof seedtxt, "%llu", (unsigned long long)o->seed);
	jsonutil_set(m, "seed", json_integer((json_int_t)(o->seed & 0x1fffffffffffffULL)));
	jsonutil_set(m, "seed_text", jsonutil_text(seedtxt));
	jsonutil_set(m, "options", json_pack("{s:b,s:o,s:o,s:s,s:o,s:n}", "quick", o->quick,
		"set", sets, "filter", filters, "probe_dir", o->probe_dir,
		"peer", o->peer ? jsonutil_text(o->peer) : json_null(), "nfs"));
	jsonutil_set(m, "started", jsonutil_text(started));
	jsonutil_set(m, "finished", json_null());
	jsonutil_set(m, "status", jsonutil_text("running"));
	jsonutil_set(m, "exit_code", json_null());
	jsonutil_set(m, "origin", o->origin ? json_deep_copy(o->origin) : json_null());
	jsonutil_set(m, "machine", json_incref(machine));
	jsonutil_set(m, "nfs", json_null());	/* results_manifest_set_nfs */
	jsonutil_set(m, "peer", json_null());	/* results_manifest_set_peer */
	jsonutil_set(m, "report", json_pack("{s:o,s:o,s:o}",
		"title", o->title ? jsonutil_text(o->title) : json_null(),
		"author", o->author ? jsonutil_text(o->author) : json_null(),
		"course", o->course ? jsonutil_text(o->course) : json_null()));
	jsonutil_set(m, "experiments", exps);	/* results_manifest_add fills it */
	return m;
}


void results_manifest_add(json_t *m, const struct spec *s, const struct loaded_probe *lp,
			  const char *probe_err)
{
	json_t *pj = lp ? json_pack("{s:s,s:o,s:s,s:i,s:s}", "name", lp->p->name, "path", jsonutil_text(lp->path),
				    "version", lp->p->version ? lp->p->version : "",
				    "abi", (int)PROBE_ABI_MAJOR_OF(lp->p->abi), "sha256", lp->sha256)
			: json_pack("{s:s,s:n,s:n,s:n,s:n,s:o}", "name", s->probe, "path", "version",
				    "abi", "sha256", "error", jsonutil_text(probe_err));
	char res[600];
	snprintf(res, sizeof res, "results/%s.json", s->name);
	jsonutil_append(json_object_get(m, "experiments"),
		json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "name", s->name, "title", s->title,
			  "group", s->group, "file", s->file, "spec_sha256", s->sha256,
			  "spec_text", s->text, "result", res, "status", "pending", "probe", pj));
}

static json_t *str_or_null(const char *s)
{
	return s ? jsonutil_text(s) : json_null();
}

void results_manifest_set_nfs(json_t *m, const char *given, const char *url, const char *label,
			      const char *local_dir, const char *error)
{
	jsonutil_set(json_object_get(m, "options"), "nfs", str_or_null(given));
	jsonutil_set(m, "nfs", !given ? json_null() :
		json_pack("{s:o,s:o,s:o,s:o}", "url", str_or_null(url), "label", str_or_null(label),
			  "local_dir", str_or_null(local_dir), "error", str_or_null(error)));
}

void results_manifest_set_peer(json_t *m, const char *given, const char *address,
			       json_t *machine, const char *why_not)
{
	jsonutil_set(m, "peer", !given ? json_null() :
		json_pack("{s:o,s:o,s:o,s:o}", "given", str_or_null(given), "address",
			  str_or_null(address), "machine", machine ? json_incref(machine) : json_null(),
			  "why_not", machine ? json_null() : str_or_null(why_not)));
}

void results_manifest_set_status(json_t *m, size_t k, const char *status)
{
	jsonutil_set(json_array_get(json_object_get(m, "experiments"), k), "status",
			    jsonutil_text(status));
}

void results_manifest_finish(json_t *m, const char *status, int exit_code)
{
	char fin[64];
	results_iso_now(fin, sizeof fin);
	jsonutil_set(m, "finished", jsonutil_text(fin));
	jsonutil_set(m, "status", jsonutil_text(status));
	jsonutil_set(m, "exit_code", json_integer(exit_code));
}
