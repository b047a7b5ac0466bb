/* rng.c -- a small deterministic generator (xoshiro256**, seeded by
 * splitmix64).  Placement must be reproducible on every machine, so nothing
 * here depends on the C library's rand(). */
#include "clustermap.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void cm_rng_seed(cm_rng_t *r, uint64_t seed)
{
    if (!r)
        return;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

uint64_t cm_rng_next(cm_rng_t *r)
{
    if (!r)
        return 0;
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t cm_rng_below(cm_rng_t *r, uint64_t bound)
{
    if (bound <= 1 || !r)
        return 0;
    /* Rejection keeps the draw unbiased: discard the top partial range. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = cm_rng_next(r);
    while (x >= limit);
    return x % bound;
}

double cm_rng_double(cm_rng_t *r)
{
    return (double)(cm_rng_next(r) >> 11) * 0x1.0p-53;
}
