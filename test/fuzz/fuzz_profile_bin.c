/* fuzz_profile_bin.c -- libFuzzer target for the binary form of stored
 * profiles (cm_profile_parse_bin).  Every accepted profile must write back
 * to the same bytes' meaning: its binary form parses to the same checksum,
 * and so does its JSON document.  Build and run: see docs/fuzzing.md and
 * test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdlib.h>

#include "cm_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_error_t err;
    /* The store's own bounds: a file of at most the default size limit,
     * a body of at most 16 times that.  A deflate bomb of minimal entries
     * must then stay under the entry ceiling and the run's RSS limit. */
    const size_t max_body = 16 * CM_PROFILE_DEFAULT_MAX_BYTES;
    if (size > CM_PROFILE_DEFAULT_MAX_BYTES)
        return 0;
    cm_profile_t *p = cm_profile_parse_bin(data, size, "fuzz", max_body, &err), *q, *r;
    size_t len, jlen;
    char *bin, *json;

    if (!p)
        return 0;
    bin = cm_profile_to_bin(p, &len, &err);
    json = cm_profile_to_json(p, &jlen, &err);
    if (!bin || !json)
        abort();
    q = cm_profile_parse_bin(bin, len, "fuzz-again", max_body, &err);
    r = cm_profile_parse_json(json, jlen, "fuzz-json", &err);
    if (!q || !r || cm_profile_checksum(p) != cm_profile_checksum(q) ||
        cm_profile_checksum(p) != cm_profile_checksum(r))
        abort();
    free(bin);
    free(json);
    cm_profile_free(p);
    cm_profile_free(q);
    cm_profile_free(r);
    return 0;
}
