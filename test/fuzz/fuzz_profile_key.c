/* fuzz_profile_key.c -- libFuzzer target for the profile key of a program
 * (cm_profile_program_key) and its reader (cm_profile_key_program,
 * src/profiles/profile_key.c): the key is made of the user's job name and
 * the path of the program srun or mpirun starts, and read back from
 * profile names in the store and from mpirun's record.
 *
 * The input is cut at its first NUL byte into the job name and the path
 * (absent: empty).  Asserts, beyond "no crash, no leak, no sanitizer
 * report":
 *  - the whole input, read as a key, either has no program part (the name
 *    is all of it) or has one right after an '@' that is not the first
 *    byte, ending in '-' and 8 lowercase hex digits;
 *  - an empty job name or path is refused with a message;
 *  - otherwise the key fits CM_PROFILE_MAX_NAME, reads back with a
 *    program part, its name part is the job name (cut only when the key
 *    would not fit), and its program part is a non-empty name of
 *    [A-Za-z0-9._-] followed by '-' and the low 32 bits of FNV-1a 64 of
 *    the path in 8 hex digits.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FNV-1a 64, written here again: the check does not borrow the code. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void check_reader(const char *key)
{
    size_t len = strlen(key), nl = (size_t)-1;
    const char *prog = cm_profile_key_program(key, &nl);
    if (!prog) {
        if (nl != len)
            abort();
        return;
    }
    if (prog <= key + 1 || prog > key + len || prog[-1] != '@' ||
        nl != (size_t)(prog - 1 - key))
        abort();
    size_t pl = strlen(prog);
    if (pl < 9 || prog[pl - 9] != '-' ||
        strspn(prog + pl - 8, "0123456789abcdef") != 8)
        abort();
}

static void check_key(const char *job, const char *path)
{
    char key[CM_PROFILE_MAX_NAME + 1];
    cm_error_t err = {""};
    if (cm_profile_program_key(job, path, key, sizeof key, &err) < 0) {
        if (!err.msg[0] || (*job && *path))
            abort();
        return;
    }
    if (!*job || !*path || !memchr(key, '\0', sizeof key))
        abort();
    size_t nl, kl = strlen(key);
    const char *prog = cm_profile_key_program(key, &nl);
    if (!prog || nl < 1 || memcmp(key, job, nl))
        abort();
    size_t pl = strlen(prog), name = pl - 9;
    if (name < 1 || strspn(prog, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789._-") < name)
        abort();
    char hex[9];
    snprintf(hex, sizeof hex, "%08llx", (unsigned long long)(fnv1a(path) & 0xffffffffull));
    if (strcmp(prog + name + 1, hex))
        abort();
    /* the job name is cut only when the whole would not fit */
    if (nl < strlen(job) && strlen(job) + 1 + pl <= CM_PROFILE_MAX_NAME)
        abort();
    if (kl > CM_PROFILE_MAX_NAME)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 2);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    buf[size] = buf[size + 1] = '\0';
    const char *job = buf;
    size_t jl = strlen(job);
    const char *path = jl < size ? buf + jl + 1 : buf + size + 1;
    check_reader(job);
    check_key(job, path);
    free(buf);
    return 0;
}
