/*
 * jsonutil.h - reading the run's JSON (manifest, results) without a type
 * check at every use: a key that is missing or of another type reads as
 * NULL or NAN, which the report and chart code show as "n/a" or a dash;
 * and building it without losing a value in silence.
 */
#ifndef SYSMETER_JSONUTIL_H
#define SYSMETER_JSONUTIL_H

#include <stddef.h>
#include <jansson.h>

/* o[key] when it is a string, else NULL (also when o is not an object). */
const char *jsonutil_str(json_t *o, const char *key);

/* o[key] when it is a number, else NAN. */
double jsonutil_num(json_t *o, const char *key);

/* Parse the JSON file at path (duplicate keys rejected).  Returns NULL with
   why in msg ("line 3 column 1: ..." or strerror) and *missing set when the
   file does not exist, so that a missing file can be told from a broken
   one. */
json_t *jsonutil_load(const char *path, char *msg, size_t msglen, int *missing);

/* Building JSON.  jansson's constructors return NULL for a string that is
   not UTF-8 or when memory runs out, and json_object_set_new(o, k, NULL)
   then drops the key without a word (a spec whose name was not UTF-8 once
   vanished from the results that way).  Every insertion in the runner goes
   through these two, which behave as json_object_set_new and
   json_array_append_new and also record the first failure (a NULL value or
   container, or jansson refusing): results_write_json and the report
   refuse to write anything while one is recorded, so a value is never
   silently missing from a file. */
int jsonutil_set(json_t *o, const char *key, json_t *v);
int jsonutil_append(json_t *a, json_t *v);

/* json_string(s), except that a text that is not UTF-8 (a program's
   output, a message cut inside a character) is kept with the offending
   bytes as \xNN instead of becoming NULL.  NULL only when s is NULL or
   memory runs out. */
json_t *jsonutil_text(const char *s);

/* "KEY: why" of the first failure since the process started, or NULL. */
const char *jsonutil_build_failure(void);

#endif
