/*
 * cli.h -- what the pieces of the `clustermap` command share.
 *
 * Every subcommand is a function `int cm_cmd_<name>(int argc, char **argv)`
 * called with argv[0] = "<name>" and the options that followed it.  It
 * returns the process exit status: CM_EXIT_OK, CM_EXIT_FAIL (the work
 * failed: unreadable file, invalid mapping, ...) or CM_EXIT_USAGE (the
 * command line was wrong).  Messages go to stderr as
 * "clustermap <name>: <message>".
 *
 * Adding a subcommand: declare it here, write src/cli/cmd_<name>.c, add one
 * line to the table in src/cli/main.c.
 */
#ifndef CM_CLI_H
#define CM_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "clustermap.h"
#include "cmp_config.h"

enum { CM_EXIT_OK = 0, CM_EXIT_FAIL = 1, CM_EXIT_USAGE = 2 };

/* -- subcommands ---------------------------------------------------------- */

/** `clustermap eval`: the cost of a mapping (src/cli/cmd_eval.c). */
int cm_cmd_eval(int argc, char **argv);

/** `clustermap plan`: compute a mapping and write it (src/cli/cmd_plan.c). */
int cm_cmd_plan(int argc, char **argv);

/** `clustermap profile`: the profile store (src/cli/cmd_profile.c). */
int cm_cmd_profile(int argc, char **argv);

/** `clustermap devices`: a node's GPUs and NICs (src/cli/cmd_devices.c). */
int cm_cmd_devices(int argc, char **argv);

/** `clustermap explain`: a placed step's record (src/cli/cmd_explain.c). */
int cm_cmd_explain(int argc, char **argv);

/** `clustermap render`: pictures of a matrix under a placement, of the
 *  placement on the machine, or of the judge's CSV (src/cli/cmd_render.c). */
int cm_cmd_render(int argc, char **argv);

/** Progress of a long command on a terminal (progress.c): a line on
 *  stderr rewritten every quarter second once the command has run for 2 s,
 *  erased at the end.  cm_cli_progress_start() returns NULL -- and every
 *  other call then does nothing -- with @p quiet or when stderr is not a
 *  terminal. */
typedef struct cm_cli_progress cm_cli_progress_t;
cm_cli_progress_t *cm_cli_progress_start(const char *cmd, int quiet);
/** Name what the command does now (printf format). */
void cm_cli_progress_phase(cm_cli_progress_t *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** Stop, and erase the line if one was drawn; frees @p p. */
void cm_cli_progress_end(cm_cli_progress_t *p);
/** For cm_plan_options_t.progress, with the progress as its argument. */
void cm_cli_progress_plan(const char *stage, void *arg);

/** `clustermap calibrate`: per-level latency and bandwidth measured with
 *  clustermap-pingpong inside an allocation (cmd_calibrate.c). */
int cm_cmd_calibrate(int argc, char **argv);

struct cm_store;
/** `profile show`: the run history of (@p name, @p ntasks) and the guard's
 *  decision under its default rule, as key=value lines (cmd_profile_runs.c).
 *  CM_EXIT_OK, or the exit status after the message. */
int cm_cli_print_runs(FILE *f, const char *cmd, struct cm_store *s,
                      const char *name, int ntasks);
/** `profile show`: whether a tnbc trace is kept beside the profile
 *  ("tnbc.trace=none|kept|incomplete", its ranks, call sites and bytes). */
int cm_cli_print_trace(FILE *f, const char *cmd, struct cm_store *s,
                       const char *name, int ntasks);

/* -- shared helpers (src/cli/common.c) ------------------------------------ */

/** "clustermap <cmd>: <message>\n" on stderr; returns @p status so that
 *  `return cm_cli_fail(CM_EXIT_FAIL, "eval", ...)` reads naturally. */
int cm_cli_fail(int status, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** A usage error: the message, then "Try 'clustermap <cmd> --help'.";
 *  returns CM_EXIT_USAGE. */
int cm_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** Print a cost or a byte count: integer digits when @p x is integral and
 *  |x| < 2^53 (exact in a double), otherwise "%.17g" (round-trips). */
void cm_cli_print_number(FILE *f, double x);

/** The site's configuration: the arguments of the clustermap line of
 *  Slurm's plugstack.conf (slurm.conf's PlugStackConfig=, else the file
 *  beside slurm.conf, which is found as Slurm's clients find it:
 *  cmp_slurm_conf_path; none in a configless set-up without slurmd's
 *  copy; `include` lines followed, the first such
 *  line taken) parsed as the plugin parses them (cmp_config_parse: a bad
 *  argument keeps its default); the defaults when there is no such line.
 *  Read at the first call and kept until exit: the pointer is borrowed.
 *  *@p found (when @p found is not NULL): 1 when the line was found, else
 *  0.  Never fails (src/cli/site_conf.c). */
const cmp_config_t *cm_cli_site_config(int *found);

/** The store= of that line, or NULL when it sets none (or a bad one).
 *  Borrowed, as cm_cli_site_config()'s. */
const char *cm_cli_site_store(void);

/** The store root a command uses: @p given (--store), else
 *  $CLUSTERMAP_STORE, else cm_cli_site_store(), else the default. */
const char *cm_cli_store_root(const char *given);

/** @p t (seconds since the epoch) as "YYYY-MM-DDTHH:MM:SSZ" (UTC). */
void cm_cli_print_time(FILE *f, int64_t t);

/** Parse a non-negative decimal integer that fits @p max; -1 if @p s is
 *  empty, signed, has trailing characters or is too large. */
int cm_cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/** Report what getopt_long() returned as @p c ('?' unknown option, ':'
 *  missing argument; opterr must be 0 and the option string start with ':')
 *  as a usage error of @p cmd.  Returns CM_EXIT_USAGE. */
int cm_cli_bad_option(const char *cmd, int c, char **argv);

/** Seconds since an arbitrary fixed point (monotonic clock). */
double cm_cli_now(void);

/* -- --output (src/cli/common.c) ------------------------------------------ */

/** Where a command writes its --output: standard output for "-" (or no
 *  --output), else a regular file replaced whole (cm_file_atomic_open()). */
typedef struct cm_cli_output {
    const char *cmd;          /**< for messages */
    const char *path;         /**< the file, NULL for standard output */
    FILE *f;                  /**< where to write */
    cm_file_atomic_t *file;   /**< NULL for standard output */
} cm_cli_output_t;

/** Open @p path for command @p cmd.  Returns CM_EXIT_OK, or CM_EXIT_FAIL
 *  after reporting why (cm_cli_output_fail()) with nothing created. */
int cm_cli_output_open(cm_cli_output_t *out, const char *cmd, const char *path);

/** Finish @p out: when @p status is CM_EXIT_OK, flush it and put a file in
 *  place; otherwise drop the file and leave the target as it was.  Returns
 *  @p status, or CM_EXIT_FAIL after reporting a failed write. */
int cm_cli_output_close(cm_cli_output_t *out, int status);

/** Report @p msg, why --output @p path could not be written, adding a hint
 *  to use '--output -' when @p path names something that exists and is not
 *  a regular file (such as /dev/stdout).  Returns CM_EXIT_FAIL. */
int cm_cli_output_fail(const char *cmd, const char *path, const char *msg);

/* -- --mapping FILE|ALGORITHM (src/cli/mapping_opts.c) --------------------- */

struct cm_place_opts;

/** For command @p cmd, whose mapping will be @p spec (a file or an
 *  algorithm name): read the matrix and build the machine of @p po
 *  (cm_machine_opts_load(); the slots of a mapping file are kept, so
 *  po->machine.keep_mapping is set), then price the tree as its --weight
 *  says.  Returns CM_EXIT_OK with *m and *t the caller's to free, or the
 *  exit status after the message with both NULL. */
int cm_cli_mapping_load(const char *cmd, struct cm_place_opts *po,
                        const char *spec, cm_matrix_t **m, cm_tree_t **t);

/** Fill @p map (cm_matrix_n(m) entries) from @p spec: the algorithm of
 *  that name (cm_cli_algorithm_run() with @p seed), else a mapping file of
 *  slots of the whole machine, turned into slots of @p t.  Returns
 *  CM_EXIT_OK, or CM_EXIT_FAIL after the message. */
int cm_cli_mapping_get(const char *cmd, const char *spec, const cm_matrix_t *m,
                       const cm_tree_t *t, uint64_t seed, int *map);

/* -- mapping algorithms (src/cli/algorithms.c) ---------------------------- */

/** A way to compute a mapping of the ranks of @p m onto the slots of @p t.
 *  @p seed is used by randomized algorithms and ignored by the others. */
typedef int (*cm_cli_map_fn)(const cm_matrix_t *m, const cm_tree_t *t,
                             uint64_t seed, int *map, cm_error_t *err);

/** An algorithm the command knows: an engine method (cm_method_info()),
 *  static storage. */
typedef cm_method_info_t cm_cli_algorithm_t;

/** The algorithm named @p name (cm_method_by_name()), NULL when there is
 *  none or @p name is NULL. */
const cm_cli_algorithm_t *cm_cli_algorithm_find(const char *name);

/** The function eval and render run algorithm @p name with directly, on
 *  the machine as given (the baselines), or NULL: the engine's cm_plan()
 *  runs it (cm_cli_algorithm_run()). */
cm_cli_map_fn cm_cli_algorithm_direct(const char *name);

/** The time budget, in seconds, of `plan` without --time-budget and of
 *  eval's and render's engine mappings for @p n ranks: 1 s, and 1 s per
 *  CM_CLI_BUDGET_RANKS ranks above that, so that at every size at least
 *  the spanning-tree construction fits (docs/machine-costs.md, "Large
 *  inputs"). */
#define CM_CLI_BUDGET_RANKS 131072
double cm_cli_default_budget(int n);

/** Run @p a and check the result with cm_mapping_check(), so that a broken
 *  algorithm cannot hand out an invalid mapping.  @p map has
 *  cm_matrix_n(m) entries. */
int cm_cli_algorithm_run(const cm_cli_algorithm_t *a, const cm_matrix_t *m,
                         const cm_tree_t *t, uint64_t seed, int *map,
                         cm_error_t *err);

/** Print "  name  summary" for every algorithm, one per line, in the
 *  engine's order (--help). */
void cm_cli_algorithm_help(FILE *f);

/** "block|cyclic|..." into @p buf (for usage lines and messages), cut
 *  short when @p len is too small (cm_method_names()); returns @p buf. */
const char *cm_cli_algorithm_names(char *buf, size_t len);

#endif /* CM_CLI_H */
