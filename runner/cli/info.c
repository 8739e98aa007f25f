/*
 * info.c - `runner list` and `runner probe-help NAME`: what the probes in
 * the probe directory offer, straight from their parameter tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/info.h"
#include "lib/exitcode.h"
#include "exec/loader.h"
#include "spec/spec.h"
#include "lib/units.h"

static const char *type_name(enum probe_param_type t)
{
	switch (t) {
	case PROBE_INT: return "int";
	case PROBE_SIZE: return "size";
	case PROBE_TIME: return "time";
	case PROBE_DOUBLE: return "number";
	case PROBE_STRING: return "string";
	case PROBE_BOOL: return "bool";
	}
	return "?";
}

static void print_params(const struct loaded_probe *lp, const char *indent)
{
	const struct probe *p = lp->p;
	for (size_t i = 0; i < lp->n_params; i++) {
		const struct probe_param *pp = &p->params[i];
		printf("%s%-12s %-6s default %-10s %s", indent, pp->name, type_name(pp->type),
		       pp->def ? pp->def : "-", pp->help ? pp->help : "");
		if (pp->choices) {
			char names[512];
			printf(" (one of %s)", spec_choices_text(pp->choices, names, sizeof names));
		}
		if (pp->min != pp->max) {
			/* Bounds in the parameter's own units: [8B, 1TiB], not 1.09951e+12. */
			char lo[32], hi[32];
			if (pp->type == PROBE_SIZE) {
				units_format_size(pp->min, lo, sizeof lo);
				units_format_size(pp->max, hi, sizeof hi);
			} else if (pp->type == PROBE_TIME) {
				units_format_time(pp->min, lo, sizeof lo);
				units_format_time(pp->max, hi, sizeof hi);
			} else {
				snprintf(lo, sizeof lo, "%g", pp->min);
				snprintf(hi, sizeof hi, "%g", pp->max);
			}
			printf(" [%s, %s]", lo, hi);
		}
		printf("\n");
	}
	if (strcmp(p->name, SPEC_COMMAND_PROBE) == 0)	/* exec/command_vars.c */
		printf("%s(any other name)    a parameter of the spec's own, for {name} in the command: "
		       "int, size or text by its values, passed as written\n", indent);
}

int info_list(void)
{
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	if (loader_list(&names, &n) < 0 || n == 0) {
		fprintf(stderr, "runner: no probes found in %s\n", loader_dir());
		free(names);
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < n; i++) {
		struct loaded_probe lp;
		char err[1024];
		if (loader_open(names[i], &lp, err, sizeof err) < 0) {
			printf("%-16s (broken: %s)\n", names[i], err);
			free(names[i]);
			continue;
		}
		printf("%-16s %s [%s]\n", lp.p->name, lp.p->summary ? lp.p->summary : "",
		       lp.p->unit ? lp.p->unit : "");
		print_params(&lp, "    ");
		loader_close(&lp);
		free(names[i]);
	}
	free(names);
	return rc;
}

int info_probe_help(const char *name)
{
	struct loaded_probe lp;
	char err[1024];
	if (loader_open(name, &lp, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_USAGE;
	}
	const struct probe *p = lp.p;
	printf("%s %s - %s\n", p->name, p->version ? p->version : "", p->summary ? p->summary : "");
	printf("unit: %s%s\n", p->unit ? p->unit : "", p->bigger_is_better ? " (bigger is better)" : "");
	printf("file: %s\nsha256: %s\n", lp.path, lp.sha256);
	printf("parameters:\n");
	if (lp.n_params == 0)
		printf("    (none)\n");
	print_params(&lp, "    ");
	if (lp.n_metrics) {
		printf("secondary values:\n");
		for (size_t i = 0; i < lp.n_metrics; i++)
			printf("    %-16s %-8s %s\n", p->metrics[i].name,
			       p->metrics[i].unit ? p->metrics[i].unit : "",
			       p->metrics[i].help ? p->metrics[i].help : "");
	}
	loader_close(&lp);
	return EXIT_OK;
}
