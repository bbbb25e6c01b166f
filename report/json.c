/* json.c: record values and their writers (json.h).  Jansson holds a
 * record while it is built; the writers here, not Jansson's, put it out,
 * because Jansson prints 17 digits (0.20000000000000001) and has no
 * unsigned integers. */
#include "report/json.h"

#include "base/numfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An integer above INT64_MAX is kept as a string whose first byte is NUL,
 * which no input can hold (every reader refuses NUL bytes): the writers
 * print the digits after it as a number. */
#define U64_MARK '\0'

json_t *stp__jnum(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *stp__ju64(uint64_t x) {
  if (x <= (uint64_t)INT64_MAX)
    return json_integer((json_int_t)x);
  char digits[24];
  int n = snprintf(digits + 1, sizeof digits - 1, "%" PRIu64, x);
  digits[0] = U64_MARK;
  return json_stringn(digits, (size_t)n + 1);
}

/* The digits of a big unsigned integer, or NULL when v is no such value. */
static const char *big_u64(const json_t *v) {
  if (!json_is_string(v) || json_string_length(v) < 2 || json_string_value(v)[0] != U64_MARK)
    return NULL;
  return json_string_value(v) + 1;
}

bool stp__jas_u64(const json_t *v, uint64_t *out) {
  const char *big = big_u64(v);
  if (big) {
    *out = strtoull(big, NULL, 10);
    return true;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0)
    return false;
  *out = (uint64_t)json_integer_value(v);
  return true;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none:
 * shortest forms only, no surrogates, nothing above U+10FFFF. */
static size_t utf8_sequence(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || len > n)
    return 0;
  unsigned cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len; k++) {
    if ((p[k] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (p[k] & 0x3F);
  }
  static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

json_t *stp__jstr(const char *s) {
  if (!s)
    return json_null();
  json_t *v = json_string(s);
  if (v)
    return v;
  /* not UTF-8: each byte outside a valid sequence is kept as the four
   * characters \xNN, as Python's backslashreplace writes it */
  size_t n = strlen(s), at = 0;
  char *out = malloc(4 * n + 1);
  if (!out)
    return NULL;
  for (size_t i = 0; i < n;) {
    size_t len = utf8_sequence((const unsigned char *)s + i, n - i);
    if (len == 0) {
      at += (size_t)snprintf(out + at, 5, "\\x%02x", (unsigned char)s[i]);
      i++;
      continue;
    }
    memcpy(out + at, s + i, len);
    at += len;
    i += len;
  }
  out[at] = '\0';
  v = json_string(out);
  free(out);
  return v;
}

json_t *stp__jstrs(char *const *s, size_t n) {
  json_t *a = json_array();
  for (size_t k = 0; a && k < n; k++)
    json_array_append_new(a, stp__jstr(s[k]));
  return a;
}

void stp__jset(json_t *o, const char *key, json_t *v) {
  if (o && v)
    json_object_set_new(o, key, v);
}

/* An array's item by a segment of digits ("sensitivity.0.of"), or NULL. */
static json_t *array_item(const json_t *a, const char *key) {
  if (!key[0] || key[strspn(key, "0123456789")] || strlen(key) > 9)
    return NULL;
  return json_array_get(a, (size_t)strtoul(key, NULL, 10));
}

json_t *stp__jget(const json_t *o, const char *path) {
  char key[128];
  while (o && (json_is_object(o) || json_is_array(o))) {
    size_t n = strcspn(path, ".");
    if (n >= sizeof key)
      return NULL;
    memcpy(key, path, n);
    key[n] = '\0';
    o = json_is_array(o) ? array_item(o, key) : json_object_get(o, key);
    if (!path[n])
      return (json_t *)o;
    path += n + 1;
  }
  return NULL;
}

double stp__jgetd(const json_t *o, const char *path) {
  const json_t *v = stp__jget(o, path);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *stp__jgets(const json_t *o, const char *path) {
  const json_t *v = stp__jget(o, path);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

uint64_t stp__jgetu(const json_t *o, const char *path) {
  uint64_t x = 0;
  return stp__jas_u64(stp__jget(o, path), &x) ? x : 0;
}

/* s[0..n) as a JSON string: directly when nothing in it needs escaping (no
 * quote, backslash or control character: Jansson writes other bytes, valid
 * UTF-8, as they are), else through Jansson's encoder. */
static void write_text(FILE *f, const char *s, size_t n) {
  size_t k = 0;
  while (k < n && (unsigned char)s[k] >= 0x20 && s[k] != '"' && s[k] != '\\')
    k++;
  if (k == n) {
    fputc('"', f);
    fwrite(s, 1, n, f);
    fputc('"', f);
    return;
  }
  json_t *v = json_stringn(s, n);
  json_dumpf(v, f, JSON_ENCODE_ANY);
  json_decref(v);
}

static void write_string(FILE *f, const json_t *v) {
  const char *big = big_u64(v);
  if (big) {
    fputs(big, f);
    return;
  }
  write_text(f, json_string_value(v), json_string_length(v));
}

static void write_real(FILE *f, double x) {
  if (!isfinite(x)) { /* JSON has no inf or nan */
    fputs("null", f);
    return;
  }
  char num[40];
  stp_format_double(x, num, sizeof num);
  fputs(num, f);
  if (!num[strcspn(num, ".eE")])
    fputs(".0", f);
}

void stp__jwrite(FILE *f, const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    const char *key;
    json_t *val;
    bool first = true;
    fputc('{', f);
    json_object_foreach((json_t *)v, key, val) {
      if (!first)
        fputc(',', f);
      first = false;
      write_text(f, key, strlen(key));
      fputc(':', f);
      stp__jwrite(f, val);
    }
    fputc('}', f);
    break;
  }
  case JSON_ARRAY:
    fputc('[', f);
    for (size_t k = 0; k < json_array_size(v); k++) {
      if (k)
        fputc(',', f);
      stp__jwrite(f, json_array_get(v, k));
    }
    fputc(']', f);
    break;
  case JSON_REAL: write_real(f, json_real_value(v)); break;
  case JSON_STRING: write_string(f, v); break;
  case JSON_INTEGER: fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
  case JSON_TRUE: fputs("true", f); break;
  case JSON_FALSE: fputs("false", f); break;
  default: fputs("null", f);
  }
}

void stp__jcsv_string(FILE *f, const char *s) {
  if (!s[strcspn(s, ",\"\r\n")] && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void stp__jcsv(FILE *f, const json_t *v) {
  if (!v) /* a column this record lacks: an empty field */
    return;
  switch (json_typeof(v)) {
  case JSON_STRING: {
    const char *big = big_u64(v);
    if (big)
      fputs(big, f);
    else
      stp__jcsv_string(f, json_string_value(v));
    break;
  }
  case JSON_INTEGER: fprintf(f, "%lld", (long long)json_integer_value(v)); break;
  case JSON_REAL: {
    char num[40];
    stp_format_double(json_real_value(v), num, sizeof num);
    fputs(num, f);
    break;
  }
  case JSON_TRUE: fputs("true", f); break;
  case JSON_FALSE: fputs("false", f); break;
  case JSON_ARRAY:
    for (size_t k = 0; k < json_array_size(v); k++) {
      if (k)
        fputc(' ', f);
      stp__jcsv(f, json_array_get(v, k));
    }
    break;
  default: break; /* null and objects: an empty field */
  }
}

char *stp__jcell(const json_t *v) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem)
    return NULL;
  if (v && json_is_string(v) && !big_u64(v)) {
    fputs(json_string_value(v), mem);
  } else if (v && json_is_real(v)) {
    stp__fprintf(mem, "%.8g", json_real_value(v));
  } else if (v && json_is_array(v)) { /* an interval: [lo, hi] */
    for (size_t k = 0; k < json_array_size(v); k++) {
      char *t = stp__jcell(json_array_get(v, k));
      fprintf(mem, "%s%s", k ? ", " : "[", t ? t : "");
      free(t);
    }
    fputc(']', mem);
  } else if (v) {
    stp__jcsv(mem, v);
  }
  if (fclose(mem) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}
