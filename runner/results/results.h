/*
 * results.h - the files of a run (design §8): atomic writes, JSON numbers
 * that are never NaN, results.csv, run folders and out/latest.
 */
#ifndef SYSMETER_RESULTS_H
#define SYSMETER_RESULTS_H

#include <stddef.h>
#include <jansson.h>

/* A JSON number, or null when v is NaN or infinite. */
json_t *results_num(double v);

/* Write to PATH.tmp.<pid> in the same folder, fsync, rename: a crash never
   leaves half a file.  0 or -1 with "PATH: <strerror>" in err. */
int results_write_file(const char *path, const char *data, size_t len, char *err, size_t errlen);
int results_write_json(const char *path, const json_t *j, char *err, size_t errlen);

/* mkdir -p */
int results_mkdirs(const char *path, char *err, size_t errlen);

/* results.csv of a run from its results JSONs (array of result objects). */
int results_write_csv(const char *run_dir, const json_t *results, char *err, size_t errlen);

/* Point DIR/latest at run_id (symlink replaced atomically). */
int results_link_latest(const char *out_dir, const char *run_id, char *err, size_t errlen);

/* Load a JSON file; NULL with "PATH: <what>" in err. */
json_t *results_load(const char *path, char *err, size_t errlen);

#endif
