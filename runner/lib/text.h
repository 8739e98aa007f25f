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
   or C1 control character, no DEL and no bidirectional control (U+061C,
   U+200E, U+200F, U+202A-U+202E, U+2066-U+2069: they reorder what a
   terminal or a page shows around them); else 0. */
int text_printable_utf8(const char *s);

/* s into buf (at most len bytes, terminated when len > 0) with every byte
   that is a C0 control character, DEL or not part of valid UTF-8 as \xNN,
   and every C1 or bidirectional control as \uNNNN (\u202e): the result
   passes text_printable_utf8.  A buffer of 4 * strlen(s) + 1 bytes holds
   it all. */
void text_escape(const char *s, char *buf, size_t len);

/* The same, keeping newlines and tabs (a program's output in a message). */
void text_escape_lines(const char *s, char *buf, size_t len);

/* A host's name that can be a folder name (hosts/NAME of a merged fleet):
   1 to 64 of letters, digits, '.', '_', '-', not starting with '.' (so
   never "..") or '-'.  Inventory names and hostnames are like this. */
int text_host_name_ok(const char *s);

#endif
