/*
 * merge.c - `runner merge RUN... [--run-id ID]`: one report from several
 * runs, for the way experiments are really run (one now, one again after a
 * fix, one that was interrupted).  For each experiment the newest result
 * among the runs is taken: newest by when its run finished (started, for a
 * run that never finished), never by the order of the arguments.  A result
 * from a run whose experiment finished wins over a newer one cut short.
 *
 * The new folder holds copies of the chosen results/NAME.json and specs/NAME.yaml,
 * results.csv, a manifest whose experiments each name their source (run,
 * id, time, host) and whose "merge" lists the runs and what differs between
 * them (machine, probe builds: said as rerun says them), and the report.
 * It is built under a temporary name and renamed into place, then
 * out/latest points at it.  A merged folder can itself be merged (its
 * experiments keep their sources); rerun and resume refuse it.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/options.h"
#include "lib/exitcode.h"
#include "cli/merge.h"
#include "cli/merge_folder.h"
#include "cli/rerun.h"
#include "lib/version.h"
#include "report/report.h"
#include "results/results.h"
#include "lib/jsonutil.h"

struct src {
	const char *dir;		/* as given */
	json_t *m;			/* its manifest */
	const char *time;		/* finished, else started */
};

/* One experiment's chosen result. */
struct pick {
	const char *name;
	const struct src *s;
	json_t *entry;			/* the source manifest's experiment entry */
	const char *time;		/* the result's time: its own source's, or its run's */
	int finished;
};

static const char *str_at(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The file's bytes (malloc'd, *len), or NULL with errno set. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		int e = errno;
		free(buf);
		fclose(f);
		errno = e ? e : EIO;
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	size_t len = 0;
	char *data = slurp(from, &len);
	int rc;

	if (!data) {
		snprintf(err, errlen, "%s: %s", from, strerror(errno));
		return -1;
	}
	rc = results_write_file(to, data, len, err, errlen);
	free(data);
	return rc;
}

/* A run folder with a manifest and at least one result, or NULL (said). */
static int load_source(const char *dir, struct src *s)
{
	char path[4096], err[4400];
	const char *st;

	s->dir = dir;
	snprintf(path, sizeof path, "%s/manifest.json", dir);
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "runner: merge: %s: not a run folder (no manifest.json)\n", dir);
		return -1;
	}
	if (!(s->m = results_manifest_read(dir, err, sizeof err))) {
		fprintf(stderr, "runner: merge: %s\n", err);
		return -1;
	}
	if (!str_at(s->m, "schema") || strcmp(str_at(s->m, "schema"), "sysmeter.manifest/1") != 0 ||
	    !json_is_array(json_object_get(s->m, "experiments"))) {
		fprintf(stderr, "runner: merge: %s: not a sysmeter run manifest\n", path);
		return -1;
	}
	s->time = str_at(s->m, "finished") ? str_at(s->m, "finished") : str_at(s->m, "started");
	if (!s->time) {
		fprintf(stderr, "runner: merge: %s: the manifest has no time (started, finished)\n", path);
		return -1;
	}
	st = str_at(s->m, "status");
	if (st && !strcmp(st, "running")) {
		int lock = results_lock_run(dir, err, sizeof err);
		if (lock == -1) {
			fprintf(stderr, "runner: merge: %s: a runner is still writing this run\n", dir);
			return -1;
		}
		if (lock >= 0)
			close(lock);
	}
	return 0;
}

/* Is candidate c newer than the pick so far?  A finished result beats one
   cut short; then the later time; then (the same second) the later run id,
   which sorts by time too. */
static int better(const struct pick *c, const struct pick *p)
{
	int t;

	if (!p->s)
		return 1;
	if (c->finished != p->finished)
		return c->finished;
	if ((t = strcmp(c->time, p->time)) != 0)
		return t > 0;
	return strcmp(str_at(c->s->m, "run_id") ? str_at(c->s->m, "run_id") : "",
		      str_at(p->s->m, "run_id") ? str_at(p->s->m, "run_id") : "") > 0;
}

/* The newest result of every experiment of the sources, in order of first
   appearance.  Returns how many, or -1 (said: a source with no result). */
static long pick_results(struct src *srcs, size_t n, struct pick **out)
{
	struct pick *picks = NULL;
	size_t np = 0, cap = 0;

	for (size_t i = 0; i < n; i++) {
		json_t *x;
		size_t k, found = 0;

		json_array_foreach(json_object_get(srcs[i].m, "experiments"), k, x) {
			char path[4400];
			const char *name = str_at(x, "name"), *res = str_at(x, "result");
			json_t *from = json_object_get(x, "source");
			struct pick c = {.name = name, .s = &srcs[i], .entry = x,
					 .time = str_at(from, "time") ? str_at(from, "time") : srcs[i].time,
					 .finished = results_status_finished(str_at(x, "status"))};
			size_t j;

			snprintf(path, sizeof path, "%s/%s", srcs[i].dir, res ? res : "");
			if (!name || !res || access(path, R_OK) != 0)
				continue;	/* never started in this run */
			found++;
			for (j = 0; j < np && strcmp(picks[j].name, name) != 0; j++)
				;
			if (j == np) {
				if (np == cap) {
					struct pick *nb = realloc(picks, (cap = cap * 2 + 8) * sizeof *picks);
					if (!nb) {
						free(picks);
						return -1;
					}
					picks = nb;
				}
				picks[np++] = (struct pick){0};
			}
			if (better(&c, &picks[j]))
				picks[j] = c;
		}
		if (!found) {
			fprintf(stderr, "runner: merge: %s: the run has no results\n", srcs[i].dir);
			free(picks);
			return -1;
		}
	}
	*out = picks;
	return (long)np;
}

/* What differs between the chosen results' runs: each run's machine
   against the newest one's, and probe builds with the same name. */
static json_t *differences(const struct pick *p, size_t n, const struct src *newest)
{
	json_t *changes = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array(), *msg;
		size_t k;
		int seen = 0;

		for (size_t j = 0; j < i; j++)
			seen |= p[j].s == p[i].s;
		if (!seen && p[i].s != newest)
			rerun_machine_changes(json_object_get(newest->m, "machine"),
					      json_object_get(p[i].s->m, "machine"), c);
		json_array_foreach(c, k, msg)
			jsonutil_append(changes, json_sprintf("%s against %s: %s",
				p[i].s->dir, newest->dir, json_string_value(msg)));
		json_decref(c);
		for (size_t j = 0; j < i; j++) {
			json_t *a = json_object_get(p[j].entry, "probe"), *b = json_object_get(p[i].entry, "probe");
			const char *na = str_at(a, "name"), *nb = str_at(b, "name");
			const char *sa = str_at(a, "sha256"), *sb = str_at(b, "sha256");

			if (na && nb && !strcmp(na, nb) && sa && sb && strcmp(sa, sb) != 0) {
				jsonutil_append(changes, json_sprintf(
					"probe '%s' differs: sha256 %.12s... in %s (%s), %.12s... in %s (%s)",
					na, sa, p[j].s->dir, p[j].name, sb, p[i].s->dir, p[i].name));
				break;
			}
		}
	}
	return changes;
}

static json_t *source_of(const struct pick *p)
{
	json_t *from = json_object_get(p->entry, "source");

	if (json_is_object(from))	/* merged before: the result's own run */
		return json_deep_copy(from);
	return json_pack("{s:s,s:O,s:s,s:O,s:O,s:O}", "run", p->s->dir,
		"run_id", json_object_get(p->s->m, "run_id"), "time", p->time,
		"status", json_object_get(p->s->m, "status"),
		"seed_text", json_object_get(p->s->m, "seed_text"),
		"host", json_object_get(json_object_get(p->s->m, "machine"), "hostname"));
}

/* The merged manifest.  The machine, NFS server and front matter are the
   newest run's (the front matter: unless given now); started and finished
   span the sources. */
static json_t *merged_manifest(const char *run_id, const struct cli_opts *o, struct src *srcs,
			       size_t ns, const struct pick *p, size_t np, const struct src *newest,
			       json_t *changes)
{
	json_t *m = json_object(), *runs = json_array(), *exps = json_array();
	char now[64];
	const char *first = NULL, *last = NULL;
	int quick = 0, all_done = 1, any_bad = 0;
	json_t *fm = json_deep_copy(json_object_get(newest->m, "report"));

	for (size_t i = 0; i < ns; i++) {
		json_t *taken = json_array();
		const char *st = str_at(srcs[i].m, "started");

		for (size_t j = 0; j < np; j++)
			if (p[j].s == &srcs[i])
				jsonutil_append(taken, jsonutil_text(p[j].name));
		jsonutil_append(runs, json_pack("{s:s,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:o}",
			"run", srcs[i].dir, "run_id", json_object_get(srcs[i].m, "run_id"),
			"started", json_object_get(srcs[i].m, "started"),
			"finished", json_object_get(srcs[i].m, "finished"),
			"status", json_object_get(srcs[i].m, "status"),
			"seed_text", json_object_get(srcs[i].m, "seed_text"),
			"options", json_object_get(srcs[i].m, "options"),
			"machine", json_object_get(srcs[i].m, "machine"), "experiments", taken));
		if (st && (!first || strcmp(st, first) < 0))
			first = st;
		if (!last || strcmp(srcs[i].time, last) > 0)
			last = srcs[i].time;
	}
	for (size_t j = 0; j < np; j++) {
		json_t *e = json_deep_copy(p[j].entry);
		const char *st = str_at(e, "status");

		jsonutil_set(e, "source", source_of(&p[j]));
		jsonutil_append(exps, e);
		all_done &= p[j].finished;
		any_bad |= !st || (strcmp(st, "ok") != 0 && strcmp(st, "skipped") != 0);
		quick |= json_is_true(json_object_get(json_object_get(p[j].s->m, "options"), "quick"));
	}
	if (!json_is_object(fm))
		fm = json_pack("{s:n,s:n,s:n}", "title", "author", "course");
	cli_front_matter(fm, o);
	merge_folder_manifest_head(m, run_id, o, now, sizeof now);
	jsonutil_set(m, "seed", json_null());	/* each source has its own */
	jsonutil_set(m, "seed_text", json_null());
	jsonutil_set(m, "options", json_pack("{s:b,s:[],s:[],s:n,s:n,s:n}", "quick", quick,
		"set", "filter", "probe_dir", "peer", "nfs"));
	jsonutil_set(m, "started", first ? jsonutil_text(first) : json_null());
	jsonutil_set(m, "finished", jsonutil_text(last));
	jsonutil_set(m, "status", jsonutil_text(all_done ? "complete" : "interrupted"));
	jsonutil_set(m, "exit_code", json_integer(!all_done ? EXIT_INTERRUPTED :
							  any_bad ? EXIT_FAILED : EXIT_OK));
	jsonutil_set(m, "origin", json_null());
	jsonutil_set(m, "machine", json_deep_copy(json_object_get(newest->m, "machine")));
	jsonutil_set(m, "nfs", json_deep_copy(json_object_get(newest->m, "nfs")));
	jsonutil_set(m, "report", fm);
	jsonutil_set(m, "merge", json_pack("{s:s,s:o,s:O}", "at", now, "runs", runs,
						   "changes", changes));
	jsonutil_set(m, "experiments", exps);
	return m;
}

/* The chosen results and specs, results.csv and the manifest into dir. */
static int write_folder(const char *dir, const struct pick *p, size_t np, json_t *m, char *err,
			size_t errlen)
{
	char from[8400], to[8400];
	json_t *all = json_array();
	int rc = -1;

	snprintf(to, sizeof to, "%s/results", dir);
	if (results_mkdirs(to, err, errlen) < 0)
		goto out;
	snprintf(to, sizeof to, "%s/specs", dir);
	if (results_mkdirs(to, err, errlen) < 0)
		goto out;
	for (size_t j = 0; j < np; j++) {
		const char *res = str_at(p[j].entry, "result"), *text = str_at(p[j].entry, "spec_text");
		json_t *r;

		snprintf(from, sizeof from, "%s/%s", p[j].s->dir, res);
		snprintf(to, sizeof to, "%s/results/%s.json", dir, p[j].name);
		if (copy_file(from, to, err, errlen) < 0 || !(r = results_load(to, err, errlen)))
			goto out;
		jsonutil_append(all, r);
		jsonutil_set(json_array_get(json_object_get(m, "experiments"), j), "result",
				    json_sprintf("results/%s.json", p[j].name));
		/* the spec as read (rerun's input); the manifest's copy when the
		   file is gone */
		snprintf(from, sizeof from, "%s/specs/%s.yaml", p[j].s->dir, p[j].name);
		snprintf(to, sizeof to, "%s/specs/%s.yaml", dir, p[j].name);
		if (access(from, R_OK) == 0 ? copy_file(from, to, err, errlen) < 0
		    : text && results_write_file(to, text, strlen(text), err, errlen) < 0)
			goto out;
	}
	if (results_write_csv(dir, all, err, errlen) < 0)
		goto out;
	snprintf(to, sizeof to, "%s/manifest.json", dir);
	rc = results_write_json(to, m, err, errlen);
out:
	json_decref(all);
	return rc;
}

/* Build in tmp, render, rename to final, repoint latest. */
static int build(const char *out_dir, const char *run_id, const struct pick *p, size_t np,
		 json_t *m, const struct cli_opts *o)
{
	char tmp[4096], final[4200], err[8600];
	int rc = merge_folder_begin(out_dir, run_id, tmp, sizeof tmp, final, sizeof final);

	if (rc != EXIT_OK)
		return rc;
	if (write_folder(tmp, p, np, m, err, sizeof err) < 0) {
		fprintf(stderr, "runner: merge: %s\n", err);
		merge_folder_discard(tmp);
		return EXIT_INTERNAL;
	}
	if ((rc = merge_folder_finish(tmp, final, out_dir, run_id, o)) != EXIT_OK)
		return rc;
	printf("%s\n", final);
	fflush(stdout);
	return EXIT_OK;
}

int merge_main(char **runs, size_t n, const struct cli_opts *o)
{
	struct src *srcs = calloc(n + 1, sizeof *srcs);
	struct pick *p = NULL;
	const struct src *newest = NULL;
	char id[256];
	long np = 0;
	int rc = EXIT_USAGE;
	json_t *m = NULL, *changes = NULL, *x;
	size_t i;

	if (!srcs)
		return EXIT_INTERNAL;
	if (o->run_id && (!o->run_id[0] || strchr(o->run_id, '/') || o->run_id[0] == '.')) {
		fprintf(stderr, "runner: merge: --run-id '%s': a folder name is expected\n", o->run_id);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (load_source(runs[i], &srcs[i]) < 0)
			goto out;
	if ((np = pick_results(srcs, n, &p)) < 0)
		goto out;
	for (long j = 0; j < np; j++)	/* the run of the newest result */
		if (!newest || strcmp(p[j].s->time, newest->time) > 0)
			newest = p[j].s;
	changes = differences(p, (size_t)np, newest);
	json_array_foreach(changes, i, x)
		fprintf(stderr, "runner: merge: warning: %s\n", json_string_value(x));
	for (long j = 0; j < np; j++)
		if (!p[j].finished)
			fprintf(stderr, "runner: merge: warning: '%s' (from %s) did not finish in any of "
				"the runs\n", p[j].name, p[j].s->dir);
	if (o->run_id)
		snprintf(id, sizeof id, "%s", o->run_id);
	else
		results_run_id(id, sizeof id, "merged-",
			       ((uint64_t)getpid() * 2654435761u) ^ (uint64_t)time(NULL));
	m = merged_manifest(id, o, srcs, n, p, (size_t)np, newest, changes);
	if (!o->quiet)
		for (long j = 0; j < np; j++) {
			json_t *s = json_object_get(json_array_get(json_object_get(m, "experiments"),
								   (size_t)j), "source");
			fprintf(stderr, "%-20s from %s (%s)\n", p[j].name, str_at(s, "run_id") ?
				str_at(s, "run_id") : "?", str_at(s, "time") ? str_at(s, "time") : "?");
		}
	rc = build(o->out_dir, id, p, (size_t)np, m, o);
out:
	for (i = 0; i < n; i++)
		json_decref(srcs[i].m);
	free(srcs);
	free(p);
	json_decref(m);
	json_decref(changes);
	return rc;
}
