/*
 * version.c - which runner this is (version.h).
 */
#include "lib/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *version_git_commit(void)
{
	/* The runner's source checkout, if it is one: read .git/HEAD beside
	   the binary's parent (build/runner -> ..) without running git. */
	char exe[4096], path[4400], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	for (int up = 0; up < 2 && (slash = strrchr(exe, '/')); up++)
		*slash = 0;
	snprintf(path, sizeof path, "%s/.git/HEAD", exe);
	FILE *f = fopen(path, "r");
	char line[512];
	if (!f)
		return NULL;
	if (!fgets(line, sizeof line, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (strncmp(line, "ref: ", 5) != 0)
		return strdup(line);
	snprintf(path, sizeof path, "%s/.git/%s", exe, line + 5);
	f = fopen(path, "r");
	if (!f) {
		/* packed refs */
		snprintf(path, sizeof path, "%s/.git/packed-refs", exe);
		if (!(f = fopen(path, "r")))
			return NULL;
		char l2[600], *res = NULL;
		while (!res && fgets(l2, sizeof l2, f)) {
			l2[strcspn(l2, "\n")] = 0;
			char *sp = strchr(l2, ' ');
			if (sp && strcmp(sp + 1, line + 5) == 0) {
				*sp = 0;
				res = strdup(l2);
			}
		}
		fclose(f);
		return res;
	}
	char *r = fgets(line, sizeof line, f) ? strdup(line) : NULL;
	fclose(f);
	if (r)
		r[strcspn(r, "\n")] = 0;
	return r;
}

