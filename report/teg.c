/* teg.c: the record of a mapping's full timed event graph (streamtp teg):
 * how big the graph is (rows, columns, transitions, places, tokens) and
 * its text report, read back from the record. */
#include "report/record.h"

#include "base/core.h"

stp_status stp_teg_json(const stp_mapping *m, const stp_teg_summary *t, stp_record **out,
                        stp_error *err) {
  *out = NULL;
  if (!m || !t)
    return stp__fail(err, STP_EINVAL, "stp_teg_json: mapping or summary is NULL");
  json_t *o = stp__record_head(stp_mapping_file(m), m, stp_model_name(t->model));
  stp__jset(o, "rows", stp__ju64(t->rows));
  stp__jset(o, "columns", stp__ju64(t->columns));
  stp__jset(o, "transitions", stp__ju64(t->transitions));
  stp__jset(o, "places", stp__ju64(t->places));
  stp__jset(o, "tokens", stp__ju64(t->tokens));
  stp__jset(o, "seconds", stp__jnum(t->seconds));
  stp__record_status(o, STP_OK, NULL); /* every record has them, a failure's too */
  return stp__record_new("teg", o, out, err);
}

void stp__text_teg(FILE *f, const json_t *rec, size_t index) {
  (void)index;
  fprintf(f, "%s: %s, %s event graph\n", stp__jgets(rec, "file"), stp__jgets(rec, "name"),
          stp__jgets(rec, "model"));
  fprintf(f, "  rows (paths)  %llu\n  columns       %llu\n  transitions   %llu\n"
             "  places        %llu\n  tokens        %llu\n",
          (unsigned long long)stp__jgetu(rec, "rows"),
          (unsigned long long)stp__jgetu(rec, "columns"),
          (unsigned long long)stp__jgetu(rec, "transitions"),
          (unsigned long long)stp__jgetu(rec, "places"),
          (unsigned long long)stp__jgetu(rec, "tokens"));
}

/* --format csv and table: the size of each graph. */
const char *const stp__teg_csv[] = {"file",   "name",        "model",  "paths",   "rows",
                                    "columns", "transitions", "places", "tokens",  "seconds",
                                    "status",  "error",       NULL};
const char *const stp__teg_table[] = {"file",        "model",  "paths", "columns",
                                      "transitions", "places", "tokens", NULL};
