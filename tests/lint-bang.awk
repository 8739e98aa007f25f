# lint-bang.awk: find '!' commands whose failure nobody sees.
#
# Under set -e (which bats uses for a test) bash ignores the status of a
# pipeline inverted with '!': a line "! grep -q x f" that is not the last
# command of a test lets the test pass whatever grep finds.  Only the last
# command's status reaches bats (it is the function's status).  So a '!'
# command must be the last command of its @test or function, or end in
# "|| false" (or "|| return", "|| exit", "|| { ...; }").
#
# Usage: awk -f tests/lint-bang.awk FILE...   (bats files, bash helpers)
# Prints FILE:LINE: ... for each offence; exits 1 if there was any.
#
# How: a small shell scanner turns each file into words and operators
# (quoted strings, ${...}, $(...), `...`, <(...) and $((...)) become one opaque
# word; comments and here-document bodies are skipped), and a walker keeps
# a stack of compound commands ({ }, ( ), if, loops, case, function bodies)
# and, per level, the current and-or list.  A list that holds a '!' in
# command position (not in an if/while/until condition, not "run !") and
# does not end in "|| false" is pending; it is an offence as soon as another
# command follows at that level, or a loop around it repeats it.  When a
# function body closes, what is pending there was its last command: fine.
#
# Known limits: commands inside quotes (bash -c '...') and inside $(...)
# are not looked at; a '!' as the last command of an if/else branch that is
# followed by more branches' commands is reported even when the if is the
# test's last command (write it as "! x || false" there too).

function push(c) { cs[++cn] = c }

function flush() {
	if (wb != "") { walk(wb); wb = "" }
}

function emit(t) { flush(); walk(t) }

# a here-document starts at s[i] ("<<"): queue its delimiter, return the
# index after it
function heredoc(s, i,    j, n, d, c, strip) {
	j = i + 2; n = length(s); strip = 0
	if (substr(s, j, 1) == "-") { strip = 1; j++ }
	while (j <= n && (substr(s, j, 1) == " " || substr(s, j, 1) == "\t")) j++
	d = ""
	while (j <= n) {
		c = substr(s, j, 1)
		if (c ~ /[ \t;&|()<>]/) break
		if (c != "'" && c != "\"" && c != "\\") d = d c
		j++
	}
	hq[++hn] = d; hs[hn] = strip
	return j
}

function scan(s,    n, i, c, nx, top, prev) {
	n = length(s); i = 1; cont = 0
	while (i <= n) {
		c = substr(s, i, 1); nx = substr(s, i + 1, 1); top = cs[cn]
		prev = i > 1 ? substr(s, i - 1, 1) : " "
		if (top == "S") { if (c == "'") cn--; i++; continue }
		if (top == "A" || top == "B") {
			if (c == "\\") { i += 2; continue }
			if ((top == "A" && c == "'") || (top == "B" && c == "`")) cn--
			i++; continue
		}
		if (top == "D") {
			if (c == "\\") { i += 2; continue }
			if (c == "\"") cn--
			else if (c == "$" && (nx == "(" || nx == "{")) { push(nx == "(" ? "C" : "W"); i++ }
			else if (c == "`") push("B")
			i++; continue
		}
		if (top == "V" || top == "W") {	# ${...}, W inside "..." (where ' is a letter)
			if (c == "\\") { i += 2; continue }
			if (c == "}") cn--
			else if (c == "'" && top == "V") push("S")
			else if (c == "\"") push("D")
			else if (c == "$" && (nx == "(" || nx == "{")) { push(nx == "(" ? "C" : "V"); i++ }
			i++; continue
		}
		# shell code: the file's own (T), or inside $(...) (C) and its parentheses (P)
		if (c == "\\") {
			if (i == n) { cont = 1; i++; continue }
			if (top == "T") wb = wb substr(s, i, 2)
			i += 2; continue
		}
		if (c == "#" && prev ~ /[ \t;&|()]/ && (top != "T" || wb == "")) break
		if (c == "'" || c == "\"" || c == "`" || (c == "$" && (nx == "'" || nx == "(" || nx == "{")) ||
		    ((c == "<" || c == ">") && nx == "(")) {
			if (top == "T") wb = wb "Q"
			if (c == "'") push("S")
			else if (c == "\"") push("D")
			else if (c == "`") push("B")
			else if (nx == "'") { push("A"); i++ }
			else if (nx == "{") { push("V"); i++ }
			else { push("C"); i++ }
			i++; continue
		}
		if (c == "<" && substr(s, i, 3) == "<<<") {
			if (top == "T") wb = wb "<<<"
			i += 3; continue
		}
		if (c == "<" && nx == "<") {
			if (top == "T") { wb = wb "<<H"; i = heredoc(s, i) } else i += 2
			continue
		}
		if (top != "T") {
			if (c == "(") push("P")
			else if (c == ")") cn--
			i++; continue
		}
		if (c == " " || c == "\t") { flush(); i++; continue }
		if (c == "(" && nx == "(" && wb == "") {	# (( arithmetic ))
			wb = "Q"; push("C"); push("P"); i += 2; continue
		}
		if (c == ";") {
			if (nx == ";") { emit(";;"); i += 2 } else { emit(";"); i++ }
			continue
		}
		if (c == "&") {
			if (nx == ">" || wb ~ /[<>]$/) { wb = wb c; i++; continue }	# &> and >&2
			if (nx == "&") { emit("&&"); i += 2 } else { emit(";"); i++ }
			continue
		}
		if (c == "|") {
			if (nx == "|") { emit("||"); i += 2 }
			else { emit("|"); i += (nx == "&") ? 2 : 1 }
			continue
		}
		if (c == "(" || c == ")") { emit(c); i++; continue }
		wb = wb c; i++
	}
	if (cn == 1 && !cont) emit("NL")
}

# --- the walker -----------------------------------------------------------

function offence(ln) {
	printf "%s:%d: a '!' command before the end of its test or function cannot fail it (end it with || false): %s\n",
		fname, ln, trim(src[ln])
	bad++
}

function lost(ln, why) {
	printf "%s:%d: lint-bang.awk lost track of the shell syntax: %s\n", fname, ln, why
	bad++
}

function trim(x) { sub(/^[ \t]+/, "", x); sub(/[ \t]+$/, "", x); return x }

function report_all(list,    a, m, j) {
	m = split(list, a, " ")
	for (j = 1; j <= m; j++) offence(a[j])
}

function level(kind) {
	lv++; kd[lv] = kind; pend[lv] = ""; bpend[lv] = ""; cond[lv] = 0
	cmdpos[lv] = 1; csub[lv] = ""; list_reset(lv)
}

function list_reset(k) { lbang[k] = ""; lop[k] = ""; la1[k] = ""; la2[k] = ""; lan[k] = 0 }

function note(k, t) {
	lan[k]++
	if (lan[k] == 1) la1[k] = t
	else if (lan[k] == 2) la2[k] = t
}

function mended(k) {
	return lop[k] == "||" && (la1[k] == "false" || la1[k] == "{" ||
		((la1[k] == "return" || la1[k] == "exit") && la2[k] != "0"))
}

function end_list(k) {
	if (lbang[k] != "" && !mended(k)) pend[k] = pend[k] lbang[k]
	list_reset(k)
}

# a command starts at level k: what was pending there was not the last
function new_command(k) {
	if (pend[k] != "") { report_all(pend[k]); pend[k] = "" }
}

# close level k; its pending lines become part of the enclosing list
# (carry) or are reported (loop) or dropped (function body, subshell)
function close_level(how,    inner, o) {
	end_list(lv)
	inner = bpend[lv] pend[lv]
	if (how == "report") report_all(inner)
	lv--; o = lv
	if (lv < 1) { lv = 1; return }
	if (how == "carry") lbang[o] = lbang[o] inner
	cmdpos[o] = 0; note(o, "}")
}

function walk(t,    k) {
	k = lv
	if (skipto != "") { if (t == skipto) skipto = ""; return }
	if (kd[k] == "case" && csub[k] != "body") {
		if (t == "in" && csub[k] == "word") csub[k] = "pat"
		else if (t == "esac" && csub[k] == "pat") close_level("carry")
		else if (t == ")" && csub[k] == "pat") { csub[k] = "body"; cmdpos[k] = 1 }
		return
	}
	if (t == "NL" && (lasttok == "&&" || lasttok == "||" || lasttok == "|" || fdef == 2)) return
	lasttok = t
	if (t == "NL" || t == ";") { end_list(k); cmdpos[k] = 1; return }
	if (t == ";;") {
		if (kd[k] == "case") { end_list(k); bpend[k] = bpend[k] pend[k]; pend[k] = ""; csub[k] = "pat" }
		return
	}
	if (t == "&&" || t == "||" || t == "|") {
		lop[k] = t; lan[k] = 0; la1[k] = ""; la2[k] = ""; cmdpos[k] = 1; return
	}
	if (t == "{" && (fdef == 2 || fdef == 5 || cmdpos[k])) {
		if (fdef == 2 || fdef == 5) { fdef = 0; level("func"); return }
		new_command(k); note(k, t); level("brace"); return
	}
	if (t == ")") {
		if (fdef == 3) { fdef = 2; return }
		if (kd[k] == "sub") close_level("drop")
		return
	}
	if (t == "(") {
		if (fdef == 5 || (!cmdpos[k] && nwords == 1)) { fdef = 3; return }
		new_command(k); note(k, t); level("sub"); return
	}
	if (!cmdpos[k]) {
		note(k, t); nwords++
		if (fdef == 1) fdef = 2
		else if (fdef == 4) fdef = 5
		return
	}
	# a word in command position
	if (t == "!") { if (!cond[k]) lbang[k] = lbang[k] " " FNR; note(k, t); return }
	if (t == "time") return
	if (t == "}" && (kd[k] == "brace" || kd[k] == "func")) { close_level(kd[k] == "func" ? "drop" : "carry"); return }
	if (t == "then" || t == "do") {
		end_list(k); cond[k] = 0; return
	}
	if (t == "elif" || t == "else") {
		end_list(k); bpend[k] = bpend[k] pend[k]; pend[k] = ""; cond[k] = (t == "elif"); return
	}
	if (t == "fi" && kd[k] == "if") { close_level("carry"); return }
	if (t == "done" && kd[k] == "loop") { close_level("report"); return }
	if (t == "esac" && kd[k] == "case") { close_level("carry"); return }
	new_command(k); note(k, t); fdef = 0; nwords = 1
	if (t ~ /^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=/) return	# an assignment: a command may follow
	cmdpos[k] = 0
	if (t == "[[") { skipto = "]]"; return }
	if (t == "if") { level("if"); cond[lv] = 1; return }
	if (t == "while" || t == "until") { level("loop"); cond[lv] = 1; return }
	if (t == "for" || t == "select") { level("loop"); cmdpos[lv] = 0; return }
	if (t == "case") { level("case"); csub[lv] = "word"; return }
	if (t == "@test") fdef = 1
	else if (t == "function") fdef = 4
}

function start_file() {
	cn = 1; cs[1] = "T"; wb = ""; hn = 0; hi = 0; cont = 0
	lv = 0; level("top"); skipto = ""; fdef = 0; nwords = 0; lasttok = "NL"
	fname = FILENAME; lines = 0
}

function end_file() {
	flush()
	if (hi > 0)
		lost(lines, "here-document not ended (" hq[hi] ")")
	else if (cn != 1)
		lost(lines, "a quote, ${, $( or ` not closed at the end of the file")
	else if (lv != 1)
		lost(lines, "a function, { or compound command not closed at the end of the file")
	else {
		end_list(1); report_all(pend[1])
	}
}

FNR == 1 { if (NR > 1) end_file(); start_file() }

{ src[FNR] = $0; lines = FNR }

hi > 0 {	# inside a here-document's body
	line = $0
	if (hs[hi]) sub(/^\t+/, "", line)
	if (line == hq[hi]) { if (++hi > hn) { hi = 0; hn = 0 } }
	next
}

{
	scan($0)
	if (hn > 0 && hi == 0) hi = 1
	# a "}" in column 0 outside quotes ends a function: if the walker is
	# not back at the file's top level, it lost track; say so
	if ($0 ~ /^}/ && cn == 1 && lv != 1) {
		lost(FNR, "this \"}\" in column 0 does not close a function")
		lv = 1; cmdpos[1] = 1; pend[1] = ""; list_reset(1); skipto = ""; fdef = 0
	}
}

END {
	if (NR > 0) end_file()
	exit (bad > 0)
}
