/*
 * mapping_opts.c -- what a command does with `--mapping FILE|ALGORITHM`:
 * the machine built so that the file's slots exist, and the mapping itself,
 * computed or read.  Shared by eval and render.
 */
#include "cli.h"
#include "machine_opts.h"

int cm_cli_mapping_load(const char *cmd, struct cm_place_opts *po,
                        const char *spec, cm_matrix_t **m, cm_tree_t **t)
{
    cm_error_t err = { "" };
    int status;

    if (!cm_cli_algorithm_find(spec))
        po->machine.keep_mapping = spec;   /* its slots must be kept */
    if ((status = cm_machine_opts_load(&po->machine, cmd, m, t)) != 0)
        return status;
    if (po->have_weight && cm_tree_apply_weight(*t, *m, po->weight, &err) != 0) {
        cm_matrix_free(*m);
        cm_tree_free(*t);
        *m = NULL;
        *t = NULL;
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "--weight: %s", err.msg);
    }
    return CM_EXIT_OK;
}

int cm_cli_mapping_get(const char *cmd, const char *spec, const cm_matrix_t *m,
                       const cm_tree_t *t, uint64_t seed, int *map)
{
    cm_error_t err = { "" };
    const cm_cli_algorithm_t *a = cm_cli_algorithm_find(spec);
    int n = cm_matrix_n(m);

    if (a) {
        if (cm_cli_algorithm_run(a, m, t, seed, map, &err) != 0)
            return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: %s", a->name, err.msg);
        return CM_EXIT_OK;
    }
    if (cm_mapping_read(spec, n, map, &err) != 0)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s", err.msg);
    /* The file names slots of the whole machine; t may be a part of it. */
    if (cm_tree_map_from_origin(t, map, n, map, &err) != 0)
        return cm_cli_fail(CM_EXIT_FAIL, cmd, "%s: %s", spec, err.msg);
    return CM_EXIT_OK;
}
