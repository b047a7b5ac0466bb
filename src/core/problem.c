/* problem.c -- the optimisation problem shared by the engine's algorithms:
 * effective per-level costs, the symmetric graph and per-slot groups. */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

int cm_weight_parse(const char *name, cm_weight_t *out)
{
    static const struct { const char *name; cm_weight_t w; } tab[] = {
        {"mixed", CM_WEIGHT_MIXED}, {"bytes", CM_WEIGHT_BYTES},
        {"msgs", CM_WEIGHT_MSGS},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (name && strcmp(name, tab[i].name) == 0) {
            if (out)
                *out = tab[i].w;
            return 0;
        }
    return -1;
}

void cm_costs_from_tree(const cm_tree_t *t, const cm_matrix_t *m,
                        cm_weight_t weight, cm_costs_t *c)
{
    int nl = cm_tree_nlevels(t);
    if (nl > CM_MAX_LEVELS)
        nl = CM_MAX_LEVELS;
    c->nlevels = nl;
    int any_msg_cost = 0;
    for (int l = 0; l < nl; l++) {
        c->cb[l] = cm_tree_level_byte_cost(t, l);
        c->cm[l] = cm_tree_level_msg_cost(t, l);
        any_msg_cost |= c->cm[l] > 0;
    }
    /* Without measured message counts a message term would be noise. */
    if (!cm_matrix_has_msgs(m) && weight != CM_WEIGHT_BYTES)
        weight = CM_WEIGHT_BYTES;
    for (int l = 0; l < nl; l++) {
        switch (weight) {
        case CM_WEIGHT_BYTES:
            c->cm[l] = 0;
            break;
        case CM_WEIGHT_MSGS:
            /* A tree described by distances only has no message costs: its
             * distances then price each message, as Kurnosov and
             * Paznikov's "nops" weight does (docs/design.md). */
            c->cm[l] = any_msg_cost ? c->cm[l] : c->cb[l];
            c->cb[l] = 0;
            break;
        case CM_WEIGHT_MIXED:
            break;
        }
    }
}

int cm_tree_apply_weight(cm_tree_t *t, const cm_matrix_t *m,
                         cm_weight_t weight, cm_error_t *err)
{
    cm_costs_t c;
    if (!t || !m)
        return cm_error_set(err, "cm_tree_apply_weight: expected a tree and a "
                            "matrix, got NULL");
    cm_costs_from_tree(t, m, weight, &c);
    for (int l = 0; l < c.nlevels; l++)
        if (cm_tree_set_level_cost(t, l, c.cb[l], c.cm[l], err) < 0)
            return -1;
    return 0;
}

int cm_problem_init(cm_problem_t *p, const cm_matrix_t *a, const cm_tree_t *t,
                    const cm_costs_t *c, cm_error_t *err)
{
    memset(p, 0, sizeof *p);
    p->a = a;
    p->tree = t;
    p->costs = *c;
    p->n = cm_matrix_n(a);
    p->nslots = cm_tree_nslots(t);
    p->nlevels = cm_tree_nlevels(t);
    p->leaf_level = p->nlevels - 1;
    if (cm_tree_nlevels(t) > CM_MAX_LEVELS)
        return cm_error_set(err, "machine tree has %d levels, at most %d "
                            "supported", cm_tree_nlevels(t), CM_MAX_LEVELS);
    if (p->n > p->nslots)
        return cm_error_set(err, "%d ranks do not fit on %d slots", p->n,
                            p->nslots);
    p->sym = cm_matrix_symmetrize(a, err);
    if (!p->sym)
        return -1;
    p->group_first = malloc(sizeof(int) * (size_t)p->nslots);
    p->group_count = malloc(sizeof(int) * (size_t)p->nslots);
    p->anc = malloc(sizeof(int) * (size_t)p->nslots * (size_t)p->nlevels);
    if (!p->group_first || !p->group_count || !p->anc) {
        cm_problem_fini(p);
        return cm_error_set(err, "out of memory for %d slots", p->nslots);
    }
    for (int s = 0; s < p->nslots; s++) {
        int *a = p->anc + (size_t)s * (size_t)p->nlevels;
        for (int l = 0; l < p->nlevels; l++)
            a[l] = -1;
        for (int v = cm_tree_slot_vertex(t, s); v >= 0;
             v = cm_tree_vertex_parent(t, v))
            a[cm_tree_vertex_level(t, v)] = v;
        int parent = cm_tree_vertex_parent(t, cm_tree_slot_vertex(t, s));
        if (parent < 0) {
            p->group_first[s] = s;
            p->group_count[s] = 1;
        } else {
            cm_tree_vertex_slots(t, parent, &p->group_first[s],
                                 &p->group_count[s]);
        }
    }
    /* Self-traffic always lands on the leaf level. */
    for (int i = 0; i < p->n; i++) {
        const int *cols;
        const double *b, *ms;
        int len;
        cm_matrix_row(a, i, &cols, &b, &ms, &len);
        for (int k = 0; k < len; k++)
            if (cols[k] == i)
                p->diag += cm_edge_cost(p, b[k], ms[k], p->leaf_level);
    }
    return 0;
}

void cm_problem_fini(cm_problem_t *p)
{
    cm_matrix_free(p->sym);
    free(p->group_first);
    free(p->group_count);
    free(p->anc);
    memset(p, 0, sizeof *p);
}

double cm_problem_cost(const cm_problem_t *p, const int *map)
{
    long double J = p->diag;
    for (int i = 0; i < p->n; i++) {
        const int *cols;
        const double *b, *ms;
        int len;
        cm_matrix_row(p->sym, i, &cols, &b, &ms, &len);
        for (int k = 0; k < len; k++) {
            int j = cols[k];
            if (j <= i)
                continue;
            int l = cm_problem_lca(p, map[i], map[j]);
            J += cm_edge_cost(p, b[k], ms[k], l);
        }
    }
    return (double)J;
}
