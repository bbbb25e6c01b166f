/* streamtp_law.h: random laws of firing times, as unit-mean shapes that
 * multiply the mean times a model gives (so that every law shares the means
 * of the exact methods).  Used by every simulation of streamtp. */
#ifndef STREAMTP_LAW_H
#define STREAMTP_LAW_H

#include "streamtp_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A random law, as a shape: times are the mapping's means times a unit-mean
 * draw.  Specs: det, exp, uniform:spread=X, gamma:cv=X, weibull:cv=X,
 * lognormal:cv=X, normal:cv=X, beta:a=X,b=Y, erlang:k=K, hyperexp:cv=X,
 * empirical:FILE (FILE relative to base_dir when base_dir is non-NULL). */
typedef struct stp_law stp_law;
STP_API stp_status stp_law_parse(const char *spec, const char *base_dir, stp_law **out, stp_error *err);
STP_API const char *stp_law_spec(const stp_law *law);
STP_API void stp_law_free(stp_law *law);

#ifdef __cplusplus
}
#endif
#endif /* STREAMTP_LAW_H */
