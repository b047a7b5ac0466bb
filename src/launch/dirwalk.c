/*
 * dirwalk.c -- root's bounded walk over a directory a user filled
 * (cmp_dirwalk.h).  An explicit stack of open directories instead of
 * recursion, so the walk's memory and descriptors are fixed whatever the
 * user made; names are only ever resolved relative to a descriptor of the
 * directory that holds them, so a rename or a link put there while root
 * walks cannot send root elsewhere.
 */
#include "cmp_dirwalk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct frame {
    DIR *d;
    int fd;                  /* dirfd(d) */
    char name[NAME_MAX + 1]; /* its name in the frame below (file system
                                names are at most NAME_MAX bytes) */
} frame_t;

typedef struct walk {
    frame_t f[CMP_DIRWALK_MAX_DEPTH];
    int depth; /* frames in use */
    dev_t dev;
    int remove;
    long max;
    unsigned long hoisted; /* directories moved up to the top */
    int rescan;            /* the top got entries its listing may miss */
    cmp_dirwalk_stat_t *st;
} walk_t;

/* Push the directory open on @p fd (which it takes) as @p name. */
static int push(walk_t *w, int fd, const char *name, cm_error_t *err)
{
    frame_t *f = &w->f[w->depth];
    f->d = fdopendir(fd);
    if (!f->d) {
        int e = errno;
        close(fd);
        return cm_error_set(err, "%s: cannot list: %s", name, strerror(e));
    }
    f->fd = fd;
    snprintf(f->name, sizeof f->name, "%s", name);
    w->depth++;
    return 0;
}

static void pop_all(walk_t *w)
{
    while (w->depth > 0)
        closedir(w->f[--w->depth].d);
}

/* Move directory @p name of @p f up into the top directory, under a name
 * of ours that nothing there has (RENAME_NOREPLACE: a name the user made
 * is never replaced). */
static int hoist(walk_t *w, frame_t *f, const char *name, cm_error_t *err)
{
    char to[64];
    for (int tries = 0; tries < 1000; tries++) {
        snprintf(to, sizeof to, ".clustermap-deep.%lu", w->hoisted++);
        if (renameat2(f->fd, name, w->f[0].fd, to, RENAME_NOREPLACE) == 0) {
            w->rescan = 1;
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    return cm_error_set(err, "%s: cannot move a directory deeper than %d levels up: %s",
                        name, CMP_DIRWALK_MAX_DEPTH, strerror(errno));
}

/* One entry @p name of the innermost directory. */
static int visit(walk_t *w, const char *name, cm_error_t *err)
{
    frame_t *f = &w->f[w->depth - 1];
    struct stat es, ds;
    if (++w->st->entries > w->max)
        return cm_error_set(err, "more than %ld entries", w->max);
    if (fstatat(f->fd, name, &es, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : cm_error_set(err, "%s: %s", name, strerror(errno));
    if (!S_ISDIR(es.st_mode)) {
        w->st->bytes += (unsigned long long)es.st_blocks * 512u;
        if (w->remove && unlinkat(f->fd, name, 0) < 0 && errno != ENOENT)
            return cm_error_set(err, "%s: cannot remove: %s", name, strerror(errno));
        return 0;
    }
    if (es.st_dev != w->dev)
        return cm_error_set(err, "%s: a mount point: not crossed", name);
    if (w->depth == CMP_DIRWALK_MAX_DEPTH) {
        if (w->remove)
            return hoist(w, f, name, err);
        w->st->too_deep = 1;
        return 0;
    }
    int fd =
        openat(f->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == EACCES && w->remove && fchmodat(f->fd, name, 0700, 0) == 0)
        fd = openat(f->fd, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? 0 : cm_error_set(err, "%s: %s", name, strerror(errno));
    /* the directory opened is the one looked at, not one swapped in */
    if (fstat(fd, &ds) < 0 || ds.st_dev != es.st_dev || ds.st_ino != es.st_ino) {
        close(fd);
        return cm_error_set(err, "%s: changed while it was removed", name);
    }
    if (w->remove && (ds.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0) {
        int e = errno;
        close(fd);
        return cm_error_set(err, "%s: cannot change its mode: %s", name, strerror(e));
    }
    return push(w, fd, name, err);
}

/* Walk the directory open on @p top (taken). */
static int walk(int top, int remove, long max, cmp_dirwalk_stat_t *st, cm_error_t *err)
{
    walk_t w = { .remove = remove, .max = max, .st = st };
    struct stat ts;
    if (fstat(top, &ts) < 0) {
        close(top);
        return cm_error_set(err, "cannot stat: %s", strerror(errno));
    }
    w.dev = ts.st_dev;
    if (push(&w, top, ".", err) < 0)
        return -1;
    int rc = 0;
    while (rc == 0 && w.depth > 0) {
        frame_t *f = &w.f[w.depth - 1];
        errno = 0;
        struct dirent *e = readdir(f->d);
        if (e) {
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                rc = visit(&w, e->d_name, err);
            continue;
        }
        if (errno) {
            rc = cm_error_set(err, "%s: cannot list: %s", f->name, strerror(errno));
            break;
        }
        if (w.depth == 1) {
            if (!w.rescan)
                break;
            w.rescan = 0; /* once more for what was moved up */
            rewinddir(f->d);
            continue;
        }
        char name[NAME_MAX + 1];
        snprintf(name, sizeof name, "%s", f->name);
        closedir(f->d);
        w.depth--;
        if (remove && unlinkat(w.f[w.depth - 1].fd, name, AT_REMOVEDIR) < 0 &&
            errno != ENOENT)
            rc = cm_error_set(err, "%s: cannot remove: %s", name, strerror(errno));
    }
    pop_all(&w);
    return rc;
}

int cmp_dirwalk_remove(int parent, const char *name, long max_entries,
                       cmp_dirwalk_stat_t *st, cm_error_t *err)
{
    cmp_dirwalk_stat_t mine;
    struct stat ps, ds;
    if (!st)
        st = &mine;
    memset(st, 0, sizeof *st);
    if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return cm_error_set(err, "dirwalk: expected a directory's name, got '%s'",
                            name ? name : "(null)");
    if (fstat(parent, &ps) < 0)
        return cm_error_set(err, "dirwalk: the parent of %s: %s", name, strerror(errno));
    if (fstatat(parent, name, &ds, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : cm_error_set(err, "%s: %s", name, strerror(errno));
    if (!S_ISDIR(ds.st_mode)) /* not ours to walk: only the entry goes */
        return unlinkat(parent, name, 0) == 0 || errno == ENOENT
            ? 0
            : cm_error_set(err, "%s: cannot remove: %s", name, strerror(errno));
    if (ds.st_dev != ps.st_dev)
        return cm_error_set(err, "%s: a mount point: not crossed", name);
    int fd = openat(parent, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == EACCES && fchmodat(parent, name, 0700, 0) == 0)
        fd = openat(parent, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? 0 : cm_error_set(err, "%s: %s", name, strerror(errno));
    struct stat os;
    if (fstat(fd, &os) < 0 || os.st_ino != ds.st_ino || os.st_dev != ds.st_dev) {
        close(fd);
        return cm_error_set(err, "%s: changed while it was removed", name);
    }
    if ((os.st_mode & 07777) != 0700)
        fchmod(fd, 0700);
    cm_error_t why;
    if (walk(fd, 1, max_entries, st, &why) < 0)
        return cm_error_set(err, "%s: %s", name, why.msg);
    if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return cm_error_set(err, "%s: cannot remove: %s", name, strerror(errno));
    return 0;
}

int cmp_dirwalk_usage(int dir, long max_entries, cmp_dirwalk_stat_t *st, cm_error_t *err)
{
    cmp_dirwalk_stat_t mine;
    if (!st)
        st = &mine;
    memset(st, 0, sizeof *st);
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return cm_error_set(err, "dirwalk: cannot open the directory: %s",
                            strerror(errno));
    cm_error_t why;
    if (walk(fd, 0, max_entries, st, &why) < 0) {
        if (st->entries > max_entries)
            return 0; /* the caller reads the count: that is its answer */
        return cm_error_set(err, "%s", why.msg);
    }
    return 0;
}
