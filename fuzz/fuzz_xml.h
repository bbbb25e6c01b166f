/* fuzz_xml.h: a small checker of XML 1.0 well-formedness for the SVG that
 * fuzz_svg has streamtp write (issue 34: pictures always well-formed).  It
 * knows no DTD, which streamtp's pictures never have: the whole document is
 * valid UTF-8 of characters XML allows (no control byte but tab and line
 * breaks, no surrogate, no U+FFFE or U+FFFF); an optional <?xml ...?>
 * declaration, then one root element, comments and blanks around it;
 * elements nest and close by their own names; attributes are unique per
 * element, quoted, without '<'; '&' starts only one of the five predefined
 * entities or a character reference to an allowed character; text holds no
 * '<' but markup and no "]]>".  Written from the specification (sections
 * 2.2 to 2.8, 3.1, 4.1), not from streamtp's escaping, so that the two can
 * disagree. */
#ifndef STP_FUZZ_XML_H
#define STP_FUZZ_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct xml_doc {
  const unsigned char *p;
  size_t n, i;
  const char *why; /* what is wrong, when a check fails */
} xml_doc;

static inline bool xml_bad(xml_doc *d, const char *why) {
  d->why = why;
  return false;
}

/* The XML Char production. */
static inline bool xml_is_char(uint32_t c) {
  return c == 9 || c == 10 || c == 13 || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* The code point of the UTF-8 sequence at p (length in *len); UINT32_MAX
 * when not valid UTF-8 (overlong forms, surrogates, beyond U+10FFFF). */
static inline uint32_t xml_utf8(const unsigned char *p, size_t n, size_t *len) {
  *len = 1;
  if (p[0] < 0x80)
    return p[0];
  size_t k = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 && p[0] < 0xF0 ? 3
             : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
  if (k == 0 || k > n)
    return UINT32_MAX;
  uint32_t c = p[0] & (0xFF >> (k + 1));
  for (size_t j = 1; j < k; j++) {
    if ((p[j] & 0xC0) != 0x80)
      return UINT32_MAX;
    c = c << 6 | (p[j] & 0x3F);
  }
  static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < least[k] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return UINT32_MAX;
  *len = k;
  return c;
}

static inline bool xml_chars(xml_doc *d) {
  for (size_t i = 0; i < d->n;) {
    size_t len;
    uint32_t c = xml_utf8(d->p + i, d->n - i, &len);
    if (c == UINT32_MAX)
      return xml_bad(d, "a byte sequence that is not UTF-8");
    if (!xml_is_char(c))
      return xml_bad(d, "a character XML does not allow (control, U+FFFE, U+FFFF)");
    i += len;
  }
  return true;
}

static inline bool xml_at(const xml_doc *d, const char *s) {
  size_t k = strlen(s);
  return d->i + k <= d->n && memcmp(d->p + d->i, s, k) == 0;
}

static inline void xml_blanks(xml_doc *d) {
  while (d->i < d->n && strchr(" \t\r\n", d->p[d->i]) && d->p[d->i])
    d->i++;
}

static inline bool xml_name_byte(unsigned char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80 ||
         (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

/* A name at d->i: its length (0: none). */
static inline size_t xml_name(xml_doc *d) {
  size_t from = d->i;
  while (d->i < d->n && xml_name_byte(d->p[d->i], d->i == from))
    d->i++;
  return d->i - from;
}

/* A reference after '&': "lt;", "#38;", "#x26;". */
static inline bool xml_reference(xml_doc *d) {
  static const char *const entities[] = {"lt;", "gt;", "amp;", "quot;", "apos;"};
  for (int k = 0; k < 5; k++)
    if (xml_at(d, entities[k])) {
      d->i += strlen(entities[k]);
      return true;
    }
  if (!xml_at(d, "#"))
    return xml_bad(d, "'&' that starts no reference");
  d->i++;
  bool hex = xml_at(d, "x");
  d->i += hex;
  uint64_t v = 0;
  size_t digits = 0;
  for (; d->i < d->n && d->p[d->i] != ';'; d->i++, digits++) {
    unsigned char c = d->p[d->i];
    int x = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
            : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (x < 0)
      return xml_bad(d, "a character reference with a bad digit");
    v = v * (hex ? 16 : 10) + (uint64_t)x;
    if (v > 0x10FFFF)
      return xml_bad(d, "a character reference beyond U+10FFFF");
  }
  if (d->i >= d->n || digits == 0)
    return xml_bad(d, "an unterminated character reference");
  d->i++;
  return xml_is_char((uint32_t)v) ? true : xml_bad(d, "a reference to a character XML refuses");
}

static inline bool xml_comment(xml_doc *d) { /* after "<!--" */
  for (; d->i + 1 < d->n; d->i++)
    if (d->p[d->i] == '-' && d->p[d->i + 1] == '-') {
      if (!xml_at(d, "-->"))
        return xml_bad(d, "\"--\" inside a comment");
      d->i += 3;
      return true;
    }
  return xml_bad(d, "an unterminated comment");
}

/* Attributes up to '>' or "/>" (*empty); unique names. */
static inline bool xml_attributes(xml_doc *d, bool *empty) {
  size_t names[64][2], count = 0;
  for (;;) {
    size_t before = d->i;
    xml_blanks(d);
    if (xml_at(d, "/>") || xml_at(d, ">")) {
      *empty = xml_at(d, "/>");
      d->i += *empty ? 2 : 1;
      return true;
    }
    if (d->i == before)
      return xml_bad(d, "no blank before an attribute");
    size_t at = d->i, len = xml_name(d);
    if (!len)
      return xml_bad(d, "a bad attribute name");
    for (size_t k = 0; k < count; k++)
      if (names[k][1] == len && memcmp(d->p + names[k][0], d->p + at, len) == 0)
        return xml_bad(d, "an attribute given twice");
    if (count < 64)
      names[count][0] = at, names[count++][1] = len;
    xml_blanks(d);
    if (!xml_at(d, "="))
      return xml_bad(d, "an attribute without '='");
    d->i++;
    xml_blanks(d);
    if (d->i >= d->n || (d->p[d->i] != '"' && d->p[d->i] != '\''))
      return xml_bad(d, "an unquoted attribute value");
    unsigned char q = d->p[d->i++];
    for (; d->i < d->n && d->p[d->i] != q; d->i++) {
      if (d->p[d->i] == '<')
        return xml_bad(d, "'<' in an attribute value");
      if (d->p[d->i] == '&') {
        d->i++;
        if (!xml_reference(d))
          return false;
        d->i--;
      }
    }
    if (d->i >= d->n)
      return xml_bad(d, "an unterminated attribute value");
    d->i++;
  }
}

/* Elements from '<' of the root to its end tag (a stack of names, no
 * recursion). */
static inline bool xml_element(xml_doc *d) {
  size_t stack[256][2], depth = 0;
  for (;;) {
    if (!xml_at(d, "<"))
      return xml_bad(d, "no element where one must start");
    d->i++;
    size_t at = d->i, len = xml_name(d);
    if (!len)
      return xml_bad(d, "a bad element name");
    bool empty;
    if (!xml_attributes(d, &empty))
      return false;
    if (!empty) {
      if (depth == 256)
        return xml_bad(d, "elements nested too deep for this checker");
      stack[depth][0] = at, stack[depth++][1] = len;
    }
    for (;;) { /* content up to the next start tag, or end tags */
      if (depth == 0)
        return true;
      if (d->i >= d->n)
        return xml_bad(d, "an element left open at the end");
      unsigned char c = d->p[d->i];
      if (c == '&') {
        d->i++;
        if (!xml_reference(d))
          return false;
      } else if (xml_at(d, "]]>")) {
        return xml_bad(d, "\"]]>\" in text");
      } else if (xml_at(d, "<!--")) {
        d->i += 4;
        if (!xml_comment(d))
          return false;
      } else if (xml_at(d, "<![CDATA[")) {
        const unsigned char *end = NULL;
        for (size_t k = d->i + 9; k + 2 < d->n && !end; k++)
          if (memcmp(d->p + k, "]]>", 3) == 0)
            end = d->p + k;
        if (!end)
          return xml_bad(d, "an unterminated CDATA section");
        d->i = (size_t)(end - d->p) + 3;
      } else if (xml_at(d, "</")) {
        d->i += 2;
        size_t eat = d->i, elen = xml_name(d);
        depth--;
        if (elen != stack[depth][1] || memcmp(d->p + eat, d->p + stack[depth][0], elen) != 0)
          return xml_bad(d, "an end tag that is not the open element's");
        xml_blanks(d);
        if (!xml_at(d, ">"))
          return xml_bad(d, "an end tag without '>'");
        d->i++;
      } else if (c == '<') {
        break; /* a child element */
      } else {
        d->i++;
      }
    }
  }
}

/* Comments and blanks (around the root). */
static inline bool xml_misc(xml_doc *d) {
  for (;;) {
    xml_blanks(d);
    if (!xml_at(d, "<!--"))
      return true;
    d->i += 4;
    if (!xml_comment(d))
      return false;
  }
}

/* Whether p[0..n) is a well-formed XML document; *why says what is not,
 * *at where. */
static inline bool xml_well_formed(const char *p, size_t n, const char **why, size_t *at) {
  xml_doc d = {(const unsigned char *)p, n, 0, NULL};
  bool ok = xml_chars(&d);
  if (ok && xml_at(&d, "<?xml")) {
    const char *end = NULL;
    for (size_t k = 5; k + 1 < n && !end; k++)
      if (p[k] == '?' && p[k + 1] == '>')
        end = p + k;
    ok = end ? (d.i = (size_t)(end - p) + 2, true) : xml_bad(&d, "an unterminated declaration");
  }
  ok = ok && xml_misc(&d) && xml_element(&d) && xml_misc(&d);
  if (ok && d.i != n)
    ok = xml_bad(&d, "something after the root element");
  *why = d.why;
  *at = d.i;
  return ok;
}

#endif
