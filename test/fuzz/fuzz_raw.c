/* fuzz_raw.c -- libFuzzer target for the raw-profile reader
 * (cm_raw_read_fd) and the conversion of a raw profile into a stored one.
 * Build and run: see docs/fuzzing.md and test/sh/t0210-fuzz.t. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cm_store.h"
#include "raw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_error_t err;
    cm_raw_profile_t raw;
    cm_profile_t *p;
    int fd = memfd_create("fuzz", MFD_CLOEXEC);

    if (fd < 0)
        abort();
    if (size && write(fd, data, size) != (ssize_t)size)
        abort();
    lseek(fd, 0, SEEK_SET);
    if (cm_raw_read_fd(fd, "fuzz", 1 << 20, &raw, &err) == 0) {
        p = cm_profile_from_raw(&raw, 1000, "fuzz", "job", 0, &err);
        cm_profile_free(p);
        cm_raw_release(&raw);
    }
    close(fd);
    return 0;
}
