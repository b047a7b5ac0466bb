/*
 * cmp_leftovers.h -- the hostfiles srun writes for a placed step, named
 * so that the ones a killed srun left behind can be found and removed
 * safely (leftovers.c): by the next placed step of the same user on the
 * same host, and by the job's epilog.
 *
 * A hostfile is "clustermap-hosts.<job id>.<srun's pid>.<host>.XXXXXX"
 * (mkstemp's six characters) in TMPDIR or /tmp, mode 0600, the user's.
 * The pid and host say whether the srun that wrote it still runs; the job
 * id, whether its job is over.  No Slurm symbol (test_leftovers.c).
 */
#ifndef CMP_LEFTOVERS_H
#define CMP_LEFTOVERS_H

#include <sys/types.h>

#define CMP_HOSTFILE_PREFIX "clustermap-hosts."

/** The at most this many entries of a directory a sweep looks at (a
 *  large /tmp costs a placed step no more than this listing). */
#define CMP_SWEEP_MAX_ENTRIES 100000L

/** A mkstemp() template for the hostfile of srun @p pid of job @p job_id
 *  on host @p host in directory @p dir, malloc'd (NULL: out of memory, or
 *  a NULL @p dir).
 *  Bytes of @p host other than [A-Za-z0-9_-] become '_'. */
char *cmp_hostfile_template(const char *dir, const char *job_id, long pid,
                            const char *host);

/** Remove hostfiles in directory @p dir that no srun uses any more: only
 *  regular files with one link owned by @p uid, looked at and removed
 *  without following links.  With @p host (an srun's sweep): those
 *  written on @p host by a process that no longer exists
 *  (kill(pid, 0) says ESRCH), whatever their job.  With @p host NULL and
 *  @p job_id (the job's epilog): every one of job @p job_id, its sruns
 *  being over.  Returns how many were removed. */
int cmp_hostfile_sweep(int dir, uid_t uid, const char *job_id, const char *host);

#endif /* CMP_LEFTOVERS_H */
