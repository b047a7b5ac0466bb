/* alloc.c -- the allocation as Slurm describes it in the environment. */
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* SLURM_JOB_CPUS_PER_NODE: comma-separated "count" or "count(xrepeat)",
 * in SLURM_JOB_NODELIST order, e.g. "8(x2),4". */
int cmp_cpus_per_node(const char *spec, int n, int *cpus, cm_error_t *err)
{
    if (!spec || !*spec)
        return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE is not set");
    int k = 0;
    const char *p = spec;
    while (*p) {
        char *end;
        long c = strtol(p, &end, 10);
        if (end == p || c < 1 || c > 1 << 20)
            return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE '%.100s': expected a CPU "
                                "count at offset %d", spec, (int)(p - spec));
        long rep = 1;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x')
                return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE '%.100s': expected "
                                    "'(x' at offset %d", spec, (int)(p - spec));
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep < 1 || rep > 1 << 24)
                return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE '%.100s': expected "
                                    "'(xN)' at offset %d", spec, (int)(p - spec));
            p = end + 1;
        }
        for (long r = 0; r < rep; r++) {
            if (k >= n)
                return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE '%.100s' describes more "
                                    "than the %d nodes of SLURM_JOB_NODELIST", spec, n);
            cpus[k++] = (int)c;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE '%.100s': unexpected '%c' "
                                "at offset %d", spec, *p, (int)(p - spec));
    }
    if (k != n)
        return cm_error_set(err, "SLURM_JOB_CPUS_PER_NODE '%.100s' describes %d nodes, "
                            "SLURM_JOB_NODELIST %d", spec, k, n);
    return 0;
}
