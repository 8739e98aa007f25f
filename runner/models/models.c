/*
 * models.c - `runner models` (models.h): the current specs loaded once,
 * every run folder read and judged by them, then the figures printed.
 * Every folder is read before anything is printed, so a folder that cannot
 * be read gives no half table.
 */
#include <stdio.h>
#include <stdlib.h>

#include "models/models.h"
#include "models/models_run.h"
#include "models/models_specs.h"
#include "models/models_table.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "lib/text.h"

int models_main(const struct models_request *rq)
{
	struct models_specs ms;
	struct machine_facts facts = {0};
	const char *dir = rq->specs_dir ? rq->specs_dir : "specs";
	json_t *hosts, *fig;
	char err[4096];
	int rc;

	if (rq->machine_file && machine_facts_load(rq->machine_file, NULL, &facts, err, sizeof err) < 0) {
		char shown[sizeof err * 4];

		text_escape(err, shown, sizeof shown);
		fprintf(stderr, "runner: %s\n", shown);
		return EXIT_USAGE;
	}
	if ((rc = models_specs_load(dir, &ms)) != EXIT_OK) {
		models_specs_free(&ms);
		machine_facts_free(&facts);
		return rc;
	}
	hosts = json_array();
	for (size_t i = 0; i < rq->n_runs; i++)
		if (models_run_judge(rq->runs[i], &ms, rq->machine_file ? &facts : NULL, hosts, err,
				     sizeof err) < 0) {
			char shown[sizeof err * 4];

			text_escape(err, shown, sizeof shown);
			fprintf(stderr, "runner: models: %s\n", shown);
			json_decref(hosts);
			models_specs_free(&ms);
			machine_facts_free(&facts);
			return EXIT_FAILED;
		}
	models_specs_free(&ms);
	machine_facts_free(&facts);
	fig = models_table_build(hosts, dir);
	json_decref(hosts);
	if (!fig || jsonutil_build_failure()) {
		fprintf(stderr, "runner: models: out of memory\n");
		json_decref(fig);
		return EXIT_INTERNAL;
	}
	if (rq->json) {
		char *text = json_dumps(fig, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);

		if (!text) {
			json_decref(fig);
			fprintf(stderr, "runner: models: out of memory\n");
			return EXIT_INTERNAL;
		}
		printf("%s\n", text);
		free(text);
	} else {
		models_table_print(fig);
	}
	json_decref(fig);
	return EXIT_OK;
}
