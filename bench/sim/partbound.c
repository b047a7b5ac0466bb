/*
 * partbound -- a lower bound on the busiest part when an X x Y x Z grid
 * (non-periodic, 7-point: the halo mini-applications' neighbours) is cut
 * into parts of given sizes: under any placement that keeps Slurm's
 * per-node counts, the clusters (or leaves) of those sizes split the
 * halo's grid so, and the one with the most faces to the others sends
 * them all through its own link.  bench/README.md uses it to show which of
 * the judge's multi-cluster targets no placement can reach.
 *
 * The bound.  Cut the grid into X slices across x.  A set with a_x cells
 * in slice x has at least |a_x - a_{x+1}| edges to the rest between slices
 * x and x+1, and at least h(a_x) inside slice x, where h(k) is the fewest
 * edges any k cells of a Y x Z grid share with the rest of it (found by
 * trying all 2^(YZ) subsets).  So its boundary is at least
 * LB(a) = sum |a_x - a_{x+1}| + sum h(a_x).  The parts' profiles add up to
 * the full slice in every x; the smallest T for which some profiles with
 * LB <= T each add up so is a lower bound on the busiest part's boundary
 * under every partition.  Profiles with LB <= T are enumerated depth
 * first (LB only grows along x); two to four parts.
 *
 * Usage: partbound X Y Z S1,S2[,S3[,S4]]   (Z = 1 for a 2-D grid; the sizes
 *        add up to XYZ; YZ <= 20)
 *        prints "min_max_boundary>=T" and the profiles that meet it;
 *        partbound --check X Y Z S1,S2,...   (XYZ <= 14)
 *        also the exact minimum over all partitions, exit 1 if below T.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXX 64
#define MAXP 4

static int X, Y, Z, W, np, size[MAXP];
static int hmin[21];   /* h(k), k = 0..W (W <= 20) */

/* h(k) for every k: all subsets of one Y x Z slice. */
static void slice_minima(void)
{
    for (int k = 0; k <= W; k++)
        hmin[k] = 1 << 30;
    for (long m = 0; m < 1L << W; m++) {
        int k = 0, b = 0;
        for (int c = 0; c < W; c++) {
            int in = (int)(m >> c & 1), y = c / Z, z = c % Z;
            k += in;
            if (y + 1 < Y)
                b += in != (int)(m >> (c + Z) & 1);
            if (z + 1 < Z)
                b += in != (int)(m >> (c + 1) & 1);
        }
        if (b < hmin[k])
            hmin[k] = b;
    }
}

/* Profiles of one part with LB <= T: nprof of them, X ints each. */
typedef struct profs {
    int *a;
    long n, cap;
} profs_t;

static void add(profs_t *p, const int *a)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        p->a = realloc(p->a, sizeof(int) * (size_t)X * (size_t)p->cap);
        if (!p->a) {
            fprintf(stderr, "partbound: out of memory\n");
            exit(2);
        }
    }
    memcpy(p->a + (size_t)X * (size_t)p->n++, a, sizeof(int) * (size_t)X);
}

static void walk(profs_t *p, int *a, int x, int left, int lb, int T)
{
    if (x == X) {
        if (left == 0)
            add(p, a);
        return;
    }
    if (left > W * (X - x))
        return;
    for (int v = 0; v <= W && v <= left; v++) {
        int l = lb + hmin[v] + (x > 0 ? abs(v - a[x - 1]) : 0);
        if (l > T)
            continue;
        a[x] = v;
        walk(p, a, x + 1, left - v, l, T);
    }
}

static int cmp_prof(const void *x, const void *y)
{
    return memcmp(x, y, sizeof(int) * (size_t)X);
}

/* Parts k.. get profiles that fill @p rest (what parts 0..k-1 left of each
 * slice); the last part's is looked up among its sorted profiles. */
static int fill(const profs_t *p, int k, const int *rest, int *out)
{
    if (k == np - 1) {
        const int *hit = p[k].n ? bsearch(rest, p[k].a, (size_t)p[k].n,
                                          sizeof(int) * (size_t)X, cmp_prof)
                                : NULL;
        if (hit)
            memcpy(out + (size_t)X * k, hit, sizeof(int) * (size_t)X);
        return hit != NULL;
    }
    for (long i = 0; i < p[k].n; i++) {
        const int *a = p[k].a + (size_t)X * i;
        int left[MAXX], ok = 1;
        for (int x = 0; x < X && ok; x++)
            ok = (left[x] = rest[x] - a[x]) >= 0;
        if (ok && fill(p, k + 1, left, out)) {
            memcpy(out + (size_t)X * k, a, sizeof(int) * (size_t)X);
            return 1;
        }
    }
    return 0;
}

/* Whether profiles of every part, LB <= T, add up to W in each slice;
 * the first found goes to @p out (np x X). */
static int feasible(int T, int *out)
{
    profs_t p[MAXP];
    int a[MAXX], full[MAXX];
    memset(p, 0, sizeof p);
    for (int k = 0; k < np; k++)
        walk(&p[k], a, 0, size[k], 0, T);
    qsort(p[np - 1].a, (size_t)p[np - 1].n, sizeof(int) * (size_t)X, cmp_prof);
    for (int x = 0; x < X; x++)
        full[x] = W;
    int found = fill(p, 0, full, out);
    for (int k = 0; k < np; k++)
        free(p[k].a);
    return found;
}

/* The exact least busiest part over all partitions (small grids). */
static int exact(void)
{
    int n = X * Y * Z, part[32], best = 1 << 30;
    long total = 1;
    for (int c = 0; c < n; c++)
        total *= np;
    for (long code = 0; code < total; code++) {
        long c2 = code;
        int cnt[MAXP] = { 0 }, b[MAXP] = { 0 };
        for (int c = 0; c < n; c++) {
            part[c] = (int)(c2 % np);
            c2 /= np;
            cnt[part[c]]++;
        }
        int ok = 1;
        for (int k = 0; k < np; k++)
            ok &= cnt[k] == size[k];
        if (!ok)
            continue;
        for (int c = 0; c < n; c++) {
            int x = c / W, y = c % W / Z, z = c % Z;
            int nb[3] = { x + 1 < X ? c + W : -1, y + 1 < Y ? c + Z : -1,
                          z + 1 < Z ? c + 1 : -1 };
            for (int d = 0; d < 3; d++)
                if (nb[d] >= 0 && part[nb[d]] != part[c]) {
                    b[part[c]]++;
                    b[part[nb[d]]]++;
                }
        }
        int worst = 0;
        for (int k = 0; k < np; k++)
            worst = b[k] > worst ? b[k] : worst;
        best = worst < best ? worst : best;
    }
    return best;
}

static int usage(void)
{
    fprintf(stderr, "usage: partbound [--check] X Y Z S1,S2[,S3[,S4]] (sizes adding up to XYZ, "
                    "YZ <= 20; --check: XYZ <= 14)\n");
    return 2;
}

int main(int argc, char **argv)
{
    int check = argc > 1 && !strcmp(argv[1], "--check");
    if (argc != 5 + check)
        return usage();
    X = atoi(argv[1 + check]);
    Y = atoi(argv[2 + check]);
    Z = atoi(argv[3 + check]);
    W = Y * Z;
    char *s = argv[4 + check], *end;
    for (np = 0; np < MAXP && *s; np++) {
        size[np] = (int)strtol(s, &end, 10);
        if (end == s || size[np] < 1 || (*end && *end != ','))
            return usage();
        s = *end ? end + 1 : end;
    }
    int sum = 0;
    for (int k = 0; k < np; k++)
        sum += size[k];
    if (X < 1 || X > MAXX || Y < 1 || Z < 1 || W > 20 || np < 2 || *s ||
        sum != X * Y * Z || (check && X * Y * Z > 14))
        return usage();
    slice_minima();
    int out[MAXP * MAXX];
    int T = 0;
    while (!feasible(T, out))
        T++;
    printf("grid=%dx%dx%d parts=%s min_max_boundary>=%d\n", X, Y, Z, argv[4 + check], T);
    for (int k = 0; k < np; k++) {
        printf("part %d (%d cells), cells per x slice:", k, size[k]);
        for (int x = 0; x < X; x++)
            printf(" %d", out[(size_t)X * k + x]);
        printf("\n");
    }
    if (check) {
        int e = exact();
        printf("exact=%d%s\n", e, e < T ? " BELOW THE BOUND" : "");
        return e < T;
    }
    return 0;
}
