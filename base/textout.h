/* textout.h: names written into pictures (textout.c; the public half is
 * stp_write_xml_text and stp_write_dot_text in streamtp_base.h). */
#ifndef STP_TEXTOUT_H
#define STP_TEXTOUT_H

#include "streamtp_base.h"

#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes), its code
 * point in *cp; 0 when none: shortest forms only, no surrogates, nothing
 * above U+10FFFF. */
size_t stp__utf8_char(const unsigned char *p, size_t n, uint32_t *cp);

#endif /* STP_TEXTOUT_H */
