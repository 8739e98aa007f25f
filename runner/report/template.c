/*
 * template.c - the report placeholder engine (see template.h and
 * docs/templates.md).
 *
 * A template is parsed into a tree first, so that a structural error (an
 * unclosed section, a stray close) is reported with its line before any
 * output exists; the tree is then walked against a stack of jansson
 * contexts.  Output goes to an open_memstream, so there is no buffer
 * arithmetic to get wrong.
 */
#include "report/template.h"
#include "lib/html.h"
#include "lib/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEMPLATE_MAX_DEPTH 64		/* nested sections */
#define TEMPLATE_MAX_PARTIALS 16	/* nested partial inclusions */
#define TEMPLATE_MAX_DELIM 8

enum tnode_kind { TN_TEXT, TN_VAR, TN_RAW, TN_SECTION, TN_INVERTED, TN_PARTIAL };

struct tnode {
	enum tnode_kind kind;
	char *s;		/* text, or the tag's name */
	int line;		/* line of the tag (of the opening tag for sections) */
	struct tnode *kids;	/* sections: the body */
	struct tnode *next;
};

struct partial {
	char *name;
	struct tnode *tree;
	struct partial *next;
};

struct frame {
	json_t *v;
	size_t idx, n;		/* n > 0: v is element idx of an array of n */
};

struct render {
	FILE *out;
	enum template_format fmt;
	const char *const *dirs;
	struct partial *partials;
	struct frame stack[TEMPLATE_MAX_DEPTH];
	int depth;
	int partial_depth;
	char *err;
	size_t errlen;
};

static void tnode_free(struct tnode *n)
{
	while (n) {
		struct tnode *next = n->next;
		tnode_free(n->kids);
		free(n->s);
		free(n);
		n = next;
	}
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Messages quote the template's text (a bad name, a partial's name):
   control characters and invalid UTF-8 in it are shown as \xNN, so that a
   message stays one line and never drives the terminal. */
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char *shown;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (!text_printable_utf8(err) && (shown = malloc(errlen))) {
		text_escape(err, shown, errlen);
		memcpy(err, shown, errlen);
		free(shown);
	}
}

/* ---------------------------------------------------------------- escaping */

/* Decode one UTF-8 sequence at s; returns its length (0 when invalid) and
   the code point in *cp. */
static size_t utf8_decode(const unsigned char *s, unsigned *cp)
{
	unsigned c = s[0], need, v, min;
	size_t i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		need = 1; v = c & 0x1f; min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		need = 2; v = c & 0x0f; min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		need = 3; v = c & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return need + 1;
}

/* Characters beyond Latin-1/Latin Extended-A that pdflatex's utf8 input
   cannot typeset by itself but that measurement prose uses.  Anything else
   outside those ranges becomes '?': an unknown character would stop
   pdflatex with an error and lose the whole PDF. */
static const struct { unsigned cp; const char *tex; } tex_chars[] = {
	{0x00b5, "\\textmu{}"}, {0x00d7, "\\texttimes{}"}, {0x00f7, "\\textdiv{}"},
	{0x00b1, "\\textpm{}"}, {0x00b0, "\\textdegree{}"},
	{0x03bc, "\\textmu{}"}, {0x2013, "--"}, {0x2014, "---"}, {0x2018, "`"},
	{0x2019, "'"}, {0x201c, "``"}, {0x201d, "''"}, {0x2026, "\\dots{}"},
	{0x2022, "\\textbullet{}"}, {0x2192, "\\ensuremath{\\rightarrow}"},
	{0x2190, "\\ensuremath{\\leftarrow}"}, {0x2248, "\\ensuremath{\\approx}"},
	{0x2264, "\\ensuremath{\\leq}"}, {0x2265, "\\ensuremath{\\geq}"},
	{0x2260, "\\ensuremath{\\neq}"}, {0x221e, "\\ensuremath{\\infty}"},
	{0x2212, "\\ensuremath{-}"}, {0x00b7, "\\textperiodcentered{}"},
	{0x2030, "\\textperthousand{}"}, {0x20ac, "\\texteuro{}"},
	{0x2122, "\\texttrademark{}"}, {0x00a9, "\\textcopyright{}"},
	{0x00ae, "\\textregistered{}"}, {0x03b1, "\\ensuremath{\\alpha}"},
	{0x03b2, "\\ensuremath{\\beta}"}, {0x03b3, "\\ensuremath{\\gamma}"},
	{0x03b4, "\\ensuremath{\\delta}"}, {0x03bb, "\\ensuremath{\\lambda}"},
	{0x03c0, "\\ensuremath{\\pi}"}, {0x03c3, "\\ensuremath{\\sigma}"},
	{0x0394, "\\ensuremath{\\Delta}"}, {0x03a3, "\\ensuremath{\\Sigma}"},
	{0x2009, "\\,"}, {0x00a0, "~"}, {0x202f, "\\,"},
};

/* Can pdflatex's utf8 input with T1 typeset cp as it is? */
static int tex_raw_ok(unsigned cp)
{
	/* T1 + utf8.def cover Latin-1 and Latin Extended-A but for these
	   (checked against LaTeX 2022's u8: table) */
	return cp >= 0xa1 && cp <= 0x17f && cp != 0xad && cp != 0x126 && cp != 0x127 &&
	       cp != 0x138 && cp != 0x13f && cp != 0x140 && cp != 0x149 && cp != 0x166 &&
	       cp != 0x167 && cp != 0x17f;
}

static void tex_char(FILE *f, const unsigned char *s, size_t *adv)
{
	unsigned cp = 0;
	size_t len = utf8_decode(s, &cp), i;

	if (len == 0) {		/* invalid byte: one '?' per byte */
		fputc('?', f);
		*adv = 1;
		return;
	}
	*adv = len;
	for (i = 0; i < sizeof tex_chars / sizeof tex_chars[0]; i++) {
		if (tex_chars[i].cp == cp) {
			fputs(tex_chars[i].tex, f);
			return;
		}
	}
	if (tex_raw_ok(cp))
		fwrite(s, 1, len, f);
	else
		fputc('?', f);
}

/* Every TEX_WORD_BREAK characters of a run without a space, a point where
   TeX may break the line: a 5000-character parameter value (a path, a
   command) would otherwise run 25,000 pt off the page.  Primitives only,
   so that a user's template needs no macro: a penalty between two glues of
   +fil and -fil stretch, which cancel when the line goes on, and leave the
   line ragged when it breaks there (a bare \allowbreak between letters has
   no glue: the line before it could only be overfull).  The penalty makes
   it a last resort: a ragged line costs TeX nothing, so without one it
   would break a path or a commit hash in the middle where a space later
   on the line would do.  \relax ends the glue, lest a following "minus"
   or "l" be read as part of it.  A LaTeX table's column does not wrap: its
   cells are cut by report_view_cell. */
#define TEX_WORD_BREAK 20
/* At most this many characters of one value, then "...": a megabyte in a
   spec's string would fill hundreds of pages of the PDF, or a table cell
   taller than TeX can measure.  No text the runner writes comes near it;
   the full value is in report.md, report.html and the results' JSON. */
#define TEX_VALUE_MAX 2000
#define TEX_BREAK "\\hskip0pt plus1fil\\penalty1000\\hskip0pt plus-1fil\\relax{}"

static void escape_tex(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t run = 0, chars = 0;

	while (*p) {
		size_t adv = 1;

		if (++chars > TEX_VALUE_MAX) {
			fputs("\\dots{}", f);
			break;
		}
		if (*p == ' ' || *p == '\n' || *p == '\t')
			run = 0;
		else if (++run > TEX_WORD_BREAK && run % TEX_WORD_BREAK == 1)
			fputs(TEX_BREAK, f);
		switch (*p) {
		case '\\': fputs("\\textbackslash{}", f); break;
		case '{': fputs("\\{", f); break;
		case '}': fputs("\\}", f); break;
		case '$': fputs("\\$", f); break;
		case '&': fputs("\\&", f); break;
		case '#': fputs("\\#", f); break;
		case '_': fputs("\\_", f); break;
		case '%': fputs("\\%", f); break;
		case '^': fputs("\\textasciicircum{}", f); break;
		case '~': fputs("\\textasciitilde{}", f); break;
		case '<': fputs("\\textless{}", f); break;
		case '>': fputs("\\textgreater{}", f); break;
		case '|': fputs("\\textbar{}", f); break;
		case '`': fputs("\\textasciigrave{}", f); break;
		case '"': fputs("\\textquotedbl{}", f); break;
		case '-':
			/* "--" would typeset as a dash: "--set" must stay literal */
			fputs(p[1] == '-' ? "-{}" : "-", f);
			break;
		case '\r': break;
		case '\n': fputc('\n', f); break;	/* a blank line stays a paragraph */
		case '\t': fputc(' ', f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				break;		/* control characters: dropped */
			if (*p < 0x80)
				fputc(*p, f);
			else
				tex_char(f, p, &adv);
		}
		p += adv;
	}
}

char *template_tex_utf8(const char *tex)
{
	const unsigned char *p = (const unsigned char *)(tex ? tex : "");
	static const char begin[] = "\\begin{verbatim}", end[] = "\\end{verbatim}";
	int verbatim = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	while (*p) {
		size_t adv = 1;
		unsigned cp;

		if (*p == '\\' && !strncmp((const char *)p, verbatim ? end : begin,
					   verbatim ? sizeof end - 1 : sizeof begin - 1))
			verbatim = !verbatim;
		if (*p >= 0x80 && verbatim) {
			/* a command would show as its name: only what prints as is */
			adv = utf8_decode(p, &cp);
			if (adv && tex_raw_ok(cp))
				fwrite(p, 1, adv, f);
			else
				fputc('?', f);
			adv = adv ? adv : 1;
		} else if (*p >= 0x80) {
			tex_char(f, p, &adv);
		} else if (*p >= 0x20 || *p == '\n' || *p == '\t') {
			fputc(*p, f);
		}			/* other control characters: dropped */
		p += adv;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Markdown: backslash-escape what would start emphasis, code, links, HTML
   or a table cell; keep newlines so that methodology prose keeps its
   paragraphs (table cells are built without newlines by report.c). */
static void escape_md(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\`*_[]<>|", *s))
			fputc('\\', f);
		if (*s == '\r')
			continue;
		fputc(*s, f);
	}
}

/* Inside a gnuplot single-quoted string nothing is substituted, and the
   only special character is the quote itself.  Doubling it works only
   inside a string: gnuplot's tokenizer reads a value that starts with a
   doubled quote as an empty string followed by junk.  So a quote closes
   the string and is concatenated back as a string expression, '."'".',
   which every place a template puts a value accepts (set title, xlabel,
   ylabel, key title, xtics labels, plot titles).  Backquotes become quotes
   too, so that a template putting a value in double quotes by mistake
   still cannot run a command; newlines would end the command, and a
   backslash at the end of a line (in a comment) would continue it. */
static void escape_gp(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'' || c == '`')
			fputs("'.\"'\".'", f);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', f);
		else if (c == '\\' && s[1] == '\0')
			fputs("\\ ", f);
		else
			fputc(c, f);
	}
}

static void escape_to(FILE *f, const char *s, enum template_format fmt)
{
	switch (fmt) {
	case TEMPLATE_MD: escape_md(f, s); break;
	case TEMPLATE_TEX: escape_tex(f, s); break;
	case TEMPLATE_GP: escape_gp(f, s); break;
	/* the one HTML escape (lib/html): a write error shows at fclose */
	case TEMPLATE_HTML: (void)html_escape(f, s); break;
	default: fputs(s, f);
	}
}

char *template_escape(const char *s, enum template_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	escape_to(f, s ? s : "", fmt);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------------ parser */

struct parser {
	const char *name;
	const char *src;
	size_t len;
	char *err;
	size_t errlen;
};

static int count_lines(const char *s, size_t from, size_t to)
{
	int n = 0;

	for (; from < to; from++)
		if (s[from] == '\n')
			n++;
	return n;
}

static struct tnode *tnode_new(enum tnode_kind kind, const char *s, size_t len, int line)
{
	struct tnode *n = calloc(1, sizeof *n);

	if (!n)
		return NULL;
	n->s = strndup(s, len);
	if (!n->s) {
		free(n);
		return NULL;
	}
	n->kind = kind;
	n->line = line;
	return n;
}

/* Trim blanks from both ends of [*s, *s + *len). */
static void trim(const char **s, size_t *len)
{
	while (*len && strchr(" \t\r\n", **s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && strchr(" \t\r\n", (*s)[*len - 1]))
		(*len)--;
}

static int valid_name(const char *s, size_t len)
{
	size_t i;

	if (len == 1 && s[0] == '.')
		return 1;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!(c == '_' || c == '-' || c == '.' || c == '@' ||
		      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return 0;
	}
	return len > 0 && s[0] != '.' && s[len - 1] != '.';
}

/* Parse "<< >>" out of a {{=<< >>=}} tag body. */
static int set_delims(const char *s, size_t len, char *open, char *close)
{
	size_t i = 0, a, b;

	trim(&s, &len);
	while (i < len && s[i] != ' ' && s[i] != '\t')
		i++;
	a = i;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	b = len - i;
	if (a == 0 || b == 0 || a >= TEMPLATE_MAX_DELIM || b >= TEMPLATE_MAX_DELIM ||
	    memchr(s, '=', a) || memchr(s + i, '=', b) ||
	    memchr(s + i, ' ', b) || memchr(s + i, '\t', b))
		return -1;
	memcpy(open, s, a);
	open[a] = '\0';
	memcpy(close, s + i, b);
	close[b] = '\0';
	return 0;
}

static const char *kind_word(char sigil)
{
	return sigil == '^' ? "inverted section" : "section";
}

/* One tag found by scan_tag. */
struct tag {
	char sigil;			/* # ^ / ! > & = {, or 0 for a variable */
	const char *name; size_t blen;	/* the body, trimmed */
	int line;
	size_t start;			/* of the opening delimiter */
	size_t text_end;		/* the text before the tag ends here */
	size_t next;			/* where scanning goes on */
};

/* The next tag at or after pos (line: pos's line).  A tag that stands alone
   on its line (sections, comments, partials, delimiter changes) takes the
   whole line with it, so templates can be laid out readably without blank
   lines in the output.  Returns 1, 0 when there is no tag left, -1 with a
   message. */
static int scan_tag(struct parser *ps, size_t pos, int line, const char *open,
		    const char *close, struct tag *t)
{
	const char *src = ps->src, *hit = strstr(src + pos, open);
	char closer[TEMPLATE_MAX_DELIM + 1];
	size_t p, body, end, ls, le;

	if (!hit)
		return 0;
	p = t->start = (size_t)(hit - src);
	t->line = line + count_lines(src, pos, p);
	body = p + strlen(open);
	t->sigil = src[body];
	if (strchr("#^/!>&={", t->sigil) && t->sigil)
		body++;
	else
		t->sigil = 0;
	/* the closing delimiter, with the sigil's partner when it has one */
	if (t->sigil == '{')
		snprintf(closer, sizeof closer, "}%s", close);
	else if (t->sigil == '=')
		snprintf(closer, sizeof closer, "=%s", close);
	else
		snprintf(closer, sizeof closer, "%s", close);
	hit = strstr(src + body, closer);
	if (!hit) {
		seterr(ps->err, ps->errlen, "template '%s':%d: unclosed tag '%s'", ps->name, t->line,
		       open);
		return -1;
	}
	end = (size_t)(hit - src);
	t->next = end + strlen(closer);
	t->name = src + body;
	t->blen = end - body;
	trim(&t->name, &t->blen);

	/* standalone? blanks only between the line start and the tag, and
	   between the tag and the line end */
	t->text_end = p;
	if (t->sigil && strchr("#^/!>=", t->sigil)) {
		ls = p;
		while (ls > pos && (src[ls - 1] == ' ' || src[ls - 1] == '\t'))
			ls--;
		le = t->next;
		while (src[le] == ' ' || src[le] == '\t')
			le++;
		if ((ls == 0 || src[ls - 1] == '\n') &&
		    (src[le] == '\n' || src[le] == '\0' || (src[le] == '\r' && src[le + 1] == '\n'))) {
			t->text_end = ls;
			if (src[le] == '\r')
				le++;
			if (src[le] == '\n')
				le++;
			t->next = le;
		}
	}
	return 1;
}

/* A tag's name: present, and a valid name (a partial's: a plain file name
   in the templates folder).  0, or -1 with a message. */
static int check_tag_name(struct parser *ps, const struct tag *t)
{
	if (t->blen == 0) {
		seterr(ps->err, ps->errlen, "template '%s':%d: empty tag", ps->name, t->line);
		return -1;
	}
	if (t->sigil == '>') {
		/* a file name in the templates folder: no path separators */
		if (memchr(t->name, '/', t->blen) || t->name[0] == '.' || !valid_name(t->name, t->blen)) {
			seterr(ps->err, ps->errlen,
			       "template '%s':%d: bad partial name '%.*s' (a file name in the templates folder)",
			       ps->name, t->line, (int)t->blen, t->name);
			return -1;
		}
	} else if (!valid_name(t->name, t->blen)) {
		seterr(ps->err, ps->errlen, "template '%s':%d: bad name '%.*s'", ps->name, t->line,
		       (int)t->blen, t->name);
		return -1;
	}
	return 0;
}

/* Sections open while parsing: (node, tail pointer to go back to). */
struct open_sections {
	struct { struct tnode *node; struct tnode **tail; } stack[TEMPLATE_MAX_DEPTH];
	int depth;
};

/* {{/name}}: close the innermost section, which must be `name`; *tail goes
   back to after it.  0, or -1 with a message. */
static int close_section(struct parser *ps, struct open_sections *os, const struct tag *t,
			 struct tnode ***tail)
{
	struct tnode *open_node;

	if (os->depth == 0) {
		seterr(ps->err, ps->errlen, "template '%s':%d: '%.*s' closed but no section is open",
		       ps->name, t->line, (int)t->blen, t->name);
		return -1;
	}
	open_node = os->stack[os->depth - 1].node;
	if (strlen(open_node->s) != t->blen || strncmp(open_node->s, t->name, t->blen) != 0) {
		seterr(ps->err, ps->errlen,
		       "template '%s':%d: '%.*s' closed but section '%s' (line %d) is open",
		       ps->name, t->line, (int)t->blen, t->name, open_node->s, open_node->line);
		return -1;
	}
	os->depth--;
	*tail = os->stack[os->depth].tail;
	return 0;
}

static enum tnode_kind tag_kind(char sigil)
{
	return sigil == '#' ? TN_SECTION : sigil == '^' ? TN_INVERTED : sigil == '>' ? TN_PARTIAL :
	       (sigil == '{' || sigil == '&') ? TN_RAW : TN_VAR;
}

/*
 * Build the tree: text and tags in order; sections are kept on an explicit
 * stack (struct open_sections) so that their contents go into their kids.
 */
static struct tnode *parse(struct parser *ps)
{
	const char *src = ps->src;
	struct tnode *root = NULL, **tail = &root, *n;
	struct open_sections os = {.depth = 0};
	int line = 1, r;
	size_t pos = 0;
	char open[TEMPLATE_MAX_DELIM] = "{{", close[TEMPLATE_MAX_DELIM] = "}}";
	struct tag t;

	while ((r = scan_tag(ps, pos, line, open, close, &t)) > 0) {
		if (t.text_end > pos) {
			if (!(n = tnode_new(TN_TEXT, src + pos, t.text_end - pos, line)))
				goto oom;
			*tail = n;
			tail = &n->next;
		}
		line = t.line + count_lines(src, t.start, t.next);
		pos = t.next;
		if (t.sigil == '!')
			continue;
		if (t.sigil == '=') {
			if (set_delims(t.name, t.blen, open, close) < 0) {
				seterr(ps->err, ps->errlen,
				       "template '%s':%d: bad delimiter change '%.*s' (want like {{=<< >>=}})",
				       ps->name, t.line, (int)t.blen, t.name);
				goto fail;
			}
			continue;
		}
		if (check_tag_name(ps, &t) < 0)
			goto fail;
		if (t.sigil == '/') {
			if (close_section(ps, &os, &t, &tail) < 0)
				goto fail;
			continue;
		}
		if (!(n = tnode_new(tag_kind(t.sigil), t.name, t.blen, t.line)))
			goto oom;
		*tail = n;
		tail = &n->next;
		if (t.sigil == '#' || t.sigil == '^') {
			if (os.depth == TEMPLATE_MAX_DEPTH) {
				seterr(ps->err, ps->errlen, "template '%s':%d: sections nested too deep",
				       ps->name, t.line);
				goto fail;
			}
			os.stack[os.depth].node = n;
			os.stack[os.depth].tail = tail;
			os.depth++;
			tail = &n->kids;
		}
	}
	if (r < 0)
		goto fail;
	if (pos < ps->len) {
		if (!(n = tnode_new(TN_TEXT, src + pos, ps->len - pos, line)))
			goto oom;
		*tail = n;
	}
	if (os.depth > 0) {
		struct tnode *o = os.stack[os.depth - 1].node;

		seterr(ps->err, ps->errlen, "template '%s':%d: unclosed %s '%s'", ps->name,
		       o->line, kind_word(o->kind == TN_INVERTED ? '^' : '#'), o->s);
		goto fail;
	}
	return root ? root : tnode_new(TN_TEXT, "", 0, 1);
oom:
	seterr(ps->err, ps->errlen, "template '%s': out of memory", ps->name);
fail:
	tnode_free(root);
	return NULL;
}

/* ---------------------------------------------------------------- renderer */

static int truthy(const json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return 0;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	return 1;
}

/* Resolve a name against the context stack.  "." is the top; "@x" asks
   about the innermost array iteration; "a.b" finds "a" anywhere up the
   stack, then "b" inside it only.  Returns a borrowed reference, NULL when
   missing; *special receives a value made up for @-names. */
static json_t *lookup(struct render *r, const char *name, json_t **special)
{
	const char *dot;
	size_t first_len;
	json_t *v = NULL;
	int i;

	*special = NULL;
	if (strcmp(name, ".") == 0)
		return r->depth ? r->stack[r->depth - 1].v : NULL;
	if (name[0] == '@') {
		for (i = r->depth - 1; i >= 0; i--) {
			struct frame *fr = &r->stack[i];

			if (fr->n == 0)
				continue;
			if (strcmp(name, "@index") == 0)
				*special = json_integer((json_int_t)fr->idx);
			else if (strcmp(name, "@number") == 0)
				*special = json_integer((json_int_t)fr->idx + 1);
			else if (strcmp(name, "@first") == 0)
				*special = json_boolean(fr->idx == 0);
			else if (strcmp(name, "@last") == 0)
				*special = json_boolean(fr->idx + 1 == fr->n);
			return *special;
		}
		return NULL;
	}
	dot = strchr(name, '.');
	first_len = dot ? (size_t)(dot - name) : strlen(name);
	for (i = r->depth - 1; i >= 0 && !v; i--) {
		json_t *ctx = r->stack[i].v;
		char key[256];

		if (!json_is_object(ctx) || first_len >= sizeof key)
			continue;
		memcpy(key, name, first_len);
		key[first_len] = '\0';
		v = json_object_get(ctx, key);
	}
	while (v && dot) {
		const char *part = dot + 1;
		char key[256];
		size_t len;

		dot = strchr(part, '.');
		len = dot ? (size_t)(dot - part) : strlen(part);
		if (len >= sizeof key || !json_is_object(v))
			return NULL;
		memcpy(key, part, len);
		key[len] = '\0';
		v = json_object_get(v, key);
	}
	return v;
}

static int render_nodes(struct render *r, const char *tname, struct tnode *n);

static int push(struct render *r, const char *tname, int line, json_t *v, size_t idx, size_t cnt)
{
	if (r->depth == TEMPLATE_MAX_DEPTH) {
		seterr(r->err, r->errlen, "template '%s':%d: sections nested too deep", tname, line);
		return -1;
	}
	r->stack[r->depth].v = v;
	r->stack[r->depth].idx = idx;
	r->stack[r->depth].n = cnt;
	r->depth++;
	return 0;
}

static void print_value(struct render *r, json_t *v, int raw)
{
	char num[64];
	const char *s = num;

	if (json_is_string(v))
		s = json_string_value(v);
	else if (json_is_integer(v))
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(num, sizeof num, "%.15g", json_real_value(v));
	else if (json_is_true(v))
		s = "true";
	else if (json_is_false(v))
		s = "false";
	else
		s = "";
	if (raw)
		fputs(s, r->out);
	else
		escape_to(r->out, s, r->fmt);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;

		free(buf);
		fclose(f);
		errno = e ? e : EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Read `name` from the first of dirs that has it (a missing file moves on
   to the next dir; any other error stops).  On failure, errno is set and
   path names the file that was tried, for the message. */
static char *find_template(const char *const *dirs, const char *name, char *path, size_t pathlen)
{
	size_t i;

	snprintf(path, pathlen, "%s", name);
	for (i = 0; dirs && dirs[i]; i++) {
		char *text;

		snprintf(path, pathlen, "%s/%s", dirs[i], name);
		text = read_file(path, NULL);
		if (text)
			return text;
		if (errno != ENOENT)
			return NULL;
	}
	if (dirs && dirs[0])
		snprintf(path, pathlen, "%s/%s", dirs[0], name);
	errno = ENOENT;
	return NULL;
}

static struct tnode *partial_tree(struct render *r, const char *tname, int line, const char *name)
{
	struct partial *p;
	struct parser ps;
	char path[4096], *src;

	for (p = r->partials; p; p = p->next)
		if (strcmp(p->name, name) == 0)
			return p->tree;
	src = find_template(r->dirs, name, path, sizeof path);
	if (!src) {
		seterr(r->err, r->errlen, "template '%s':%d: partial '%s': cannot read %s: %s",
		       tname, line, name, path, strerror(errno));
		return NULL;
	}
	p = calloc(1, sizeof *p);
	if (!p || !(p->name = strdup(name))) {
		free(p);
		free(src);
		seterr(r->err, r->errlen, "template '%s': out of memory", tname);
		return NULL;
	}
	ps.name = p->name;
	ps.src = src;
	ps.len = strlen(src);
	ps.err = r->err;
	ps.errlen = r->errlen;
	p->tree = parse(&ps);
	free(src);
	if (!p->tree) {
		free(p->name);
		free(p);
		return NULL;
	}
	p->next = r->partials;
	r->partials = p;
	return p->tree;
}

static int render_section(struct render *r, const char *tname, struct tnode *n)
{
	json_t *special, *v = lookup(r, n->s, &special);
	int rc = 0;

	if (n->kind == TN_INVERTED) {
		if (!truthy(v))
			rc = render_nodes(r, tname, n->kids);
		json_decref(special);
		return rc;
	}
	if (!truthy(v)) {
		json_decref(special);
		return 0;
	}
	if (json_is_array(v)) {
		size_t i, cnt = json_array_size(v);

		for (i = 0; i < cnt && rc == 0; i++) {
			if (push(r, tname, n->line, json_array_get(v, i), i, cnt) < 0)
				return -1;
			rc = render_nodes(r, tname, n->kids);
			r->depth--;
		}
		return rc;
	}
	/* an object is a new context; any other truthy value too, for {{.}} */
	if (special) {
		/* @first/@last as a condition: keep the array frame on top, so
		   names inside still mean the element */
		json_decref(special);
		return render_nodes(r, tname, n->kids);
	}
	if (push(r, tname, n->line, v, 0, 0) < 0)
		return -1;
	rc = render_nodes(r, tname, n->kids);
	r->depth--;
	return rc;
}

static int render_nodes(struct render *r, const char *tname, struct tnode *n)
{
	for (; n; n = n->next) {
		json_t *v, *special;
		struct tnode *tree;
		int rc;

		switch (n->kind) {
		case TN_TEXT:
			fputs(n->s, r->out);
			break;
		case TN_VAR:
		case TN_RAW:
			v = lookup(r, n->s, &special);
			if (!v) {
				seterr(r->err, r->errlen, "template '%s':%d: unknown name '%s'",
				       tname, n->line, n->s);
				return -1;
			}
			if (json_is_object(v) || json_is_array(v)) {
				seterr(r->err, r->errlen,
				       "template '%s':%d: '%s' is %s, not a value (use a section)",
				       tname, n->line, n->s, json_is_array(v) ? "a list" : "an object");
				return -1;
			}
			print_value(r, v, n->kind == TN_RAW);
			json_decref(special);
			break;
		case TN_SECTION:
		case TN_INVERTED:
			if (render_section(r, tname, n) < 0)
				return -1;
			break;
		case TN_PARTIAL:
			if (r->partial_depth == TEMPLATE_MAX_PARTIALS) {
				seterr(r->err, r->errlen,
				       "template '%s':%d: partial '%s' nested too deep (recursive?)",
				       tname, n->line, n->s);
				return -1;
			}
			tree = partial_tree(r, tname, n->line, n->s);
			if (!tree)
				return -1;
			r->partial_depth++;
			rc = render_nodes(r, n->s, tree);
			r->partial_depth--;
			if (rc < 0)
				return -1;
			break;
		}
	}
	return 0;
}

char *template_render(const char *name, const char *src, json_t *view,
		      enum template_format fmt, const char *const *dirs,
		      char *err, size_t errlen)
{
	struct parser ps = { name, src, strlen(src), err, errlen };
	struct render r;
	struct tnode *tree;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	tree = parse(&ps);
	if (!tree)
		return NULL;
	memset(&r, 0, sizeof r);
	r.fmt = fmt;
	r.dirs = dirs;
	r.err = err;
	r.errlen = errlen;
	r.out = open_memstream(&buf, &len);
	if (!r.out) {
		tnode_free(tree);
		seterr(err, errlen, "template '%s': %s", name, strerror(errno));
		return NULL;
	}
	r.stack[0].v = view;
	r.depth = 1;
	rc = render_nodes(&r, name, tree);
	if (fclose(r.out) != 0 && rc == 0) {
		seterr(err, errlen, "template '%s': out of memory", name);
		rc = -1;
	}
	tnode_free(tree);
	while (r.partials) {
		struct partial *p = r.partials;

		r.partials = p->next;
		tnode_free(p->tree);
		free(p->name);
		free(p);
	}
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *template_render_file(const char *name, json_t *view, enum template_format fmt,
			   const char *const *dirs, char *err, size_t errlen)
{
	char path[4096], *src, *out;

	src = find_template(dirs, name, path, sizeof path);
	if (!src) {
		seterr(err, errlen, "template '%s': cannot read %s: %s", name, path, strerror(errno));
		return NULL;
	}
	out = template_render(name, src, view, fmt, dirs, err, errlen);
	free(src);
	return out;
}
