/*
 * compare.h - `runner compare A B` (docs/cli.md): point by point, B/A with
 * a 95 % interval from round-level variation, a noise threshold, Holm's
 * correction over all points, geometric means, and a decision a CI job can
 * gate on through the exit code.
 */
#ifndef SYSMETER_COMPARE_H
#define SYSMETER_COMPARE_H

/* What the command line said (NULL: the default).
     threshold  "5%" or "0.05": changes within +-threshold are noise (default 5 %)
     fail_on    "regression" | "change" | "never" (default): when to exit 1
     json       a file to write the decision to as JSON ("-": stdout) */
struct compare_args {
	const char *threshold, *fail_on, *json;
};

/* 0 (EXIT_OK), 1 (EXIT_FAILED: the --fail-on condition holds), 2 (bad
   option, unreadable run, no point in common), 3 (the JSON could not be
   written). */
int compare_main(const char *run_a, const char *run_b, const struct compare_args *args);

#endif
