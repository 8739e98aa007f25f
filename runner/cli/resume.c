/*
 * resume.c - `runner resume out/<id>`: an interrupted run (Ctrl-C, SIGTERM,
 * a killed runner) completed in its own folder.
 *
 * A point is measured in rounds; a round that finished (ok, failed,
 * skipped, timeout: as recorded) is kept, a round cut by the interrupt is
 * measured again, and the rounds never started are measured now.  A round's
 * seed is derived from the run's seed, the experiment, the point and the
 * round alone (engine/), so a resumed run gets the samples an uninterrupted
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
#include "engine/engine.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "results/results.h"

static const char *str_at(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Experiment name -> its saved result, for every experiment that started
   (results/<name>.json exists).  NULL (said) when one cannot be read. */
static json_t *saved_results(const char *run_dir, const json_t *m)
{
	json_t *kept = json_object(), *x;
	size_t i;

	json_array_foreach(json_object_get(m, "experiments"), i, x) {
		const char *name = str_at(x, "name");
		char path[4400], err[4600];
		json_t *res;

		snprintf(path, sizeof path, "%s/results/%s.json", run_dir, name ? name : "?");
		if (!name || access(path, F_OK) != 0)
			continue;	/* never started */
		if (!(res = results_load(path, err, sizeof err))) {
			fprintf(stderr, "runner: resume: %s\n", err);
			json_decref(kept);
			return NULL;
		}
		jsonutil_set(kept, name, res);
	}
	return kept;
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

static int resume_run(const char *run_dir, json_t *m, const struct cli_opts *now)
{
	json_t *exps = json_object_get(m, "experiments"), *changes = json_array(), *x;
	size_t i, n = json_array_size(exps);
	char **files = calloc(n + 1, sizeof *files), *parent = strdup(run_dir), *slash, now_txt[64];
	struct engine_request rq = {.paths = files, .n_paths = n, .dir = run_dir, .manifest = m,
				    .account_key = "resumed"};
	json_t *argv = json_array(), *kept = NULL;
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
	if (refused && !now->force) {
		fprintf(stderr, "runner: resume: a probe changed since %s was run; use --force to "
			"resume anyway\n", run_dir);
		rc = EXIT_USAGE;
		goto out;
	}
	if (!(kept = saved_results(run_dir, m))) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (rerun_replay(m, now, &rq) < 0)
		goto out;
	/* out/latest is repointed in the folder that holds the run */
	while ((slash = strrchr(parent, '/')) && slash != parent && !slash[1])
		*slash = 0;	/* trailing slashes */
	slash = strrchr(parent, '/');
	rq.opt.out_dir = !slash ? "." : slash == parent ? "/" : (*slash = 0, parent);
	rq.kept = kept;
	for (int a = 0; a < now->argc; a++)
		jsonutil_append(argv, jsonutil_text(now->argv[a]));
	results_iso_now(now_txt, sizeof now_txt);
	rq.account = json_pack("{s:s,s:O,s:O,s:{},s:{}}", "started", now_txt, "command_line", argv,
			       "changes", changes, "kept", "measured");
	rc = engine_run(&rq);
	json_decref(rq.account);
	free((void *)rq.opt.sets);
out:
	for (i = 0; files && i < n; i++)
		free(files[i]);
	free(files);
	free(parent);
	json_decref(argv);
	json_decref(kept);
	json_decref(changes);
	return rc;
}

int resume_main(const char *run_dir, const struct cli_opts *now)
{
	char err[4400];
	int rc, lock;
	json_t *m;

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
	rc = resume_run(run_dir, m, now);
	close(lock);
	json_decref(m);
	return rc;
}
