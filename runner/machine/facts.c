/*
 * facts.c - machine facts a program cannot read, given by the user with
 * --machine FILE (docs/results-format.md, "Given facts"): a YAML mapping
 * whose keys are names of the manifest's machine object, each checked
 * against a whitelist with its type, every error "FILE:LINE:COL: ..." as a
 * spec's.  Applied to the machine object, a given value completes or
 * overrides the detected one, which is kept under machine.detected; the
 * given keys are listed in machine.given.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "machine/machine.h"
#include "lib/jsonutil.h"
#include "lib/safe_open.h"
#include "lib/suggest.h"
#include "lib/text.h"
#include "lib/units.h"

/* A file of facts is a page of YAML; a larger one is not one.  Once its
   aliases are expanded it may not grow past the same text or more values
   than a spec's override may (spec_yaml.c, SY_MAX_COPY): a 229 KB list of
   aliases made a 14 MB manifest ("billion laughs"). */
#define FACTS_MAX_BYTES (256 * 1024)
#define FACTS_MAX_VALUES 10000
#define FACTS_MAX_DEPTH 8
#define FACTS_TEXT_MAX 256
/* File content quoted in a message: at most this many characters, escaped. */
#define FACTS_SHOWN_MAX 60

enum fkind {
	FK_TEXT,	/* printable text */
	FK_COUNT,	/* a whole number >= 1 */
	FK_INT,		/* a whole number >= 0 */
	FK_SIZE,	/* bytes: 16GiB, 48KiB, 1.25MiB */
	FK_RATE,	/* bytes per second: 51.2 GB/s */
	FK_BITRATE,	/* bits per second: 10 Gbit/s, 1Gb/s; a bare number is bits/s */
	FK_MTS,		/* mega transfers per second: 3200, "3200 MT/s" */
	FK_IOPS,	/* operations per second: 500000, "500k IOPS" */
	FK_FREQ,	/* Hz: 2.8 GHz */
	FK_CACHE_TYPE,	/* Data | Instruction | Unified */
	FK_MAP,		/* a mapping of sub[] */
	FK_CACHES,	/* a list of mappings of sub[] */
};

/* A number's plausible range, in the manifest's unit: a clock of 1e-300 Hz
   or a cache of a petabyte is a typo, and predictions would divide by it. */
struct frange {
	double lo, hi;
	const char *text;	/* the range as a message names it */
};

struct fkey {
	const char *name;
	enum fkind kind;
	const struct fkey *sub;
	size_t nsub;
	const char *as;		/* the manifest key it sets (core_clock_hz: core_clock) */
	struct frange range;	/* numbers only */
};

#define SUB(a) a, sizeof a / sizeof a[0]
#define TEXT(n) {n, FK_TEXT, NULL, 0, NULL, {0, 0, NULL}}
#define NUM(n, k, lo, hi, text) {n, k, NULL, 0, NULL, {lo, hi, text}}
#define MAP(n, k, sub) {n, k, SUB(sub), NULL, {0, 0, NULL}}
#define CLOCK(n) NUM(n, FK_FREQ, 1e6, 100e9, "1 MHz to 100 GHz")
/* x86: family up to 0xf + 0xff, model 0xff, stepping 0xf; ARM (midr.c):
   implementer 0xff, part number 0xfff, revision 0xf */
static const struct fkey cpu_keys[] = {
	TEXT("vendor"), NUM("family", FK_INT, 0, 270, "0 to 270"),
	NUM("model", FK_INT, 0, 4095, "0 to 4095"), NUM("stepping", FK_INT, 0, 15, "0 to 15"),
	TEXT("microarchitecture"),
};
static const struct fkey core_clock_keys[] = { CLOCK("hz"), CLOCK("base_hz"), CLOCK("max_hz") };
static const struct fkey smt_keys[] = {
	NUM("threads_per_core", FK_COUNT, 1, 16, "1 to 16"),
};
static const struct fkey cache_keys[] = {
	NUM("level", FK_COUNT, 1, 8, "1 to 8"), {"type", FK_CACHE_TYPE, NULL, 0, NULL, {0, 0, NULL}},
	NUM("size_bytes", FK_SIZE, 256, 16.0 * (1 << 30), "256 B to 16 GiB"),
	NUM("line_bytes", FK_SIZE, 8, 4096, "8 B to 4 KiB"),
	NUM("ways", FK_COUNT, 1, 65536, "1 to 65536"), TEXT("shared_cpu_list"),
};
static const struct fkey top_keys[] = {
	TEXT("hostname"), TEXT("os"), TEXT("kernel"), TEXT("arch"), TEXT("cpu_model"),
	NUM("cpus_online", FK_COUNT, 1, 65536, "1 to 65536"),
	NUM("cpus_configured", FK_COUNT, 1, 65536, "1 to 65536"),
	MAP("cpu", FK_MAP, cpu_keys), MAP("core_clock", FK_MAP, core_clock_keys),
	{"core_clock_hz", FK_FREQ, NULL, 0, "core_clock", {1e6, 100e9, "1 MHz to 100 GHz"}},
	MAP("caches", FK_CACHES, cache_keys), MAP("smt", FK_MAP, smt_keys),
	NUM("memory_bytes", FK_SIZE, 1 << 20, 4096.0 * (1LL << 40), "1 MiB to 4096 TiB"),
	NUM("memory_bus_bandwidth", FK_RATE, 1e6, 100e12, "1 MB/s to 100 TB/s"),
	TEXT("memory_type"), NUM("memory_speed", FK_MTS, 10, 100000, "10 to 100000 MT/s"),
	TEXT("disk"), NUM("disk_seq_read", FK_RATE, 1e3, 1e12, "1 kB/s to 1 TB/s"),
	NUM("disk_rand_read_iops", FK_IOPS, 1, 1e9, "1 to 1000M IOPS"),
	TEXT("nic"), NUM("nic_link_speed", FK_BITRATE, 1e3, 10e12, "1 kbit/s to 10 Tbit/s"),
};

struct fctx {
	const char *file;	/* escaped, for messages */
	yaml_document_t doc;
	char *err;
	size_t errlen;
	long values;		/* nodes walked, an alias's once per use */
	size_t text;		/* their scalars' bytes */
	const char *top;	/* the top-level key being read, and where */
	yaml_mark_t top_mark;
};

static int fail(struct fctx *c, const yaml_mark_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct fctx *c, const yaml_mark_t *at, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->errlen, "%s:%zu:%zu: ", c->file, at ? at->line + 1 : 1,
			 at ? at->column + 1 : 1);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->errlen)
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* s, text of the file, as a message quotes it: control characters and
   invalid UTF-8 escaped (text_escape), at most FACTS_SHOWN_MAX characters
   and "..." when cut: never raw on a terminal, never a file's whole text
   (len: at least FACTS_SHOWN_MAX + 4). */
static const char *quote(const char *s, char *buf, size_t len)
{
	char all[4 * FACTS_SHOWN_MAX + 1];

	/* an escaped text is at least as long as the text */
	if (strlen(s) <= FACTS_SHOWN_MAX) {
		text_escape(s, all, sizeof all);
		if (strlen(all) <= FACTS_SHOWN_MAX) {
			snprintf(buf, len, "%s", all);
			return buf;
		}
	}
	text_escape(s, buf, len < FACTS_SHOWN_MAX + 4 ? len : FACTS_SHOWN_MAX + 1);
	if (strlen(buf) + 4 <= len)
		strcat(buf, "...");
	return buf;
}

static const char *what(const yaml_node_t *n, char *buf, size_t len)
{
	char q[FACTS_SHOWN_MAX + 4];

	if (!n)
		snprintf(buf, len, "nothing");
	else if (n->type == YAML_SEQUENCE_NODE)
		snprintf(buf, len, "a list");
	else if (n->type == YAML_MAPPING_NODE)
		snprintf(buf, len, "a mapping");
	else if (n->data.scalar.length == 0)
		snprintf(buf, len, "nothing");
	else
		snprintf(buf, len, "'%s'", quote((const char *)n->data.scalar.value, q, sizeof q));
	return buf;
}

static const char *expect(enum fkind k)
{
	switch (k) {
	case FK_TEXT: return "a text";
	case FK_COUNT: return "a whole number of at least 1";
	case FK_INT: return "a whole number";
	case FK_SIZE: return "a size like 48KiB or 16GiB";
	case FK_RATE: return "a rate in bytes per second like 51.2 GB/s";
	case FK_BITRATE: return "a link speed like 10 Gbit/s or 1Gb/s (a bare number: bits/s)";
	case FK_MTS: return "transfers per second like 3200 MT/s (a bare number: MT/s)";
	case FK_IOPS: return "operations per second like 500000 or 500k IOPS";
	case FK_FREQ: return "a frequency like 2.8 GHz";
	case FK_CACHE_TYPE: return "Data, Instruction or Unified";
	case FK_MAP: return "a mapping";
	case FK_CACHES: return "a list of caches";
	}
	return "a value";
}

/* text ends with suffix (after optional blanks): cut it off and say 1. */
static int cut_suffix(char *text, const char *suffix)
{
	size_t n = strlen(text), s = strlen(suffix);

	if (n < s || strcmp(text + n - s, suffix) != 0)
		return 0;
	text[n - s] = '\0';
	while (n - s > 0 && (text[n - s - 1] == ' ' || text[n - s - 1] == '\t'))
		text[--n - s] = '\0';
	return 1;
}

/* A quantity of kind k from text; 0, or -1. */
static int quantity(enum fkind k, const char *text, double *v)
{
	char buf[128], err[200];
	double mult = 1;

	snprintf(buf, sizeof buf, "%s", text);
	switch (k) {
	case FK_SIZE: return units_parse(buf, UNIT_SIZE, v, err, sizeof err);
	case FK_RATE: return units_parse(buf, UNIT_RATE, v, err, sizeof err);
	case FK_FREQ: return units_parse(buf, UNIT_FREQ, v, err, sizeof err);
	case FK_BITRATE:
		if (units_parse(buf, UNIT_NUMBER, v, err, sizeof err) == 0)
			return 0;
		if (units_parse(buf, UNIT_RATE, v, err, sizeof err) < 0)
			return -1;
		*v *= 8;
		return 0;
	case FK_MTS:
		if (!cut_suffix(buf, "MT/s") && cut_suffix(buf, "GT/s"))
			mult = 1000;
		break;
	case FK_IOPS:
		if (!cut_suffix(buf, "IOPS"))
			cut_suffix(buf, "iops");
		if (cut_suffix(buf, "k"))
			mult = 1e3;
		else if (cut_suffix(buf, "M"))
			mult = 1e6;
		break;
	default:
		break;
	}
	if (units_parse(buf, UNIT_NUMBER, v, err, sizeof err) < 0)
		return -1;
	*v *= mult;
	return 0;
}

/* The value of one key (its node n) as the manifest records it. */
static int value(struct fctx *c, const struct fkey *k, const char *path, yaml_node_t *n,
		 json_t **out);

static int mapping(struct fctx *c, const struct fkey *keys, size_t nkeys, const char *path,
		   yaml_node_t *map, json_t *obj, json_t *order);

/* Is number v (of the key k, written s) in k's plausible range?  0, or -1
   (said). */
static int in_range(struct fctx *c, const struct fkey *k, const char *path, yaml_node_t *n,
		    double v, const char *s)
{
	char q[FACTS_SHOWN_MAX + 4];

	if (!k->range.text || (v >= k->range.lo && v <= k->range.hi))
		return 0;
	return fail(c, &n->start_mark, "%s: out of range: expected %s, got '%s'", path,
		    k->range.text, quote(s, q, sizeof q));
}

static int scalar_value(struct fctx *c, const struct fkey *k, const char *path, yaml_node_t *n,
			json_t **out)
{
	const char *s = (const char *)n->data.scalar.value;
	char w[120], q[FACTS_SHOWN_MAX + 4];
	double v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0)
		return fail(c, &n->start_mark, "%s: expected %s, got %s", path, expect(k->kind),
			    what(n, w, sizeof w));
	if (strlen(s) != n->data.scalar.length || !text_printable_utf8(s) ||
	    n->data.scalar.length > FACTS_TEXT_MAX)
		return fail(c, &n->start_mark, "%s: expected %s of at most %d printable characters",
			    path, expect(k->kind), FACTS_TEXT_MAX);
	/* from here s is printable, yet quoted short: a message is not a copy */
	quote(s, q, sizeof q);
	if (k->kind == FK_TEXT) {
		*out = jsonutil_text(s);
		return 0;
	}
	if (k->kind == FK_CACHE_TYPE) {
		if (strcmp(s, "Data") && strcmp(s, "Instruction") && strcmp(s, "Unified"))
			return fail(c, &n->start_mark, "%s: expected %s, got '%s'", path,
				    expect(k->kind), q);
		*out = jsonutil_text(s);
		return 0;
	}
	if (k->kind == FK_COUNT || k->kind == FK_INT) {
		long long x;
		char err[200];

		if (units_parse_int(s, &x, err, sizeof err) < 0 || x < (k->kind == FK_COUNT))
			return fail(c, &n->start_mark, "%s: expected %s, got '%s'", path,
				    expect(k->kind), q);
		if (in_range(c, k, path, n, (double)x, s) < 0)
			return -1;
		*out = json_integer(x);
		return 0;
	}
	if (s[strspn(s, " \t")] == '-')
		return fail(c, &n->start_mark, "%s: must be positive, got '%s'", path, q);
	if (quantity(k->kind, s, &v) < 0 || !isfinite(v))
		return fail(c, &n->start_mark, "%s: expected %s, got '%s'", path, expect(k->kind), q);
	if (v <= 0)
		return fail(c, &n->start_mark, "%s: must be positive, got '%s'", path, q);
	if (k->kind == FK_SIZE && v != floor(v))
		return fail(c, &n->start_mark, "%s: expected a whole number of bytes, got '%s'",
			    path, q);
	if (in_range(c, k, path, n, v, s) < 0)
		return -1;
	/* in range, a size is a whole number below 2^53: exact as an integer */
	*out = k->kind == FK_SIZE ? json_integer((json_int_t)v) : json_real(v);
	return 0;
}

/* Node n walked (an alias's node once per use: what the manifest will
   hold): 0, or -1 (said, where the top-level key being read is) once the
   walk passes FACTS_MAX_VALUES nodes or FACTS_MAX_BYTES of text. */
static int spend(struct fctx *c, const yaml_node_t *n)
{
	const char *key = c->top ? c->top : "machine facts";

	if (n && n->type == YAML_SCALAR_NODE)
		c->text += n->data.scalar.length;
	if (++c->values > FACTS_MAX_VALUES)
		return fail(c, &c->top_mark, "%s: more than %d values once its aliases are expanded "
			    "(machine facts: at most %d values and %d KiB of text)", key,
			    FACTS_MAX_VALUES, FACTS_MAX_VALUES, FACTS_MAX_BYTES / 1024);
	if (c->text > FACTS_MAX_BYTES)
		return fail(c, &c->top_mark, "%s: more than %d KiB of text once its aliases are "
			    "expanded (machine facts: at most %d values and %d KiB of text)", key,
			    FACTS_MAX_BYTES / 1024, FACTS_MAX_VALUES, FACTS_MAX_BYTES / 1024);
	return 0;
}

static int caches_value(struct fctx *c, const struct fkey *k, const char *path, yaml_node_t *n,
			json_t **out)
{
	char w[120], sub[160];
	json_t *arr;

	if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top == n->data.sequence.items.start)
		return fail(c, &n->start_mark, "%s: expected %s (level, type, size_bytes, ...), got "
			    "%s", path, expect(k->kind), what(n, w, sizeof w));
	arr = json_array();
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(&c->doc, *it);
		json_t *obj = json_object();
		static const char *const need[] = {"level", "type", "size_bytes"};

		snprintf(sub, sizeof sub, "%s[%td]", path, it - n->data.sequence.items.start);
		if (spend(c, e) < 0) {
			json_decref(obj);
			json_decref(arr);
			return -1;
		}
		if (!e || e->type != YAML_MAPPING_NODE) {
			json_decref(obj);
			json_decref(arr);
			return fail(c, e ? &e->start_mark : &n->start_mark, "%s: expected a mapping "
				    "(level, type, size_bytes, ...), got %s", sub, what(e, w, sizeof w));
		}
		if (mapping(c, k->sub, k->nsub, sub, e, obj, NULL) < 0) {
			json_decref(obj);
			json_decref(arr);
			return -1;
		}
		for (size_t i = 0; i < 3; i++)
			if (!json_object_get(obj, need[i])) {
				json_decref(obj);
				json_decref(arr);
				return fail(c, &e->start_mark, "%s: %s missing", sub, need[i]);
			}
		jsonutil_append(arr, obj);
	}
	*out = arr;
	return 0;
}

static int value(struct fctx *c, const struct fkey *k, const char *path, yaml_node_t *n,
		 json_t **out)
{
	char w[120];

	if (spend(c, n) < 0)
		return -1;
	if (k->kind == FK_CACHES)
		return caches_value(c, k, path, n, out);
	if (k->kind != FK_MAP)
		return scalar_value(c, k, path, n, out);
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, &n->start_mark, "%s: expected a mapping, got %s", path,
			    what(n, w, sizeof w));
	*out = json_object();
	if (mapping(c, k->sub, k->nsub, path, n, *out, NULL) < 0) {
		json_decref(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* Each key of map checked against keys[] and its value into obj (under
   its `as` name); order (when not NULL) gets the keys as the manifest
   names them, in the file's order. */
static int mapping(struct fctx *c, const struct fkey *keys, size_t nkeys, const char *path,
		   yaml_node_t *map, json_t *obj, json_t *order)
{
	const char *names[32];

	for (size_t i = 0; i < nkeys && i < 32; i++)
		names[i] = keys[i].name;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = yaml_document_get_node(&c->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&c->doc, p->value);
		const struct fkey *k = NULL;
		char full[200], w[120], q[FACTS_SHOWN_MAX + 4];
		const char *name, *as, *hint;
		json_t *v = NULL;

		if (!kn || kn->type != YAML_SCALAR_NODE)
			return fail(c, kn ? &kn->start_mark : &map->start_mark, "%s%sexpected a key, "
				    "got %s", path, *path ? ": " : "", what(kn, w, sizeof w));
		name = (const char *)kn->data.scalar.value;
		for (size_t i = 0; i < nkeys; i++)
			if (strcmp(name, keys[i].name) == 0)
				k = &keys[i];
		if (!k) {
			hint = suggest_word(name, names, nkeys < 32 ? nkeys : 32);
			if (hint)
				return fail(c, &kn->start_mark, "%s%sunknown key '%s' (did you "
					    "mean '%s'?)", path, *path ? ": " : "",
					    quote(name, q, sizeof q), hint);
			return fail(c, &kn->start_mark, "%s%sunknown key '%s' (machine facts: "
				    "docs/results-format.md)", path, *path ? ": " : "",
				    quote(name, q, sizeof q));
		}
		if (!*path) {	/* a budget passed is said where its fact starts */
			c->top = k->name;
			c->top_mark = kn->start_mark;
		}
		if (spend(c, kn) < 0)
			return -1;
		as = k->as ? k->as : k->name;
		if (json_object_get(obj, as))
			return fail(c, &kn->start_mark, "%s%s'%s' given twice%s", path,
				    *path ? ": " : "", name, k->as || (!*path && !strcmp(name,
				    "core_clock")) ? " (core_clock_hz is core_clock: {hz})" : "");
		snprintf(full, sizeof full, "%s%s%s", path, *path ? "." : "", name);
		if (!vn || value(c, k, full, vn, &v) < 0)
			return vn ? -1 : fail(c, &kn->start_mark, "%s: no value", full);
		if (k->as)	/* core_clock_hz: X is core_clock: {hz: X} */
			v = json_pack("{s:o}", "hz", v);
		jsonutil_set(obj, as, v);
		if (order)
			jsonutil_append(order, jsonutil_text(as));
	}
	return 0;
}

/* A nesting deeper than any fact's, found before the document is built. */
static int depth_ok(struct fctx *c, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_event_t e;
	int depth = 0, rc = 0;

	if (!yaml_parser_initialize(&p))
		return fail(c, NULL, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (yaml_parser_parse(&p, &e)) {
		yaml_event_type_t t = e.type;
		yaml_mark_t m = e.start_mark;

		yaml_event_delete(&e);
		if (t == YAML_STREAM_END_EVENT)
			break;
		if ((t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) &&
		    ++depth > FACTS_MAX_DEPTH) {
			rc = fail(c, &m, "nested more than %d levels deep", FACTS_MAX_DEPTH);
			break;
		}
		if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT)
			depth--;
	}
	yaml_parser_delete(&p);
	return rc;
}

/* The document of text into c->doc; 0, or -1 (said). */
static int load_doc(struct fctx *c, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_document_t extra;
	int more;

	if (depth_ok(c, text, len) < 0)
		return -1;
	if (!yaml_parser_initialize(&p))
		return fail(c, NULL, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &c->doc)) {
		yaml_mark_t m = p.problem_mark;

		fail(c, &m, "yaml: %s%s%s", p.problem ? p.problem : "syntax error",
		     p.context ? " " : "", p.context ? p.context : "");
		yaml_parser_delete(&p);
		return -1;
	}
	if (!yaml_parser_load(&p, &extra)) {
		yaml_mark_t m = p.problem_mark;

		fail(c, &m, "yaml: %s", p.problem ? p.problem : "syntax error");
		yaml_document_delete(&c->doc);
		yaml_parser_delete(&p);
		return -1;
	}
	more = yaml_document_get_root_node(&extra) != NULL;
	if (more) {
		yaml_mark_t m = extra.start_mark;

		fail(c, &m, "a second YAML document: one mapping of facts expected");
	}
	yaml_document_delete(&extra);
	yaml_parser_delete(&p);
	if (more)
		yaml_document_delete(&c->doc);
	return more ? -1 : 0;
}

/* The file's text, at most FACTS_MAX_BYTES, from a regular file only (a
   FIFO is refused, not waited on; with SAFE_OPEN_NOFOLLOW a symbolic link
   too); NULL (said) when unreadable. */
static char *read_text(struct fctx *c, const char *path, int flags, size_t *len)
{
	char *buf = safe_read_file(path, flags, FACTS_MAX_BYTES, len, c->err, c->errlen);
	size_t n = strlen(c->err);

	if (!buf && errno == EFBIG && n < c->errlen)
		snprintf(c->err + n, c->errlen - n, ": not a file of machine facts");
	return buf;
}

static int load(const char *path, const char *shown, int flags, struct machine_facts *f,
		char *err, size_t errlen)
{
	char file[1024];
	struct fctx c = {.file = file, .err = err, .errlen = errlen};
	yaml_node_t *root;
	char w[120];
	int rc;

	/* the name as messages show it: never raw control characters */
	text_escape(shown ? shown : path, file, sizeof file);
	memset(f, 0, sizeof *f);
	if (errlen)
		err[0] = '\0';
	if (!(f->text = read_text(&c, path, flags, &f->len)))
		return -1;
	if (load_doc(&c, f->text, f->len) < 0) {
		machine_facts_free(f);
		return -1;
	}
	root = yaml_document_get_root_node(&c.doc);
	if (!root || root->type != YAML_MAPPING_NODE ||
	    root->data.mapping.pairs.top == root->data.mapping.pairs.start) {
		rc = fail(&c, root ? &root->start_mark : NULL, "expected a mapping of machine facts "
			  "(memory_bus_bandwidth: 51.2 GB/s, ...), got %s", root &&
			  root->type == YAML_MAPPING_NODE ? "an empty one" : what(root, w, sizeof w));
	} else {
		f->values = json_object();
		f->keys = json_array();
		rc = mapping(&c, top_keys, sizeof top_keys / sizeof top_keys[0], "", root, f->values,
			     f->keys);
	}
	yaml_document_delete(&c.doc);
	if (rc < 0) {
		machine_facts_free(f);
		return -1;
	}
	f->file = strdup(shown ? shown : path);
	return 0;
}

int machine_facts_load(const char *path, const char *shown, struct machine_facts *f, char *err,
		       size_t errlen)
{
	return load(path, shown, 0, f, err, errlen);
}

int machine_facts_load_copy(const char *path, struct machine_facts *f, char *err, size_t errlen)
{
	return load(path, NULL, SAFE_OPEN_NOFOLLOW, f, err, errlen);
}

void machine_facts_free(struct machine_facts *f)
{
	free(f->text);
	free(f->file);
	json_decref(f->values);
	json_decref(f->keys);
	memset(f, 0, sizeof *f);
}

/* The last-level cache of given caches (the highest level of data or
   unified cache, the largest at it), as machine.llc records it. */
static json_t *given_llc(json_t *caches, json_t *old)
{
	json_t *c, *best = NULL, *llc;
	size_t i;

	json_array_foreach(caches, i, c) {
		const char *type = jsonutil_str(c, "type");
		json_int_t lv = json_integer_value(json_object_get(c, "level"));

		if (type && !strcmp(type, "Instruction"))
			continue;
		if (!best || lv > json_integer_value(json_object_get(best, "level")) ||
		    (lv == json_integer_value(json_object_get(best, "level")) &&
		     jsonutil_num(c, "size_bytes") > jsonutil_num(best, "size_bytes")))
			best = c;
	}
	if (!best)
		return json_null();
	llc = json_is_object(old) ? json_deep_copy(old) : json_object();
	jsonutil_set(llc, "level", json_deep_copy(json_object_get(best, "level")));
	jsonutil_set(llc, "size_bytes", json_deep_copy(json_object_get(best, "size_bytes")));
	jsonutil_set(llc, "source", jsonutil_text("given"));
	jsonutil_set(llc, "shared_by", json_null());
	jsonutil_set(llc, "plausible", json_true());
	jsonutil_set(llc, "why", json_null());
	return llc;
}

/* One given key's value over the detected one: a mapping (cpu,
   core_clock, smt) replaces the detected mapping, with source: given (a
   given clock is not a measured one: it does not hold for counting core
   cycles); caches are replaced and the LLC taken from them. */
static json_t *merged(json_t *m, const char *key, json_t *given, json_t *detected)
{
	json_t *out, *x;
	size_t i;

	if (json_is_object(given)) {
		out = json_deep_copy(given);
		jsonutil_set(out, "source", jsonutil_text("given"));
		if (!strcmp(key, "core_clock")) {
			jsonutil_set(out, "holds", json_false());
			jsonutil_set(out, "why_not", jsonutil_text("given, not measured: cycles are "
				     "counted in TSC ticks (the measured clock is detected.core_clock)"));
		}
		return out;
	}
	if (!strcmp(key, "caches")) {
		json_t *old = json_object_get(m, "llc");

		out = json_deep_copy(given);
		json_array_foreach(out, i, x)
			jsonutil_set(x, "source", jsonutil_text("given"));
		if (old && !json_is_null(old))
			jsonutil_set(detected, "llc", json_deep_copy(old));
		jsonutil_set(m, "llc", given_llc(out, old));
		return out;
	}
	return json_deep_copy(given);
}

void machine_facts_apply(json_t *m, const struct machine_facts *f, const char *copy)
{
	json_t *detected = json_object_get(m, "detected"), *sources = json_object_get(m, "sources");
	json_t *given = json_object_get(m, "given"), *v;
	const char *key;

	if (!f || !f->values)
		return;
	if (!json_is_object(detected)) {
		detected = json_object();
		jsonutil_set(m, "detected", detected);
	}
	if (!json_is_object(sources)) {
		sources = json_object();
		jsonutil_set(m, "sources", sources);
	}
	json_object_foreach(f->values, key, v) {
		json_t *old = json_object_get(m, key);

		if (old && !json_is_null(old))
			jsonutil_set(detected, key, json_deep_copy(old));
		jsonutil_set(m, key, merged(m, key, v, detected));
		jsonutil_set(sources, key, json_pack("{s:s,s:n}", "source", "given", "why_not"));
	}
	if (!json_is_object(given)) {
		given = json_pack("{s:n,s:n}", "root", "cpuid");
		jsonutil_set(m, "given", given);
	}
	jsonutil_set(given, "file", jsonutil_text(f->file));
	jsonutil_set(given, "copy", copy ? jsonutil_text(copy) : json_null());
	jsonutil_set(given, "keys", json_deep_copy(f->keys));
	if (json_object_size(detected) == 0)
		json_object_del(m, "detected");
}
