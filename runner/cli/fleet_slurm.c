/*
 * fleet_slurm.c - `runner fleet --slurm [--nodes N | --nodelist L]
 * [--partition P] --shared-dir DIR`: the fleet through sbatch (fleet.c).
 *
 * The build and the specs go to DIR/.sysmeter-fleet-<id>/build (DIR must be
 * on storage every node and this machine share: the nodes run that very
 * runner, so its version is this one's by construction).  --nodes N
 * submits a job array of N tasks, each one whole node (--exclusive);
 * --nodelist submits one job per node, pinned there.  Each task runs the
 * constant script tools/fleet/slurm-task.sh, which writes its run folder
 * and outcome under DIR/.../jobs/<job id>/.  This waits for the jobs
 * (squeue), then reads every job's outcome: a job that left none is
 * missing with its state as scontrol shows it.  Ctrl-C cancels the jobs
 * (scancel).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fleet_run.h"
#include "cli/merge_hosts.h"
#include "lib/exitcode.h"
#include "lib/text.h"
#include "lib/jsonutil.h"
#include "lib/supervise.h"

/* A small file's first line (trimmed), or "" */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	fclose(f);
}

/* Run argv with its stdout into out (stage/NAME); 0 and the text, or -1. */
static int capture(char *const *argv, const char *stage, const char *name, char *out, size_t len,
		   double limit)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;
	int how;

	snprintf(path, sizeof path, "%s/%s", stage, name);
	if (fleet_run_tool(argv, path, 0, limit, &how) != 0)
		return -1;
	if (!(f = fopen(path, "r")))
		return -1;
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
	return 0;
}

/* The job ids submitted (sbatch --parsable: "ID" or "ID;cluster"). */
static int submit(char **argv, const char *stage, json_t *jobs)
{
	char out[256];

	if (capture(argv, stage, "sbatch.out", out, sizeof out, 120) < 0)
		return -1;
	out[strcspn(out, ";\r\n")] = '\0';
	if (!*out || strspn(out, "0123456789") != strlen(out))
		return -1;
	jsonutil_append(jobs, jsonutil_text(out));
	return 0;
}

/* Wait until squeue lists none of the jobs; cancel them on Ctrl-C. */
static void wait_jobs(json_t *jobs, const char *stage, double limit)
{
	char list[4096] = "", out[8192];
	json_t *j;
	size_t i;
	double waited = 0;

	json_array_foreach(jobs, i, j)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
			 json_string_value(j));
	for (;;) {
		char *argv[] = {"squeue", "-h", "-o", "%i", "-j", list, NULL};
		int how;

		if (fleet_interrupted() || waited > limit) {
			char *cargv[] = {"scancel", list, NULL};

			fprintf(stderr, "runner: fleet: %s: cancelling the jobs (%s)\n",
				fleet_interrupted() ? "interrupted" : "the time limit passed", list);
			fleet_run_tool(cargv, NULL, 1, 60, &how);
			return;
		}
		/* squeue fails once the jobs are gone from its memory, too */
		if (capture(argv, stage, "squeue.out", out, sizeof out, 60) < 0 || !out[0])
			return;
		{
			char *sargv[] = {"sleep", "2", NULL};
			fleet_run_tool(sargv, NULL, 1, 10, &how);
			waited += 2;
		}
	}
}

/* Why a job left no outcome: its state and reason as scontrol says. */
static void job_state(const char *stage, const char *job, char *why, size_t len)
{
	char out[4096], *st, *re;
	char *argv[] = {"scontrol", "show", "job", "-o", (char *)job, NULL};

	if (capture(argv, stage, "scontrol.out", out, sizeof out, 60) < 0) {
		snprintf(why, len, "job %s left no result (scontrol knows it no more)", job);
		return;
	}
	st = strstr(out, "JobState=");
	re = strstr(out, " Reason=");
	if (st)
		st[strcspn(st, " \n")] = '\0';
	if (re)
		re[strcspn(re + 1, " \n") + 1] = '\0';
	snprintf(why, len, "job %s left no result (%s%s)", job, st ? st : "state unknown", re ? re : "");
}

/* Every job's outcome into hosts and runs (the array's tasks are found as
   jobs/<id> folders; a task that never started has none). */
static void collect(const char *stage, const char *fleet_id, json_t *jobs, int want,
		    json_t *hosts, json_t *runs)
{
	char jobsdir[PATH_MAX];
	size_t i, found = 0;
	json_t *j;

	snprintf(jobsdir, sizeof jobsdir, "%s/jobs", stage);
	json_array_foreach(jobs, i, j) {
		char d[PATH_MAX + 64], node[128], rc[32], p[PATH_MAX + 128], run[PATH_MAX + 300], clk[64];
		const char *job = json_string_value(j);
		double c;

		/* the array's tasks have job ids from the array's on: look at
		   every folder whose id is this or (for an array) the next */
		snprintf(d, sizeof d, "%s/%s", jobsdir, job);
		snprintf(p, sizeof p, "%s/node", d);
		first_line(p, node, sizeof node);
		if (!node[0]) {
			char why[512];

			job_state(stage, job, why, sizeof why);
			jsonutil_append(hosts, json_pack("{s:s,s:s,s:s}", "name", json_string_value(j),
							 "status", "missing", "reason", why));
			continue;
		}
		found++;
		if (!text_host_name_ok(node)) {
			jsonutil_append(hosts, json_pack("{s:s,s:s,s:s}", "name", job, "status", "missing",
				"reason", "the node's name is not a host name"));
			continue;
		}
		snprintf(p, sizeof p, "%s/rc", d);
		first_line(p, rc, sizeof rc);
		snprintf(run, sizeof run, "%s/out/%s-%s", d, fleet_id, job);
		if (!rc[0] || (strcmp(rc, "0") != 0 && strcmp(rc, "1") != 0) || access(run, F_OK) != 0) {
			char why[256];

			snprintf(why, sizeof why, !rc[0] ? "job %s on %s ended before the runner did" :
				 !strcmp(rc, "124") ? "job %s on %s: time limit reached" :
				 "job %s on %s: runner exited with %s", job, node, rc);
			jsonutil_append(hosts, json_pack("{s:s,s:s,s:s}", "name", node, "status", "missing",
							 "reason", why));
			continue;
		}
		snprintf(p, sizeof p, "%s/clock", d);
		first_line(p, clk, sizeof clk);
		c = atof(clk);
		(void)c;	/* a node's clock at its start: no round trip to bound it */
		snprintf(p, sizeof p, "%s/machine_id", d);
		first_line(p, clk, sizeof clk);
		jsonutil_append(hosts, json_pack("{s:s,s:s,s:s,s:I,s:{s:s,s:s,s:s}}", "name", node,
			"status", "ok", "run", run, "exit_code", (json_int_t)atoi(rc), "fingerprint",
			"hostname", node, "machine_id", clk, "slurm_job", job));
		jsonutil_append(runs, jsonutil_text(run));
	}
	(void)want;
}

int fleet_slurm(char **specs, size_t n, struct cli_opts *o, const char *stage_unused,
		const char *fleet_id)
{
	char stage[PATH_MAX], script[PATH_MAX], err[1024], limit[32], tmin[32], shared[PATH_MAX];
	json_t *argv = json_array(), *jobs = json_array(), *hosts = json_array(), *runs = json_array();
	char **sargv = NULL;
	int rc = EXIT_INTERNAL, nodes = o->slurm_nodes ? o->slurm_nodes : 1;
	size_t na;
	struct stat st;

	(void)stage_unused;
	if (stat(o->shared_dir, &st) < 0 || !S_ISDIR(st.st_mode) || !realpath(o->shared_dir, shared)) {
		fprintf(stderr, "runner: fleet: --shared-dir %s: not a folder\n", o->shared_dir);
		rc = EXIT_USAGE;
		goto out;
	}
	if (fleet_find_file("tools/fleet/slurm-task.sh", "fleet/slurm-task.sh", script, sizeof script) < 0) {
		fprintf(stderr, "runner: fleet: tools/fleet/slurm-task.sh (share/sysmeter/fleet/ installed) "
			"is not there\n");
		goto out;
	}
	snprintf(stage, sizeof stage, "%s/.sysmeter-fleet-%s", shared, fleet_id);
	if (mkdir(stage, 0755) < 0) {
		fprintf(stderr, "runner: fleet: %s: %s\n", stage, strerror(errno));
		rc = errno == EEXIST ? EXIT_USAGE : EXIT_INTERNAL;
		goto out;
	}
	if (fleet_make_build(stage, specs, n, o, argv, err, sizeof err) < 0) {
		fprintf(stderr, "runner: fleet: %s\n", err);
		goto rm;
	}
	snprintf(limit, sizeof limit, "%.0f", o->time_limit);
	snprintf(tmin, sizeof tmin, "%.0f", ceil(o->time_limit / 60) + 2);
	/* sbatch OPTIONS SCRIPT STAGE ID LIMIT RUNNER_ARGS... */
	na = json_array_size(argv);
	sargv = calloc(na + 32, sizeof *sargv);
	if (!sargv)
		goto rm;
	{
		char out[PATH_MAX + 32], array[64], nodelist[4096] = "", jobname[300];
		size_t k = 0, fixed;

		snprintf(out, sizeof out, "%s/slurm-%%j.out", stage);
		snprintf(jobname, sizeof jobname, "sysmeter-%s", fleet_id);
		sargv[k++] = "sbatch";
		sargv[k++] = "--parsable";
		sargv[k++] = "--exclusive";
		sargv[k++] = "--nodes=1";
		sargv[k++] = "--ntasks=1";
		sargv[k++] = "--job-name";
		sargv[k++] = jobname;
		sargv[k++] = "--output";
		sargv[k++] = out;
		sargv[k++] = "--time";
		sargv[k++] = tmin;
		if (o->partition) {
			sargv[k++] = "--partition";
			sargv[k++] = (char *)o->partition;
		}
		fixed = k;
		sargv[k++] = script;
		sargv[k++] = stage;
		sargv[k++] = (char *)fleet_id;
		sargv[k++] = limit;
		for (size_t i = 0; i < na; i++)
			sargv[k++] = (char *)json_string_value(json_array_get(argv, i));
		if (!o->slurm_nodelist) {
			/* N tasks of an array: insert --array before the script */
			snprintf(array, sizeof array, "--array=0-%d", nodes - 1);
			memmove(&sargv[fixed + 1], &sargv[fixed], (k - fixed) * sizeof *sargv);
			sargv[fixed] = array;
			if (submit(sargv, stage, jobs) < 0) {
				fprintf(stderr, "runner: fleet: sbatch refused the job (see above)\n");
				rc = EXIT_FAILED;
				goto rm;
			}
			/* the array's tasks: ID_0 .. ID_{N-1} are jobs of their own ids
			   once they run; squeue and scontrol take ID for all */
		} else {
			char *hargv[] = {"scontrol", "show", "hostnames", (char *)o->slurm_nodelist, NULL};
			char *save = NULL, *tok, nl[64 + 300];

			if (capture(hargv, stage, "nodes.out", nodelist, sizeof nodelist, 60) < 0) {
				char *shown = fleet_shown(o->slurm_nodelist);

				fprintf(stderr, "runner: fleet: --nodelist %s: scontrol cannot expand it\n",
					shown ? shown : "?");
				free(shown);
				rc = EXIT_USAGE;
				goto rm;
			}
			memmove(&sargv[fixed + 1], &sargv[fixed], (k - fixed) * sizeof *sargv);
			sargv[fixed] = nl;
			for (tok = strtok_r(nodelist, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
				snprintf(nl, sizeof nl, "--nodelist=%s", tok);
				if (submit(sargv, stage, jobs) < 0) {
					/* named as shown: a name that is not UTF-8 would
					   make no JSON, and the node would vanish */
					char *shown = fleet_shown(tok);

					jsonutil_append(hosts, json_pack("{s:s,s:s,s:s}", "name",
						shown ? shown : "?", "status", "missing", "reason",
						"sbatch refused the job"));
					free(shown);
				}
			}
		}
	}
	if (!o->quiet) {
		char *shown = fleet_shown(fleet_id);

		fprintf(stderr, "runner: fleet: %zu Slurm job(s), run %s, seed %llu, time limit %s s\n",
			json_array_size(jobs), shown ? shown : "?", (unsigned long long)o->seed, limit);
		free(shown);
	}
	if (json_array_size(jobs))
		wait_jobs(jobs, stage, o->time_limit + 600);
	/* an array's tasks: one outcome folder per task job id; find them */
	if (!o->slurm_nodelist && json_array_size(jobs) == 1) {
		char d[PATH_MAX + 16], *argv2[] = {"ls", "-1", d, NULL}, out[8192], *save = NULL, *tok;
		json_t *tasks = json_array();
		int found = 0;

		snprintf(d, sizeof d, "%s/jobs", stage);
		if (access(d, F_OK) == 0 && capture(argv2, stage, "jobs.out", out, sizeof out, 30) == 0)
			for (tok = strtok_r(out, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
				if (strspn(tok, "0123456789") == strlen(tok)) {
					jsonutil_append(tasks, jsonutil_text(tok));
					found++;
				}
		for (; found < nodes; found++)	/* the tasks that never started */
			jsonutil_append(tasks, json_sprintf("%s_%d", json_string_value(json_array_get(jobs, 0)),
							    found));
		json_decref(jobs);
		jobs = tasks;
	}
	collect(stage, fleet_id, jobs, nodes, hosts, runs);
	rc = fleet_finish(stage, fleet_id, hosts, runs, o);
rm:
	fleet_rm_tree(stage);
out:
	free(sargv);
	json_decref(argv);
	json_decref(jobs);
	json_decref(hosts);
	json_decref(runs);
	return rc;
}
