/* textout.c: names (any bytes: a file holds them, a file name gives the
 * default ones) written into an SVG or a Graphviz file so that it stays
 * well-formed whatever they hold.  What XML 1.0 or DOT takes is written as
 * is or escaped; what neither may hold (bytes that are not UTF-8, control
 * characters, U+FFFE and U+FFFF, which the name rules allow) is written as
 * the text \xNN or \uNNNN, as the JSON of such names writes the bytes. */
#include "base/textout.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

size_t stp__utf8_char(const unsigned char *p, size_t n, uint32_t *cp) {
  unsigned c = p[0];
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || len > n)
    return 0;
  uint32_t v = len == 1 ? c : c & (0x7Fu >> len);
  for (size_t k = 1; k < len; k++) {
    if ((p[k] & 0xC0) != 0x80)
      return 0;
    v = v << 6 | (p[k] & 0x3F);
  }
  static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return len;
}

/* A byte that is not UTF-8, a control character, or a noncharacter that
 * XML refuses, as text ("\x01", "\ufffe"); dot doubles the backslash (a
 * DOT label reads "\x" as an escape otherwise). */
static void put_replaced(FILE *f, const unsigned char *p, size_t len, uint32_t cp, bool dot) {
  const char *slash = dot ? "\\\\" : "\\";
  if (len == 0)
    fprintf(f, "%sx%02x", slash, p[0]);
  else if (cp < 0x100)
    fprintf(f, "%sx%02x", slash, (unsigned)cp);
  else
    fprintf(f, "%su%04x", slash, (unsigned)cp);
}

static void put_text(FILE *f, const char *s, bool dot) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    uint32_t cp = 0;
    size_t len = stp__utf8_char(p + i, n - i, &cp);
    bool xml_space = cp == '\t' || cp == '\n' || cp == '\r';
    if (len == 0 || (cp < 0x20 && (dot || !xml_space)) || cp == 0x7F || cp == 0xFFFE ||
        cp == 0xFFFF) {
      put_replaced(f, p + i, len, cp, dot);
    } else if (!dot && xml_space) { /* kept in attribute values too */
      fprintf(f, "&#%u;", (unsigned)cp);
    } else if (!dot && (cp == '<' || cp == '>' || cp == '&' || cp == '"')) {
      fputs(cp == '<' ? "&lt;" : cp == '>' ? "&gt;" : cp == '&' ? "&amp;" : "&quot;", f);
    } else if (dot && (cp == '"' || cp == '\\')) {
      fputc('\\', f);
      fputc((int)cp, f);
    } else {
      fwrite(p + i, 1, len, f);
    }
    i += len ? len : 1;
  }
}

void stp_write_xml_text(FILE *f, const char *s) {
  if (f && s)
    put_text(f, s, false);
}

void stp_write_dot_text(FILE *f, const char *s) {
  if (f && s)
    put_text(f, s, true);
}
