/*
 * spec_expr.c - the formula language of `predict:` (spec_expr.h): a
 * tokenizer, a recursive-descent parser into a node array, the names a
 * formula may use, and an evaluator that also writes the formula back with
 * this machine's numbers in place of the names.
 */
#include "spec/spec_expr.h"
#include "lib/units.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64		/* nesting of parentheses and unary minus */
#define MAX_NODES 4096
#define MAX_TEXT 4096		/* a formula longer than this is an error */

/* --- names ------------------------------------------------------------- */

static const struct spec_expr_name names[] = {
	/* machine facts, detected (the manifest's machine object) */
	{"core_hz", SPEC_Q_HZ, "machine",
	 "the core clock measured during the run where it holds (machine.core_clock), else the TSC frequency"},
	{"tsc_hz", SPEC_Q_HZ, "machine", "the TSC frequency as calibrated (machine.tsc_hz)"},
	{"l1d_size", SPEC_Q_BYTES, "machine", "the level-1 data cache (machine.caches)"},
	{"l2_size", SPEC_Q_BYTES, "machine", "the level-2 cache"},
	{"l3_size", SPEC_Q_BYTES, "machine", "the level-3 cache"},
	{"llc_size", SPEC_Q_BYTES, "machine", "the last-level cache (machine.llc)"},
	{"line_size", SPEC_Q_BYTES, "machine", "the cache line (level 1, else 64 bytes)"},
	{"page_size", SPEC_Q_BYTES, "machine", "the base page (machine.page_size, else 4 KiB on x86-64)"},
	{"cpus", SPEC_Q_NUM, "machine", "logical CPUs online"},
	{"memory_size", SPEC_Q_BYTES, "machine", "installed memory (machine.memory_bytes)"},
	{"pti", SPEC_Q_BOOL, "machine", "1 when kernel page-table isolation is on (machine.pti), else 0"},
	/* derived from the machine facts, the table and the point's size or threads */
	{"busy_cpus", SPEC_Q_NUM, "machine",
	 "the CPUs the point's workers keep busy: min(threads (else readers, else 1), cpus)"},
	{"ws_latency", SPEC_Q_SECONDS, "machine",
	 "a dependent load's latency over a working set of the point's size: l1_cycles, l2_cycles or "
	 "l3_cycles / core_hz for the first cache (l1d_size, l2_size, l3_size) it fits, else dram_latency"},
	{"ws_tlb", SPEC_Q_SECONDS, "machine",
	 "the TLB's share of such a load: 0 up to 64 pages, stlb_hit_cycles / core_hz up to 1536, "
	 "else tlb_miss_cycles / core_hz"},
	/* machine facts a user gives (--machine FILE) */
	{"memory_bus_bandwidth", SPEC_Q_RATE, "given", "the memory bus's peak bandwidth, bytes/s"},
	{"memory_speed", SPEC_Q_NUM, "given", "the memory's transfer rate, MT/s"},
	{"disk_seq_read", SPEC_Q_RATE, "given", "the disk's sequential read bandwidth, bytes/s"},
	{"disk_rand_read_iops", SPEC_Q_NUM, "given", "the disk's random 4 KiB reads per second at queue depth 1"},
	{"nic_link_speed", SPEC_Q_BITS, "given", "the network link's speed, bits/s"},
	/* given when known, else the table's generic figure (its source says which) */
	{"mem_bandwidth", SPEC_Q_RATE, "given",
	 "memory_bus_bandwidth when given, else one core's streaming bandwidth by Little's law (line_fills x line_size / dram_latency)"},
	{"disk_latency", SPEC_Q_SECONDS, "given",
	 "1 / disk_rand_read_iops when given, else the table's NVMe 4 KiB random read"},
	{"disk_bandwidth", SPEC_Q_RATE, "given", "disk_seq_read when given, else the table's NVMe sequential read"},
	/* recorded by the point's probe (the median of its secondary value, the point's extra) */
	{"parent_mappings", SPEC_Q_NUM, "point", "task_create: mappings of the process that creates the tasks"},
	{"parent_rss_bytes", SPEC_Q_BYTES, "point", "task_create: resident size (VmRSS) of the process that creates the tasks"},
	{"parent_faults", SPEC_Q_NUM, "point", "task_create: minor faults the creating process took per created task (copy-on-write)"},
	{"child_faults", SPEC_Q_NUM, "point", "task_create: minor faults each created process took in its life"},
	{"pages_per_fault", SPEC_Q_NUM, "point", "page_fault (kind file): pages touched per fault taken (fault-around)"},
	/* the per-family table (machine/model_table.c) */
	{"l1_cycles", SPEC_Q_CYCLES, "table", "load-to-use latency of an L1d hit"},
	{"l2_cycles", SPEC_Q_CYCLES, "table", "load-to-use latency of an L2 hit"},
	{"l3_cycles", SPEC_Q_CYCLES, "table", "load-to-use latency of an L3 hit"},
	{"dram_latency", SPEC_Q_SECONDS, "table", "load-to-use latency of a DRAM access (page open or not, no TLB miss)"},
	{"stlb_hit_cycles", SPEC_Q_CYCLES, "table", "an L1 TLB miss that hits the second-level TLB"},
	{"tlb_miss_cycles", SPEC_Q_CYCLES, "table", "a page walk whose page-table loads hit the caches"},
	{"syscall_cycles", SPEC_Q_CYCLES, "table", "kernel entry and exit of a null system call, no mitigation"},
	{"mitigation_cycles", SPEC_Q_CYCLES, "table", "what the kernel's listed mitigations add to each entry and exit (PTI, retpolines, VERW, ...)"},
	{"switch_mitigation_cycles", SPEC_Q_CYCLES, "table", "what the listed mitigations add to each context switch (RSB filling, IBPB)"},
	{"rdtsc_cycles", SPEC_Q_CYCLES, "table", "one RDTSC, back to back"},
	{"rdtscp_cycles", SPEC_Q_CYCLES, "table", "one RDTSCP, back to back"},
	{"branch_cycles", SPEC_Q_CYCLES, "table", "one taken branch (the loop's bound)"},
	{"call_cycles", SPEC_Q_CYCLES, "table", "a predicted call and return"},
	{"line_fills", SPEC_Q_NUM, "table", "cache-line fills one core keeps in flight to DRAM (Little's law)"},
	{"copy_bytes_per_cycle", SPEC_Q_NUM, "table", "bytes per cycle of a cache-resident copy (rep movsb, memcpy)"},
	{"store_forward_cycles", SPEC_Q_CYCLES, "table", "the latency a load adds when it reads what a store just wrote to a stack slot"},
	/* Linux path lengths: one generic column, the same for every row */
	{"switch_cycles", SPEC_Q_CYCLES, "table", "a wake-up and a switch to another task on the same CPU (scheduler)"},
	{"mm_switch_cycles", SPEC_Q_CYCLES, "table", "the extra of switching address spaces (CR3 with PCID, FPU state)"},
	{"pipe_cycles", SPEC_Q_CYCLES, "table", "a pipe write and read's kernel work, entry and exit excluded"},
	{"futex_cycles", SPEC_Q_CYCLES, "table", "a futex wait and wake's kernel work, entry and exit excluded"},
	{"fork_cycles", SPEC_Q_CYCLES, "table", "fork of a small process (copying its mm and page tables)"},
	{"thread_cycles", SPEC_Q_CYCLES, "table", "clone of a thread (task, kernel stack, TLS)"},
	{"exit_cycles", SPEC_Q_CYCLES, "table", "a task's exit, the parent's wake-up and reap"},
	{"exec_cycles", SPEC_Q_CYCLES, "table", "execve of a small dynamic program and ld.so's start-up"},
	{"fault_cycles", SPEC_Q_CYCLES, "table", "a minor page fault's kernel path, the page's zeroing excluded"},
	{"fault_page_cycles", SPEC_Q_CYCLES, "table", "each further page a file fault maps around its address (fault-around)"},
	{"pagecache_cycles", SPEC_Q_CYCLES, "table", "a read(2)'s page-cache lookup and file bookkeeping"},
	{"block_io_cycles", SPEC_Q_CYCLES, "table", "one block request through the block layer, driver and completion"},
	{"tcp_cycles", SPEC_Q_CYCLES, "table", "one small segment sent and received through the TCP/IP stacks"},
	{"wakeup_latency", SPEC_Q_SECONDS, "table", "waking a task on another, idle CPU (IPI, idle exit)"},
	{"stdio_cycles", SPEC_Q_CYCLES, "table", "one fread(3)/getc-sized call served from the stdio buffer"},
};

const struct spec_expr_name *spec_expr_names(size_t *n)
{
	*n = sizeof names / sizeof names[0];
	return names;
}

const struct spec_expr_name *spec_expr_name(const char *name)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i].name, name) == 0)
			return &names[i];
	return NULL;
}

/* --- parser ------------------------------------------------------------ */

struct px {
	const char *t;
	size_t i, len;
	struct spec_formula *f;
	size_t *err_off;
	char *err; size_t errlen;
	int depth;
};

static int fail(struct px *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct px *p, size_t at, const char *fmt, ...)
{
	va_list ap;

	*p->err_off = at;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip(struct px *p)
{
	while (p->i < p->len && (p->t[p->i] == ' ' || p->t[p->i] == '\t' || p->t[p->i] == '\n' ||
				  p->t[p->i] == '\r'))
		p->i++;
}

static int is_id0(int c) { return isalpha(c) || c == '_'; }
static int is_id(int c) { return isalnum(c) || c == '_'; }

static int node(struct px *p, enum spec_expr_op op, size_t off)
{
	struct spec_expr_node *nn;

	if (p->f->nn >= MAX_NODES)
		return fail(p, off, "formula too long (more than %d terms)", MAX_NODES);
	nn = realloc(p->f->n, (p->f->nn + 1) * sizeof *nn);
	if (!nn)
		return fail(p, off, "out of memory");
	p->f->n = nn;
	memset(&nn[p->f->nn], 0, sizeof *nn);
	nn[p->f->nn].op = op;
	nn[p->f->nn].a = nn[p->f->nn].b = -1;
	nn[p->f->nn].off = off;
	return (int)p->f->nn++;
}

static char *dup_span(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* A number's unit: Hz first (not a units.h kind), then time, size, rate. */
static int number_value(const char *num, const char *unit, double *v, enum spec_qty *q)
{
	static const struct { const char *u; double f; } hz[] = {
		{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9} };
	char buf[96], e[128];
	double x = strtod(num, NULL);

	if (!*unit) {
		*v = x;
		*q = SPEC_Q_NUM;
		return 0;
	}
	for (size_t k = 0; k < sizeof hz / sizeof hz[0]; k++)
		if (strcmp(unit, hz[k].u) == 0) {
			*v = x * hz[k].f;
			*q = SPEC_Q_HZ;
			return 0;
		}
	if (strcmp(unit, "cycles") == 0 || strcmp(unit, "cycle") == 0) {
		*v = x;
		*q = SPEC_Q_CYCLES;
		return 0;
	}
	snprintf(buf, sizeof buf, "%s%s", num, unit);
	if (units_parse(buf, UNIT_TIME, v, e, sizeof e) == 0) {
		*q = SPEC_Q_SECONDS;
		return 0;
	}
	if (units_parse(buf, UNIT_SIZE, v, e, sizeof e) == 0) {
		*q = SPEC_Q_BYTES;
		return 0;
	}
	if (units_parse(buf, UNIT_RATE, v, e, sizeof e) == 0) {
		*q = SPEC_Q_RATE;
		return 0;
	}
	if (units_parse(buf, UNIT_PERCENT, v, e, sizeof e) == 0) {
		*q = SPEC_Q_NUM;
		return 0;
	}
	return -1;
}

static int parse_number(struct px *p)
{
	size_t s = p->i, u;
	char num[64], unit[32];
	int k;

	while (p->i < p->len && isdigit((unsigned char)p->t[p->i]))
		p->i++;
	if (p->i < p->len && p->t[p->i] == '.')
		for (p->i++; p->i < p->len && isdigit((unsigned char)p->t[p->i]);)
			p->i++;
	if (p->i < p->len && (p->t[p->i] == 'e' || p->t[p->i] == 'E')) {
		size_t j = p->i + 1;
		if (j < p->len && (p->t[j] == '+' || p->t[j] == '-'))
			j++;
		if (j < p->len && isdigit((unsigned char)p->t[j])) {
			while (j < p->len && isdigit((unsigned char)p->t[j]))
				j++;
			p->i = j;
		}
	}
	if (p->i - s >= sizeof num || (p->i - s == 1 && p->t[s] == '.'))
		return fail(p, s, "bad number '%.*s'", (int)(p->i - s), p->t + s);
	memcpy(num, p->t + s, p->i - s);
	num[p->i - s] = '\0';
	u = p->i;
	/* the unit: letters, µ and %, then "/s" when no name follows */
	while (p->i < p->len && (isalpha((unsigned char)p->t[p->i]) || p->t[p->i] == '%' ||
				 (unsigned char)p->t[p->i] >= 0x80))
		p->i++;
	if (p->i > u && p->i + 1 < p->len && p->t[p->i] == '/' && p->t[p->i + 1] == 's' &&
	    (p->i + 2 >= p->len || !is_id((unsigned char)p->t[p->i + 2])))
		p->i += 2;
	if (p->i - u >= sizeof unit)
		return fail(p, u, "unknown unit '%.*s'", (int)(p->i - u), p->t + u);
	memcpy(unit, p->t + u, p->i - u);
	unit[p->i - u] = '\0';
	if ((k = node(p, SPEC_X_NUM, s)) < 0)
		return -1;
	if (number_value(num, unit, &p->f->n[k].num, &p->f->n[k].qty) < 0)
		return fail(p, u, "unknown unit '%s' (sizes 4KiB, times 100ns, rates 1GB/s, "
			    "frequencies 3GHz, cycles)", unit);
	p->f->n[k].len = p->i - s;
	return k;
}

static int parse_ref(struct px *p)
{
	size_t s = p->i++, ns;
	int k;

	skip(p);
	ns = p->i;
	if (p->i >= p->len || !is_id0((unsigned char)p->t[p->i]))
		return fail(p, p->i, "expected an experiment's name after '@'");
	while (p->i < p->len && (is_id((unsigned char)p->t[p->i]) || p->t[p->i] == '-'))
		p->i++;
	if ((k = node(p, SPEC_X_REF, s)) < 0)
		return -1;
	if (!(p->f->n[k].name = dup_span(p->t + ns, p->i - ns)))
		return fail(p, s, "out of memory");
	skip(p);
	if (p->i < p->len && p->t[p->i] == '[') {
		p->i++;
		for (;;) {
			size_t ps, vs, ve;
			struct spec_expr_node *n;
			char **a, **b;

			skip(p);
			ps = p->i;
			while (p->i < p->len && is_id((unsigned char)p->t[p->i]))
				p->i++;
			if (p->i == ps)
				return fail(p, p->i, "expected a parameter name in @%s[...]", p->f->n[k].name);
			size_t pe = p->i;
			skip(p);
			if (p->i >= p->len || p->t[p->i] != '=')
				return fail(p, p->i, "expected '=' after '%.*s' in @%s[...]", (int)(pe - ps),
					    p->t + ps, p->f->n[k].name);
			p->i++;
			skip(p);
			vs = p->i;
			while (p->i < p->len && p->t[p->i] != ',' && p->t[p->i] != ']')
				p->i++;
			ve = p->i;
			while (ve > vs && (p->t[ve - 1] == ' ' || p->t[ve - 1] == '\t'))
				ve--;
			if (ve == vs)
				return fail(p, vs, "expected a value after '=' in @%s[...]", p->f->n[k].name);
			if (p->i >= p->len)
				return fail(p, p->i, "missing ']' after @%s[", p->f->n[k].name);
			n = &p->f->n[k];
			a = realloc(n->sel_param, (n->n_sel + 1) * sizeof *a);
			if (a)
				n->sel_param = a;
			b = realloc(n->sel_text, (n->n_sel + 1) * sizeof *b);
			if (b)
				n->sel_text = b;
			if (!a || !b)
				return fail(p, ps, "out of memory");
			n->sel_param[n->n_sel] = dup_span(p->t + ps, pe - ps);
			n->sel_text[n->n_sel] = dup_span(p->t + vs, ve - vs);
			n->n_sel++;
			if (!n->sel_param[n->n_sel - 1] || !n->sel_text[n->n_sel - 1])
				return fail(p, ps, "out of memory");
			if (p->t[p->i++] == ']')
				break;
		}
	}
	/* .NAME: a secondary value that experiment's point recorded (its
	   extra.NAME), e.g. @page_fault[kind=file].pages_per_fault */
	if (p->i < p->len && p->t[p->i] == '.' && p->i + 1 < p->len &&
	    is_id0((unsigned char)p->t[p->i + 1])) {
		size_t ms = ++p->i;

		while (p->i < p->len && is_id((unsigned char)p->t[p->i]))
			p->i++;
		if (!(p->f->n[k].metric = dup_span(p->t + ms, p->i - ms)))
			return fail(p, ms, "out of memory");
	}
	p->f->n[k].len = p->i - s;
	return k;
}

static int parse_expr(struct px *p);

static int parse_primary(struct px *p)
{
	int k;
	size_t s;

	skip(p);
	s = p->i;
	if (p->i >= p->len)
		return fail(p, p->i, "expected a name, a number or '(' at the end of the formula");
	unsigned char c = (unsigned char)p->t[p->i];
	if (c == '(') {
		if (++p->depth > MAX_DEPTH)
			return fail(p, p->i, "formula nested too deeply (more than %d levels)", MAX_DEPTH);
		p->i++;
		if ((k = parse_expr(p)) < 0)
			return -1;
		skip(p);
		if (p->i >= p->len || p->t[p->i] != ')')
			return fail(p, p->i, "expected ')' to close the '(' at column %zu", s + 1);
		p->i++;
		p->depth--;
		return k;
	}
	if (isdigit(c) || (c == '.' && p->i + 1 < p->len && isdigit((unsigned char)p->t[p->i + 1])))
		return parse_number(p);
	if (c == '@')
		return parse_ref(p);
	if (is_id0(c)) {
		while (p->i < p->len && is_id((unsigned char)p->t[p->i]))
			p->i++;
		if ((k = node(p, SPEC_X_NAME, s)) < 0)
			return -1;
		p->f->n[k].len = p->i - s;
		if (!(p->f->n[k].name = dup_span(p->t + s, p->i - s)))
			return fail(p, s, "out of memory");
		skip(p);
		if (p->i < p->len && p->t[p->i] == '(')
			return fail(p, s, "'%s(': a formula has no functions", p->f->n[k].name);
		return k;
	}
	return fail(p, p->i, "expected a name, a number or '(', got '%c'", isprint(c) ? c : '?');
}

static int parse_unary(struct px *p)
{
	int k, a;
	size_t s;

	skip(p);
	s = p->i;
	if (p->i < p->len && p->t[p->i] == '-') {
		if (++p->depth > MAX_DEPTH)
			return fail(p, p->i, "formula nested too deeply (more than %d levels)", MAX_DEPTH);
		p->i++;
		if ((a = parse_unary(p)) < 0 || (k = node(p, SPEC_X_NEG, s)) < 0)
			return -1;
		p->f->n[k].a = a;
		p->depth--;
		return k;
	}
	return parse_primary(p);
}

static int binary(struct px *p, int (*sub)(struct px *), const char *ops)
{
	int l, r, k;

	if ((l = sub(p)) < 0)
		return -1;
	for (;;) {
		skip(p);
		if (p->i >= p->len || !strchr(ops, p->t[p->i]) || !p->t[p->i])
			return l;
		char op = p->t[p->i];
		size_t at = p->i++;
		if ((r = sub(p)) < 0)
			return -1;
		if ((k = node(p, op == '+' ? SPEC_X_ADD : op == '-' ? SPEC_X_SUB : op == '*' ? SPEC_X_MUL
								       : SPEC_X_DIV, at)) < 0)
			return -1;
		p->f->n[k].a = l;
		p->f->n[k].b = r;
		l = k;
	}
}

static int parse_term(struct px *p) { return binary(p, parse_unary, "*/"); }
static int parse_expr(struct px *p) { return binary(p, parse_term, "+-"); }

int spec_expr_parse(const char *text, struct spec_formula *f, size_t *err_off, char *err,
		    size_t errlen)
{
	struct px p = {text, 0, strlen(text), f, err_off, err, errlen, 0};

	memset(f, 0, sizeof *f);
	f->root = -1;
	if (p.len > MAX_TEXT)
		return fail(&p, 0, "formula longer than %d bytes", MAX_TEXT);
	if (!(f->text = strdup(text)))
		return fail(&p, 0, "out of memory");
	if ((f->root = parse_expr(&p)) < 0)
		goto bad;
	skip(&p);
	if (p.i < p.len) {
		fail(&p, p.i, "unexpected '%c' after a complete formula (operators: + - * /)",
		     isprint((unsigned char)text[p.i]) ? text[p.i] : '?');
		goto bad;
	}
	return 0;
bad:
	spec_expr_free(f);
	return -1;
}

void spec_expr_free(struct spec_formula *f)
{
	for (size_t i = 0; f->n && i < f->nn; i++) {
		free(f->n[i].name);
		for (size_t k = 0; k < f->n[i].n_sel; k++) {
			free(f->n[i].sel_param[k]);
			free(f->n[i].sel_text[k]);
		}
		free(f->n[i].sel_param);
		free(f->n[i].sel_text);
		free(f->n[i].metric);
	}
	free(f->n);
	free(f->text);
	memset(f, 0, sizeof *f);
	f->root = -1;
}

int spec_expr_is_formula(const char *text)
{
	const char *p = text;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '-' || *p == '+')
		p++;
	/* a plain quantity: a number then letters, '/' only in a rate's "/s" */
	if (!isdigit((unsigned char)*p) && *p != '.')
		return 1;
	for (; *p; p++) {
		if (strchr("()*@+", *p))
			return 1;
		if (*p == '-' && p[-1] != 'e' && p[-1] != 'E')
			return 1;
		if (*p == '/' && p[1] != 's' && strncmp(p, "/op", 3) != 0)
			return 1;
		if (*p == '/' && p[1] == 's' && is_id((unsigned char)p[2]))
			return 1;
		if (*p == ' ' && p[1] && p[1] != ' ' && !isalpha((unsigned char)p[1]))
			return 1;
	}
	return 0;
}

/* --- evaluation -------------------------------------------------------- */

void spec_expr_format(double v, enum spec_qty q, char *buf, size_t len)
{
	char t[64];

	switch (q) {
	case SPEC_Q_CYCLES:
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(t, sizeof t, "%.0f", v);
		else
			units_format_number(v, t, sizeof t);
		snprintf(buf, len, "%s cycles", t);
		return;
	case SPEC_Q_HZ:
		snprintf(buf, len, v >= 1e9 ? "%.3g GHz" : v >= 1e6 ? "%.3g MHz" : "%.3g Hz",
			 v >= 1e9 ? v / 1e9 : v >= 1e6 ? v / 1e6 : v);
		return;
	case SPEC_Q_BYTES:
		units_format_size_short(v, t, sizeof t);
		snprintf(buf, len, "%s", t);
		return;
	case SPEC_Q_SECONDS: {
		double a = fabs(v);
		snprintf(buf, len, a >= 1 || a == 0 ? "%.3g s" : a >= 1e-3 ? "%.3g ms" : a >= 1e-6 ? "%.3g us" : "%.3g ns",
			 a >= 1 || a == 0 ? v : a >= 1e-3 ? v * 1e3 : a >= 1e-6 ? v * 1e6 : v * 1e9);
		return;
	}
	case SPEC_Q_RATE:
		snprintf(buf, len, v >= 1e9 ? "%.3g GB/s" : v >= 1e6 ? "%.3g MB/s" : "%.3g B/s",
			 v >= 1e9 ? v / 1e9 : v >= 1e6 ? v / 1e6 : v);
		return;
	case SPEC_Q_SPB: {
		/* a rate's part as time per byte: "0.052 ns/B" */
		double a = fabs(v);
		snprintf(buf, len, a >= 1e-3 ? "%.3g ms/B" : a >= 1e-6 ? "%.3g us/B" : "%.3g ns/B",
			 a >= 1e-3 ? v * 1e3 : a >= 1e-6 ? v * 1e6 : v * 1e9);
		return;
	}
	case SPEC_Q_BITS:
		snprintf(buf, len, v >= 1e9 ? "%.3g Gbit/s" : v >= 1e6 ? "%.3g Mbit/s" : "%.3g bit/s",
			 v >= 1e9 ? v / 1e9 : v >= 1e6 ? v / 1e6 : v);
		return;
	case SPEC_Q_BOOL:
	case SPEC_Q_NUM:
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(t, sizeof t, "%.0f", v);
		else
			units_format_number(v, t, sizeof t);
		snprintf(buf, len, "%s", t);
		return;
	}
}

struct ex {
	const struct spec_formula *f;
	spec_expr_lookup lookup;
	void *ctx;
	double *val;			/* per node, leaves filled as looked up */
	enum spec_qty *qty;
	char *missing; size_t mlen;
};

static int eval(struct ex *e, int k, double *out)
{
	const struct spec_expr_node *n = &e->f->n[k];
	double a, b;

	switch (n->op) {
	case SPEC_X_NUM:
		*out = n->num;
		return 0;
	case SPEC_X_NAME:
	case SPEC_X_REF:
		e->qty[k] = SPEC_Q_NUM;
		if (e->lookup(e->ctx, n, out, &e->qty[k], e->missing, e->mlen) < 0)
			return -1;
		e->val[k] = *out;
		return 0;
	case SPEC_X_NEG:
		if (eval(e, n->a, &a) < 0)
			return -1;
		*out = -a;
		return 0;
	default:
		break;
	}
	if (eval(e, n->a, &a) < 0 || eval(e, n->b, &b) < 0)
		return -1;
	switch (n->op) {
	case SPEC_X_ADD: *out = a + b; break;
	case SPEC_X_SUB: *out = a - b; break;
	case SPEC_X_MUL: *out = a * b; break;
	default:
		if (b == 0) {
			snprintf(e->missing, e->mlen, "division by zero at column %zu of '%s'", n->off + 1,
				 e->f->text);
			return -1;
		}
		*out = a / b;
		break;
	}
	return 0;
}

/* The text span [*lo, *hi) of the sub-tree at k: its tokens' extent. */
static void span_of(const struct spec_formula *f, int k, size_t *lo, size_t *hi)
{
	const struct spec_expr_node *n = &f->n[k];

	if (n->off < *lo)
		*lo = n->off;
	if (n->off + n->len > *hi)
		*hi = n->off + n->len;
	if (n->a >= 0)
		span_of(f, n->a, lo, hi);
	if (n->b >= 0)
		span_of(f, n->b, lo, hi);
}

/* Widen [*lo, *hi) of text to the parentheses it opens or closes, so that
   "(a + b) * c" of "x + (a + b) * c" keeps its '(' . */
static void balance(const char *t, size_t *lo, size_t *hi)
{
	int depth = 0, low = 0;

	for (size_t i = *lo; i < *hi; i++) {
		depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
		if (depth < low)
			low = depth;
	}
	for (; low < 0 && *lo > 0; (*lo)--)
		if (t[*lo - 1] == '(')
			low++, depth++;
	for (size_t tl = strlen(t); depth > 0 && *hi < tl; (*hi)++)
		if (t[*hi] == ')')
			depth--;
}

static int eval_from(const struct spec_formula *f, int root, size_t lo, size_t hi,
		     spec_expr_lookup lookup, void *ctx, double *out, char *filled, size_t filled_len,
		     char *missing, size_t mlen)
{
	struct ex e = {f, lookup, ctx, NULL, NULL, missing, mlen};
	int rc;

	*out = NAN;
	if (missing && mlen)
		missing[0] = '\0';
	if (filled && filled_len)
		filled[0] = '\0';
	if (!f->n || root < 0 || (size_t)root >= f->nn) {
		snprintf(missing, mlen, "no formula");
		return -1;
	}
	e.val = calloc(f->nn, sizeof *e.val);
	e.qty = calloc(f->nn, sizeof *e.qty);
	if (!e.val || !e.qty) {
		free(e.val);
		free(e.qty);
		snprintf(missing, mlen, "out of memory");
		return -1;
	}
	rc = eval(&e, root, out);
	if (rc == 0 && !isfinite(*out)) {
		snprintf(missing, mlen, "the formula's value is not finite");
		rc = -1;
	}
	if (rc == 0 && filled && filled_len) {
		/* the text, each name and reference replaced in place */
		size_t pos = lo, used = 0, tl = hi;

		while (pos <= tl && used + 1 < filled_len) {
			size_t next = tl;
			int nk = -1;
			for (size_t k = 0; k < f->nn; k++)
				if ((f->n[k].op == SPEC_X_NAME || f->n[k].op == SPEC_X_REF) && f->n[k].off >= pos &&
				    f->n[k].off < next) {
					next = f->n[k].off;
					nk = (int)k;
				}
			used += (size_t)snprintf(filled + used, filled_len - used, "%.*s", (int)(next - pos),
						 f->text + pos);
			if (used >= filled_len)
				break;
			if (nk < 0)
				break;
			char v[64];
			spec_expr_format(e.val[nk], e.qty[nk], v, sizeof v);
			used += (size_t)snprintf(filled + used, filled_len - used, "%s", v);
			pos = f->n[nk].off + f->n[nk].len;
		}
	}
	free(e.val);
	free(e.qty);
	return rc;
}

int spec_expr_eval(const struct spec_formula *f, spec_expr_lookup lookup, void *ctx, double *out,
		   char *filled, size_t filled_len, char *missing, size_t mlen)
{
	return eval_from(f, f->root, 0, f->text ? strlen(f->text) : 0, lookup, ctx, out, filled,
			 filled_len, missing, mlen);
}

int spec_expr_eval_node(const struct spec_formula *f, int k, spec_expr_lookup lookup, void *ctx,
			double *out, char *text, size_t text_len, char *filled, size_t filled_len,
			char *missing, size_t mlen)
{
	size_t lo = (size_t)-1, hi = 0;

	if (text && text_len)
		text[0] = '\0';
	if (!f->n || !f->text || k < 0 || (size_t)k >= f->nn) {
		*out = NAN;
		snprintf(missing, mlen, "no formula");
		return -1;
	}
	span_of(f, k, &lo, &hi);
	balance(f->text, &lo, &hi);
	while (hi > lo && (f->text[hi - 1] == ' ' || f->text[hi - 1] == '\t' || f->text[hi - 1] == '\n'))
		hi--;
	if (text && text_len)
		snprintf(text, text_len, "%.*s", (int)(hi - lo), f->text + lo);
	return eval_from(f, k, lo, hi, lookup, ctx, out, filled, filled_len, missing, mlen);
}
