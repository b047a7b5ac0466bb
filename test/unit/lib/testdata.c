/* testdata.c -- test input paths and scratch files (see testdata.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testdata.h"

#define NBUF 8

/* A ring of buffers so that a few results can be used at once. */
static char *next_buf(void)
{
    static _Thread_local char bufs[NBUF][PATH_MAX];
    static _Thread_local unsigned next;
    return bufs[next++ % NBUF];
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "testdata: %s %s failed\n", what, path);
    abort();
}

const char *cm_test_data_path(const char *rel)
{
    const char *base = getenv("CM_TEST_DATA");
    char *buf = next_buf();
    if (!base || !*base)
        base = "test/data";
    if ((size_t)snprintf(buf, PATH_MAX, "%s/%s", base, rel) >= PATH_MAX)
        die("path too long:", rel);
    return buf;
}

char *cm_test_mkdtemp(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[PATH_MAX];
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(path, sizeof path, "%s/cm-test-XXXXXX", tmp);
    if (!mkdtemp(path))
        die("mkdtemp", path);
    char *dir = strdup(path);
    if (!dir)
        die("strdup", path);
    return dir;
}

const char *cm_test_write_file(const char *dir, const char *name,
                               const char *text)
{
    char *buf = next_buf();
    if ((size_t)snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
        die("path too long:", name);
    FILE *f = fopen(buf, "w");
    if (!f)
        die("fopen", buf);
    if (fputs(text, f) == EOF || fclose(f) != 0)
        die("write", buf);
    return buf;
}

void cm_test_rmtree(char *dir)
{
    if (!dir)
        return;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}
