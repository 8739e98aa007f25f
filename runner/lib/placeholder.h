/*
 * placeholder.h - {name} placeholders in the text of a command (the spec's
 * `command:` key): found when a spec is checked, replaced by a point's
 * values when it runs.  One scanner for both, so what `runner check`
 * accepts is exactly what a run substitutes.
 *
 * Syntax: {name} with name [A-Za-z_][A-Za-z0-9_]* is a placeholder; {{ and
 * }} are a literal { and }; any other brace is itself.
 */
#ifndef SYSMETER_PLACEHOLDER_H
#define SYSMETER_PLACEHOLDER_H

#include <stddef.h>

/* The value of placeholder name[0..len), or NULL when there is none. */
typedef const char *(*placeholder_fn)(void *arg, const char *name, size_t len);

/* How values go in: as they are (an argv element, never seen by a shell),
   or single-quoted for a shell script ('it'\''s'). */
enum placeholder_quote { PLACEHOLDER_RAW, PLACEHOLDER_SHELL };

/*
 * Replace every placeholder of tmpl by lookup's value into a malloc'd
 * *out.  0; -1 when a placeholder has no value (its name, at most badlen-1
 * bytes, in bad; *out NULL) or memory ran out (bad = "").
 */
int placeholder_expand(const char *tmpl, placeholder_fn lookup, void *arg,
		       enum placeholder_quote quote, char **out, char *bad, size_t badlen);

#endif
