/* reader.h: limits of the mapping reader and the file helper it shares with
 * other readers (empirical law samples). */
#ifndef STP_READER_H
#define STP_READER_H

#include "streamtp.h"

#include <stddef.h>

#define STP_MAX_FILE_BYTES (64 << 20) /* 64 MiB */
#define STP_MAX_STAGES 100000
#define STP_MAX_PROCESSORS 1000000
#define STP_MAX_LINKS 10000000

/* Read a whole regular file (at most max_bytes) into a NUL-terminated buffer. */
stp_status stp__read_file(const char *path, size_t max_bytes, char **text, size_t *len,
                          stp_error *err);

#endif /* STP_READER_H */
