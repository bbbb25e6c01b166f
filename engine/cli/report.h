/* report.h: how an evaluation result is shown: a human report and the JSON
 * object of FORMAT.md (one per file and model). */
#ifndef STP_REPORT_H
#define STP_REPORT_H

#include "streamtp.h"

#include <jansson.h>
#include <stdio.h>

/* A finite double as a JSON number, anything else as null. */
json_t *report_number(double x);
/* Names of processors as a JSON array. */
json_t *report_names(const stp_mapping *m, const size_t *procs, size_t n);
/* The FORMAT.md object for one file and model (NULL when out of memory). */
json_t *report_json(const stp_mapping *m, const stp_result *r);
/* Write one JSON value on one line. */
int report_json_line(FILE *f, json_t *v);
void report_text(FILE *f, const stp_mapping *m, const stp_result *r);

#endif /* STP_REPORT_H */
