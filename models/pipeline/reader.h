/* reader.h: limits of the mapping reader (reader.c). */
#ifndef STP_READER_H
#define STP_READER_H

#include "base/fileio.h"
#include "streamtp.h"

#include <stddef.h>

#define STP_MAX_STAGES 100000
#define STP_MAX_PROCESSORS 1000000
#define STP_MAX_LINKS 10000000

#endif /* STP_READER_H */
