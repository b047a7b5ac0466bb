/* fuzz_profile_json.c -- libFuzzer target for the stored-profile parser
 * (cm_profile_parse_json).  Every accepted document must serialise back to
 * a document that parses to the same checksum.  Build and run: see
 * docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdlib.h>

#include "cm_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_error_t err;
    cm_profile_t *p = cm_profile_parse_json((const char *)data, size, "fuzz",
                                            &err), *q;
    size_t len;
    char *text;

    if (!p)
        return 0;
    text = cm_profile_to_json(p, &len, &err);
    if (!text)
        abort();
    q = cm_profile_parse_json(text, len, "fuzz-again", &err);
    if (!q || cm_profile_checksum(p) != cm_profile_checksum(q))
        abort();
    free(text);
    cm_profile_free(p);
    cm_profile_free(q);
    return 0;
}
