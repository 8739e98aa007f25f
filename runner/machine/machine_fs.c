/*
 * machine_fs.c - reading the machine's files under a root prefix
 * (machine_fs.h).  The prefix lets a test describe a machine that is not
 * this one: a tree with no cache files, another clocksource, PTI on.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/machine_fs.h"

static char root[512];

const char *machine_fs_root(void)
{
	return root;
}

void machine_fs_set_root(const char *r)
{
	size_t n;

	snprintf(root, sizeof root, "%s", r ? r : "");
	n = strlen(root);
	while (n > 0 && root[n - 1] == '/')	/* "/tmp/x/" + "/sys" */
		root[--n] = '\0';
}

char *machine_fs_path(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "%s%s", root, path);
	return buf;
}

char *machine_fs_line(const char *path)
{
	char p[1024], buf[512];
	FILE *f = fopen(machine_fs_path(p, sizeof p, path), "r");
	char *r;

	if (!f)
		return NULL;
	r = fgets(buf, sizeof buf, f);
	fclose(f);
	if (!r)
		return NULL;
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf);
}

char *machine_fs_slurp(const char *path, size_t max)
{
	char p[1024];
	FILE *f = fopen(machine_fs_path(p, sizeof p, path), "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	if (!(buf = malloc(max + 1))) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, max, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

char *machine_fs_field(const char *path, const char *key, char sep)
{
	char p[1024], line[4096];
	FILE *f = fopen(machine_fs_path(p, sizeof p, path), "r");
	size_t klen = strlen(key);
	char *out = NULL;

	if (!f)
		return NULL;
	while (!out && fgets(line, sizeof line, f)) {
		if (strncmp(line, key, klen) != 0)
			continue;
		char *q = line + klen;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != sep)
			continue;
		q++;
		while (*q == ' ' || *q == '"')
			q++;
		q[strcspn(q, "\"\n")] = 0;
		out = strdup(q);
	}
	fclose(f);
	return out;
}

int machine_fs_has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s; p && (p = strstr(p, word)); p += n)
		if ((p == s || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

int machine_fs_cpulist_count(const char *list)
{
	const char *p = list;
	int n = 0;

	if (!list)
		return -1;
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0)
			return -1;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -1;
		}
		n += (int)(b - a + 1);
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return n > 0 ? n : -1;
}
