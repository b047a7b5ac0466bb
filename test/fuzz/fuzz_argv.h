/* fuzz_argv.h -- a fuzz input as a command line, for the targets that
 * read one (fuzz_srun_args.c, fuzz_mpirun_args.c, fuzz_config.c).
 *
 * fuzz_argv_split() cuts the input at NUL bytes into argv, as
 * /proc/PID/cmdline holds it (argv[0] included; a final NUL ends the last
 * argument, it does not add an empty one); a target that cuts otherwise
 * fills text and argv itself after fuzz_argv_alloc().  fuzz_argv_done()
 * aborts when the parser changed the text argv points into, and frees. */
#ifndef FUZZ_ARGV_H
#define FUZZ_ARGV_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fuzz_argv {
    char *text;     /* the input and a NUL */
    char *copy;     /* what text must still hold at the end */
    char **argv;    /* NULL-terminated, pointing into text */
    int argc;
    size_t size;
} fuzz_argv_t;

/* text (the input and a NUL) and room for (size + 1) / 2 + 1 pieces. */
static inline void fuzz_argv_alloc(fuzz_argv_t *a, const uint8_t *data, size_t size)
{
    a->size = size;
    a->argc = 0;
    a->text = malloc(size + 1);
    a->copy = malloc(size + 1);
    a->argv = calloc(size + 2, sizeof *a->argv);
    if (!a->text || !a->copy || !a->argv)
        abort();
    memcpy(a->text, data, size);
    a->text[size] = '\0';
}

/* Remember what text holds now: the parser must leave it so. */
static inline void fuzz_argv_seal(fuzz_argv_t *a)
{
    memcpy(a->copy, a->text, a->size + 1);
}

static inline void fuzz_argv_split(fuzz_argv_t *a, const uint8_t *data, size_t size)
{
    fuzz_argv_alloc(a, data, size);
    for (size_t k = 0; k < size; k += strlen(a->text + k) + 1)
        a->argv[a->argc++] = a->text + k;
    fuzz_argv_seal(a);
}

static inline void fuzz_argv_done(fuzz_argv_t *a)
{
    if (memcmp(a->text, a->copy, a->size + 1))
        abort();
    free(a->argv);
    free(a->text);
    free(a->copy);
}

#endif /* FUZZ_ARGV_H */
