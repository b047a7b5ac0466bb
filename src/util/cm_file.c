/* cm_file.c -- see cm_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cm_file.h"

/* ---- the directory walk from "/" -------------------------------------- */

/* One directory of the walk: a directory of root or the caller, not
 * writable by others unless it is sticky (like /tmp: others cannot rename
 * what is in it); the last one root's (the caller's, for a private tree
 * of a user's own) and writable by its owner only. */
static int check_step(int fd, const char *path, int last, const char *what,
                      cm_error_t *err)
{
    struct stat st;
    uid_t me = geteuid();
    if (fstat(fd, &st) < 0)
        return cm_error_set(err, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cm_error_set(err, "%s: not a directory", path);
    if (st.st_uid != 0 && st.st_uid != me)
        return cm_error_set(err,
                            "%s: owned by uid %lu, expected root%s; "
                            "refusing the %s",
                            path, (unsigned long)st.st_uid, me ? " or the caller" : "",
                            what);
    if (last && me == 0 && st.st_uid != 0)
        return cm_error_set(err,
                            "%s: owned by uid %lu, expected root; "
                            "refusing the %s",
                            path, (unsigned long)st.st_uid, what);
    if ((st.st_mode & 022) && (last || !(st.st_mode & S_ISVTX)))
        return cm_error_set(err,
                            "%s: mode %04o, expected no group or world "
                            "write permission%s; refusing the %s",
                            path, (unsigned)(st.st_mode & 07777),
                            last ? "" : " (or the sticky bit)", what);
    return 0;
}

int cm_file_open_dir_safe(const char *root, int create, const char *what, cm_error_t *err)
{
    if (!root || !what) {
        cm_error_set(err,
                     "cm_file: expected a directory path and what it "
                     "is, got NULL");
        errno = EINVAL;
        return -1;
    }
    if (root[0] != '/') {
        cm_error_set(err, "%s: expected an absolute path for the %s", root, what);
        errno = EINVAL;
        return -1;
    }
    char *path = strdup(root);
    if (!path) {
        cm_error_set(err, "%s: out of memory", root);
        errno = ENOMEM;
        return -1;
    }
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char *comp = path + 1;
    while (fd >= 0) {
        while (*comp == '/')
            comp++;
        if (!*comp)
            break;
        char *slash = strchr(comp, '/');
        if (slash)
            *slash = '\0';
        int last = !slash || !slash[1 + strspn(slash + 1, "/")];
        int nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (nfd < 0 && errno == ENOENT && last && create) {
            if (mkdirat(fd, comp, 0711) < 0 && errno != EEXIST) {
                int e = errno;
                cm_error_set(err, "%s: cannot create the %s directory: %s", root, what,
                             strerror(e));
                close(fd);
                fd = -1;
                errno = e;
                break;
            }
            nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        int e = errno;
        close(fd);
        fd = nfd;
        if (fd < 0) {
            if (e == ELOOP || e == ENOTDIR)
                cm_error_set(err,
                             "%s: a symbolic link or not a directory at "
                             "'%s'; refusing the %s",
                             root, comp, what);
            else
                cm_error_set(err,
                             "%s: cannot open the %s directory (at "
                             "'%s'): %s",
                             root, what, comp, strerror(e));
            errno = e;
            break;
        }
        if (check_step(fd, last ? root : path, last, what, err) < 0) {
            close(fd);
            fd = -1;
            errno = EPERM;
            break;
        }
        if (!slash)
            break;
        *slash = '/';
        comp = slash + 1;
    }
    free(path);
    return fd;
}

/* ---- one file or directory -------------------------------------------- */

int cm_file_check(int fd, const char *shown, const cm_file_want_t *want, cm_error_t *err)
{
    struct stat st;
    int bad;
    if (!shown)
        shown = "(unnamed file)";
    if (!want) {
        cm_error_set(err,
                     "%s: cm_file: expected what the file must be, "
                     "got NULL",
                     shown);
        errno = EINVAL;
        return -1;
    }
    if (fstat(fd, &st) < 0) {
        int e = errno;
        cm_error_set(err, "%s: cannot stat: %s", shown, strerror(e));
        errno = e;
        return -1;
    }
    if (want->dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        bad = cm_error_set(err, "%s: not a %s", shown,
                           want->dir ? "directory" : "regular file");
    else if (want->owner != CM_FILE_ANY_OWNER && st.st_uid != want->owner)
        bad = cm_error_set(err, "%s: owned by uid %lu, expected uid %lu", shown,
                           (unsigned long)st.st_uid, (unsigned long)want->owner);
    else if (st.st_mode & want->forbidden)
        bad = cm_error_set(err, "%s: mode %04o, expected no %s permission", shown,
                           (unsigned)(st.st_mode & 07777),
                           want->forbidden == 077 ? "group or world"
                                                  : "group or world write");
    else
        return 0;
    errno = EPERM;
    return bad;
}

int cm_file_open_at(int dirfd, const char *name, const char *shown,
                    const cm_file_want_t *want, cm_error_t *err)
{
    if (!name || !want) {
        cm_error_set(err,
                     "cm_file: expected a name and what it must be, "
                     "got NULL");
        errno = EINVAL;
        return -1;
    }
    if (!shown)
        shown = name;
    int fd = openat(dirfd, name,
                    O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
                        (want->dir ? O_DIRECTORY : O_NONBLOCK));
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            cm_error_set(err, "%s: is a symbolic link; refusing to follow it", shown);
        else if (e != ENOENT)
            cm_error_set(err, "%s: cannot open: %s", shown, strerror(e));
        errno = e;
        return -1;
    }
    if (cm_file_check(fd, shown, want, err) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* ---- bounded whole-file reading --------------------------------------- */

char *cm_file_read_fd(int fd, const char *name, size_t max_bytes, size_t *len,
                      cm_error_t *err)
{
    struct stat st;
    size_t cap, used = 0;
    char *buf;
    int e;
    size_t ignored;

    if (!len)
        len = &ignored;
    if (!name)
        name = "(unnamed file)";
    *len = 0;
    if (max_bytes > SIZE_MAX / 4) /* room for the bound, one more, a NUL */
        max_bytes = SIZE_MAX / 4;
    if (fstat(fd, &st) < 0) {
        e = errno;
        cm_error_set(err, "%s: cannot stat: %s", name, strerror(e));
        errno = e;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        cm_error_set(err, "%s: not a regular file", name);
        errno = EINVAL;
        return NULL;
    }
    if ((uintmax_t)st.st_size > (uintmax_t)max_bytes) {
        cm_error_set(err,
                     "%s: file is %jd bytes, more than the limit of %zu "
                     "bytes",
                     name, (intmax_t)st.st_size, max_bytes);
        *len = (size_t)st.st_size;
        errno = EFBIG;
        return NULL;
    }
    cap = (size_t)st.st_size + 1; /* one more: a file that grew shows */
    buf = malloc(cap + 1);
    if (!buf)
        goto nomem;
    for (;;) {
        ssize_t n;
        if (used == cap) { /* the file grew since fstat */
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb;
            if (ncap <= cap)
                break; /* past the bound */
            nb = realloc(buf, ncap + 1);
            if (!nb)
                goto nomem;
            buf = nb;
            cap = ncap;
        }
        n = read(fd, buf + used, cap - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = errno;
            cm_error_set(err, "%s: read failed: %s", name, strerror(e));
            free(buf);
            errno = e;
            return NULL;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    if (used > max_bytes) {
        free(buf);
        cm_error_set(err, "%s: file is more than the limit of %zu bytes", name,
                     max_bytes);
        errno = EFBIG;
        return NULL;
    }
    buf[used] = '\0';
    *len = used;
    return buf;
nomem:
    free(buf);
    cm_error_set(err, "%s: out of memory", name);
    errno = ENOMEM;
    return NULL;
}

/* ---- bounded locking ----------------------------------------------------- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int cm_file_lock(int fd, int wait_ms)
{
    if (wait_ms < 0) {
        while (flock(fd, LOCK_EX) < 0)
            if (errno != EINTR)
                return -1;
        return 0;
    }
    double until = now_ms() + wait_ms;
    long nap_us = 1000; /* 1 ms, doubling to 100 ms: quick when the
                           holder is a writer about to finish */
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        double left = until - now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        long us = nap_us < (long)(left * 1e3) ? nap_us : (long)(left * 1e3) + 1;
        struct timespec nap = { us / 1000000, (us % 1000000) * 1000 };
        nanosleep(&nap, NULL);
        if (nap_us < 100000)
            nap_us *= 2;
    }
}
