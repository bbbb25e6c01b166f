/* jsonpos.c: walk a valid JSON text along a path to recover the line and
 * column of a value (see jsonpos.h for why this is done on demand).  The walk
 * is iterative: nesting depth costs no stack. */
#include "base/jsonpos.h"

#include "base/core.h"

#include <stdio.h>
#include <string.h>

stp_jpath stp__jpath_key(stp_jpath p, const char *key) {
  if (p.depth < STP_JPATH_MAX) {
    p.seg[p.depth].key = key;
    p.seg[p.depth].index = 0;
    p.depth++;
  }
  return p;
}

stp_jpath stp__jpath_index(stp_jpath p, size_t index) {
  if (p.depth < STP_JPATH_MAX) {
    p.seg[p.depth].key = NULL;
    p.seg[p.depth].index = index;
    p.depth++;
  }
  return p;
}

void stp__jpath_format(const stp_jpath *p, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  if (p->depth == 0) {
    snprintf(buf, n, "top level");
    return;
  }
  for (size_t i = 0; i < p->depth && used < n; i++) {
    int w = p->seg[i].key
                ? snprintf(buf + used, n - used, "%s%s", i ? "." : "", p->seg[i].key)
                : snprintf(buf + used, n - used, "[%zu]", p->seg[i].index);
    if (w < 0)
      return;
    used += (size_t)w;
  }
}

typedef struct cursor {
  const char *s;
  size_t len, pos;
} cursor;

static void skip_ws(cursor *c) {
  while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' ||
                             c->s[c->pos] == '\n' || c->s[c->pos] == '\r'))
    c->pos++;
}

/* At an opening quote: move past the closing quote. */
static void skip_string(cursor *c) {
  c->pos++;
  while (c->pos < c->len && c->s[c->pos] != '"')
    c->pos += c->s[c->pos] == '\\' ? 2 : 1;
  c->pos++;
}

/* Where a scalar ends.  Not strchr: it would match the terminating NUL, so
 * a NUL byte inside the text would stop the cursor for ever. */
static bool is_delimiter(char ch) {
  return ch == ',' || ch == ']' || ch == '}' || ch == ' ' || ch == '\t' || ch == '\r' ||
         ch == '\n';
}

/* Skip one value of any kind, nested ones included, without recursion. */
static void skip_value(cursor *c) {
  size_t depth = 0;
  do {
    skip_ws(c);
    if (c->pos >= c->len)
      return;
    char ch = c->s[c->pos];
    if (ch == '"') {
      skip_string(c);
    } else if (ch == '{' || ch == '[') {
      depth++;
      c->pos++;
    } else if (ch == '}' || ch == ']') {
      depth--;
      c->pos++;
    } else if (ch == ',' || ch == ':') {
      c->pos++;
    } else { /* a scalar, or a byte no JSON value starts with: always move on */
      size_t start = c->pos;
      while (c->pos < c->len && !is_delimiter(c->s[c->pos]))
        c->pos++;
      if (c->pos == start)
        c->pos++;
    }
  } while (depth > 0 && c->pos < c->len);
}

static int hexval(char h) {
  if (h >= '0' && h <= '9')
    return h - '0';
  if (h >= 'a' && h <= 'f')
    return h - 'a' + 10;
  if (h >= 'A' && h <= 'F')
    return h - 'A' + 10;
  return -1;
}

/* Compare the JSON string at the cursor (an opening quote) with `key`,
 * decoding escapes; leaves the cursor after the closing quote. */
static bool string_equals(cursor *c, const char *key) {
  size_t k = 0, klen = strlen(key);
  bool eq = true;
  c->pos++;
  while (c->pos < c->len && c->s[c->pos] != '"') {
    unsigned char out[4];
    size_t nout = 1;
    char ch = c->s[c->pos];
    if (ch != '\\') {
      out[0] = (unsigned char)ch;
      c->pos++;
    } else {
      char e = c->pos + 1 < c->len ? c->s[c->pos + 1] : 0;
      c->pos += 2;
      const char *simple = strchr("\"\\/bfnrt", e);
      if (simple && e) {
        out[0] = (unsigned char)"\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
      } else { /* \u and four hex digits; a surrogate pair compares half by half */
        unsigned cp = 0;
        for (int i = 0; i < 4 && c->pos < c->len; i++, c->pos++)
          cp = cp * 16 + (unsigned)(hexval(c->s[c->pos]) & 15);
        if (cp < 0x80) {
          out[0] = (unsigned char)cp;
        } else if (cp < 0x800) {
          out[0] = (unsigned char)(0xC0 | (cp >> 6));
          out[1] = (unsigned char)(0x80 | (cp & 63));
          nout = 2;
        } else {
          out[0] = (unsigned char)(0xE0 | (cp >> 12));
          out[1] = (unsigned char)(0x80 | ((cp >> 6) & 63));
          out[2] = (unsigned char)(0x80 | (cp & 63));
          nout = 3;
        }
      }
    }
    for (size_t i = 0; i < nout; i++, k++)
      if (k >= klen || (unsigned char)key[k] != out[i])
        eq = false;
  }
  c->pos++;
  return eq && k == klen;
}

/* From an opening '{', find member `key`; leaves the cursor on its value
 * and stores the key's offset. */
static bool find_member(cursor *c, const char *key, size_t *key_pos) {
  c->pos++;
  for (;;) {
    skip_ws(c);
    if (c->pos >= c->len || c->s[c->pos] != '"')
      return false;
    size_t kp = c->pos;
    bool match = string_equals(c, key);
    skip_ws(c);
    c->pos++; /* ':' */
    skip_ws(c);
    if (match) {
      *key_pos = kp;
      return true;
    }
    skip_value(c);
    skip_ws(c);
    if (c->pos >= c->len || c->s[c->pos] != ',')
      return false;
    c->pos++;
  }
}

/* From an opening '[', move to element `index`. */
static bool find_element(cursor *c, size_t index) {
  c->pos++;
  skip_ws(c);
  if (c->pos < c->len && c->s[c->pos] == ']')
    return false;
  for (size_t i = 0; i < index; i++) {
    skip_value(c);
    skip_ws(c);
    if (c->pos >= c->len || c->s[c->pos] != ',')
      return false;
    c->pos++;
  }
  skip_ws(c);
  return true;
}

void stp__text_position(const char *s, size_t off, int *line, int *col) {
  int l = 1, cc = 1;
  for (size_t i = 0; i < off; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '\n') {
      l++;
      cc = 1;
    } else if ((ch & 0xC0) != 0x80) { /* count characters, not UTF-8 bytes */
      cc++;
    }
  }
  *line = l;
  *col = cc;
}

bool stp__json_locate(const char *text, size_t len, const stp_jpath *path, bool want_key,
                      int *line, int *col) {
  cursor c = {.s = text, .len = len, .pos = 0};
  size_t key_pos = 0;
  skip_ws(&c);
  for (size_t d = 0; d < path->depth; d++) {
    if (c.pos >= c.len)
      return false;
    if (path->seg[d].key) {
      if (c.s[c.pos] != '{' || !find_member(&c, path->seg[d].key, &key_pos))
        return false;
    } else {
      if (c.s[c.pos] != '[' || !find_element(&c, path->seg[d].index))
        return false;
    }
  }
  bool at_key = want_key && path->depth > 0 && path->seg[path->depth - 1].key;
  stp__text_position(text, at_key ? key_pos : c.pos, line, col);
  return true;
}
