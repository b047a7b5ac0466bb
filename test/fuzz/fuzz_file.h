/* fuzz_file.h -- the one file a target hands its reader, for the targets
 * whose reader takes a path (fuzz_gres_conf.c, fuzz_mpirun_record.c).
 *
 * The file lives in a private directory made once with mkdtemp, in
 * /dev/shm when there is one (rewriting a file on a disk costs
 * milliseconds, on tmpfs microseconds), else /tmp, and removed at exit
 * (libFuzzer leaves through exit()). */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_dir[64], fuzz_path[128];

static void fuzz_file_remove(void)
{
    unlink(fuzz_path);
    rmdir(fuzz_dir);
}

/* Write data[0..size) to the file named @p name (the same name at every
 * call) and return its path; aborts when it cannot. */
static inline const char *fuzz_file(const char *name, const unsigned char *data,
                                    size_t size)
{
    if (!fuzz_dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/fuzz.XXXXXX", base);
        if (!mkdtemp(fuzz_dir))
            abort();
        snprintf(fuzz_path, sizeof fuzz_path, "%s/%s", fuzz_dir, name);
        atexit(fuzz_file_remove);
    }
    FILE *f = fopen(fuzz_path, "w");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return fuzz_path;
}

#endif
