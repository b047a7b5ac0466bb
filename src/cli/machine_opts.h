/*
 * machine_opts.h -- the options every command uses to name a communication
 * matrix and the machine to place it on.
 *
 *   --matrix FILE [--format auto|mtx|metis|triplets]
 *   exactly one machine source:
 *     --hierarchy H --distances D               (VieM/KaHIP convention)
 *     --hwloc-xml FILE | --hwloc-live  [--nodes N]
 *     --slurm-conf FILE [--topology-conf FILE] [--nodelist EXPR]
 *   --level-costs name=cost,...                 (overrides, any source)
 *
 * A command puts CM_MACHINE_LONGOPTS into its getopt_long table, hands every
 * code for which cm_machine_opts_owns() is true to cm_machine_opts_set(),
 * calls cm_machine_opts_check() after parsing and cm_machine_opts_load() to
 * get the matrix and the tree.  Command-specific option codes start at
 * CM_OPT_MACHINE_END.
 */
#ifndef CM_MACHINE_OPTS_H
#define CM_MACHINE_OPTS_H

#include <getopt.h>
#include <stdio.h>

#include "clustermap.h"

enum cm_machine_optcode {
    CM_OPT_MATRIX = 0x100,
    CM_OPT_FORMAT,
    CM_OPT_HIERARCHY,
    CM_OPT_DISTANCES,
    CM_OPT_HWLOC_XML,
    CM_OPT_HWLOC_LIVE,
    CM_OPT_NODES,
    CM_OPT_SLURM_CONF,
    CM_OPT_TOPOLOGY_CONF,
    CM_OPT_NODELIST,
    CM_OPT_LEVEL_COSTS,
    CM_OPT_MACHINE_END  /* first code free for a command's own options */
};

#define CM_MACHINE_LONGOPTS                                              \
    { "matrix",        required_argument, NULL, CM_OPT_MATRIX },        \
    { "format",        required_argument, NULL, CM_OPT_FORMAT },        \
    { "hierarchy",     required_argument, NULL, CM_OPT_HIERARCHY },     \
    { "distances",     required_argument, NULL, CM_OPT_DISTANCES },     \
    { "hwloc-xml",     required_argument, NULL, CM_OPT_HWLOC_XML },     \
    { "hwloc-live",    no_argument,       NULL, CM_OPT_HWLOC_LIVE },    \
    { "nodes",         required_argument, NULL, CM_OPT_NODES },         \
    { "slurm-conf",    required_argument, NULL, CM_OPT_SLURM_CONF },    \
    { "topology-conf", required_argument, NULL, CM_OPT_TOPOLOGY_CONF }, \
    { "nodelist",      required_argument, NULL, CM_OPT_NODELIST },      \
    { "level-costs",   required_argument, NULL, CM_OPT_LEVEL_COSTS }

/** What the options said; all strings point into argv. */
typedef struct cm_machine_opts {
    const char *matrix;
    const char *format_name;
    cm_format_t format;
    const char *hierarchy, *distances;
    const char *hwloc_xml;
    int hwloc_live;
    const char *nodes_arg;
    int nodes;
    const char *slurm_conf, *topology_conf, *nodelist;
    const char *level_costs;
} cm_machine_opts_t;

/** Everything unset (format auto, 1 node). */
void cm_machine_opts_init(cm_machine_opts_t *o);

/** Non-zero when @p code is one of CM_MACHINE_LONGOPTS. */
int cm_machine_opts_owns(int code);

/** Record option @p code with argument @p arg.  Returns 0, or reports a
 *  usage error for command @p cmd (repeated option, bad --format/--nodes)
 *  and returns CM_EXIT_USAGE. */
int cm_machine_opts_set(cm_machine_opts_t *o, const char *cmd, int code,
                        const char *arg);

/** Whether a command needs --matrix (cm_machine_opts_check()). */
enum { CM_MACHINE_NEED_MATRIX = 1 };

/** After parsing: exactly one machine source with its companions, the
 *  matrix when @p flags has CM_MACHINE_NEED_MATRIX.  Returns 0, or reports a
 *  usage error naming the conflicting or missing options and returns
 *  CM_EXIT_USAGE. */
int cm_machine_opts_check(const cm_machine_opts_t *o, const char *cmd,
                          int flags);

/** Build the tree (level costs applied) and, when @p m is not NULL, read
 *  the matrix and check that its ranks fit the slots.  On failure reports
 *  the error for @p cmd, leaves *m and *t NULL and returns CM_EXIT_FAIL. */
int cm_machine_opts_load(const cm_machine_opts_t *o, const char *cmd,
                         cm_matrix_t **m, cm_tree_t **t);

/** The --help lines for these options (with --matrix when @p flags has
 *  CM_MACHINE_NEED_MATRIX). */
void cm_machine_opts_help(FILE *f, int flags);

#endif /* CM_MACHINE_OPTS_H */
