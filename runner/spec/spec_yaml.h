/*
 * spec_yaml.h - the YAML half of the spec module (private to spec.c): load a
 * libyaml document with "file:line:col: yaml: ..." errors, give every node a
 * position for messages (also nodes grafted in from a --set override), walk
 * mappings checking keys, and graft an override's value into a document.
 *
 * Prefix spec_yaml_.  Private to the spec module (spec*.c).
 */
#ifndef SYSMETER_SPEC_YAML_H
#define SYSMETER_SPEC_YAML_H

#include <stddef.h>
#include <yaml.h>
#include "spec/spec.h"

/* State of one parse of a spec text (plus its overrides). */
struct spec_yaml_ctx {
	const char *file;		/* names the spec in messages */
	const char *name;		/* experiment name, for "--set NAME.key=v: " */
	char *const *ov; size_t n_ov;	/* override assignments, in order */
	size_t cur_ov;			/* 1-based override being applied now (its
					   errors get no prefix: the caller adds one) */
	yaml_document_t doc; int have_doc;
	int *ov_lo, *ov_hi;		/* node ids ov_lo[k]..ov_hi[k] came from override k+1 */
	char *err; size_t errlen;
	const char *text; size_t text_len;	/* the spec's text (node marks index it) */
};

/* Position of a node: 1-based line/col in the file; {0, k} for a node made
   by override k (1-based). */
struct spec_pos spec_yaml_pos(const struct spec_yaml_ctx *c, const yaml_node_t *n);

/* Message prefix for a position: "FILE:L:C: ", "--set NAME.TEXT: " for an
   earlier override, "" for the current one (or when nothing is known). */
void spec_yaml_prefix(const char *file, const char *name, char *const *ov, size_t n_ov,
		      size_t cur_ov, struct spec_pos pos, char *buf, size_t len);

/* Write prefix + message into c->err; returns -1 so callers can `return spec_yaml_fail(...)`. */
int spec_yaml_fail(struct spec_yaml_ctx *c, struct spec_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* rc, after escaping in err (when rc != 0) every control character and
   byte that is not valid UTF-8 as \xNN: messages quote the user's text
   (an override's key, a value), and a terminal would obey an ESC in it.
   The public entry points return through this. */
int spec_yaml_clean_err(int rc, char *err, size_t errlen);

/* Load the one document in text into c->doc.  Errors: yaml syntax (with a
   friendlier message for tabs in indentation), a second document. */
int spec_yaml_load(struct spec_yaml_ctx *c, const char *text, size_t len);

/* Graft override k (1-based, c->ov[k-1], "a.b.c=value") into c->doc: the
   value is parsed as YAML and replaces (or adds) the key at that path. */
int spec_yaml_apply_override(struct spec_yaml_ctx *c, size_t k);

void spec_yaml_free(struct spec_yaml_ctx *c);

yaml_node_t *spec_yaml_node(struct spec_yaml_ctx *c, int id);

/* For "got X": "'text'" for a scalar, "a list", "a mapping". */
const char *spec_yaml_what(const yaml_node_t *n, char *buf, size_t len);

static inline const char *spec_yaml_str(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/*
 * Check a mapping's keys: scalars, unique, and (when keys != NULL) one of
 * keys[] (unknown ones get "did you mean").  `path` prefixes messages
 * ("repetitions: unknown key ..."), "" at the top.  When vals != NULL,
 * vals[i]/knodes[i] receive the value/key node of keys[i] (NULL if absent).
 */
int spec_yaml_fields(struct spec_yaml_ctx *c, yaml_node_t *map, const char *path,
		     const char *const *keys, size_t nkeys, yaml_node_t **vals,
		     yaml_node_t **knodes);

#endif
