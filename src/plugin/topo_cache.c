/*
 * topo_cache.c -- the controller's switches, kept between a user's sruns.
 *
 * A placed srun needs the switch tree; asking slurmctld for it on every
 * step is the one request whose cost grows with the cluster.  The tree only
 * changes when the controller reads new configuration files, so srun keeps
 * the last answer and reuses it while:
 *   - slurm.conf and, in its directory, topology.conf and topology.yaml
 *     have the device, inode, size and modification time (or absence) they
 *     had when the answer was kept: editing any of them (which an admin
 *     does before `scontrol reconfigure`) invalidates it;
 *   - it is younger than topo_cache= seconds (plugstack.conf, default
 *     3600; 0 keeps nothing): a bound for changes the files do not show;
 *   - it knows every node of the step: a node added since (a dynamic
 *     node, a new rack) makes that srun ask the controller once and keep
 *     the new answer, rather than leave steps to Slurm until it expires.
 * Without slurm.conf (configless srun without slurmd's copy) one answer
 * per cluster, topology-configless-<hash of SLURM_CLUSTER_NAME>, is kept
 * on the last two rules alone.
 * Where: $XDG_RUNTIME_DIR/clustermap when XDG_RUNTIME_DIR is a directory
 * of the user's, else /tmp/clustermap-<uid> (node-local), made 0700 when
 * missing; the file topology-<hash of slurm.conf's path>.  srun runs as
 * the user, so the cache is the user's own: the directory is used only
 * when it is a directory (not a link) owned by the user with no group or
 * other access, the file only when regular, the user's and at most 16 MiB.
 * Anything else (a directory another user made first, a bad file) only
 * disables the cache: the controller is asked, as without it.  Writes go
 * to a temporary name renamed over the old file, so concurrent sruns read
 * a whole answer or none.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cm_file.h"
#include "cmp_topo.h"

#define CACHE_MAX_BYTES (16L << 20)
const char *cmp_topo_cache_tmp = "/tmp";
/* 2: blocks are kept as BlockName lines.  A file of 1 held them as
 * switches, whose level is named otherwise: it is a miss, asked again. */
#define CACHE_MAGIC "clustermap topology cache 2"
#define NODES_MAGIC "clustermap node cache 1"

/* "dev:ino:size:mtime.ns" of @p path, or "-" when it does not exist. */
static int stat_key(const char *path, char *buf, size_t len)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            return -1;
        snprintf(buf, len, "-");
        return 0;
    }
    snprintf(buf, len, "%" PRIu64 ":%" PRIu64 ":%" PRId64 ":%" PRId64 ".%09ld",
             (uint64_t)st.st_dev, (uint64_t)st.st_ino, (int64_t)st.st_size,
             (int64_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    return 0;
}

static int conf_key(const char *conf, char *key, size_t len)
{
    char dir[CMP_PATH_MAX], k[3][96], path[CMP_PATH_MAX + 16];
    const char *slash = strrchr(conf, '/');
    if (!slash || (size_t)(slash - conf) >= sizeof dir)
        return -1;
    memcpy(dir, conf, (size_t)(slash - conf));
    dir[slash - conf] = '\0';
    if (stat_key(conf, k[0], sizeof k[0]) < 0 || !strcmp(k[0], "-"))
        return -1;
    snprintf(path, sizeof path, "%s/topology.conf", dir);
    if (stat_key(path, k[1], sizeof k[1]) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/topology.yaml", dir);
    if (stat_key(path, k[2], sizeof k[2]) < 0)
        return -1;
    snprintf(key, len, "%s %s %s", k[0], k[1], k[2]);
    return 0;
}

/* A directory of the user's that only the user can enter, made when
 * missing; -1 when there is none. */
static int own_dir(const char *path, int create)
{
    cm_file_want_t want = { 1, geteuid(), 077 };
    if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
        return -1;
    return cm_file_open_at(AT_FDCWD, path, path, &want, NULL);
}

int cmp_topo_cache_open(cmp_topo_cache_t *tc, const char *slurm_conf, int ttl)
{
    memset(tc, 0, sizeof *tc);
    tc->dirfd = -1;
    if (ttl <= 0)
        return -1;
    uint64_t h = 1469598103934665603ULL;
    if (!slurm_conf) {
        /* No file to watch: the age bound, and the nodes the answer must
         * know (cmp_topo_cache_get), keep it current; one answer per
         * cluster the job names (a login node may serve several). */
        const char *cluster = getenv("SLURM_CLUSTER_NAME");
        for (const char *p = cluster ? cluster : ""; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        snprintf(tc->key, sizeof tc->key, "configless");
        snprintf(tc->name, sizeof tc->name, "topology-configless-%016" PRIx64, h);
    } else {
        if (slurm_conf[0] != '/' || conf_key(slurm_conf, tc->key, sizeof tc->key) < 0)
            return -1;
        for (const char *p = slurm_conf; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        snprintf(tc->name, sizeof tc->name, "topology-%016" PRIx64, h);
    }
    tc->ttl = ttl;

    char dir[CMP_PATH_MAX];
    const char *run = getenv("XDG_RUNTIME_DIR");
    int base = run && run[0] == '/' ? own_dir(run, 0) : -1;
    if (base >= 0) {
        close(base);
        if ((size_t)snprintf(dir, sizeof dir, "%s/clustermap", run) < sizeof dir)
            tc->dirfd = own_dir(dir, 1);
    }
    if (tc->dirfd < 0) {
        snprintf(dir, sizeof dir, "%s/clustermap-%u", cmp_topo_cache_tmp,
                 (unsigned)geteuid());
        tc->dirfd = own_dir(dir, 1);
    }
    return tc->dirfd >= 0 ? 0 : -1;
}

void cmp_topo_cache_close(cmp_topo_cache_t *tc)
{
    if (tc->dirfd >= 0)
        close(tc->dirfd);
    tc->dirfd = -1;
}

/* The whole file, NUL-terminated, when it is the caller's own; or NULL. */
/* The kept file @p name of the cache's directory, NULL when there is none
 * or it is not this user's own regular file (never followed as a link). */
static char *cache_read(const cmp_topo_cache_t *tc, const char *name, size_t *len)
{
    cm_file_want_t want = { 0, geteuid(), 0 };
    *len = 0;
    if (tc->dirfd < 0)
        return NULL;
    int fd = openat(tc->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *text = cm_file_check(fd, "topology cache", &want, NULL) < 0
        ? NULL
        : cm_file_read_fd(fd, "topology cache", CACHE_MAX_BYTES, len, NULL);
    close(fd);
    return text;
}

int cmp_topo_cache_get(const cmp_topo_cache_t *tc, const char *const *nodes, int nn,
                       cmp_switch_t **sw, int *n)
{
    *sw = NULL;
    *n = 0;
    size_t len;
    char *text = cache_read(tc, tc->name, &len);
    if (!text)
        return 0;
    /* CACHE_MAGIC \n key KEY \n written T \n records */
    char *key = strchr(text, '\n');
    char *when = key ? strchr(key + 1, '\n') : NULL;
    char *body = when ? strchr(when + 1, '\n') : NULL;
    int hit = 0;
    if (body) {
        *key++ = *when++ = *body++ = '\0';
        long long t = 0;
        char tail;
        time_t now = time(NULL);
        if (!strcmp(text, CACHE_MAGIC) && !strncmp(key, "key ", 4) &&
            !strcmp(key + 4, tc->key) && sscanf(when, "written %lld%c", &t, &tail) == 1 &&
            t <= (long long)now && (long long)now - t < tc->ttl) {
            cm_error_t e;
            hit = cmp_switches_parse(body, len - (size_t)(body - text), sw, n, &e) == 0;
            if (hit && !cmp_switches_cover(*sw, *n, nodes, nn)) {
                cmp_switches_free(*sw, *n);
                *sw = NULL;
                *n = 0;
                hit = 0;
            }
        }
    }
    free(text);
    return hit;
}

/* Every value of a record goes back through the blank-separated parser:
 * a name with a blank or a line break would not (Slurm allows neither). */
static int writable(const char *s)
{
    return !s || !s[strcspn(s, " \t\n\r")];
}

void cmp_topo_cache_put(const cmp_topo_cache_t *tc, const cmp_switch_t *sw, int n)
{
    if (tc->dirfd < 0)
        return;
    for (int i = 0; i < n; i++)
        if (!sw[i].name || !*sw[i].name || !writable(sw[i].name) ||
            !writable(sw[i].nodes) || !writable(sw[i].switches))
            return;
    char tmp[sizeof tc->name + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", tc->name, (long)getpid());
    int fd = openat(tc->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlinkat(tc->dirfd, tmp, 0);
        return;
    }
    fprintf(f, "%s\nkey %s\nwritten %lld\n", CACHE_MAGIC, tc->key, (long long)time(NULL));
    for (int i = 0; i < n; i++) {
        /* a block goes back as a block, or a later srun names its level
         * "switch" */
        if (sw[i].block)
            fprintf(f, "BlockName=%s", sw[i].name);
        else
            fprintf(f, "SwitchName=%s Level=%d", sw[i].name, sw[i].level);
        if (sw[i].nodes)
            fprintf(f, " Nodes=%s", sw[i].nodes);
        if (sw[i].switches)
            fprintf(f, " Switches=%s", sw[i].switches);
        fputc('\n', f);
    }
    int bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || renameat(tc->dirfd, tmp, tc->dirfd, tc->name) < 0)
        unlinkat(tc->dirfd, tmp, 0);
}

/* ---- node records ------------------------------------------------------
 * nodes-<the topology file's suffix>: NODES_MAGIC, "key KEY", then one
 * line a node, "NodeName=N Sockets=S CoresPerSocket=C ThreadsPerCore=T
 * Written=TIME", each valid ttl seconds from its own TIME. */

typedef struct node_rec {
    char *name;
    cm_node_hw_t hw;
    long long written;
} node_rec_t;

static int rec_by_name(const void *a, const void *b)
{
    return strcmp(((const node_rec_t *)a)->name, ((const node_rec_t *)b)->name);
}

static void nodes_name(const cmp_topo_cache_t *tc, char *buf, size_t len)
{
    const char *dash = strchr(tc->name, '-');
    snprintf(buf, len, "nodes%s", dash ? dash : "");
}

static void recs_free(node_rec_t *r, int n)
{
    for (int i = 0; i < n; i++)
        free(r[i].name);
    free(r);
}

/* The valid records of the kept file, sorted by name; 0 when none. */
static int recs_read(const cmp_topo_cache_t *tc, node_rec_t **out)
{
    char name[sizeof tc->name + 8];
    node_rec_t *r = NULL;
    int n = 0, cap = 0;
    *out = NULL;
    nodes_name(tc, name, sizeof name);
    size_t len;
    char *text = cache_read(tc, name, &len);
    if (!text)
        return 0;
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    int ok = line && !strcmp(line, NODES_MAGIC);
    line = ok ? strtok_r(NULL, "\n", &save) : NULL;
    ok = line && !strncmp(line, "key ", 4) && !strcmp(line + 4, tc->key);
    long long now = (long long)time(NULL);
    while (ok && (line = strtok_r(NULL, "\n", &save))) {
        node_rec_t x = { NULL, { 0, 0, 0 }, 0 };
        int end = 0;
        if (sscanf(line,
                   "NodeName=%ms Sockets=%d CoresPerSocket=%d ThreadsPerCore=%d "
                   "Written=%lld%n",
                   &x.name, &x.hw.sockets, &x.hw.cores_per_socket, &x.hw.threads_per_core,
                   &x.written, &end) != 5 ||
            line[end] || x.hw.sockets < 1 || x.hw.cores_per_socket < 1 ||
            x.hw.threads_per_core < 1 || x.written > now || now - x.written >= tc->ttl) {
            free(x.name);
            continue;
        }
        if (n == cap) {
            node_rec_t *nr = realloc(r, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *r);
            if (!nr) {
                free(x.name);
                break;
            }
            r = nr;
        }
        r[n++] = x;
    }
    free(text);
    if (n > 1)
        qsort(r, (size_t)n, sizeof *r, rec_by_name);
    *out = r;
    return n;
}

int cmp_topo_cache_get_nodes(const cmp_topo_cache_t *tc, const char *const *nodes, int nn,
                             cm_node_hw_t *hw)
{
    node_rec_t *r;
    int n = recs_read(tc, &r), filled = 0;
    for (int i = 0; i < nn && n > 0; i++) {
        node_rec_t key = { (char *)nodes[i], { 0, 0, 0 }, 0 };
        const node_rec_t *hit = bsearch(&key, r, (size_t)n, sizeof *r, rec_by_name);
        if (hit) {
            hw[i] = hit->hw;
            filled++;
        }
    }
    recs_free(r, n);
    return filled;
}

void cmp_topo_cache_put_nodes(const cmp_topo_cache_t *tc, const char *const *nodes,
                              const cm_node_hw_t *hw, int nn)
{
    if (tc->dirfd < 0)
        return;
    node_rec_t *r;
    int n = recs_read(tc, &r);
    char name[sizeof tc->name + 8], tmp[sizeof name + 32];
    nodes_name(tc, name, sizeof name);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", name, (long)getpid());
    int fd = openat(tc->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) {
            close(fd);
            unlinkat(tc->dirfd, tmp, 0);
        }
        recs_free(r, n);
        return;
    }
    long long now = (long long)time(NULL);
    fprintf(f, "%s\nkey %s\n", NODES_MAGIC, tc->key);
    for (int i = 0; i < nn; i++) /* the new records ... */
        if (nodes[i] && nodes[i][0] && writable(nodes[i]) && hw[i].sockets > 0 &&
            hw[i].cores_per_socket > 0 && hw[i].threads_per_core > 0)
            fprintf(f,
                    "NodeName=%s Sockets=%d CoresPerSocket=%d ThreadsPerCore=%d "
                    "Written=%lld\n",
                    nodes[i], hw[i].sockets, hw[i].cores_per_socket,
                    hw[i].threads_per_core, now);
    for (int k = 0; k < n; k++) { /* ... and the kept ones not among them */
        int again = 0;
        for (int i = 0; i < nn && !again; i++)
            again = nodes[i] && !strcmp(nodes[i], r[k].name);
        if (!again)
            fprintf(f,
                    "NodeName=%s Sockets=%d CoresPerSocket=%d ThreadsPerCore=%d "
                    "Written=%lld\n",
                    r[k].name, r[k].hw.sockets, r[k].hw.cores_per_socket,
                    r[k].hw.threads_per_core, r[k].written);
    }
    recs_free(r, n);
    int bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || renameat(tc->dirfd, tmp, tc->dirfd, name) < 0)
        unlinkat(tc->dirfd, tmp, 0);
}
