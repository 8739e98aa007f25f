/*
 * report_gnuplot.c - the report's gnuplot and its escaping for charts
 * drawn outside a run folder (report.h): the history chart of
 * `runner history` goes through the same runner (report_tools.c) and the
 * same escaping (template.c) as the report's own charts.
 */
#include "report/report.h"
#include "report/report_tools.h"
#include "report/template.h"
#include "lib/strf.h"
#include "lib/text.h"

#include <stdio.h>
#include <string.h>

int report_gnuplot_found(void)
{
	return report_tools_found("gnuplot");
}

char *report_gnuplot_string(const char *s)
{
	return template_escape(s, TEMPLATE_GP);
}

/* The last non-empty line of dir/report.log: gnuplot's complaint. */
static void last_log_line(const char *dir, char *out, size_t len)
{
	char path[4096], line[512];
	FILE *f;

	out[0] = '\0';
	strf(path, sizeof path, "%s/report.log", dir);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		/* gnuplot quotes the script, whose strings are the store's:
		   shown escaped, never raw on a terminal */
		if (line[strspn(line, " \t")] && line[0] != '$')
			text_escape(line + strspn(line, " \t"), out, len);
	}
	fclose(f);
}

int report_gnuplot(const char *dir, const char *script, int verbose, char *err, size_t errlen)
{
	struct report_tools t;
	char msg[1024], last[512];
	int rc;

	if (!report_gnuplot_found()) {
		strf(err, errlen, "gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
		return -1;
	}
	report_tools_init(&t, dir, verbose);
	rc = report_tools_gnuplot(&t, script, msg, sizeof msg);
	report_tools_close(&t);
	if (rc < 0) {
		last_log_line(dir, last, sizeof last);
		strf(err, errlen, "%s%s%s", msg, *last ? ": " : "", last);
	}
	return rc;
}
