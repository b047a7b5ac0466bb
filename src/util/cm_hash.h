/*
 * cm_hash.h -- FNV-1a, 64 bits: the one hash of clustermap's on-disk and
 * on-wire names (profile checksums and long store file names, the
 * overlays' agreement slots and node labels).  Header-only, so that every
 * library that needs it, MPI-compiled or not, has it without a link
 * dependency.  Changing it changes stored checksums and file names:
 * docs/profile-format.md documents it as FNV-1a 64.
 */
#ifndef CM_HASH_H
#define CM_HASH_H

#include <stddef.h>
#include <stdint.h>

/** FNV-1a's offset basis: the value to start a hash from. */
#define CM_FNV1A_START 0xcbf29ce484222325ull

/** @p h (CM_FNV1A_START, or a hash so far) continued over @p len bytes at
 *  @p data.  Pure; @p data may be NULL only when @p len is 0. */
static inline uint64_t cm_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#endif /* CM_HASH_H */
