/*
 * machine_opts.h -- the options every command uses to name a communication
 * matrix and the machine to place it on.
 *
 *   --matrix FILE [--format auto|mtx|metis|triplets]
 *   exactly one machine source:
 *     --hierarchy H --distances D               (VieM/KaHIP convention)
 *     --hwloc-xml FILE | --hwloc-live  [--nodes N] [--gpus[=K]]
 *     --slurm-conf FILE [--topology-conf FILE] [--nodelist EXPR]
 *   --level-costs name=cost,...                 (overrides, any source:
 *   --level-latency name=seconds,...             docs/machine-costs.md)
 *   --level-bandwidth name=bytes_per_s,...
 *
 * A command puts CM_MACHINE_LONGOPTS into its getopt_long table, hands every
 * code for which cm_machine_opts_owns() is true to cm_machine_opts_set(),
 * calls cm_machine_opts_check() after parsing and cm_machine_opts_load() to
 * get the matrix and the tree.
 *
 * Commands that place a matrix (eval, plan) also share --seed, --weight,
 * --verbose and --help: they put CM_PLACE_LONGOPTS into their table and let
 * cm_place_opts_parse() run the whole getopt loop, handing it only their own
 * options.  Command-specific option codes start at CM_OPT_PLACE_END.
 */
#ifndef CM_MACHINE_OPTS_H
#define CM_MACHINE_OPTS_H

#include <getopt.h>
#include <stdint.h>
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
    CM_OPT_LEVEL_LATENCY,
    CM_OPT_LEVEL_BANDWIDTH,
    CM_OPT_GPUS,
    CM_OPT_MACHINE_END, /* first code after the machine options */
    CM_OPT_SEED = CM_OPT_MACHINE_END,
    CM_OPT_WEIGHT,
    CM_OPT_PLACE_END    /* first code free for a command's own options */
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
    { "level-costs",   required_argument, NULL, CM_OPT_LEVEL_COSTS },   \
    { "level-latency", required_argument, NULL, CM_OPT_LEVEL_LATENCY }, \
    { "level-bandwidth", required_argument, NULL, CM_OPT_LEVEL_BANDWIDTH }, \
    { "gpus",          optional_argument, NULL, CM_OPT_GPUS }

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
    const char *level_costs, *level_latency, *level_bandwidth;
    int gpus;                 /**< --gpus[=K]: K slots per GPU; 0: cores */
    const char *keep_mapping; /**< set by the command, not an option: a
                                   mapping file it will read (eval --mapping
                                   FILE, plan --initial), whose slots the
                                   machine must keep */
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

/** When @p m is not NULL, read the matrix; build the tree (level costs,
 *  bandwidths, then latencies applied) and check that the matrix's ranks
 *  fit its slots.  With a matrix of n ranks, a machine of more than 65536
 *  slots is built only as far as n ranks and the slots of
 *  @p o->keep_mapping can use (cm_tree_restrict(); its slots then stand
 *  for slots of the whole machine: cm_tree_slot_origin()), so that time and
 *  memory follow n; smaller machines are built whole.  On failure reports
 *  the error for @p cmd, leaves *m and *t NULL and returns CM_EXIT_FAIL. */
int cm_machine_opts_load(const cm_machine_opts_t *o, const char *cmd,
                         cm_matrix_t **m, cm_tree_t **t);

/** The --help lines for these options (with --matrix when @p flags has
 *  CM_MACHINE_NEED_MATRIX). */
void cm_machine_opts_help(FILE *f, int flags);

/** On a GPU machine (--gpus), one line per rank of @p map (n slots of
 *  @p t) on @p f: "rank=R node=NAME gpu=G nic=NIC cpus=LIST", the GPU's
 *  index on its node, its nearest NIC and the CPUs of its locality (OS
 *  indexes) as cm_devices_from_hwloc() reads them from the machine's
 *  hwloc topology.  Nothing on other machines.  0, or the exit status of
 *  a reported error for @p cmd. */
int cm_machine_gpu_ranks(FILE *f, const cm_machine_opts_t *o, const char *cmd,
                         const cm_tree_t *t, const int *map, int n);

/** The tree as one line, root first: each level's name and vertex count,
 *  "switch 4 > node 8 > socket 16 > core 64" -- what eval prints as
 *  machine= and plan --verbose as machine: so that a hierarchy read
 *  otherwise than meant shows. */
void cm_machine_line(FILE *f, const cm_tree_t *t);

/* -- commands that place a matrix: eval, plan -------------------------------- */

#define CM_PLACE_LONGOPTS                                                \
    CM_MACHINE_LONGOPTS,                                                 \
    { "seed",          required_argument, NULL, CM_OPT_SEED },          \
    { "weight",        required_argument, NULL, CM_OPT_WEIGHT },        \
    { "verbose",       no_argument,       NULL, 'v' },                  \
    { "quiet",         no_argument,       NULL, 'q' },                  \
    { "help",          no_argument,       NULL, 'h' }

/** The machine and what eval and plan share besides it. */
typedef struct cm_place_opts {
    cm_machine_opts_t machine;
    uint64_t seed;          /**< --seed, default 1 */
    cm_weight_t weight;     /**< --weight, default CM_WEIGHT_MIXED */
    int have_weight;        /**< --weight was given */
    int verbose;            /**< -v, --verbose */
    int quiet;              /**< -q, --quiet: no progress line */
} cm_place_opts_t;

/** A command's own option @p code (not a CM_PLACE_LONGOPTS one) with
 *  argument @p arg (NULL for none): 0 to go on, or an exit status. */
typedef int (*cm_place_option_fn)(void *ctx, int code, const char *arg);

/** Returned by cm_place_opts_parse() after --help printed the usage: not an
 *  exit status; the command exits with CM_EXIT_OK. */
enum { CM_PLACE_HELP = -1 };

/** Parse the command line of @p cmd with getopt_long(@p shortopts, which
 *  must contain "hv", and @p longopts, which must contain
 *  CM_PLACE_LONGOPTS): machine options, --seed, --weight and --verbose go
 *  into @p o (initialised here), any other option to @p own.  --help prints
 *  @p usage on stdout and stops at once.  After the options: no positional
 *  argument may follow and the machine options must pass
 *  cm_machine_opts_check(@p machine_flags).  Returns 0 when the command
 *  should go on, CM_PLACE_HELP, or the exit status of a reported error. */
int cm_place_opts_parse(cm_place_opts_t *o, const char *cmd, int argc, char **argv,
                        const char *shortopts, const struct option *longopts,
                        int machine_flags, cm_place_option_fn own, void *ctx,
                        void (*usage)(FILE *));

#endif /* CM_MACHINE_OPTS_H */
