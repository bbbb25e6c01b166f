/* fileio.h: reading whole input files with a size limit, and refusing
 * text files with a NUL byte in them (fileio.c). */
#ifndef STP_FILEIO_H
#define STP_FILEIO_H

#include "streamtp_base.h"

#include <stddef.h>

/* Largest input file any reader accepts. */
#define STP_MAX_FILE_BYTES (64 << 20) /* 64 MiB */

/* Read a whole regular file (at most max_bytes) into a NUL-terminated buffer;
 * path "-" reads standard input to its end (the shell's convention). */
stp_status stp__read_file(const char *path, size_t max_bytes, char **text, size_t *len,
                          stp_error *err);

/* STP_EINVAL "label:line:col: a NUL byte; the file must be <kind> text" at
 * the first NUL byte of text (columns in characters, as every reported
 * position), STP_OK when there is none. */
stp_status stp__reject_nul(const char *text, size_t len, const char *label, const char *kind,
                           stp_error *err);

/* The path of file (relative to from_dir, or absolute) as seen from to_dir:
 * relative when both resolve (realpath) to absolute paths, "../" for each
 * component of to_dir past their common prefix; else the absolute path, or
 * file itself when it is absolute.  NULL dirs mean the current directory.
 * A new string (free it), NULL on out of memory. */
char *stp__path_from(const char *file, const char *from_dir, const char *to_dir);

#endif /* STP_FILEIO_H */
