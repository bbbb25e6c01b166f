/* numfmt.h: numbers to and from text the same way under any locale
 * (numfmt.c).  A host program that calls setlocale (Python, R, most GUIs)
 * may set LC_NUMERIC to a locale whose decimal point is a comma; the
 * library's files, specs and messages always use the C conventions. */
#ifndef STP_NUMFMT_H
#define STP_NUMFMT_H

#include "streamtp_base.h"

#include <stdarg.h>
#include <stdio.h>

#if defined(__GNUC__)
#define STP_NUMFMT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define STP_NUMFMT_PRINTF(a, b)
#endif

/* strtod in the C locale, whatever the thread's or the process's locale. */
double stp__strtod(const char *s, char **end);
/* The printf family in the C locale. */
int stp__vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int stp__snprintf(char *buf, size_t n, const char *fmt, ...) STP_NUMFMT_PRINTF(3, 4);
int stp__fprintf(FILE *f, const char *fmt, ...) STP_NUMFMT_PRINTF(2, 3);

/* Switch the calling thread to the C locale until stp__c_locale_leave, for
 * a function that prints much (a Graphviz or Matrix Market writer): the
 * token returned is the thread's previous locale. */
void *stp__c_locale_enter(void);
void stp__c_locale_leave(void *previous);

#endif /* STP_NUMFMT_H */
