/* generate.c: the record of a generated experiment written to a directory
 * (streamtp generate): the directory, the files, how many were written and
 * how many a rerun found already there; its text report. */
#include "report/record.h"

#include "streamtp_generate.h"

#include <string.h>

stp_status stp_generate_files_json(const stp_generate_files_result *r, stp_record **out,
                                   stp_error *err) {
  json_t *o = json_object(), *files = json_array();
  for (uint64_t k = 0; files && k < r->count; k++)
    json_array_append_new(files, stp__jstr(r->paths[k]));
  stp__jset(o, "directory", stp__jstr(r->directory));
  stp__jset(o, "prefix", stp__jstr(r->prefix));
  stp__jset(o, "count", stp__ju64(r->count));
  stp__jset(o, "written", stp__ju64(r->written));
  stp__jset(o, "unchanged", stp__ju64(r->unchanged));
  stp__jset(o, "files", files);
  stp__record_status(o, STP_OK, NULL);
  return stp__record_new("generate", o, out, err);
}

static const char *base_name(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  return slash ? slash + 1 : path ? path : "?";
}

void stp__text_generate(FILE *f, const json_t *rec, size_t index) {
  (void)index;
  const json_t *files = stp__jget(rec, "files");
  size_t n = json_array_size(files);
  uint64_t written = stp__jgetu(rec, "written"), unchanged = stp__jgetu(rec, "unchanged");
  fprintf(f, "%s: %zu mapping file%s", stp__jgets(rec, "directory"), n, n == 1 ? "" : "s");
  if (n)
    fprintf(f, ", %s%s%s", base_name(json_string_value(json_array_get(files, 0))),
            n > 1 ? " .. " : "", n > 1 ? base_name(json_string_value(json_array_get(files, n - 1)))
                                       : "");
  fprintf(f, " (%llu written", (unsigned long long)written);
  if (unchanged)
    fprintf(f, ", %llu already there as this run writes them", (unsigned long long)unchanged);
  fputs(")\n", f);
}
