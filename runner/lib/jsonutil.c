/*
 * jsonutil.c - tolerant getters and a file loader for the run's JSON
 * (jsonutil.h).
 */
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *jsonutil_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

double jsonutil_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *jsonutil_load(const char *path, char *msg, size_t msglen, int *missing)
{
	json_error_t jerr;
	json_t *j;
	FILE *f = fopen(path, "r");

	*missing = 0;
	if (!f) {
		*missing = errno == ENOENT;
		strf(msg, msglen, "%s", strerror(errno));
		return NULL;
	}
	j = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!j) {
		char shown[sizeof jerr.text * 4];	/* jansson quotes raw bytes */

		text_escape(jerr.text, shown, sizeof shown);
		strf(msg, msglen, "line %d column %d: %s", jerr.line, jerr.column, shown);
	}
	return j;
}
