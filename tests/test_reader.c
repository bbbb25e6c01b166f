/* test_reader.c: the mapping reader: values of a good file, and every
 * documented error provoked once, with its position and message. */
#include "models/pipeline/reader.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define GOOD_STAGES "\"stages\":[{\"name\":\"T1\",\"work\":10,\"output\":4},{\"name\":\"T2\",\"work\":6}]"
#define GOOD_PROCS "\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"B\",\"speed\":3}]"
#define GOOD_TEAMS "\"mapping\":[[\"A\"],[\"B\"]]"

Test(reader, good_file_values) {
  stp_mapping *m = load_json("{\"name\":\"demo\",\"model\":\"strict\"," GOOD_STAGES ","
                             GOOD_PROCS ",\"bandwidth\":8,\"links\":[{\"from\":\"A\",\"to\":"
                             "\"B\",\"bandwidth\":2}]," GOOD_TEAMS "}");
  cr_assert_str_eq(stp_mapping_name(m), "demo");
  cr_assert_eq(stp_mapping_model(m), STP_MODEL_STRICT);
  cr_assert_eq(stp_mapping_stage_count(m), 2);
  cr_assert_eq(stp_mapping_processor_count(m), 2);
  assert_close(stp__comp_time(m, 0), 5.0, TOL_EXACT);
  assert_close(stp__comp_time(m, 1), 2.0, TOL_EXACT);
  assert_close(stp__comm_time(m, 0, 1), 2.0, TOL_EXACT); /* link overrides default */
  assert_close(stp__link_bandwidth(m, 1, 0), 8.0, TOL_EXACT); /* default for others */
  stp_mapping_free(m);
}

Test(reader, defaults_name_model_and_stage_names) {
  stp_mapping *m = load_json("{\"stages\":[{\"work\":1,\"output\":1},{\"work\":1,\"output\":0}],"
                             GOOD_PROCS ",\"bandwidth\":1," GOOD_TEAMS "}");
  cr_assert_str_eq(stp_mapping_name(m), "test"); /* stem of the label test.json */
  cr_assert_eq(stp_mapping_model(m), STP_MODEL_OVERLAP);
  cr_assert_str_eq(stp_mapping_stage_name(m, 1), "T2");
  stp_mapping_free(m);
}

typedef struct bad_case {
  const char *json;
  const char *want; /* expected substring of the message, position included */
} bad_case;

static const bad_case bad_cases[] = {
    /* malformed JSON (Jansson's position) */
    {"{\n  \"stages\": [,]\n}", "test.json:2:14: malformed JSON"},
    {"", "test.json:1:1: malformed JSON"},
    /* duplicate key */
    {"{\"name\":\"a\",\"name\":\"b\"}", "malformed JSON: duplicate object key"},
    /* top level */
    {"[1, 2]", "test.json:1:1: the top level must be an object, not an array"},
    /* unknown keys, with a hint */
    {"{" GOOD_STAGES "," GOOD_PROCS ",\n \"bandwith\": 3," GOOD_TEAMS "}",
     "test.json:2:2: unknown key \"bandwith\" in the top-level object (did you mean \"bandwidth\"?)"},
    {"{\"stages\":[{\"work\":1,\"wrok\":2}]," GOOD_PROCS "," GOOD_TEAMS "}",
     "unknown key \"wrok\" in a stage (did you mean \"work\"?)"},
    {"{" GOOD_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":2,\"cores\":4}]," GOOD_TEAMS "}",
     "unknown key \"cores\" in a processor"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"links\":[{\"from\":\"A\",\"to\":\"B\",\"bw\":1}]," GOOD_TEAMS
     "}", "unknown key \"bw\" in a link"},
    /* missing required keys */
    {"{" GOOD_PROCS "," GOOD_TEAMS "}", "test.json:1:1: missing required key \"stages\""},
    {"{" GOOD_STAGES "," GOOD_TEAMS "}", "missing required key \"processors\""},
    {"{" GOOD_STAGES "," GOOD_PROCS "}", "missing required key \"mapping\""},
    {"{\"stages\":[{\"output\":1}]," GOOD_PROCS "," GOOD_TEAMS "}",
     "missing required key \"work\" in a stage"},
    {"{\"stages\":[{\"work\":1},{\"work\":1}]," GOOD_PROCS "," GOOD_TEAMS "}",
     "missing required key \"output\" in stage 1 (only the last stage may omit it)"},
    {"{" GOOD_STAGES ",\"processors\":[{\"speed\":1}]," GOOD_TEAMS "}",
     "missing required key \"name\" in a processor"},
    /* wrong types */
    {"{\"stages\":{}," GOOD_PROCS "," GOOD_TEAMS "}", "\"stages\" (stages) must be an array, not an object"},
    {"{\"stages\":[{\"work\":\"10\",\"output\":1}]," GOOD_PROCS "," GOOD_TEAMS "}",
     "test.json:1:20: work (stages[0].work) must be a number, not a string"},
    {"{" GOOD_STAGES ",\"processors\":[{\"name\":7,\"speed\":1}]," GOOD_TEAMS "}",
     "a processor name (processors[0].name) must be a string, not a number"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"mapping\":[\"A\",[\"B\"]]}",
     "a team (mapping[0]) must be an array, not a string"},
    {"{\"model\":\"fast\"," GOOD_STAGES "," GOOD_PROCS "," GOOD_TEAMS "}",
     "\"model\" must be \"overlap\" or \"strict\", not \"fast\""},
    /* non-positive and non-finite numbers */
    {"{\"stages\":[{\"work\":0,\"output\":1},{\"work\":1}]," GOOD_PROCS "," GOOD_TEAMS "}",
     "work (stages[0].work) must be > 0, got 0"},
    {"{" GOOD_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":-2},{\"name\":\"B\",\"speed\":1}],"
     GOOD_TEAMS "}", "speed (processors[0].speed) must be > 0, got -2"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"bandwidth\":1e999," GOOD_TEAMS "}",
     "malformed JSON: real number overflow"},
    {"{\"stages\":[{\"work\":1e300,\"output\":1},{\"work\":1}],\"processors\":[{\"name\":\"A\","
     "\"speed\":1e-300},{\"name\":\"B\",\"speed\":1}],\"bandwidth\":1," GOOD_TEAMS "}",
     "the computation time of stage \"T1\" on \"A\" (work / speed = inf) is not a finite positive number"},
    /* names */
    {"{" GOOD_STAGES ",\"processors\":[{\"name\":\"A\",\"speed\":1},{\"name\":\"A\",\"speed\":2}],"
     GOOD_TEAMS "}", "processor name \"A\" is declared twice (processors[0] and processors[1])"},
    {"{" GOOD_STAGES ",\"processors\":[{\"name\":\"\",\"speed\":1}]," GOOD_TEAMS "}",
     "a processor name must not be empty"},
    {"{\"stages\":[{\"name\":\"X\",\"work\":1,\"output\":1},{\"name\":\"X\",\"work\":1}]," GOOD_PROCS
     "," GOOD_TEAMS "}", "stage name \"X\" is used twice"},
    /* teams */
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"bandwidth\":1,\n  \"mapping\": [[\"A\"], [\"B\", \"P9\"]]}",
     "test.json:2:28: processor \"P9\" in mapping[1][1] is not declared"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"mapping\":[[\"A\"],[]]}",
     "the team of stage 2 (mapping[1]) is empty"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"mapping\":[[\"A\"]]}",
     "\"mapping\" has 1 team but the pipeline has 2 stages"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"bandwidth\":1,\"mapping\":[[\"A\"],[\"B\",\"A\"]]}",
     "processor \"A\" is in two teams (mapping[0] and mapping[1])"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"bandwidth\":1,\"mapping\":[[\"A\",\"A\"],[\"B\"]]}",
     "processor \"A\" appears twice in mapping[0]"},
    {"{" GOOD_STAGES ",\"processors\":[]," GOOD_TEAMS "}", "\"processors\" must not be empty"},
    /* links */
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"links\":[{\"from\":\"A\",\"to\":\"C\",\"bandwidth\":1}],"
     GOOD_TEAMS "}", "processor \"C\" in links[0].to is not declared"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"links\":[{\"from\":\"A\",\"to\":\"A\",\"bandwidth\":1}],"
     GOOD_TEAMS "}", "link from \"A\" to itself"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"links\":[{\"from\":\"A\",\"to\":\"B\",\"bandwidth\":1},"
     "{\"from\":\"A\",\"to\":\"B\",\"bandwidth\":2}]," GOOD_TEAMS "}",
     "the link \"A\" -> \"B\" is declared twice (links[0] and links[1])"},
    {"{" GOOD_STAGES "," GOOD_PROCS ",\"links\":[{\"from\":\"B\",\"to\":\"A\",\"bandwidth\":1}],"
     GOOD_TEAMS "}",
     "no bandwidth for the link \"A\" -> \"B\", which carries the output of stage \"T1\""},
};

Test(reader, every_documented_error) {
  for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
    const bad_case *c = &bad_cases[k];
    stp_mapping *m = NULL;
    stp_error err = {0};
    stp_status s = stp_mapping_load_string(c->json, strlen(c->json), "test.json", &m, &err);
    cr_expect_eq(s, STP_EINVAL, "case %zu: status %s, message: %s", k, stp_status_name(s),
                 err.message);
    cr_expect_null(m, "case %zu: a mapping was returned", k);
    cr_expect(strstr(err.message, c->want), "case %zu: message\n  %s\nshould contain\n  %s", k,
              err.message, c->want);
    stp_mapping_free(m);
  }
}

Test(reader, deep_nesting_is_refused_without_crashing) {
  size_t depth = 100000;
  char *s = malloc(2 * depth + 1);
  memset(s, '[', depth);
  memset(s + depth, ']', depth);
  s[2 * depth] = '\0';
  stp_status st;
  const char *msg = load_json_error(s, &st);
  cr_assert_eq(st, STP_EINVAL);
  cr_assert(strstr(msg, "malformed JSON: maximum parsing depth reached"), "%s", msg);
  free(s);
}

Test(reader, oversized_input_is_refused_before_parsing) {
  size_t n = (size_t)STP_MAX_FILE_BYTES + 1;
  char *s = malloc(n + 1);
  memset(s, ' ', n);
  s[n] = '\0';
  stp_mapping *m;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_string(s, n, "big.json", &m, &err), STP_EINVAL);
  cr_assert(strstr(err.message, "the limit is 64 MiB"), "%s", err.message);
  free(s);
}

Test(reader, files_missing_directories_and_devices) {
  stp_mapping *m;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file("/nonexistent/x.json", &m, &err), STP_EIO);
  cr_assert(strstr(err.message, "/nonexistent/x.json: cannot open: No such file"), "%s",
            err.message);
  cr_assert_null(m);
  cr_assert_eq(stp_mapping_load_file("/tmp", &m, &err), STP_EIO);
  cr_assert(strstr(err.message, "is a directory"), "%s", err.message);
  cr_assert_eq(stp_mapping_load_file("/dev/zero", &m, &err), STP_EIO);
  cr_assert(strstr(err.message, "not a regular file"), "%s", err.message);
}

Test(reader, file_label_and_stem) {
  char path[] = "/tmp/stp-reader-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  const char *text = "{" GOOD_STAGES "," GOOD_PROCS ",\"bandwidth\":1," GOOD_TEAMS "}";
  cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  stp_mapping *m;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_file(path, &m, &err), STP_OK, "%s", err.message);
  cr_assert_str_eq(stp_mapping_file(m), path);
  cr_assert_str_eq(stp_mapping_name(m), strrchr(path, '/') + 1);
  stp_mapping_free(m);
  unlink(path);
}

Test(reader, null_arguments) {
  stp_error err = {0};
  stp_mapping *m = (stp_mapping *)&err; /* must be reset to NULL */
  cr_assert_eq(stp_mapping_load_string(NULL, 0, "x", &m, &err), STP_EINVAL);
  cr_assert_null(m);
  cr_assert_eq(stp_mapping_load_file(NULL, &m, &err), STP_EINVAL);
  stp_mapping_free(NULL);
}

/* Bad input must never crash, hang or leak: seeded random corruptions of a
 * valid file (byte flips, deletions, insertions of JSON punctuation,
 * truncations) either load or fail with EINVAL and a positioned message. */
Test(reader, corrupted_files_fail_cleanly) {
  static const char base[] =
      "{\"name\":\"m\",\"model\":\"strict\",\"stages\":[{\"name\":\"T1\",\"work\":10,"
      "\"output\":4},{\"name\":\"T2\",\"work\":6,\"output\":2},{\"work\":1}],"
      "\"processors\":[{\"name\":\"A\",\"speed\":2},{\"name\":\"B\",\"speed\":3},"
      "{\"name\":\"C\",\"speed\":1},{\"name\":\"D\",\"speed\":5}],\"bandwidth\":8,"
      "\"links\":[{\"from\":\"A\",\"to\":\"B\",\"bandwidth\":2}],"
      "\"mapping\":[[\"A\"],[\"B\",\"C\"],[\"D\"]]}";
  static const char noise[] = "{}[]\",:0-e.9 \\\x01\xc3\xa9";
  trng rng = {.s = 31};
  size_t n = sizeof base - 1, loaded = 0;
  char buf[sizeof base + 16];
  for (int k = 0; k < 3000; k++) {
    memcpy(buf, base, n);
    size_t len = n;
    for (size_t edits = trng_int(&rng, 1, 3); edits > 0 && len > 0; edits--) {
      size_t at = trng_int(&rng, 0, len - 1);
      switch (trng_int(&rng, 0, 3)) {
      case 0: /* replace a byte */
        buf[at] = noise[trng_int(&rng, 0, sizeof noise - 2)];
        break;
      case 1: /* delete a byte */
        memmove(buf + at, buf + at + 1, len - at - 1);
        len--;
        break;
      case 2: /* insert a byte */
        if (len < sizeof buf - 1) {
          memmove(buf + at + 1, buf + at, len - at);
          buf[at] = noise[trng_int(&rng, 0, sizeof noise - 2)];
          len++;
        }
        break;
      default: /* truncate */
        len = at;
      }
    }
    stp_mapping *m = NULL;
    stp_error err = {0};
    stp_status s = stp_mapping_load_string(buf, len, "fuzz.json", &m, &err);
    if (s == STP_OK) {
      loaded++;
      stp_mapping_free(m);
      continue;
    }
    cr_assert_eq(s, STP_EINVAL, "case %d: status %s: %s", k, stp_status_name(s), err.message);
    cr_assert_null(m);
    cr_assert(strncmp(err.message, "fuzz.json:", 10) == 0, "case %d: %s", k, err.message);
  }
  /* some corruptions are harmless (a digit changed): both paths ran */
  cr_assert_gt(loaded, 0);
  cr_assert_lt(loaded, 3000);
}

/* Issue 13 item 12: a NUL byte right after a number used to be accepted by
 * the JSON layer, and locating a later error looped for ever.  Now any NUL
 * byte is refused, with its position, before parsing. */
Test(reader, nul_byte_is_refused_with_its_position, .timeout = 20) {
  static const char text[] = "{\"stages\":[{\"work\":1\0,\"output\":1}],\n \"x\":1}";
  stp_mapping *m = NULL;
  stp_error err = {0};
  cr_assert_eq(stp_mapping_load_string(text, sizeof text - 1, "nul.json", &m, &err), STP_EINVAL);
  cr_assert_null(m);
  cr_assert(strstr(err.message, "nul.json:1:21: a NUL byte"), "%s", err.message);
}

/* The position finder itself on a text holding a NUL where a scalar ends:
 * it must move on (skip_value matched the terminator with strchr). */
#include "base/jsonpos.h"
Test(reader, locate_moves_past_a_nul_byte, .timeout = 20) {
  static const char text[] = "{\"a\":[1\0,2],\"b\":3}";
  stp_jpath p = stp__jpath_key((stp_jpath){0}, "b");
  int line = 0, col = 0;
  stp__json_locate(text, sizeof text - 1, &p, false, &line, &col); /* found or not: it returns */
  p = stp__jpath_index(stp__jpath_key((stp_jpath){0}, "a"), 1);
  stp__json_locate(text, sizeof text - 1, &p, false, &line, &col);
  cr_assert_eq(line, 1);
}

/* 2^63 and beyond read as reals, like 1e22: the same value, the same answer. */
Test(reader, huge_integers_read_like_reals) {
  const char *a = "{\"stages\":[{\"work\":10000000000000000000000,\"output\":1},{\"work\":1}],"
                  GOOD_PROCS ",\"bandwidth\":1," GOOD_TEAMS "}";
  const char *b = "{\"stages\":[{\"work\":1e22,\"output\":1},{\"work\":1}],"
                  GOOD_PROCS ",\"bandwidth\":1," GOOD_TEAMS "}";
  stp_mapping *ma = load_json(a), *mb = load_json(b);
  assert_close(stp__comp_time(ma, 0), 5e21, TOL_EXACT);
  assert_close(stp__comp_time(ma, 0), stp__comp_time(mb, 0), 0);
  stp_mapping_free(ma);
  stp_mapping_free(mb);
}

/* Issue 13 item 13: hostile but valid inputs. */
static char *many_stages_json(size_t n, size_t dup_of_last) {
  size_t cap = n * 96 + 256, at = 0;
  char *s = malloc(cap);
  at += (size_t)snprintf(s + at, cap - at, "{\"bandwidth\":1,\"stages\":[");
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, cap - at, "%s{\"name\":\"S%zu\",\"work\":1,\"output\":1}",
                           i ? "," : "", i + 1 == n && dup_of_last ? dup_of_last : i);
  at += (size_t)snprintf(s + at, cap - at, "],\"processors\":[");
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, cap - at, "%s{\"name\":\"P%zu\",\"speed\":1}", i ? "," : "", i);
  at += (size_t)snprintf(s + at, cap - at, "],\"mapping\":[");
  for (size_t i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, cap - at, "%s[\"P%zu\"]", i ? "," : "", i);
  snprintf(s + at, cap - at, "]}");
  return s;
}

/* Names are compared after sorting: a duplicate far apart is still found,
 * and named with both positions. */
Test(reader, duplicate_stage_names_among_many) {
  char *s = many_stages_json(20000, 7);
  stp_status st;
  const char *msg = load_json_error(s, &st);
  cr_assert_eq(st, STP_EINVAL);
  cr_assert(strstr(msg, "stage name \"S7\" is used twice (stages[7] and stages[19999])"), "%s",
            msg);
  free(s);
}

/* Times whose sums could overflow are refused at reading, with the range. */
Test(reader, times_outside_the_range_are_refused) {
  stp_status st;
  const char *msg = load_json_error(
      "{\"stages\":[{\"work\":1e308,\"output\":1},{\"work\":1}]," GOOD_PROCS ",\"bandwidth\":1,"
      GOOD_TEAMS "}", &st);
  cr_assert_eq(st, STP_EINVAL);
  cr_assert(strstr(msg, "(work / speed = 5e+307) is outside [1e-150, 1e+150]"), "%s", msg);
  msg = load_json_error("{" GOOD_STAGES "," GOOD_PROCS ",\"bandwidth\":1e-160," GOOD_TEAMS "}",
                        &st);
  cr_assert(strstr(msg, "at the default bandwidth (output / bandwidth = 4e+160) is outside"),
            "%s", msg);
  msg = load_json_error("{" GOOD_STAGES "," GOOD_PROCS ",\"links\":[{\"from\":\"A\",\"to\":\"B\","
                        "\"bandwidth\":1e-150}]," GOOD_TEAMS "}", &st);
  cr_assert(strstr(msg, "the transfer time from \"A\" to \"B\" (output / bandwidth = 4e+150)"),
            "%s", msg);
}

/* A declared link that carries nothing (another component) does not stand
 * for a missing one. */
Test(reader, missing_link_found_among_declared_ones) {
  stp_status st;
  const char *msg = load_json_error(
      "{\"stages\":[{\"work\":1,\"output\":1},{\"work\":1}],\"processors\":[{\"name\":\"A\","
      "\"speed\":1},{\"name\":\"B\",\"speed\":1},{\"name\":\"C\",\"speed\":1},{\"name\":\"D\","
      "\"speed\":1}],\"links\":[{\"from\":\"A\",\"to\":\"C\",\"bandwidth\":1},{\"from\":\"A\","
      "\"to\":\"D\",\"bandwidth\":1},{\"from\":\"B\",\"to\":\"C\",\"bandwidth\":1}],"
      "\"mapping\":[[\"A\",\"B\"],[\"C\",\"D\"]]}", &st);
  /* g = 2: A talks to C, B to D; A -> D is declared but carries nothing */
  cr_assert_eq(st, STP_EINVAL);
  cr_assert(strstr(msg, "no bandwidth for the link \"B\" -> \"D\""), "%s", msg);
}
