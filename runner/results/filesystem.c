/*
 * filesystem.c - which file system a directory parameter lives on
 * (results_filesystem, results.h): the mount point, type, source and
 * options from /proc/self/mountinfo, so a figure read from a directory
 * says what it was read from (ext4 on a virtio disk, tmpfs, an NFS mount
 * with its server and cache options).
 */
#include "results/results.h"
#include "lib/jsonutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
}

/* Is mount point m a prefix of path at a component boundary? */
static size_t covers(const char *m, const char *path)
{
	size_t n = strlen(m);

	if (strcmp(m, "/") == 0)
		return 1;
	return strncmp(m, path, n) == 0 && (path[n] == '/' || path[n] == '\0') ? n : 0;
}

/* What an NFS mount's options say about the client's caches. */
static const char *nfs_caches(const char *opts, const char *super)
{
	char all[2048];

	snprintf(all, sizeof all, ",%s,%s,", opts ? opts : "", super ? super : "");
	if (strstr(all, ",noac,") || strstr(all, ",actimeo=0,"))
		return "attribute cache off (noac/actimeo=0); file data still goes through this "
		       "client's page cache unless read with O_DIRECT or evicted";
	return "attribute and data caches on (the client's page cache holds what it read)";
}

json_t *results_filesystem(const char *dir)
{
	return results_filesystem_in(dir, "/proc/self/mountinfo");
}

json_t *results_filesystem_in(const char *dir, const char *mountinfo)
{
	char path[PATH_MAX], line[4096], best[4096] = "";
	size_t best_len = 0;
	FILE *f;

	if (!dir || !*dir || !realpath(dir, path))
		return json_null();
	if (!(f = fopen(mountinfo, "r")))
		return json_null();
	while (fgets(line, sizeof line, f)) {
		char mnt[4096];
		size_t n;

		/* id parent major:minor root mountpoint options ... - type source super */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		unescape(mnt);
		if ((n = covers(mnt, path)) >= best_len && n > 0) {
			best_len = n;
			snprintf(best, sizeof best, "%s", line);
		}
	}
	fclose(f);
	if (!best_len)
		return json_null();

	char mnt[4096], opts[1024], type[256] = "", source[1024] = "", super[1024] = "";
	const char *dash = strstr(best, " - ");

	if (sscanf(best, "%*s %*s %*s %*s %4095s %1023s", mnt, opts) != 2 || !dash ||
	    sscanf(dash + 3, "%255s %1023s %1023s", type, source, super) < 2)
		return json_null();
	unescape(mnt);
	unescape(source);
	/* a mount point is bytes, not necessarily UTF-8 */
	json_t *j = json_pack("{s:o,s:o,s:o,s:o,s:o}", "mount", jsonutil_text(mnt),
			      "type", jsonutil_text(type), "source", jsonutil_text(source),
			      "options", jsonutil_text(opts), "super_options", jsonutil_text(super));
	if (j && strncmp(type, "nfs", 3) == 0)
		jsonutil_set(j, "client_caches", jsonutil_text(nfs_caches(opts, super)));
	return j;
}
