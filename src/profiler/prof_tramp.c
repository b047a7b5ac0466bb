/*
 * prof_tramp.c -- the catch-all: every MPI entry point that no wrapper of
 * the profiler defines is still a completion point of the tnbc overlay.
 *
 * tnbc leaves a collective pending with its receive buffer's pages
 * protected (prof_overlay.h, prof_ovl_settle).  A program may hand that
 * buffer to any MPI call -- I/O, one-sided, neighbourhood collectives,
 * anything the MPI standard has or will have -- and the MPI library
 * would then read or write protected pages from inside itself, where a
 * fault is an error return (EFAULT from the kernel), a loop, or a crash
 * in another thread, never the overlay's handler.  A list of wrappers
 * misses calls; this file defines a trampoline for every function the
 * MPI library's C and Fortran libraries export under a name a program
 * calls, generated at build time from those libraries themselves
 * (tramp-list.sh: the T(index, name) lines of prof_tramp_list.h), less
 * the names the profiler's wrappers define.
 *
 * A trampoline knows nothing of its function's signature, so it is a few
 * instructions of x86-64 assembly that keep every argument register and
 * the stack as they came and jump to the MPI library's function of the
 * same name (dlsym(RTLD_NEXT)): its arguments, return value and errors
 * are exactly the library's.  When a tnbc call is pending, or the name is
 * not resolved yet, it first saves the argument registers and calls
 * prof_tramp_slow, which completes the pending call (prof_settle) and
 * resolves the name once.
 */
#include "prof.h"
#include "prof_overlay.h"

#include <dlfcn.h>
#include <stdlib.h>

/* generated (tramp-list.sh): PROF_TRAMP_N, and T(index, name) lines
 * for the including file's T */
#include "prof_tramp_list.h"

#if defined(__x86_64__) && PROF_TRAMP_N > 0
static const char *const names[] = {
#define T(i, name) #name,
#include "prof_tramp_list.h"
#undef T
};
#define NTRAMP (sizeof names / sizeof names[0])

/* The MPI library's function of each name, resolved at its first call
 * (an MPI library loaded after this one, or dlopen'ed, is found then). */
PROF_HIDDEN void *prof_tramp_tab[NTRAMP];

PROF_HIDDEN const int prof_catchall = (int)NTRAMP;

/* The slow path of trampoline @p i: complete the pending tnbc call, then
 * the function to jump to.  Called from the assembly below with every
 * argument register saved. */
PROF_HIDDEN void *prof_tramp_slow(unsigned i);
void *prof_tramp_slow(unsigned i)
{
    prof_settle();
    void *f = __atomic_load_n(&prof_tramp_tab[i], __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, names[i]);
        if (!f) {
            /* a program calls a name this library exports and the MPI
             * library it runs with does not: as it would die of an
             * undefined symbol without this library, it stops here */
            prof_say("%s: not in the MPI library this program runs with "
                     "(libclustermap-prof.so was built against another)\n",
                     names[i]);
            abort();
        }
        __atomic_store_n(&prof_tramp_tab[i], f, __ATOMIC_RELEASE);
    }
    return f;
}

/* prof_tramp_common: %r11 holds the trampoline's index.  Fast path: the
 * function is resolved and nothing is pending: jump to it.  Otherwise
 * save the six integer argument registers, %rax (the vector registers
 * used by a variadic call) and %xmm0-7, call prof_tramp_slow, restore
 * them and jump.  The stack is aligned for the call: 8 mod 16 at entry,
 * push %rbp makes it 0, and the frame below is a multiple of 16. */
__asm__(".text\n"
        ".p2align 4\n"
        ".type prof_tramp_common, @function\n"
        "prof_tramp_common:\n"
        "\tleaq prof_tramp_tab(%rip), %r10\n"
        "\tmovq (%r10,%r11,8), %r10\n"
        "\ttestq %r10, %r10\n"
        "\tjz 1f\n"
        "\tcmpl $0, prof_ovl_pending(%rip)\n"
        "\tjne 1f\n"
        "\tjmp *%r10\n"
        "1:\n"
        "\tpushq %rbp\n"
        "\tmovq %rsp, %rbp\n"
        "\tsubq $192, %rsp\n"
        "\tmovq %rdi, 0(%rsp)\n"
        "\tmovq %rsi, 8(%rsp)\n"
        "\tmovq %rdx, 16(%rsp)\n"
        "\tmovq %rcx, 24(%rsp)\n"
        "\tmovq %r8, 32(%rsp)\n"
        "\tmovq %r9, 40(%rsp)\n"
        "\tmovq %rax, 48(%rsp)\n"
        "\tmovdqu %xmm0, 64(%rsp)\n"
        "\tmovdqu %xmm1, 80(%rsp)\n"
        "\tmovdqu %xmm2, 96(%rsp)\n"
        "\tmovdqu %xmm3, 112(%rsp)\n"
        "\tmovdqu %xmm4, 128(%rsp)\n"
        "\tmovdqu %xmm5, 144(%rsp)\n"
        "\tmovdqu %xmm6, 160(%rsp)\n"
        "\tmovdqu %xmm7, 176(%rsp)\n"
        "\tmovl %r11d, %edi\n"
        "\tcall prof_tramp_slow\n"
        "\tmovq %rax, %r10\n"
        "\tmovq 0(%rsp), %rdi\n"
        "\tmovq 8(%rsp), %rsi\n"
        "\tmovq 16(%rsp), %rdx\n"
        "\tmovq 24(%rsp), %rcx\n"
        "\tmovq 32(%rsp), %r8\n"
        "\tmovq 40(%rsp), %r9\n"
        "\tmovq 48(%rsp), %rax\n"
        "\tmovdqu 64(%rsp), %xmm0\n"
        "\tmovdqu 80(%rsp), %xmm1\n"
        "\tmovdqu 96(%rsp), %xmm2\n"
        "\tmovdqu 112(%rsp), %xmm3\n"
        "\tmovdqu 128(%rsp), %xmm4\n"
        "\tmovdqu 144(%rsp), %xmm5\n"
        "\tmovdqu 160(%rsp), %xmm6\n"
        "\tmovdqu 176(%rsp), %xmm7\n"
        "\tleave\n"
        "\tjmp *%r10\n"
        ".size prof_tramp_common, .-prof_tramp_common\n");

/* One trampoline per name: exported (the version script's MPI_*, mpi_*,
 * ompi_*), so that it comes before the MPI library's in the program's
 * symbol lookup, as the wrappers do. */
#define T(i, name)                                                                       \
    ".globl " #name "\n"                                                                 \
    ".type " #name ", @function\n"                                                       \
    ".p2align 4\n" #name ":\n"                                                           \
    "\tmovl $" #i ", %r11d\n"                                                            \
    "\tjmp prof_tramp_common\n"                                                          \
    ".size " #name ", .-" #name "\n"
__asm__(".text\n"
#include "prof_tramp_list.h"
);
#undef T

#else
/* No trampolines for this target (or no MPI library's list): tnbc
 * refuses to run (ovl_start). */
PROF_HIDDEN const int prof_catchall = 0;
#endif
