/* fuzz_trace.c -- libFuzzer target for the tnbc trace parser (trace_parse,
 * src/trace/trace.c) and the store's rewrite of a trace's times
 * (trace_total, trace_retime): each rank of a run with the tnbc overlay
 * writes tnbc.<rank> into the user's directory, the store checks and keeps
 * them, and the next run reads the kept one back.
 *
 * The input is the file.  Inputs with a "site" or "time" line naming a
 * communicator of FUZZ_TRACE_MAX_N + 1 to 2^24 ranks are skipped: the
 * parser accepts up to 2^24 (TRACE_NMAX) and allocates the site's tables before
 * reading its peers, so a 30-byte line costs 200 MB and a fraction of a
 * second under ASan, and libFuzzer would spend its time there; the bound
 * is the parser's own check, not this target's.
 *
 * Asserts, beyond "no crash, no leak, no sanitizer report":
 *  - a refusal carries "fuzz:<line>: ..." and leaves the table empty;
 *  - every accepted site has a printable key of 1..127 bytes, a known
 *    collective, 2 <= n <= 2^24, 0 <= me < n, no twin, no call counted,
 *    and an order that holds every rank but me once;
 *  - the text with its time lines rewritten to the totals (what the store
 *    keeps) parses again, when no total passes the parser's 2^62 bound,
 *    to the same sites in the same order, each timed one with the totals
 *    of its (key, collective, size).
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TRACE_MAX_N 65536
#define TIME_MAX ((uint64_t)1 << 62)

/* 1 when a line's fourth word (a site's N) is a number above the bound
 * this target runs (a larger one than the parser accepts is refused before
 * any table, and is run). */
static int skip(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        int word = 0;
        while (i < n && s[i] != '\n') {
            while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
                i++;
            if (i >= n || s[i] == '\n')
                break;
            word++;
            if (word == 4 && isdigit((unsigned char)s[i])) {
                unsigned long v = 0;
                while (i < n && isdigit((unsigned char)s[i])) {
                    v = v * 10 + (unsigned long)(s[i++] - '0');
                    if (v > TRACE_NMAX)
                        v = TRACE_NMAX + 1UL;
                }
                if (v > FUZZ_TRACE_MAX_N && v <= TRACE_NMAX)
                    return 1;
            }
            while (i < n && s[i] != '\n' && s[i] != ' ' && s[i] != '\t' &&
                   s[i] != '\r')
                i++;
        }
        i++;
    }
    return 0;
}

static void check_site(const trace_t *t, const trace_site_t *s, char *seen)
{
    size_t kl = strnlen(s->key, TRACE_KEYMAX);
    if (kl == 0 || kl >= TRACE_KEYMAX || !trace_coll_name(s->coll) ||
        s->n < 2 || s->n > TRACE_NMAX || s->me < 0 || s->me >= s->n ||
        s->calls != 0 || trace_find(t, s->key, s->coll, s->n, s->me) != s)
        abort();
    for (size_t i = 0; i < kl; i++)
        if ((unsigned char)s->key[i] < 0x21 || (unsigned char)s->key[i] > 0x7e)
            abort();
    memset(seen, 0, (size_t)s->n);
    seen[s->me] = 1;
    for (int i = 0; i < s->n - 1; i++) {
        int r = s->order[i];
        if (r < 0 || r >= s->n || seen[r])
            abort();
        seen[r] = 1;
    }
}

/* The totals of site @p s's (key, collective, size) over @p t, and
 * whether they stay within the parser's bound. */
static int total_of(const trace_t *t, const trace_site_t *s, uint64_t *hid,
                    uint64_t *init)
{
    int ok = 1;
    *hid = *init = 0;
    for (int i = 0; i < t->nsite; i++) {
        const trace_site_t *o = t->site[i];
        if (!o->timed || o->coll != s->coll || o->n != s->n || strcmp(o->key, s->key))
            continue;
        ok &= !__builtin_add_overflow(*hid, o->hidden_ns, hid) &&
              !__builtin_add_overflow(*init, o->init_ns, init);
    }
    return ok && *hid <= TIME_MAX && *init <= TIME_MAX;
}

static void check_retime(const trace_t *t, const char *text, size_t len)
{
    trace_t tot = {0}, again = {0};
    char err[256] = "";
    size_t outlen;
    if (trace_total(&tot, t) < 0)
        abort();
    char *out = trace_retime(text, len, &tot, &outlen);
    if (!out || strlen(out) != outlen)
        abort();
    int bounded = 1;
    uint64_t hid, init;
    for (int i = 0; i < t->nsite; i++)
        bounded &= total_of(t, t->site[i], &hid, &init);
    if (bounded) {
        if (trace_parse(&again, out, outlen, "fuzz-again", err, sizeof err) < 0 ||
            again.nsite != t->nsite)
            abort();
        for (int i = 0; i < t->nsite; i++) {
            const trace_site_t *a = t->site[i], *b = again.site[i];
            if (strcmp(a->key, b->key) || a->coll != b->coll || a->n != b->n ||
                a->me != b->me || a->timed != b->timed ||
                memcmp(a->order, b->order, (size_t)(a->n - 1) * sizeof *a->order))
                abort();
            total_of(t, a, &hid, &init);
            if (a->timed && (b->hidden_ns != hid || b->init_ns != init))
                abort();
        }
    }
    free(out);
    trace_free(&again);
    trace_free(&tot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    trace_t t = {0};
    char err[256] = "";

    if (skip(text, size))
        return -1;
    if (trace_parse(&t, text, size, "fuzz", err, sizeof err) < 0) {
        if (strncmp(err, "fuzz:", 5) || t.nsite != 0 || t.site)
            abort();
        return 0;
    }
    int nmax = 2;
    for (int i = 0; i < t.nsite; i++)
        if (t.site[i]->n > nmax)
            nmax = t.site[i]->n;
    char *seen = malloc((size_t)nmax);
    if (!seen)
        abort();
    for (int i = 0; i < t.nsite; i++)
        check_site(&t, t.site[i], seen);
    free(seen);
    check_retime(&t, text, size);
    trace_free(&t);
    return 0;
}
