/*
 * prof_sys.c -- the system calls a program makes on its own buffers,
 * interposed so that the tnbc overlay can open the pages it protects
 * before the kernel reads or writes them (prof_ovl_touch,
 * prof_overlay.h).
 *
 * The kernel never raises SIGSEGV for a protected page: write(2) from one
 * fails with EFAULT or writes less than asked (data lost without an
 * error, when the first pages were open), read(2) into one fails.  Each
 * wrapper here hands every buffer the call reads or writes to
 * prof_ovl_touch, then calls the C library's function of the same name
 * (dlsym(RTLD_NEXT), resolved at the first call).  When no tnbc call is
 * pending, which is always the case without tnbc, that is one atomic load
 * and an indirect call.
 *
 * The stdio calls are here too: for a large fwrite or fread the C library
 * calls its own, internal write or read on the program's buffer, which no
 * interposition reaches.  What copies in user space (memcpy into a stdio
 * buffer, printf) raises SIGSEGV and meets the overlay's handler.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* the fortified inline versions of read, recv, fread ... would clash with
 * the definitions below */
#undef _FORTIFY_SOURCE
/* and with 64-bit offsets asked for, pread would be declared as pread64 */
#undef _FILE_OFFSET_BITS

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "prof_overlay.h"

/* read(2)'s buffer is write-only to the compiler, and prof_ovl_touch takes
 * a const pointer: it reads nothing through it, but the compiler cannot
 * know that the bytes are not read before they are written. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

/* The C library's @p name, or abort with a line on stderr: the program
 * would not have linked without it. */
static void *real(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    f = dlsym(RTLD_NEXT, name);
    if (!f) {
        static const char msg[] =
            "clustermap: libclustermap-prof.so: a system call wrapper "
            "found no C library function behind it\n";
        ssize_t w = syscall(SYS_write, 2, msg, sizeof msg - 1);
        (void)w;
        abort();
    }
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    return f;
}

/* REAL(name): the C library's function, typed as the declaration of the
 * function being defined (typeof). */
#define REAL(name)                                                                       \
    ({                                                                                   \
        static void *slot_##name;                                                        \
        (__typeof__(&name))real(&slot_##name, #name);                                    \
    })

static void touch_iov(const struct iovec *iov, long n)
{
    if (!iov)
        return;
    for (long k = 0; k < n; k++)
        prof_ovl_touch(iov[k].iov_base, iov[k].iov_len);
}

static void touch_msg(const struct msghdr *m)
{
    if (m)
        touch_iov(m->msg_iov, (long)m->msg_iovlen);
}

ssize_t read(int fd, void *buf, size_t n)
{
    prof_ovl_touch(buf, n);
    return REAL(read)(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    prof_ovl_touch(buf, n);
    return REAL(write)(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    prof_ovl_touch(buf, n);
    return REAL(pread)(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    prof_ovl_touch(buf, n);
    return REAL(pwrite)(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    prof_ovl_touch(buf, n);
    return REAL(pread64)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    prof_ovl_touch(buf, n);
    return REAL(pwrite64)(fd, buf, n, off);
}

ssize_t readv(int fd, const struct iovec *iov, int n)
{
    touch_iov(iov, n);
    return REAL(readv)(fd, iov, n);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    touch_iov(iov, n);
    return REAL(writev)(fd, iov, n);
}

ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
    touch_iov(iov, n);
    return REAL(preadv)(fd, iov, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
    touch_iov(iov, n);
    return REAL(pwritev)(fd, iov, n, off);
}

ssize_t preadv64(int fd, const struct iovec *iov, int n, off64_t off)
{
    touch_iov(iov, n);
    return REAL(preadv64)(fd, iov, n, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t off)
{
    touch_iov(iov, n);
    return REAL(pwritev64)(fd, iov, n, off);
}

ssize_t preadv2(int fd, const struct iovec *iov, int n, off_t off, int fl)
{
    touch_iov(iov, n);
    return REAL(preadv2)(fd, iov, n, off, fl);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t off, int fl)
{
    touch_iov(iov, n);
    return REAL(pwritev2)(fd, iov, n, off, fl);
}

ssize_t send(int fd, const void *buf, size_t n, int fl)
{
    prof_ovl_touch(buf, n);
    return REAL(send)(fd, buf, n, fl);
}

ssize_t recv(int fd, void *buf, size_t n, int fl)
{
    prof_ovl_touch(buf, n);
    return REAL(recv)(fd, buf, n, fl);
}

ssize_t sendto(int fd, const void *buf, size_t n, int fl, const struct sockaddr *to,
               socklen_t tolen)
{
    prof_ovl_touch(buf, n);
    return REAL(sendto)(fd, buf, n, fl, to, tolen);
}

ssize_t recvfrom(int fd, void *buf, size_t n, int fl, struct sockaddr *from,
                 socklen_t *fromlen)
{
    prof_ovl_touch(buf, n);
    return REAL(recvfrom)(fd, buf, n, fl, from, fromlen);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int fl)
{
    touch_msg(m);
    return REAL(sendmsg)(fd, m, fl);
}

ssize_t recvmsg(int fd, struct msghdr *m, int fl)
{
    touch_msg(m);
    return REAL(recvmsg)(fd, m, fl);
}

int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int fl)
{
    for (unsigned int k = 0; v && k < n; k++)
        touch_msg(&v[k].msg_hdr);
    return REAL(sendmmsg)(fd, v, n, fl);
}

int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int fl, struct timespec *timeout)
{
    for (unsigned int k = 0; v && k < n; k++)
        touch_msg(&v[k].msg_hdr);
    return REAL(recvmmsg)(fd, v, n, fl, timeout);
}

/* Another process's memory (@p remote) is its own business; ours is
 * @p local. */
ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nl,
                         const struct iovec *remote, unsigned long nr, unsigned long fl)
{
    touch_iov(local, (long)nl);
    return REAL(process_vm_readv)(pid, local, nl, remote, nr, fl);
}

ssize_t process_vm_writev(pid_t pid, const struct iovec *local, unsigned long nl,
                          const struct iovec *remote, unsigned long nr, unsigned long fl)
{
    touch_iov(local, (long)nl);
    return REAL(process_vm_writev)(pid, local, nl, remote, nr, fl);
}

/* ------------------------------------------------- memory given back -- */

/* A buffer freed while its pages are protected: its pages, unmapped (a
 * large block) or handed to another allocation, would be written by the
 * completion point after the program stopped owning them.  free, realloc,
 * munmap and mremap open them first (waiting for their data, as a touch
 * does); then the completion point finds them open and writes nothing
 * there.  The allocator's functions are resolved at load time (below):
 * dlsym may allocate, and a free() inside it must not resolve free
 * again. */
static void (*real_free)(void *);
static void *(*real_realloc)(void *, size_t);
static size_t (*real_usable)(void *);
static __thread int resolving;

static void resolve_alloc(void)
{
    if (resolving)
        return;
    resolving = 1;
    if (!real_usable)
        real_usable = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
    if (!real_realloc)
        real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    if (!real_free)
        real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    resolving = 0;
}

__attribute__((constructor)) static void prof_sys_init(void)
{
    resolve_alloc();
}

/* The block at @p p (from the allocator behind this library) is about to
 * be given back: open its protected pages. */
static void touch_block(void *p)
{
    if (p && __atomic_load_n(&prof_ovl_pending, __ATOMIC_RELAXED) && real_usable)
        prof_ovl_touch(p, real_usable(p));
}

void free(void *p)
{
    if (!real_free)
        resolve_alloc();
    if (!real_free) /* inside dlsym, before the allocator is known */
        return;     /* a block of the loader's, never freed again */
    touch_block(p);
    real_free(p);
}

void *realloc(void *p, size_t n)
{
    if (!real_realloc)
        resolve_alloc();
    if (!real_realloc) {
        errno = ENOMEM;
        return NULL;
    }
    touch_block(p);
    return real_realloc(p, n);
}

int munmap(void *p, size_t n)
{
    prof_ovl_touch(p, n);
    return REAL(munmap)(p, n);
}

void *mremap(void *p, size_t old, size_t n, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    void *to = flags & MREMAP_FIXED ? va_arg(ap, void *) : NULL;
    va_end(ap);
    prof_ovl_touch(p, old);
    return REAL(mremap)(p, old, n, flags, to);
}

/* size * n bytes, or all of memory above @p p when the product overflows
 * (the call then fails on its own) */
static size_t bytes_of(size_t size, size_t n)
{
    size_t b;
    return __builtin_mul_overflow(size, n, &b) ? (size_t)-1 : b;
}

size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
    prof_ovl_touch(buf, bytes_of(size, n));
    return REAL(fread)(buf, size, n, f);
}

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
    prof_ovl_touch(buf, bytes_of(size, n));
    return REAL(fwrite)(buf, size, n, f);
}

size_t(fread_unlocked)(void *buf, size_t size, size_t n, FILE *f)
{
    prof_ovl_touch(buf, bytes_of(size, n));
    return REAL(fread_unlocked)(buf, size, n, f);
}

size_t(fwrite_unlocked)(const void *buf, size_t size, size_t n, FILE *f)
{
    prof_ovl_touch(buf, bytes_of(size, n));
    return REAL(fwrite_unlocked)(buf, size, n, f);
}
