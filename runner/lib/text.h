/*
 * text.h - is a string printable UTF-8, and how to show one that is not.
 * A file name is bytes: one with an invalid sequence cannot go into JSON
 * (jansson refuses it) and one with ESC in it would drive the terminal it
 * is echoed to.  Such names are refused, and shown escaped in the refusal.
 */
#ifndef SYSMETER_TEXT_H
#define SYSMETER_TEXT_H

#include <stddef.h>

/* 1 when s is valid UTF-8 (no overlong forms, no surrogates) with no C0
   or C1 control character and no DEL; else 0. */
int text_printable_utf8(const char *s);

/* s into buf (at most len bytes, terminated when len > 0) with every byte
   that is a control character or not part of valid UTF-8 as \xNN. */
void text_escape(const char *s, char *buf, size_t len);

/* The same, keeping newlines and tabs (a program's output in a message). */
void text_escape_lines(const char *s, char *buf, size_t len);

/* A host's name that can be a folder name (hosts/NAME of a merged fleet):
   1 to 64 of letters, digits, '.', '_', '-', not starting with '.' (so
   never "..") or '-'.  Inventory names and hostnames are like this. */
int text_host_name_ok(const char *s);

#endif
