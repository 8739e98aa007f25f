/*
 * resume.c - `runner resume out/<id>`: an interrupted run (Ctrl-C, SIGTERM,
 * a killed runner) completed in its own folder.
 *
 * A point is measured in rounds; a round that finished (ok, failed,
 * skipped, timeout: as recorded) is kept, a round cut by the interrupt is
 * measured again, and the rounds never started are measured now.  A round's
 * seed is derived from the run's seed, the experiment, the point and the
 * round alone (run.c), so a resumed run gets the samples an uninterrupted
 * one would have.  The options are the run's (rerun_replay), a changed probe
 * binary is refused unless --force, a changed machine is said; the manifest
 * keeps a record of each resume (when, what changed, what was measured).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/rerun.h"
#include "cli/resume.h"
#include "exec/exec.h"
#include "plan/plan.h"
#include "results/results.h"
#include "spec/spec.h"
#include "lib/jsonutil.h"

static const char *str_at(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

int resume_check_experiment(const struct cli_resume *rs, size_t k, const struct spec *s)
{
	const json_t *me = json_array_get(json_object_get(rs->manifest, "experiments"), k);
	const char *name = str_at(me, "name"), *sha = str_at(me, "spec_sha256");

	if (!name || strcmp(name, s->name) != 0) {
		fprintf(stderr, "runner: resume: %s: the saved specs plan experiment %zu as '%s', the "
			"manifest says '%s'\n", rs->dir, k + 1, s->name, name ? name : "(none)");
		return -1;
	}
	if (sha && strcmp(sha, s->sha256) != 0) {
		fprintf(stderr, "runner: resume: %s: %s changed since the run (its sha256 is not the "
			"manifest's): the rest would not be measured with the same spec\n", rs->dir,
			s->file);
		return -1;
	}
	return 0;
}

/* The saved point p must be the plan's point p: same index, same values. */
static int same_point(const struct spec *s, const struct plan_point *pt, const json_t *pj)
{
	json_t *want = results_params(s, pt, 1);
	int same = json_integer_value(json_object_get(pj, "index")) == (json_int_t)pt->index &&
		   json_equal(want, json_object_get(pj, "params_text"));

	json_decref(want);
	return same;
}

int resume_experiment(struct cli_resume *rs, size_t k, const struct spec *s,
		      const struct loaded_probe *lp, const struct plan_point *pts, size_t n_pts,
		      int planned, struct point_result **rounds, size_t *n_rounds, json_t **result)
{
	const json_t *me = json_array_get(json_object_get(rs->manifest, "experiments"), k);
	char path[4400], err[4600];
	json_t *res, *points;
	size_t kept = 0;

	snprintf(path, sizeof path, "%s/results/%s.json", rs->dir, s->name);
	if (access(path, F_OK) != 0)
		return 0;	/* never started */
	if (!(res = results_load(path, err, sizeof err))) {
		fprintf(stderr, "runner: resume: %s\n", err);
		return -1;
	}
	points = json_object_get(res, "points");
	if (results_status_finished(str_at(me, "status"))) {
		*result = res;
		jsonutil_set(json_object_get(rs->record, "kept"), s->name,
				    jsonutil_text("finished"));
		return 1;
	}
	for (size_t p = 0; p < n_pts && p < json_array_size(points); p++) {
		const json_t *pj = json_array_get(points, p);
		int n;

		if (!same_point(s, &pts[p], pj)) {
			fprintf(stderr, "runner: resume: %s: point %zu of '%s' is not the one the saved "
				"spec plans now\n", path, p, s->name);
			goto bad;
		}
		if ((n = results_point_rounds(pj, lp, rounds[p], (size_t)planned, err, sizeof err)) < 0) {
			fprintf(stderr, "runner: resume: %s: point %zu: %s\n", path, p, err);
			goto bad;
		}
		n_rounds[p] = (size_t)n;
		kept += (size_t)n;
	}
	*result = res;
	jsonutil_set(json_object_get(rs->record, "kept"), s->name,
			    json_pack("{s:I}", "rounds", (json_int_t)kept));
	return 0;
bad:
	for (size_t p = 0; p < n_pts; p++) {
		for (size_t r = 0; r < n_rounds[p]; r++)
			exec_result_free(&rounds[p][r]);
		n_rounds[p] = 0;
	}
	json_decref(res);
	return -1;
}

void resume_measured(struct cli_resume *rs, const char *experiment, size_t point, int round)
{
	json_t *measured = json_object_get(rs->record, "measured");
	json_t *e = json_object_get(measured, experiment), *pts;
	size_t i;
	json_t *v;

	if (!e) {
		e = json_pack("{s:[],s:i}", "points", "rounds", 0);
		jsonutil_set(measured, experiment, e);
	}
	jsonutil_set(e, "rounds",
			    json_integer(json_integer_value(json_object_get(e, "rounds")) + 1));
	(void)round;
	pts = json_object_get(e, "points");
	json_array_foreach(pts, i, v)
		if (json_integer_value(v) == (json_int_t)point)
			return;
	jsonutil_append(pts, json_integer((json_int_t)point));
}

void resume_servers(struct cli_resume *rs, const json_t *manifest)
{
	json_t *nfs = json_object_get(manifest, "nfs");

	if (nfs && !json_object_get(rs->record, "nfs_before"))
		jsonutil_set(rs->record, "nfs_before", json_deep_copy(nfs));
}

void resume_end(struct cli_resume *rs, json_t *manifest, int exit_code)
{
	json_t *list = json_object_get(manifest, "resumed");
	char now[64];

	results_iso_now(now, sizeof now);
	jsonutil_set(rs->record, "finished", jsonutil_text(now));
	jsonutil_set(rs->record, "exit_code", json_integer(exit_code));
	if (!json_is_array(list)) {
		list = json_array();
		jsonutil_set(manifest, "resumed", list);
	}
	json_array_append(list, rs->record);
}

/* The run folder's manifest, if it is a run that can be resumed: NULL and
   *rc set otherwise (EXIT_OK: complete, nothing to do; EXIT_USAGE). */
static json_t *resumable(const char *run_dir, int *rc)
{
	char path[4096], err[4400];
	json_t *m;
	const char *st;

	*rc = EXIT_USAGE;
	snprintf(path, sizeof path, "%s/manifest.json", run_dir);
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "runner: resume: %s: not a run folder (no manifest.json)\n", run_dir);
		return NULL;
	}
	if (!(m = results_manifest_read(run_dir, err, sizeof err))) {
		fprintf(stderr, "runner: resume: %s\n", err);
		return NULL;
	}
	st = str_at(m, "status");
	if (!str_at(m, "schema") || strcmp(str_at(m, "schema"), "sysmeter.manifest/1") != 0 ||
	    !json_is_array(json_object_get(m, "experiments"))) {
		fprintf(stderr, "runner: resume: %s: not a sysmeter run manifest\n", path);
	} else if (json_is_object(json_object_get(m, "merge"))) {
		fprintf(stderr, "runner: resume: %s is a merged report (runner merge), not a run: "
			"resume the runs it was merged from\n", run_dir);
	} else if (st && !strcmp(st, "complete")) {
		fprintf(stderr, "runner: resume: %s: the run is complete, nothing to do\n", run_dir);
		*rc = EXIT_OK;
	} else if (!st || (strcmp(st, "interrupted") != 0 && strcmp(st, "running") != 0)) {
		fprintf(stderr, "runner: resume: %s: status '%s': only an interrupted run can be "
			"resumed\n", path, st ? st : "(none)");
	} else {
		return m;
	}
	json_decref(m);
	return NULL;
}

static int resume_run(const char *run_dir, json_t *m, int force, const struct cli_opts *base)
{
	json_t *exps = json_object_get(m, "experiments"), *changes = json_array(), *x;
	size_t i, n = json_array_size(exps);
	char **files = calloc(n + 1, sizeof *files), *parent = strdup(run_dir), *slash, now[64];
	struct cli_opts o = *base;
	struct cli_resume rs = {.dir = run_dir, .manifest = m};
	json_t *argv = json_array();
	int rc = EXIT_INTERNAL;

	if (!files || !parent)
		goto out;
	int refused = rerun_check(run_dir, m, files, changes);
	if (refused < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	json_array_foreach(changes, i, x)
		fprintf(stderr, "runner: resume: %s\n", json_string_value(x));
	if (refused && !force) {
		fprintf(stderr, "runner: resume: a probe changed since %s was run; use --force to "
			"resume anyway\n", run_dir);
		rc = EXIT_USAGE;
		goto out;
	}
	if (rerun_replay(m, &o) < 0)
		goto out;
	/* out/latest is repointed in the folder that holds the run */
	while ((slash = strrchr(parent, '/')) && slash != parent && !slash[1])
		*slash = 0;	/* trailing slashes */
	slash = strrchr(parent, '/');
	o.out_dir = !slash ? "." : slash == parent ? "/" : (*slash = 0, parent);
	o.origin = NULL;
	o.resume = &rs;
	for (int a = 0; a < base->argc; a++)
		jsonutil_append(argv, jsonutil_text(base->argv[a]));
	results_iso_now(now, sizeof now);
	rs.record = json_pack("{s:s,s:O,s:O,s:{},s:{}}", "started", now, "command_line", argv,
			      "changes", changes, "kept", "measured");
	rc = run_main(files, n, &o);
	json_decref(rs.record);
	free(o.sets);
out:
	for (i = 0; files && i < n; i++)
		free(files[i]);
	free(files);
	free(parent);
	json_decref(argv);
	json_decref(changes);
	return rc;
}

int resume_main(const char *run_dir, int force, const struct cli_opts *base)
{
	char err[4400];
	int rc, lock;
	json_t *m;

	if (base->run_id) {
		fprintf(stderr, "runner: resume: --run-id: a resumed run keeps its folder and id\n");
		return EXIT_USAGE;
	}
	if (!(m = resumable(run_dir, &rc)))
		return rc;
	/* The runner that wrote the run holds this lock until it exits. */
	if ((lock = results_lock_run(run_dir, err, sizeof err)) < 0) {
		if (lock == -1)
			fprintf(stderr, "runner: resume: %s: a runner is still writing this run; stop it "
				"first (Ctrl-C), then resume\n", run_dir);
		else
			fprintf(stderr, "runner: resume: %s\n", err);
		json_decref(m);
		return lock == -1 ? EXIT_USAGE : EXIT_INTERNAL;
	}
	rc = resume_run(run_dir, m, force, base);
	close(lock);
	json_decref(m);
	return rc;
}
