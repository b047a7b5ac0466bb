/* cost.c -- the objective J(pi), the per-rank bottleneck T_max(pi), the
 * busiest uplink L_max(pi) and the per-level breakdown `eval` prints.
 *
 * Traffic is summed per lowest-common-ancestor level first and multiplied by
 * the level costs once at the end.  The sums use long double with Neumaier
 * compensation: integer volumes are summed exactly far beyond 2^53, and
 * for other inputs the result hardly depends on the order in which entries
 * are visited (which keeps J comparable between implementations). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* Compensated (Neumaier) accumulator. */
typedef struct acc {
    long double sum, comp;
} acc_t;

static void acc_add(acc_t *a, long double x)
{
    long double t = a->sum + x;
    if (fabsl(a->sum) >= fabsl(x))
        a->comp += (a->sum - t) + x;
    else
        a->comp += (x - t) + a->sum;
    a->sum = t;
}

static long double acc_value(const acc_t *a)
{
    return a->sum + a->comp;
}

/* Per-level byte and message totals over the matrix under @p map; out_node
 * (may be NULL) receives, per compute node, the bytes its ranks send to
 * ranks on other nodes. */
static void level_sums(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                       acc_t *lb, acc_t *lm, acc_t *out_node)
{
    int n = cm_matrix_n(m);
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        int src_node = out_node ? cm_tree_slot_node(t, map[i]) : -1;
        for (int k = 0; k < len; k++) {
            int j = cols[k];
            int l = cm_tree_lca_level(t, map[i], map[j]);
            acc_add(&lb[l], bytes[k]);
            if (msgs)
                acc_add(&lm[l], msgs[k]);
            if (src_node >= 0 && cm_tree_slot_node(t, map[j]) != src_node)
                acc_add(&out_node[src_node], bytes[k]);
        }
    }
}

/* J from the level sums, priced at @p cb and @p cm (per byte, per message)
 * or, when @p cb is NULL, at the tree's own level costs. */
static double combine(const cm_tree_t *t, const acc_t *lb, const acc_t *lm, int nlev,
                      const double *cb, const double *cm)
{
    acc_t j = {0, 0};
    for (int l = 0; l < nlev; l++) {
        double b = cb ? cb[l] : cm_tree_level_byte_cost(t, l);
        double g = cb ? cm[l] : cm_tree_level_msg_cost(t, l);
        acc_add(&j, acc_value(&lb[l]) * (long double)b);
        acc_add(&j, acc_value(&lm[l]) * (long double)g);
    }
    return (double)acc_value(&j);
}

/* Range check only: cm_cost has no error channel and must not index out of
 * bounds on a bad map. */
static int map_in_range(const cm_tree_t *t, const int *map, int n)
{
    int nslots = cm_tree_nslots(t);
    for (int i = 0; i < n; i++)
        if (map[i] < 0 || map[i] >= nslots)
            return 0;
    return 1;
}

/* Each rank's node under @p map, looked up once (malloc'd; NULL without
 * memory): the per-entry loops of T_max and L_max read it instead of
 * walking the tree for both ends of every entry. */
static int *rank_nodes(const cm_tree_t *t, const int *map, int n)
{
    int *node = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; node && i < n; i++)
        node[i] = cm_tree_slot_node(t, map[i]);
    return node;
}

double cm_cost(const cm_matrix_t *m, const cm_tree_t *t, const int *map)
{
    if (!m || !t || !map)
        return NAN;
    int n = cm_matrix_n(m);
    int nlev = cm_tree_nlevels(t);
    if (nlev < 1 || !map_in_range(t, map, n))
        return NAN;
    acc_t *lb = calloc((size_t)nlev * 2, sizeof *lb);
    if (!lb)
        return NAN;
    level_sums(m, t, map, lb, lb + nlev, NULL);
    double J = combine(t, lb, lb + nlev, nlev, NULL, NULL);
    free(lb);
    return J;
}

int cm_cost_report(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                   cm_cost_report_t *r, cm_error_t *err)
{
    return cm_cost_report_levels(m, t, map, NULL, NULL, r, err);
}

int cm_cost_report_levels(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                          const double *cb, const double *cm, cm_cost_report_t *r,
                          cm_error_t *err)
{
    if (!m || !t || !map || !r)
        return cm_error_set(err, "cost report: expected a matrix, a tree, a map and a "
                            "report, got NULL");
    if (!r->level_bytes)
        return cm_error_set(err, "cost report: level_bytes: expected an array of %d "
                            "doubles, got NULL", cm_tree_nlevels(t));
    int n = cm_matrix_n(m);
    if (cm_mapping_check(t, map, n, err) < 0)
        return -1;
    int nlev = cm_tree_nlevels(t);
    int nnodes = cm_tree_nnodes(t);
    acc_t *lb = calloc((size_t)nlev * 2 + (size_t)nnodes, sizeof *lb);
    if (!lb)
        return cm_error_set(err, "cost report: out of memory");
    acc_t *lm = lb + nlev, *out = lb + 2 * nlev;
    level_sums(m, t, map, lb, lm, nnodes > 0 ? out : NULL);

    r->J = combine(t, lb, lm, nlev, cb, cm);
    r->nlevels = nlev;
    for (int l = 0; l < nlev; l++) {
        r->level_bytes[l] = (double)acc_value(&lb[l]);
        if (r->level_msgs)
            r->level_msgs[l] = (double)acc_value(&lm[l]);
    }
    r->max_node = -1;
    r->max_node_out = 0;
    for (int k = 0; k < nnodes; k++) {
        double v = (double)acc_value(&out[k]);
        if (r->max_node < 0 || v > r->max_node_out) {
            r->max_node = k;
            r->max_node_out = v;
        }
    }
    free(lb);
    return 0;
}

/* T_max.  Each entry (i -> j) is charged to its receiver j: under SMPI's
 * default protocol a small message moves only once its receive is posted,
 * so a rank's blocking receives cost it one latency each, one after the
 * other, and a pipeline advances at the pace of the rank whose receives
 * cost the most.  Senders are not charged: their sends are detached, and
 * charging both ends credits a wavefront tile's corner rank with its cheap
 * sends (1.3x block where the replay is 1.9x).
 *
 * The bytes of an entry that crosses nodes are charged to the receiver's
 * node instead, and every rank of that node waits for all of them: the
 * node's ranks share its network interface (intra-node transfers have
 * their own path).  Charged to the rank alone, a 2-D halo's 2x4 tiles
 * looked 1.24-1.30x block, as slow as the wavefront's, where the replay
 * gives 0.54 -- they take in a third fewer bytes per node; shared, 0.68-0.71
 * (docs/machine-costs.md, "T_max").  Sums are compensated as J's. */
double cm_cost_max_levels(const cm_matrix_t *m, const cm_tree_t *t,
                          const int *map, const double *cb, const double *cm)
{
    if (!m || !t || !map || !cb || !cm)
        return NAN;
    int n = cm_matrix_n(m);
    if (cm_tree_nlevels(t) < 1 || !map_in_range(t, map, n))
        return NAN;
    int nnodes = cm_tree_nnodes(t);
    acc_t *own = calloc((size_t)n + (size_t)nnodes + 1, sizeof *own);
    int *node = rank_nodes(t, map, n);
    if (!own || !node) {
        free(own);
        free(node);
        return NAN;
    }
    acc_t *node_in = own + n;   /* per node: bytes from other nodes */
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        int from = node[i];
        for (int k = 0; k < len; k++) {
            int j = cols[k];
            int l = cm_tree_lca_level(t, map[i], map[j]);
            int to = node[j];
            acc_add(to >= 0 && to != from ? &node_in[to] : &own[j],
                    bytes[k] * (long double)cb[l]);
            if (msgs)
                acc_add(&own[j], msgs[k] * (long double)cm[l]);
        }
    }
    double worst = 0;
    for (int j = 0; j < n; j++) {
        int v = node[j];
        long double T = acc_value(&own[j]) + (v >= 0 ? acc_value(&node_in[v]) : 0);
        worst = fmax(worst, (double)T);
    }
    free(own);
    free(node);
    return worst;
}

/* The tree's own level costs: byte costs, then message costs, nlevels
 * each (caller frees); NULL without levels or memory. */
static double *tree_costs(const cm_tree_t *t)
{
    int nlev = t ? cm_tree_nlevels(t) : 0;
    double *cb = nlev > 0 ? malloc(sizeof(double) * 2 * (size_t)nlev) : NULL;
    for (int l = 0; cb && l < nlev; l++) {
        cb[l] = cm_tree_level_byte_cost(t, l);
        cb[nlev + l] = cm_tree_level_msg_cost(t, l);
    }
    return cb;
}

double cm_cost_max(const cm_matrix_t *m, const cm_tree_t *t, const int *map)
{
    double *cb = tree_costs(t);
    if (!cb)
        return NAN;
    double T = cm_cost_max_levels(m, t, map, cb, cb + cm_tree_nlevels(t));
    free(cb);
    return T;
}

/* L_max.  Every byte between two nodes leaves its sender's node, and every
 * switch group below the pair's lowest common ancestor, through that
 * vertex's uplink, and enters the receiver's side through theirs.  The
 * uplink of a vertex v leads to the level of its parent, whose byte cost
 * is one node's share of that link (docs/machine-costs.md) -- the share
 * of the level's smallest group, k nodes -- so the uplink is busy for
 * bytes x cost(parent's level) / k, each direction counted apart (links
 * are full duplex).  The largest
 * is the bottleneck a bulk exchange waits for -- on a multi-cluster
 * machine a cluster's slow link, which J, a sum over all links, cannot
 * see: it prefers fewer bytes across in all to fewer across the busiest
 * link. */
double cm_cost_uplink_loads(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                            const double *cb, double *load)
{
    if (!m || !t || !map || !cb)
        return NAN;
    int n = cm_matrix_n(m), nv = cm_tree_nvertices(t), nn = cm_tree_nnodes(t);
    if (cm_tree_nlevels(t) < 1 || !map_in_range(t, map, n))
        return NAN;
    for (int v = 0; load && v < nv; v++)
        load[v] = 0;
    if (nn < 2)
        return 0;
    acc_t *io = calloc(2 * (size_t)nv, sizeof *io);   /* out, then in, per vertex */
    int *nodes = calloc((size_t)nv, sizeof *nodes);
    if (!io || !nodes) {
        free(io);
        free(nodes);
        return NAN;
    }
    for (int k = 0; k < nn; k++)
        for (int v = cm_tree_node_vertex(t, k); v >= 0; v = cm_tree_vertex_parent(t, v))
            nodes[v]++;
    /* a level's cost is the share of its smallest group (mkplatform: the
     * smallest cluster's share of the link every cluster has): its groups'
     * uplinks are taken as that many shares each */
    int nlev = cm_tree_nlevels(t), *least = calloc((size_t)nlev, sizeof *least);
    if (!least) {
        free(io);
        free(nodes);
        return NAN;
    }
    for (int v = 0; v < nv; v++) {
        int l = cm_tree_vertex_level(t, v);
        if (nodes[v] > 0 && (!least[l] || nodes[v] < least[l]))
            least[l] = nodes[v];
    }
    /* Each node's way up, once: its vertices from the node to the root,
     * their levels and the byte cost of their uplinks, W entries a node
     * (a few per node: the walk of every entry stays in cache), and each
     * rank's node. */
    int W = 1;
    for (int k = 0; k < nn; k++) {
        int d = 0;
        for (int v = cm_tree_node_vertex(t, k); v >= 0; v = cm_tree_vertex_parent(t, v))
            d++;
        W = d > W ? d : W;
    }
    int *up = malloc(sizeof(int) * 2 * (size_t)nn * W), *node = rank_nodes(t, map, n);
    double *upcost = malloc(sizeof(double) * (size_t)nn * W);
    if (!up || !node || !upcost) {
        free(io);
        free(nodes);
        free(least);
        free(up);
        free(node);
        free(upcost);
        return NAN;
    }
    int *uplev = up + (size_t)nn * W;
    for (int k = 0; k < nn; k++) {
        int d = 0;
        for (int v = cm_tree_node_vertex(t, k); v >= 0; v = cm_tree_vertex_parent(t, v), d++) {
            int p = cm_tree_vertex_parent(t, v);
            up[(size_t)k * W + d] = v;
            uplev[(size_t)k * W + d] = cm_tree_vertex_level(t, v);
            upcost[(size_t)k * W + d] = p >= 0 ? cb[cm_tree_vertex_level(t, p)] : 0;
        }
        for (; d < W; d++)
            uplev[(size_t)k * W + d] = -1;
    }
    for (int i = 0; i < n; i++) {
        const int *cols;
        const double *bytes, *msgs;
        int len;
        cm_matrix_row(m, i, &cols, &bytes, &msgs, &len);
        int from = node[i];
        for (int k = 0; k < len; k++) {
            int to = node[cols[k]];
            if (from < 0 || to < 0 || from == to)
                continue;
            int l = cm_tree_lca_level(t, map[i], map[cols[k]]);
            for (int side = 0; side < 2; side++) {
                size_t row = (size_t)(side ? to : from) * W;
                for (int d = 0; uplev[row + d] > l; d++)
                    acc_add(&io[side * nv + up[row + d]],
                            bytes[k] * (long double)upcost[row + d]);
            }
        }
    }
    free(up);
    free(node);
    free(upcost);
    double worst = 0;
    for (int v = 0; v < nv; v++) {
        double busy = nodes[v] > 0 ? (double)(fmaxl(acc_value(&io[v]), acc_value(&io[nv + v])) /
                                              least[cm_tree_vertex_level(t, v)])
                                   : 0;
        worst = fmax(worst, busy);
        if (load)
            load[v] = busy;
    }
    free(io);
    free(nodes);
    free(least);
    return worst;
}

double cm_cost_links_levels(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                            const double *cb)
{
    return cm_cost_uplink_loads(m, t, map, cb, NULL);
}

double cm_cost_links(const cm_matrix_t *m, const cm_tree_t *t, const int *map)
{
    double *cb = tree_costs(t);
    if (!cb)
        return NAN;
    double L = cm_cost_links_levels(m, t, map, cb);
    free(cb);
    return L;
}
