/*
 * jsonutil.h - reading the run's JSON (manifest, results) without a type
 * check at every use: a key that is missing or of another type reads as
 * NULL or NAN, which the report and chart code show as "n/a" or a dash.
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

#endif
