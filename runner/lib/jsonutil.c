/*
 * jsonutil.c - tolerant getters, a file loader and checked insertion for
 * the run's JSON (jsonutil.h).
 */
#include "lib/jsonutil.h"
#include "lib/strf.h"
#include "lib/text.h"

#include <errno.h>
#include <stdlib.h>
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

/* The first failure only: later ones are usually its consequences (the
   parent that could not be built).  One runner builds its documents on one
   thread. */
static char build_failure[200];

static int build_failed(const char *key, const char *why)
{
	if (!build_failure[0]) {
		char shown[120];

		text_escape(key ? key : "(array element)", shown, sizeof shown);
		strf(build_failure, sizeof build_failure, "%s: %s", shown, why);
	}
	return -1;
}

int jsonutil_set(json_t *o, const char *key, json_t *v)
{
	if (!v) {
		return build_failed(key, "its value could not be built (a text that is not UTF-8, "
					 "or out of memory)");
	}
	if (!json_is_object(o)) {
		json_decref(v);
		return build_failed(key, "its object could not be built");
	}
	if (json_object_set_new(o, key, v) < 0)
		return build_failed(key, "the key is not UTF-8, or out of memory");
	return 0;
}

int jsonutil_append(json_t *a, json_t *v)
{
	if (!v)
		return build_failed(NULL, "its value could not be built (a text that is not "
					  "UTF-8, or out of memory)");
	if (!json_is_array(a)) {
		json_decref(v);
		return build_failed(NULL, "its array could not be built");
	}
	if (json_array_append_new(a, v) < 0)
		return build_failed(NULL, "out of memory");
	return 0;
}

const char *jsonutil_build_failure(void)
{
	return build_failure[0] ? build_failure : NULL;
}

json_t *jsonutil_text(const char *s)
{
	json_t *j = json_string(s);

	if (!j && s) {
		size_t len = strlen(s) * 4 + 1;	/* every byte may become \xNN */
		char *shown = malloc(len);

		if (shown) {
			text_escape_lines(s, shown, len);
			j = json_string(shown);
			free(shown);
		}
	}
	return j;
}
