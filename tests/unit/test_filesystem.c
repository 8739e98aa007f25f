/*
 * test_filesystem.c - results_filesystem_in (filesystem.c): the file system
 * of a directory from a mountinfo file: the longest covering mount point,
 * \ooo escapes, NFS servers and what their options say about the client's
 * caches.  The mountinfo lines are written here (this kernel has no NFS
 * client to mount one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "tap.h"
#include "results/results.h"

static const char *get(json_t *j, const char *k)
{
	return json_string_value(json_object_get(j, k));
}

int main(void)
{
	char path[] = "/tmp/test_filesystem.XXXXXX", base[] = "/tmp/test_fs_dir.XXXXXX";
	char dir[96], sub[128], ab[96], want[96];
	int fd = mkstemp(path);
	FILE *f;
	json_t *j;

	if (fd < 0 || !mkdtemp(base) || !(f = fdopen(fd, "w")))
		return 1;
	/* "/" is NFS with noac; a tmpfs deeper down whose name has a blank */
	fprintf(f, "20 1 0:40 / / rw,relatime,vers=4.2,noac - nfs4 srv.example:/export rw,vers=4.2,actimeo=0\n");
	fprintf(f, "21 20 0:41 / %s/a\\040b rw - tmpfs tmpfs rw,size=1024k\n", base);
	fprintf(f, "22 20 0:42 / %s/a rw - ext4 /dev/vdb rw\n", base);
	fclose(f);

	j = results_filesystem_in("/", path);
	ok(j && !strcmp(get(j, "type"), "nfs4") && !strcmp(get(j, "source"), "srv.example:/export") &&
	   !strcmp(get(j, "mount"), "/"), "/ on the NFS root");
	ok(get(j, "client_caches") && strstr(get(j, "client_caches"), "attribute cache off"),
	   "noac/actimeo=0: the attribute cache is off");
	json_decref(j);

	snprintf(dir, sizeof dir, "%s/a b", base);
	snprintf(want, sizeof want, "%s/a b", base);
	snprintf(sub, sizeof sub, "%s/deeper", dir);
	mkdir(dir, 0700);
	mkdir(sub, 0700);
	j = results_filesystem_in(sub, path);
	ok(j && !strcmp(get(j, "type"), "tmpfs") && !strcmp(get(j, "mount"), want),
	   "the longest mount point covering the path, unescaped (%s)", j ? get(j, "mount") : "-");
	ok(j && !json_object_get(j, "client_caches"), "no cache note for a local file system");
	json_decref(j);
	rmdir(sub);
	rmdir(dir);
	/* BASE/a is not a prefix of BASE/ab */
	snprintf(ab, sizeof ab, "%s/ab", base);
	mkdir(ab, 0700);
	j = results_filesystem_in(ab, path);
	ok(j && !strcmp(get(j, "mount"), "/"), "a mount point is matched at a component boundary");
	json_decref(j);
	rmdir(ab);
	rmdir(base);

	j = results_filesystem_in("/no/such/dir", path);
	ok(json_is_null(j), "a missing directory: null");
	json_decref(j);
	j = results_filesystem_in(NULL, path);
	ok(json_is_null(j), "no directory: null");
	json_decref(j);
	unlink(path);
	return done_testing();
}
