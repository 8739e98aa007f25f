/*
 * fleet_vars.c - the extra-vars file of `runner fleet --ansible`.
 *
 * Ansible templates every string of the extra-vars it is given (as JSON
 * or YAML): a value holding "{{ lookup('pipe', ...) }}" would run a command
 * on the controller, and a legitimate "{{" would be mangled.  A string
 * tagged !unsafe in a YAML vars file is never templated, and what is made
 * from it in the playbook (a path, an argv) stays unsafe too.  So every
 * string here is written as `!unsafe "..."`, in YAML's double-quoted style
 * with everything but printable ASCII escaped (\xNN, \uNNNN, \UNNNNNNNN):
 * the file is plain ASCII, and PyYAML reads back the very characters
 * (it would refuse some of them written raw, DEL and the C1 controls).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/fleet_vars.h"

/* One string as a double-quoted YAML scalar: -1 when it is not UTF-8 or
   holds a NUL (no argv can carry one). */
static int emit_string(FILE *f, const json_t *s)
{
	const unsigned char *p = (const unsigned char *)json_string_value(s);
	size_t len = json_string_length(s);

	fputs("!unsafe \"", f);
	for (size_t i = 0; i < len;) {
		unsigned c = p[i], cp;
		size_t n;

		if (c >= 0x20 && c < 0x7f) {
			if (c == '"' || c == '\\')
				fputc('\\', f);
			fputc((int)c, f);
			i++;
			continue;
		}
		if (c == 0)
			return -1;
		if (c < 0x80) {
			fprintf(f, "\\x%02x", c);
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4, cp = c & 0x07;
		else
			return -1;
		if (i + n > len)
			return -1;
		for (size_t k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return -1;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return -1;
		if (cp > 0xffff)
			fprintf(f, "\\U%08x", cp);
		else
			fprintf(f, "\\u%04x", cp);
		i += n;
	}
	fputc('"', f);
	return 0;
}

static int emit(FILE *f, const json_t *v)
{
	const char *key;
	const json_t *x;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return emit_string(f, v);
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_TRUE:
		fputs("true", f);
		return 0;
	case JSON_FALSE:
		fputs("false", f);
		return 0;
	case JSON_NULL:
		fputs("null", f);
		return 0;
	case JSON_ARRAY:
		fputc('[', f);
		json_array_foreach(v, i, x) {
			if (i)
				fputs(", ", f);
			if (emit(f, x) < 0)
				return -1;
		}
		fputc(']', f);
		return 0;
	case JSON_OBJECT:
		i = 0;
		fputc('{', f);
		json_object_foreach((json_t *)v, key, x) {
			json_t *k = json_string(key);
			int rc;

			if (i++)
				fputs(", ", f);
			/* a key is ours (fleet_id, ...), but written the same way */
			rc = k ? emit_string(f, k) : -1;
			json_decref(k);
			fputs(": ", f);
			if (rc < 0 || emit(f, x) < 0)
				return -1;
		}
		fputc('}', f);
		return 0;
	default:			/* a real: no variable of ours is one */
		return -1;
	}
}

int fleet_vars_emit(FILE *f, const json_t *vars)
{
	if (emit(f, vars) < 0)
		return -1;
	fputc('\n', f);
	return 0;
}

int fleet_vars_write(const char *path, const json_t *vars, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int bad, werr;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	bad = fleet_vars_emit(f, vars) < 0;
	werr = ferror(f);
	if (fclose(f) != 0)
		werr = 1;
	if (werr || bad) {
		snprintf(err, errlen, "%s: %s", path,
			 bad ? "a value the playbook cannot be given (not UTF-8, or a NUL)" :
			 strerror(errno));
		return -1;
	}
	return 0;
}
