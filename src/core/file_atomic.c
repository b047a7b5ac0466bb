/* file_atomic.c -- replacing a user-named output file, safely and whole.
 *
 * Writing a temporary file and renaming it over the target means readers
 * (the SPANK plugin, a script) see the old content or the new, never half of
 * it.  But rename() replaces whatever the name points at: run as root with
 * --output /dev/full it turned the device node into a regular file, and it
 * does the same to a FIFO, a symbolic link or another user's file.  So the
 * target must be absent or a regular file of the effective user.  That is
 * checked with lstat() before anything is created, then again on the
 * directory opened at the start, right before the rename, which narrows the
 * window in which the name could be swapped.  The directory is opened with
 * O_NOFOLLOW, so its last component is not a symbolic link; earlier
 * components are followed as usual. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clustermap.h"

/* What a temporary's name adds to the target's: ".tmp." and 6 characters. */
#define TMP_SUFFIX_LEN 11
/* Names tried before giving up: a clash is already unlikely with one. */
#define TMP_TRIES 64

struct cm_file_atomic {
    FILE *f;                 /* the temporary, open for writing */
    int dirfd;               /* the target's directory */
    const char *name;        /* the target's last component, in path[] */
    char tmp[NAME_MAX + 1];  /* the temporary's name in dirfd; "" once gone */
    char path[];             /* the target as given, for messages */
};

/* "a character device", ... for a message about a non-regular file. */
static const char *kind_of(mode_t mode)
{
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "of an unknown type";
}

/* "nobody (uid 65534)", or "uid 65534" for a uid without a name. */
static const char *describe_user(uid_t uid, char *buf, size_t size)
{
    struct passwd pw, *res = NULL;
    char pwbuf[1024];

    if (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
        snprintf(buf, size, "%s (uid %lu)", pw.pw_name, (unsigned long)uid);
    else
        snprintf(buf, size, "uid %lu", (unsigned long)uid);
    return buf;
}

/* 0 when @p st, the lstat() of an existing @p path, is something this
 * process may replace: a regular file of the effective user.  Root is held
 * to the same rule, since it could otherwise be made to clobber any file. */
static int check_replaceable(const char *path, const struct stat *st,
                             cm_error_t *err)
{
    char owner[96], self[96];

    if (!S_ISREG(st->st_mode))
        return cm_error_set(err, "%s: not a regular file (%s); refusing to "
                            "replace it", path, kind_of(st->st_mode));
    if (st->st_uid != geteuid())
        return cm_error_set(err, "%s: owned by %s, not by %s who runs this; "
                            "refusing to replace it", path,
                            describe_user(st->st_uid, owner, sizeof owner),
                            describe_user(geteuid(), self, sizeof self));
    return 0;
}

/* Inspect @p name relative to @p dirfd without following a final symbolic
 * link: 1 and *st when it exists and may be replaced, 0 when it is absent,
 * -1 with @p err set otherwise. */
static int inspect(int dirfd, const char *name, const char *path,
                   struct stat *st, cm_error_t *err)
{
    if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return 0;
        return cm_error_set(err, "%s: cannot inspect it: %s", path,
                            strerror(errno));
    }
    return check_replaceable(path, st, err) == 0 ? 1 : -1;
}

/* Open the directory of a->path (the part before a->name). */
static int open_dir(cm_file_atomic_t *a, cm_error_t *err)
{
    size_t len = (size_t)(a->name - a->path);
    char *dir;

    /* "x" lives in ".", "/x" in "/"; otherwise drop the final slash. */
    if (len == 0)
        dir = strdup(".");
    else
        dir = strndup(a->path, len > 1 ? len - 1 : len);
    if (!dir)
        return cm_error_set(err, "%s: out of memory", a->path);
    a->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (a->dirfd < 0) {
        int e = errno;
        struct stat st;
        if ((e == ELOOP || e == ENOTDIR) && lstat(dir, &st) == 0 &&
            S_ISLNK(st.st_mode))
            cm_error_set(err, "%s: its directory %s is a symbolic link; "
                         "refusing to follow it (name the directory it points "
                         "to)", a->path, dir);
        else
            cm_error_set(err, "%s: cannot open its directory %s: %s", a->path,
                         dir, strerror(e));
        free(dir);
        return -1;
    }
    free(dir);
    return 0;
}

/* Six characters for a temporary's name.  The kernel's random bytes make
 * the names hard to guess; O_EXCL alone keeps a guessed one harmless. */
static void random_suffix(char out[7])
{
    static const char chars[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char bytes[6];

    if (getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != (ssize_t)sizeof bytes) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^
                     (uint64_t)ts.tv_sec;
        for (size_t k = 0; k < sizeof bytes; k++, x >>= 8)
            bytes[k] = (unsigned char)x;
    }
    for (size_t k = 0; k < sizeof bytes; k++)
        out[k] = chars[bytes[k] % (sizeof chars - 1)];
    out[6] = '\0';
}

/* Create the temporary beside the target: a fresh name (O_EXCL, never
 * following a link), mode 0666 & ~umask for a new file; for a replaced one
 * (@p old not NULL) first 0600, then the old group and permission bits. */
static int create_temp(cm_file_atomic_t *a, const struct stat *old,
                       cm_error_t *err)
{
    int fd = -1;
    char suffix[7];

    for (int k = 0; k < TMP_TRIES && fd < 0; k++) {
        random_suffix(suffix);
        snprintf(a->tmp, sizeof a->tmp, "%.*s.tmp.%s",
                 NAME_MAX - TMP_SUFFIX_LEN, a->name, suffix);
        fd = openat(a->dirfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC, old ? 0600 : 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        a->tmp[0] = '\0';
        return cm_error_set(err, "%s: cannot create a temporary file beside "
                            "it: %s", a->path, strerror(e));
    }
    if (old) {
        mode_t mode = old->st_mode & 0777;
        /* Without the old group, its rights must not go to another one. */
        if (fchown(fd, (uid_t)-1, old->st_gid) != 0)
            mode &= ~(mode_t)S_IRWXG;
        if (fchmod(fd, mode) != 0) {
            int e = errno;
            close(fd);
            return cm_error_set(err, "%s: cannot give the temporary file mode "
                                "%04o: %s", a->path, (unsigned)mode, strerror(e));
        }
    }
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int e = errno;
        close(fd);
        return cm_error_set(err, "%s: fdopen: %s", a->path, strerror(e));
    }
    return 0;
}

cm_file_atomic_t *cm_file_atomic_open(const char *path, cm_error_t *err)
{
    struct stat st;
    int exists;
    cm_file_atomic_t *a;

    if (!path || !*path) {
        cm_error_set(err, "output file: expected a path, got %s",
                     path ? "an empty one" : "NULL");
        return NULL;
    }
    /* Refuse before creating anything. */
    exists = inspect(AT_FDCWD, path, path, &st, err);
    if (exists < 0)
        return NULL;
    size_t len = strlen(path);
    a = malloc(sizeof *a + len + 1);
    if (!a) {
        cm_error_set(err, "%s: out of memory", path);
        return NULL;
    }
    memcpy(a->path, path, len + 1);
    a->f = NULL;
    a->dirfd = -1;
    a->tmp[0] = '\0';
    const char *slash = strrchr(a->path, '/');
    a->name = slash ? slash + 1 : a->path;
    if (!*a->name) {
        cm_error_set(err, "%s: expected a file name, got a path ending in '/'",
                     path);
        cm_file_atomic_abort(a);
        return NULL;
    }
    if (open_dir(a, err) != 0 || create_temp(a, exists ? &st : NULL, err) != 0) {
        cm_file_atomic_abort(a);
        return NULL;
    }
    return a;
}

FILE *cm_file_atomic_stream(const cm_file_atomic_t *a)
{
    return a ? a->f : NULL;
}

/* Flush, sync and close the temporary; its data is on disk after this. */
static int finish_temp(cm_file_atomic_t *a, cm_error_t *err)
{
    int bad, e;

    /* A write that failed earlier left only the stream's error flag; the
     * retry in fflush() usually says why, else it is reported as EIO. */
    errno = 0;
    bad = fflush(a->f) != 0 || ferror(a->f) || fsync(fileno(a->f)) != 0;
    e = errno;

    if (fclose(a->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    a->f = NULL;
    if (bad)
        return cm_error_set(err, "%s: cannot write: %s (temporary file "
                            "removed)", a->path, strerror(e ? e : EIO));
    return 0;
}

int cm_file_atomic_commit(cm_file_atomic_t *a, cm_error_t *err)
{
    struct stat st;
    int rc;

    if (!a)
        return cm_error_set(err, "output file: expected an open file, got NULL");
    rc = finish_temp(a, err);
    /* The target may have been swapped since it was opened. */
    if (rc == 0 && inspect(a->dirfd, a->name, a->path, &st, err) < 0)
        rc = -1;
    if (rc == 0 && renameat(a->dirfd, a->tmp, a->dirfd, a->name) != 0)
        rc = cm_error_set(err, "%s: cannot rename the temporary file over it: "
                          "%s", a->path, strerror(errno));
    if (rc == 0) {
        a->tmp[0] = '\0';
        /* Makes the rename survive a crash.  The new content is in place
         * whatever this returns, so a failure is not reported as one. */
        (void)fsync(a->dirfd);
    }
    cm_file_atomic_abort(a);
    return rc;
}

void cm_file_atomic_abort(cm_file_atomic_t *a)
{
    if (!a)
        return;
    if (a->f)
        fclose(a->f);
    if (a->tmp[0])
        unlinkat(a->dirfd, a->tmp, 0);
    if (a->dirfd >= 0)
        close(a->dirfd);
    free(a);
}
