/*
 * machine_fs.h - the files the machine reader reads (/sys, /proc, /etc),
 * every one under a root prefix: "" on a real run, a fake tree in the tests
 * (machine_set_root, SYSMETER_MACHINE_ROOT).  Private to machine/.
 */
#ifndef SYSMETER_MACHINE_FS_H
#define SYSMETER_MACHINE_FS_H

#include <stddef.h>

/* The root in force: "" for the real machine. */
const char *machine_fs_root(void);
void machine_fs_set_root(const char *root);

/* root + path into buf (path starts with '/'); buf. */
char *machine_fs_path(char *buf, size_t len, const char *path);

/* First line of the file root+path, newline cut; NULL when unreadable.
   Free it. */
char *machine_fs_line(const char *path);

/* The whole file root+path (at most max bytes), NUL-terminated; NULL when
   unreadable.  Free it. */
char *machine_fs_slurp(const char *path, size_t max);

/* "key : value" from /proc/cpuinfo (sep ':') or os-release (sep '='): the
   first line that starts with key; NULL when absent.  Free it. */
char *machine_fs_field(const char *path, const char *key, char sep);

/* Is word one of the blank-separated words of s? */
int machine_fs_has_word(const char *s, const char *word);

/* Number of CPUs in a kernel CPU list ("0-3,8,10-11"); -1 when it does
   not parse. */
int machine_fs_cpulist_count(const char *list);

#endif
