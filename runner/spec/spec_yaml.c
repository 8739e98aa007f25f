/*
 * spec_yaml.c - YAML loading, positions, key checks and --set grafting for
 * the spec module.  See spec_yaml.h.
 *
 * Overrides are grafted into the loaded document (not applied to the spec
 * struct) so that a value from --set goes through exactly the key handlers a
 * value from the file goes through: one set of checks, one set of messages.
 */
#include "spec/spec_yaml.h"
#include "lib/suggest.h"
#include "lib/text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A YAML value nested deeper than this is refused, in a spec and in an
   override: aliases can make a node its own ancestor, the graft copies
   recursively, and libyaml's scanner slows quadratically with flow depth
   (50,000 '[' took 9 s). */
#define SY_MAX_DEPTH 64
/* An override's value copied into the spec (aliases expanded) has at most
   this many nodes: a few anchors nest into a billion ("billion laughs"). */
#define SY_MAX_COPY 10000

struct copy_budget {
	long left;		/* nodes that may still be made */
	int deep, big, cycle;	/* why a copy stopped */
	int path[SY_MAX_DEPTH + 2];	/* node ids from the root to here */
};

yaml_node_t *spec_yaml_node(struct spec_yaml_ctx *c, int id)
{
	return yaml_document_get_node(&c->doc, id);
}

struct spec_pos spec_yaml_pos(const struct spec_yaml_ctx *c, const yaml_node_t *n)
{
	struct spec_pos pos = {0, 0};
	int id;

	if (!n)
		return pos;
	id = (int)(n - c->doc.nodes.start) + 1;
	for (size_t k = 0; c->ov_lo && k < c->n_ov; k++)
		if (id >= c->ov_lo[k] && id <= c->ov_hi[k]) {
			pos.col = (int)k + 1;
			return pos;
		}
	pos.line = (int)n->start_mark.line + 1;
	pos.col = (int)n->start_mark.column + 1;
	return pos;
}

void spec_yaml_prefix(const char *file, const char *name, char *const *ov, size_t n_ov,
		      size_t cur_ov, struct spec_pos pos, char *buf, size_t len)
{
	if (pos.line > 0)
		snprintf(buf, len, "%s:%d:%d: ", file, pos.line, pos.col);
	else if (pos.col > 0 && (size_t)pos.col <= n_ov && (size_t)pos.col != cur_ov)
		snprintf(buf, len, "--set %s%s%s: ", name ? name : "", name ? "." : "",
			 ov[pos.col - 1]);
	else if (len)
		buf[0] = '\0';
}

static int vfail(struct spec_yaml_ctx *c, struct spec_pos pos, const char *fmt, va_list ap)
{
	char pre[512];
	size_t n;

	spec_yaml_prefix(c->file, c->name, c->ov, c->n_ov, c->cur_ov, pos, pre, sizeof(pre));
	snprintf(c->err, c->errlen, "%s", pre);
	n = strlen(c->err);
	if (n < c->errlen)
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	return -1;
}

int spec_yaml_clean_err(int rc, char *err, size_t errlen)
{
	if (rc != 0 && errlen > 0 && !text_printable_utf8(err)) {
		char *shown = malloc(errlen);

		if (shown) {
			text_escape(err, shown, errlen);
			memcpy(err, shown, errlen);
			free(shown);
		}
	}
	return rc;
}

int spec_yaml_fail(struct spec_yaml_ctx *c, struct spec_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(c, pos, fmt, ap);
	va_end(ap);
	return -1;
}

const char *spec_yaml_what(const yaml_node_t *n, char *buf, size_t len)
{
	if (!n || n->type == YAML_NO_NODE)
		snprintf(buf, len, "nothing");
	else if (n->type == YAML_SEQUENCE_NODE)
		snprintf(buf, len, "a list");
	else if (n->type == YAML_MAPPING_NODE)
		snprintf(buf, len, "a mapping");
	else if (n->data.scalar.length == 0 && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		snprintf(buf, len, "nothing");	/* `key:` with no value */
	else if (n->data.scalar.length > 60)
		snprintf(buf, len, "'%.57s...'", spec_yaml_str(n));
	else
		snprintf(buf, len, "'%s'", spec_yaml_str(n));
	return buf;
}

/* Position of byte `off` in text (reader errors only carry an offset). */
static yaml_mark_t mark_at(const char *text, size_t len, size_t off)
{
	yaml_mark_t m = {0, 0, 0};

	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			m.column++;	/* count characters, as libyaml does */
		}
	}
	m.index = off;
	return m;
}

/*
 * libyaml says "found character that cannot start any token" (or worse) for a
 * tab in indentation.  If the line of the problem, or the line before it
 * (block structure errors surface on the next token), has a tab among its
 * leading blanks, point at that tab instead.
 */
static int tab_in_indent(const char *text, size_t len, size_t index, yaml_mark_t *at)
{
	size_t ls = index < len ? index : len;
	size_t starts[2];
	int nst = 0;

	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	starts[nst++] = ls;
	if (ls > 0) {
		size_t ps = ls - 1;
		while (ps > 0 && text[ps - 1] != '\n')
			ps--;
		starts[nst++] = ps;
	}
	for (int i = 0; i < nst; i++) {
		for (size_t j = starts[i]; j < len && (text[j] == ' ' || text[j] == '\t'); j++)
			if (text[j] == '\t') {
				*at = mark_at(text, len, j);
				return 1;
			}
	}
	return 0;
}

/* Format libyaml's error: "yaml: <problem> <context> (started at line N)". */
static int yaml_error(struct spec_yaml_ctx *c, const yaml_parser_t *p, const char *text, size_t len,
		      int with_pos)
{
	yaml_mark_t m = p->problem_mark, tab;
	struct spec_pos pos = {0, c->cur_ov ? (int)c->cur_ov : 0};
	char ctx[160] = "";

	if (p->error == YAML_MEMORY_ERROR)
		return spec_yaml_fail(c, pos, "out of memory");
	if (p->error == YAML_READER_ERROR)
		m = mark_at(text, len, p->problem_offset);
	if (with_pos) {
		pos.line = (int)m.line + 1;
		pos.col = (int)m.column + 1;
		if (tab_in_indent(text, len, m.index, &tab)) {
			pos.line = (int)tab.line + 1;
			pos.col = (int)tab.column + 1;
			return spec_yaml_fail(c, pos, "tab character in indentation (use spaces)");
		}
	}
	if (p->context && p->context_mark.line != m.line)
		snprintf(ctx, sizeof(ctx), " %s (started at line %zu)", p->context,
			 (size_t)p->context_mark.line + 1);
	else if (p->context)
		snprintf(ctx, sizeof(ctx), " %s", p->context);
	if (p->error == YAML_READER_ERROR && p->problem_value != -1)
		return spec_yaml_fail(c, pos, "yaml: %s (byte 0x%02x)", p->problem ? p->problem : "error",
			       (unsigned)p->problem_value & 0xffu);
	return spec_yaml_fail(c, pos, "yaml: %s%s", p->problem ? p->problem : "syntax error", ctx);
}

/* Nesting deeper than SY_MAX_DEPTH, found by a streaming pass before the
   document is built: 0, or -1 with the message at the level too deep.  A
   syntax error is left to the loading pass, which reports it. */
static int depth_check(struct spec_yaml_ctx *c, const char *text, size_t len, int with_pos)
{
	yaml_parser_t p;
	yaml_event_t e;
	int depth = 0, rc = 0;

	if (!yaml_parser_initialize(&p))
		return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&p, &e))
			break;
		yaml_event_type_t t = e.type;
		yaml_mark_t m = e.start_mark;

		yaml_event_delete(&e);
		if (t == YAML_STREAM_END_EVENT)
			break;
		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > SY_MAX_DEPTH) {
				struct spec_pos pos = {0, c->cur_ov ? (int)c->cur_ov : 0};

				if (with_pos)
					pos = (struct spec_pos){(int)m.line + 1, (int)m.column + 1};
				rc = spec_yaml_fail(c, pos, "nested more than %d levels deep", SY_MAX_DEPTH);
				break;
			}
		} else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
	}
	yaml_parser_delete(&p);
	return rc;
}

int spec_yaml_load(struct spec_yaml_ctx *c, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_document_t extra;
	int rc = 0;

	if (!yaml_parser_initialize(&p))
		return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
	c->text = text;
	c->text_len = len;
	if (depth_check(c, text, len, 1) < 0) {
		yaml_parser_delete(&p);
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &c->doc)) {
		rc = yaml_error(c, &p, text, len, 1);
		goto out;
	}
	c->have_doc = 1;
	if (!yaml_document_get_root_node(&c->doc))
		goto out;
	/* a second document would be silently ignored: say so instead */
	if (!yaml_parser_load(&p, &extra)) {
		rc = yaml_error(c, &p, text, len, 1);
		goto out;
	}
	if (yaml_document_get_root_node(&extra)) {
		yaml_node_t *r = yaml_document_get_root_node(&extra);
		struct spec_pos pos = {(int)r->start_mark.line + 1, (int)r->start_mark.column + 1};
		rc = spec_yaml_fail(c, pos, "yaml: a spec is one document, found a second one");
	}
	yaml_document_delete(&extra);
out:
	yaml_parser_delete(&p);
	return rc;
}

void spec_yaml_free(struct spec_yaml_ctx *c)
{
	if (c->have_doc)
		yaml_document_delete(&c->doc);
	c->have_doc = 0;
	free(c->ov_lo);
	free(c->ov_hi);
	c->ov_lo = c->ov_hi = NULL;
}

int spec_yaml_fields(struct spec_yaml_ctx *c, yaml_node_t *map, const char *path,
		     const char *const *keys, size_t nkeys, yaml_node_t **vals,
		     yaml_node_t **knodes)
{
	yaml_node_pair_t *start = map->data.mapping.pairs.start;
	yaml_node_pair_t *top = map->data.mapping.pairs.top;
	char what[96], pre[128];

	snprintf(pre, sizeof(pre), "%s%s", path, *path ? ": " : "");
	for (size_t i = 0; vals && i < nkeys; i++)
		vals[i] = knodes[i] = NULL;
	for (yaml_node_pair_t *pr = start; pr < top; pr++) {
		yaml_node_t *k = spec_yaml_node(c, pr->key);
		size_t i;

		if (k->type != YAML_SCALAR_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, k), "%skeys must be plain words, got %s", pre,
				       spec_yaml_what(k, what, sizeof(what)));
		for (yaml_node_pair_t *q = start; q < pr; q++) {
			yaml_node_t *kq = spec_yaml_node(c, q->key);
			if (kq->type == YAML_SCALAR_NODE && strcmp(spec_yaml_str(kq), spec_yaml_str(k)) == 0) {
				struct spec_pos first = spec_yaml_pos(c, kq);
				if (first.line > 0)
					return spec_yaml_fail(c, spec_yaml_pos(c, k),
						       "%sduplicate key '%s' (first at line %d)", pre,
						       spec_yaml_str(k), first.line);
				return spec_yaml_fail(c, spec_yaml_pos(c, k), "%sduplicate key '%s'", pre, spec_yaml_str(k));
			}
		}
		if (!keys)
			continue;
		for (i = 0; i < nkeys && strcmp(keys[i], spec_yaml_str(k)) != 0; i++)
			;
		if (i == nkeys) {
			const char *s = suggest_word(spec_yaml_str(k), keys, nkeys);
			char list[256] = "";
			if (s)
				return spec_yaml_fail(c, spec_yaml_pos(c, k), "%sunknown key '%s' (did you mean '%s'?)",
					       pre, spec_yaml_str(k), s);
			if (!*path)	/* the top level has too many keys to list */
				return spec_yaml_fail(c, spec_yaml_pos(c, k), "unknown key '%s'", spec_yaml_str(k));
			for (size_t j = 0; j < nkeys; j++) {
				size_t n = strlen(list);
				snprintf(list + n, sizeof(list) - n, "%s%s", j ? ", " : "", keys[j]);
			}
			return spec_yaml_fail(c, spec_yaml_pos(c, k), "%sunknown key '%s' (expected %s)", pre,
				       spec_yaml_str(k), list);
		}
		if (vals) {
			vals[i] = spec_yaml_node(c, pr->value);
			knodes[i] = k;
		}
	}
	return 0;
}

/* Copy node `id` of src into c->doc; returns the new id or 0 (b says
   why: too deep, too many nodes, or out of memory). */
static int copy_node(yaml_document_t *dst, yaml_document_t *src, int id, int depth,
		     struct copy_budget *b)
{
	yaml_node_t *n = yaml_document_get_node(src, id);
	int out, k, v;

	if (!n)
		return 0;
	if (depth > SY_MAX_DEPTH) {
		b->deep = 1;
		return 0;
	}
	/* an alias inside its own anchor: a node that is its own ancestor */
	for (int i = 0; i < depth; i++)
		if (b->path[i] == id) {
			b->cycle = 1;
			return 0;
		}
	b->path[depth] = id;
	if (--b->left < 0) {
		b->big = 1;
		return 0;
	}
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return yaml_document_add_scalar(dst, n->tag, n->data.scalar.value,
						(int)n->data.scalar.length, n->data.scalar.style);
	case YAML_SEQUENCE_NODE:
		out = yaml_document_add_sequence(dst, n->tag, n->data.sequence.style);
		if (!out)
			return 0;
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			if (!(v = copy_node(dst, src, *it, depth + 1, b)) ||
			    !yaml_document_append_sequence_item(dst, out, v))
				return 0;
		}
		return out;
	case YAML_MAPPING_NODE:
		out = yaml_document_add_mapping(dst, n->tag, n->data.mapping.style);
		if (!out)
			return 0;
		for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
		     pr < n->data.mapping.pairs.top; pr++) {
			if (!(k = copy_node(dst, src, pr->key, depth + 1, b)) ||
			    !(v = copy_node(dst, src, pr->value, depth + 1, b)) ||
			    !yaml_document_append_mapping_pair(dst, out, k, v))
				return 0;
		}
		return out;
	case YAML_NO_NODE:
		break;
	}
	return 0;
}

static int node_count(const yaml_document_t *d)
{
	return (int)(d->nodes.top - d->nodes.start);
}

/* Index of the pair with scalar key `key` in mapping `id`, or -1. */
static int find_pair(struct spec_yaml_ctx *c, int id, const char *key)
{
	yaml_node_t *m = spec_yaml_node(c, id);

	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = spec_yaml_node(c, pr->key);
		if (k->type == YAML_SCALAR_NODE && strcmp(spec_yaml_str(k), key) == 0)
			return (int)(pr - m->data.mapping.pairs.start);
	}
	return -1;
}

/* Walk/extend the path segs[0..nseg-1] from the root and set the last key to
   a copy of vroot (in vdoc).  Node pointers are re-fetched after every add:
   adding nodes may move the document's node array. */
static int graft(struct spec_yaml_ctx *c, char **segs, size_t nseg, yaml_document_t *vdoc, int vroot,
		 const char *path)
{
	int cur = 1, v, key, idx;	/* the root node is id 1 */

	for (size_t i = 0; i < nseg; i++) {
		if (spec_yaml_node(c, cur)->type != YAML_MAPPING_NODE) {
			int plen = (int)(segs[i] - segs[0]) - 1;	/* segs point into one buffer */
			return spec_yaml_fail(c, (struct spec_pos){0, 0},
				       "cannot set '%s': '%.*s' is not a mapping", path, plen, path);
		}
		idx = find_pair(c, cur, segs[i]);
		if (i + 1 < nseg) {
			if (idx >= 0) {
				cur = spec_yaml_node(c, cur)->data.mapping.pairs.start[idx].value;
				continue;
			}
			v = yaml_document_add_mapping(&c->doc, NULL, YAML_FLOW_MAPPING_STYLE);
		} else {
			struct copy_budget b = { .left = SY_MAX_COPY };

			v = copy_node(&c->doc, vdoc, vroot, 0, &b);
			if (!v && b.big)
				return spec_yaml_fail(c, (struct spec_pos){0, 0},
						      "value of '%s' is too large: more than %d values once "
						      "its aliases are expanded", path, SY_MAX_COPY);
			if (!v && b.cycle)
				return spec_yaml_fail(c, (struct spec_pos){0, 0},
						      "value of '%s' contains itself (an alias inside its "
						      "own anchor)", path);
			if (!v && b.deep)
				return spec_yaml_fail(c, (struct spec_pos){0, 0},
						      "value of '%s' is nested more than %d levels deep",
						      path, SY_MAX_DEPTH);
		}
		if (!v)
			return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
		if (idx >= 0) {
			spec_yaml_node(c, cur)->data.mapping.pairs.start[idx].value = v;
		} else {
			key = yaml_document_add_scalar(&c->doc, NULL, (yaml_char_t *)segs[i], -1,
						       YAML_PLAIN_SCALAR_STYLE);
			if (!key || !yaml_document_append_mapping_pair(&c->doc, cur, key, v))
				return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
		}
		cur = v;
	}
	return 0;
}

int spec_yaml_apply_override(struct spec_yaml_ctx *c, size_t k)
{
	const char *a = c->ov[k - 1], *eq = strchr(a, '=');
	char *path = NULL, *segs[16];
	size_t nseg = 0;
	yaml_parser_t p;
	yaml_document_t vdoc;
	yaml_node_t *vroot;
	int rc = -1, have_vdoc = 0, vid, empty;

	if (!c->ov_lo) {
		c->ov_lo = calloc(c->n_ov, sizeof(int));
		c->ov_hi = calloc(c->n_ov, sizeof(int));
		if (!c->ov_lo || !c->ov_hi)
			return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
	}
	if (!eq || eq == a)
		return spec_yaml_fail(c, (struct spec_pos){0, 0},
			       "expected KEY=VALUE like params.stride=64, got '%s'", a);
	path = strndup(a, (size_t)(eq - a));
	if (!path)
		return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
	for (char *s = path, *dot;; s = dot + 1) {
		dot = strchr(s, '.');
		if (dot)
			*dot = '\0';
		if (!*s || nseg == sizeof(segs) / sizeof(segs[0])) {
			spec_yaml_fail(c, (struct spec_pos){0, 0}, "bad key '%.*s'", (int)(eq - a), a);
			goto out;
		}
		segs[nseg++] = s;
		if (!dot)
			break;
	}
	if (!yaml_parser_initialize(&p)) {
		spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
		goto out;
	}
	if (depth_check(c, eq + 1, strlen(eq + 1), 0) < 0) {
		yaml_parser_delete(&p);
		goto out;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)eq + 1, strlen(eq + 1));
	if (!yaml_parser_load(&p, &vdoc)) {
		yaml_error(c, &p, eq + 1, strlen(eq + 1), 0);
		yaml_parser_delete(&p);
		goto out;
	}
	have_vdoc = 1;
	/* what follows the value ("[getpid]]]]") is an error, not ignored */
	{
		yaml_document_t rest;

		if (!yaml_parser_load(&p, &rest)) {
			size_t at = p.problem_mark.index;

			spec_yaml_fail(c, (struct spec_pos){0, c->cur_ov ? (int)c->cur_ov : 0},
				       "text after the value: '%.20s' (quote the value if it is one "
				       "string)", eq + 1 + (at < strlen(eq + 1) ? at : 0));
			yaml_parser_delete(&p);
			goto out;
		}
		int more = yaml_document_get_root_node(&rest) != NULL;
		yaml_document_delete(&rest);
		if (more) {
			spec_yaml_fail(c, (struct spec_pos){0, c->cur_ov ? (int)c->cur_ov : 0},
				       "text after the value (quote the value if it is one string)");
			yaml_parser_delete(&p);
			goto out;
		}
	}
	yaml_parser_delete(&p);
	vroot = yaml_document_get_root_node(&vdoc);
	empty = !vroot;
	if (empty) {	/* "cpu=": an empty plain scalar, so the key's check reports it */
		vid = yaml_document_add_scalar(&vdoc, NULL, (yaml_char_t *)"", 0,
					       YAML_PLAIN_SCALAR_STYLE);
		if (!vid) {
			spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
			goto out;
		}
	} else {
		vid = (int)(vroot - vdoc.nodes.start) + 1;
	}
	/* the dotted path is rebuilt for messages: segs were split in place */
	{
		char shown[256];
		snprintf(shown, sizeof(shown), "%.*s", (int)(eq - a), a);
		c->ov_lo[k - 1] = node_count(&c->doc) + 1;
		/* segs[] point into path; graft() uses their offsets to quote prefixes */
		rc = graft(c, segs, nseg, &vdoc, vid, shown);
		c->ov_hi[k - 1] = node_count(&c->doc);
	}
out:
	if (have_vdoc)
		yaml_document_delete(&vdoc);
	free(path);
	return rc;
}
