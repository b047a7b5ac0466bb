/*
 * cmp_dirwalk.h -- root's walk over a directory a user filled (dirwalk.c): the
 * private profiling directory of a step, which root made and the user's
 * tasks wrote into.  Whatever the user left there -- links, FIFOs,
 * directories of mode 0, a chain of ten thousand directories, a mount
 * point -- the walk neither follows nor trusts it, and it is bounded:
 * no recursion, at most CMP_DIRWALK_MAX_DEPTH directories open at once and
 * at most a given number of entries looked at.
 *
 * No Slurm symbol: the unit tests run it (test/unit/test_dirwalk.c).
 */
#ifndef CMP_DIRWALK_H
#define CMP_DIRWALK_H

#include <sys/types.h>

#include "clustermap.h"

/** Directories held open at once by one walk.  A deeper directory is not
 *  descended into: cmp_dirwalk_remove moves it up to the top directory first
 *  (a rename within the same file system), so any depth is removed with
 *  this many descriptors; cmp_dirwalk_usage stops there and says so. */
#define CMP_DIRWALK_MAX_DEPTH 32

/** What a walk saw. */
typedef struct cmp_dirwalk_stat {
    unsigned long long bytes; /* the blocks of the files, in bytes (a
                                 sparse file counts what it occupies) */
    long entries;             /* entries looked at (files, links,
                                 directories, ...), the top excluded */
    int too_deep;             /* cmp_dirwalk_usage: some directory is deeper
                                 than CMP_DIRWALK_MAX_DEPTH (not counted) */
} cmp_dirwalk_stat_t;

/** As root: remove directory @p name of directory @p parent and everything
 *  in it, through descriptors only: every entry is looked at with
 *  fstatat(AT_SYMLINK_NOFOLLOW), every directory opened with
 *  O_NOFOLLOW | O_DIRECTORY and checked to be the one looked at, its mode
 *  set to 0700 before it is read (a user's chmod 500 or 000 stops
 *  nothing), links and other files unlinked, never followed.  A directory
 *  on another file system (a mount point) is not crossed: the walk stops
 *  and reports it.  At most @p max_entries entries are looked at.
 *  0 when @p name is gone (or was not there), -1 with @p err naming what
 *  stopped the walk (what is left stays for a later call).  @p st (may be
 *  NULL) gets what was removed. */
int cmp_dirwalk_remove(int parent, const char *name, long max_entries,
                       cmp_dirwalk_stat_t *st, cm_error_t *err);

/** What directory @p dir holds, without changing anything: the bytes of
 *  its files and its entries, at any depth up to CMP_DIRWALK_MAX_DEPTH
 *  (deeper: st->too_deep), not following links nor crossing mount points.
 *  Stops once @p max_entries entries were looked at (st->entries is then
 *  above @p max_entries).  0, or -1 with @p err (a directory that cannot
 *  be read). */
int cmp_dirwalk_usage(int dir, long max_entries, cmp_dirwalk_stat_t *st, cm_error_t *err);

#endif /* CMP_DIRWALK_H */
