/* record.c: records and their envelope (streamtp_report.h): the JSON line
 * with "version" and "limits", the text report, the record of a failed
 * input. */
#include "report/record.h"

#include "base/core.h"

#include <stdlib.h>
#include <string.h>

void stp_free(void *p) { free(p); }

void stp_record_free(stp_record *r) {
  if (!r)
    return;
  json_decref(r->obj);
  json_decref(r->own_limits);
  json_decref(r->text_only);
  free(r);
}

const char *stp_record_kind(const stp_record *r) { return r ? r->kind->name : NULL; }

stp_status stp_record_status(const stp_record *r) {
  const char *s = r ? stp__jgets(r->obj, "status") : NULL;
  for (int k = 0; s && k < STP_STATUS_COUNT_; k++)
    if (strcmp(s, stp_status_name((stp_status)k)) == 0)
      return (stp_status)k;
  return STP_OK;
}

stp_status stp__record_new(const char *kind, json_t *obj, stp_record **out, stp_error *err) {
  *out = NULL;
  const stp__record_kind *k = stp__kind_find(kind);
  stp_record *r = k && obj ? calloc(1, sizeof *r) : NULL;
  if (!r) {
    json_decref(obj);
    return k ? stp__oom(err, "a record")
             : stp__fail(err, STP_EINTERNAL, "no record kind \"%s\"", kind);
  }
  r->kind = k;
  r->obj = obj;
  *out = r;
  return STP_OK;
}

stp_status stp__record_limited(const char *kind, json_t *obj, json_t *limits, stp_record **out,
                               stp_error *err) {
  stp_status s = stp__record_new(kind, obj, out, err);
  if (s == STP_OK)
    (*out)->own_limits = limits;
  else
    json_decref(limits);
  return s;
}

void stp__record_status(json_t *o, stp_status status, const char *message) {
  stp__jset(o, "status", json_string(stp_status_name(status)));
  stp__jset(o, "error", message ? stp__jstr(message) : json_null());
}

stp_run_limits stp_run_limits_of(const stp_options *o) {
  stp_options d;
  if (!o) {
    stp_options_init(&d);
    o = &d;
  }
  return (stp_run_limits){.max_transitions = o->max_transitions,
                          .max_states = o->max_states,
                          .max_memory = stp_options_memory_budget(o)};
}

static json_t *limits_json(const stp_run_limits *l, const json_t *own) {
  json_t *o = json_object();
  if (l && l->max_transitions)
    stp__jset(o, "max_transitions", stp__ju64(l->max_transitions));
  if (l && l->max_states)
    stp__jset(o, "max_states", stp__ju64(l->max_states));
  if (l && l->max_memory)
    stp__jset(o, "max_memory", stp__ju64(l->max_memory));
  if (l && l->has_seed)
    stp__jset(o, "seed", stp__ju64(l->seed));
  if (own && o)
    json_object_update(o, (json_t *)own);
  return o;
}

json_t *stp__record_enveloped(const stp_record *r, const stp_run_limits *limits) {
  json_t *o = json_copy(r->obj); /* shallow: the members are shared, not copied */
  if (!o)
    return NULL;
  if (!json_object_get(o, "version"))
    stp__jset(o, "version", json_string(STP_VERSION));
  if (!json_object_get(o, "limits") && (limits || r->own_limits))
    stp__jset(o, "limits", limits_json(limits, r->own_limits));
  return o;
}

stp_status stp__render(void (*put)(FILE *, const void *), const void *arg, char **text,
                       size_t *len, stp_error *err) {
  char *buf = NULL;
  size_t n = 0;
  *text = NULL;
  FILE *mem = open_memstream(&buf, &n);
  if (!mem)
    return stp__oom(err, "a record's text");
  put(mem, arg);
  int bad = ferror(mem);
  if (fclose(mem) != 0 || bad) {
    free(buf);
    return stp__oom(err, "a record's text");
  }
  *text = buf;
  if (len)
    *len = n;
  return STP_OK;
}

static void put_json(FILE *f, const void *arg) { stp__jwrite(f, arg); }

stp_status stp_record_json(const stp_record *r, const stp_run_limits *limits, char **text,
                           size_t *len, stp_error *err) {
  *text = NULL;
  json_t *o = stp__record_enveloped(r, limits);
  if (!o)
    return stp__oom(err, "a record");
  stp_status s = stp__render(put_json, o, text, len, err);
  json_decref(o);
  return s;
}

typedef struct text_args {
  const stp_record *r;
  size_t index;
} text_args;

static void put_text(FILE *f, const void *arg) {
  const text_args *t = arg;
  if (!t->r->kind->text || stp_record_status(t->r) != STP_OK)
    return;
  if (!t->r->text_only) {
    t->r->kind->text(f, t->r->obj, t->index);
    return;
  }
  json_t *whole = json_copy(t->r->obj); /* shallow: the record and what only the text shows */
  if (whole && json_object_update(whole, t->r->text_only) == 0)
    t->r->kind->text(f, whole, t->index);
  else
    fputs("(no memory left for the report)\n", f);
  json_decref(whole);
}

stp_status stp__record_text_at(const stp_record *r, size_t index, char **text, size_t *len,
                               stp_error *err) {
  return stp__render(put_text, &(text_args){r, index}, text, len, err);
}

stp_status stp_record_text(const stp_record *r, char **text, size_t *len, stp_error *err) {
  return stp__record_text_at(r, 0, text, len, err);
}

stp_status stp_error_json(const char *kind, const char *file, const stp_mapping *mapping,
                          const char *model, const stp_error *failure, stp_record **out,
                          stp_error *err) {
  json_t *o = stp__record_head(file, mapping, model);
  if (o)
    stp__record_status(o, failure->status, failure->message);
  return stp__record_new(kind, o, out, err);
}

stp_status stp_record_parse(const char *kind, const char *text, size_t len, stp_record **out,
                            stp_error *err) {
  *out = NULL;
  json_error_t je;
  json_t *o = json_loadb(text, len, 0, &je);
  if (!json_is_object(o)) {
    json_decref(o);
    return stp__fail(err, STP_EINVAL, "a record that is not a JSON object: %s", je.text);
  }
  return stp__record_new(kind, o, out, err);
}
