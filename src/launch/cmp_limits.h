/*
 * cmp_limits.h -- the sizes of the launch model's fixed fields (names,
 * paths and value lists of srun's command line and the configuration).
 */
#ifndef CMP_LIMITS_H
#define CMP_LIMITS_H

#define CMP_NAME_MAX 255  /* a job or profile name, without its NUL */
#define CMP_PATH_MAX 1024 /* a path of the site's configuration */
#define CMP_SPEC_MAX 512  /* a value list of the configuration */

#endif /* CMP_LIMITS_H */
