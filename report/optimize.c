/* optimize.c: the record of the optimiser's answer (streamtp optimize) and
 * its text report: the answer, how it was found and how far from the bound,
 * then the evaluation of the answer as eval reports it. */
#include "report/record.h"

#include "base/numfmt.h"
#include "models/pipeline/mapping.h"
#include "streamtp_optimize.h"

#include <math.h>
#include <string.h>

static json_t *teams_json(const stp_mapping *m) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < stp_mapping_stage_count(m); i++) {
    json_t *t = json_array();
    for (size_t k = 0; t && k < stp_mapping_team_size(m, i); k++)
      json_array_append_new(
          t, stp__jstr(stp_mapping_processor_name(m, stp_mapping_team_member(m, i, k))));
    json_array_append_new(a, t);
  }
  return a;
}

/* {"usable", "pairs"}: the ordered pairs of distinct processors that a
 * link with a bandwidth (its own, or the default) joins, out of all of
 * them.  Fewer usable pairs exclude the mappings that would use the
 * others, and a proof of optimality covers only what remains. */
static json_t *links_json(const stp_mapping *m) {
  uint64_t pairs = (uint64_t)m->nprocs * (m->nprocs ? m->nprocs - 1 : 0);
  uint64_t own = 0, forbidden = 0; /* links of their own: with a bandwidth, and without */
  for (size_t k = 0; k < m->nlinks; k++)
    if (m->links[k].from != m->links[k].to)
      *(m->links[k].bandwidth > 0 ? &own : &forbidden) += 1;
  uint64_t usable = m->bandwidth > 0 ? pairs - forbidden : own;
  json_t *o = json_object();
  stp__jset(o, "usable", stp__ju64(usable));
  stp__jset(o, "pairs", stp__ju64(pairs));
  return o;
}

stp_status stp_optimize_result_json(const stp_optimize_result *res, stp_record **out,
                                    stp_error *err) {
  json_t *ev = stp__result_object(res->mapping, res->eval, true), *o = json_object();
  if (ev && o) {
    const char *head[] = {"file", "name", "model", NULL};
    for (const char **k = head; *k; k++)
      json_object_set(o, *k, json_object_get(ev, *k));
    stp__jset(o, "mapping", teams_json(res->mapping));
    json_t *stages = json_array();
    for (size_t i = 0; stages && i < stp_mapping_stage_count(res->mapping); i++)
      json_array_append_new(stages, stp__jstr(stp_mapping_stage_name(res->mapping, i)));
    stp__jset(o, "stages", stages);
    stp__jset(o, "objective", json_string(stp_objective_name(res->objective)));
    if (res->objective == STP_OBJECTIVE_LAW)
      stp__jset(o, "law", stp__jstr(res->eval->exact_law.law));
    stp__jset(o, "value", stp__jnum(res->value));
    stp__jset(o, "optimal", json_boolean(res->optimal));
    stp__jset(o, "upper_bound", stp__jnum(res->upper_bound));
    stp__jset(o, "gap", stp__jnum(res->gap));
    stp__jset(o, "evaluated", stp__ju64(res->evaluated));
    stp__jset(o, "nodes", stp__ju64(res->nodes));
    stp__jset(o, "skipped", stp__ju64(res->skipped));
    stp__jset(o, "method", stp__jstr(res->method));
    stp__jset(o, "seconds", stp__jnum(res->seconds));
    stp__jset(o, "start", stp__jnum(res->start));
    stp__jset(o, "constructive", stp__jnum(res->constructive));
    stp__jset(o, "interrupted", json_boolean(res->interrupted));
    stp__jset(o, "timed_out", json_boolean(res->timed_out));
    stp__jset(o, "note", stp__jstr(res->note));
    stp__jset(o, "links", links_json(res->mapping));
    if (res->max_latency > 0) { /* the constraint, and the answer's latency (eval --latency's) */
      stp__jset(o, "max_latency", stp__jnum(res->max_latency));
      stp__jset(o, "latency",
                json_pack("{s:{s:o,s:o}}", "deterministic", "max", stp__jnum(res->latency),
                          "mean", stp__jnum(res->latency_mean)));
    }
    const char *tail[] = {"replication", "paths", "deterministic", "exponential", "bounds",
                          "exact_law", "components", NULL};
    for (const char **k = tail; *k; k++)
      if (json_object_get(ev, *k))
        json_object_set(o, *k, json_object_get(ev, *k));
    stp__record_status(o, STP_OK, NULL);
  } else {
    json_decref(o);
    o = NULL;
  }
  json_decref(ev);
  return stp__record_new("optimize", o, out, err);
}

/* ---- the text report -------------------------------------------------------------- */
static void teams_text(FILE *f, const json_t *rec) {
  const json_t *teams = stp__jget(rec, "mapping"), *names = stp__jget(rec, "stages");
  for (size_t i = 0; i < json_array_size(teams); i++) {
    const char *stage = json_string_value(json_array_get(names, i));
    fprintf(f, "%s%s:", i ? " | " : "", stage ? stage : "?");
    const json_t *t = json_array_get(teams, i);
    for (size_t k = 0; k < json_array_size(t); k++)
      fprintf(f, " %s", json_string_value(json_array_get(t, k)));
  }
  fputc('\n', f);
}

/* "+12.3 %" of value over a reference. */
static void gain_text(FILE *f, double ref, double value) {
  stp__fprintf(f, "%.8g", ref);
  if (ref > 0)
    stp__fprintf(f, " (the answer is %+.3g %%)", 100 * (value / ref - 1));
  fputc('\n', f);
}

void stp__text_optimize(FILE *f, const json_t *rec, size_t index) {
  const char *objective = stp__jgets(rec, "objective");
  bool exp = strcmp(objective, "exp") == 0, law = strcmp(objective, "law") == 0;
  double value = stp__jgetd(rec, "value"), seconds = stp__jgetd(rec, "seconds");
  uint64_t evaluated = stp__jgetu(rec, "evaluated");
  if (index)
    fputc('\n', f);
  fprintf(f, "%s: %s, %s model, objective %s%s%s (%s)\n", stp__jgets(rec, "file"),
          stp__jgets(rec, "name"), stp__jgets(rec, "model"), objective, law ? ":" : "",
          law ? stp__jgets(rec, "law") : "",
          law   ? "exact throughput under this phase-type law"
          : exp ? "exponential throughput, guaranteed for every N.B.U.E. law"
                : "deterministic throughput");
  fputs("  mapping         ", f);
  teams_text(f, rec);
  stp__fprintf(f, "  value           %.10g (period %.8g)\n", value, 1 / value);
  fprintf(f, "  method          %s, %s\n", stp__jgets(rec, "method"),
          json_is_true(stp__jget(rec, "optimal"))       ? "proved optimal"
          : json_is_true(stp__jget(rec, "interrupted")) ? "interrupted: the best so far"
          : json_is_true(stp__jget(rec, "timed_out"))   ? "stopped by its limit: the best so far"
                                                        : "not proved optimal");
  stp__fprintf(f, "  upper bound     %.10g, gap %.3g %%\n", stp__jgetd(rec, "upper_bound"),
               100 * stp__jgetd(rec, "gap"));
  fprintf(f, "  evaluated       %llu candidates", (unsigned long long)evaluated);
  if (stp__jgetu(rec, "nodes"))
    fprintf(f, ", %llu search nodes", (unsigned long long)stp__jgetu(rec, "nodes"));
  stp__fprintf(f, " in %.3g s", seconds);
  if (seconds > 0)
    stp__fprintf(f, " (%.0f/s)", (double)evaluated / seconds);
  fputc('\n', f);
  if (stp__jget(rec, "max_latency"))
    stp__fprintf(f, "  latency         %.10g (mean %.8g), limit %.10g\n",
                 stp__jgetd(rec, "latency.deterministic.max"),
                 stp__jgetd(rec, "latency.deterministic.mean"), stp__jgetd(rec, "max_latency"));
  if (isfinite(stp__jgetd(rec, "start"))) {
    fputs("  start           ", f);
    gain_text(f, stp__jgetd(rec, "start"), value);
  }
  if (isfinite(stp__jgetd(rec, "constructive"))) {
    fputs("  constructive    ", f);
    gain_text(f, stp__jgetd(rec, "constructive"), value);
  }
  if (stp__jgetu(rec, "skipped"))
    fprintf(f, "  beyond limits   %llu candidates not compared\n",
            (unsigned long long)stp__jgetu(rec, "skipped"));
  if (stp__jgets(rec, "note"))
    fprintf(f, "  note            %s\n", stp__jgets(rec, "note"));
  const json_t *links = stp__jget(rec, "links");
  uint64_t usable = stp__jgetu(links, "usable"), pairs = stp__jgetu(links, "pairs");
  if (usable < pairs)
    fprintf(f, "  links           %llu of %llu processor pairs have a link: %s\n",
            (unsigned long long)usable, (unsigned long long)pairs,
            json_is_true(stp__jget(rec, "optimal"))
                ? "proved optimal among the mappings that use only those"
                : "the mappings that use another are excluded");
  fputc('\n', f);
  stp__text_eval(f, rec, 0);
}
