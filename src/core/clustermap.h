/*
 * clustermap.h -- the public interface of the clustermap placement engine.
 *
 * The engine is a plain C library with no Slurm dependency.  The SPANK
 * plugin, the `clustermap` command, the profile store and the benchmarks all
 * call it through this header and nothing else.
 *
 * Conventions (hwloc / Scotch style):
 *  - every public name starts with `cm_` (types `cm_*_t`, constants `CM_*`);
 *  - objects are opaque handles, created by a `*_new`/`*_read`/`*_from_*`
 *    function and released by the matching `*_free`;  free(NULL) is a no-op;
 *  - memory passed in is owned by the caller (arrays such as a mapping are
 *    allocated by the caller, sized as documented);
 *  - functions that can fail take a `cm_error_t *` as their last argument
 *    (may be NULL) and fill it with one human-readable line naming the file,
 *    the line or field, and what was expected;  they return NULL or -1;
 *    a NULL handle or required pointer is such a failure, never a crash
 *    (test/unit/test_api_null.c calls every function this way);
 *  - queries (no `cm_error_t`) answer a NULL handle or an index out of
 *    range with the value their note gives (0, -1, NULL or NAN);
 *  - strings passed in are copied when the object keeps them, otherwise
 *    only read during the call; pointers returned into an object stay
 *    valid until it is freed;
 *  - no hidden global state: every function is reentrant on distinct handles.
 *
 * Ranks are numbered 0..n-1, slots (the leaves of the machine tree, usually
 * cores) 0..nslots-1.  A mapping is an `int map[n]` with map[rank] = slot.
 */
#ifndef CLUSTERMAP_H
#define CLUSTERMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CM_VERSION "0.1.0"

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

/** One line describing why a call failed.  Caller-allocated; a longer
 *  message is cut at 511 bytes.  Meaningful only after a call that failed. */
typedef struct cm_error {
    char msg[512];
} cm_error_t;

/** printf-style fill of @p err (no-op when @p err is NULL; @p fmt must not
 *  be).  Always returns -1 so that `return cm_error_set(err, ...);` reads
 *  naturally. */
int cm_error_set(cm_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------------ */
/* Communication matrix                                                     */
/* ------------------------------------------------------------------------ */

/** A sparse (CSR) directed communication matrix over n ranks.  Entry (i, j)
 *  holds the bytes and the number of messages rank i sent to rank j.  Memory
 *  is O(n + nnz).  Immutable once built. */
typedef struct cm_matrix cm_matrix_t;

/** Accumulates (src, dst, bytes, msgs) entries in any order, duplicates
 *  summed, then turns them into a matrix. */
typedef struct cm_builder cm_builder_t;

/** New builder for an n-rank matrix, 1 <= n <= 2^24 (16777216); NULL with
 *  @p err otherwise or out of memory.  Release with cm_builder_free(). */
cm_builder_t *cm_builder_new(int n, cm_error_t *err);

/** Advice: about @p nnz entries will be added in all; room for them is
 *  made at once (large arrays grown by doubling are moved several times).
 *  Nothing changes when the memory cannot be had: adding still works.
 *  A NULL builder or @p nnz <= 0 is ignored. */
void cm_builder_reserve(cm_builder_t *b, int64_t nnz);

/** Add traffic from @p src to @p dst (0-based, < n).  Negative or non-finite
 *  values are refused.  Entries with bytes == 0 and msgs == 0 are kept out.
 *  0, or -1 with @p err (NULL builder, rank out of range, bad value, no
 *  memory); a refused entry adds nothing. */
int cm_builder_add(cm_builder_t *b, int src, int dst, double bytes, double msgs,
                   cm_error_t *err);

/** Declare that the matrix carries real message counts (otherwise
 *  cm_matrix_has_msgs() is false and msgs are whatever was added).  No-op
 *  on NULL. */
void cm_builder_set_has_msgs(cm_builder_t *b, int has_msgs);

/** Build the CSR matrix (rows sorted by column, duplicates summed).  The
 *  builder stays valid and unchanged; the new matrix is the caller's, to
 *  release with cm_matrix_free().  NULL with @p err for a NULL builder or
 *  out of memory. */
cm_matrix_t *cm_builder_finish(const cm_builder_t *b, cm_error_t *err);

/** Release @p b (NULL: no-op); matrices it built are not affected. */
void cm_builder_free(cm_builder_t *b);

/** Number of ranks; 0 for NULL. */
int cm_matrix_n(const cm_matrix_t *m);

/** Number of stored (non-zero) entries; 0 for NULL. */
size_t cm_matrix_nnz(const cm_matrix_t *m);

/** Non-zero when message counts were measured (profiles, triplets with a 4th
 *  column); zero for Matrix Market and METIS input, which carry bytes only,
 *  and for NULL. */
int cm_matrix_has_msgs(const cm_matrix_t *m);

/** Row @p i: on return *cols, *bytes, *msgs point to *len entries owned by the
 *  matrix (valid until it is freed), columns ascending.  Any output pointer
 *  may be NULL.  A NULL matrix or @p i outside 0..n-1 gives NULL pointers
 *  and *len = 0. */
void cm_matrix_row(const cm_matrix_t *m, int i, const int **cols,
                   const double **bytes, const double **msgs, int *len);

/** Sum of all bytes and messages (either pointer may be NULL); 0 and 0 for
 *  a NULL matrix. */
void cm_matrix_totals(const cm_matrix_t *m, double *bytes, double *msgs);

/** The symmetric volume A + A^T (bytes and messages), diagonal dropped: a
 *  new matrix the caller frees, or NULL with @p err (NULL @p m, no memory). */
cm_matrix_t *cm_matrix_symmetrize(const cm_matrix_t *m, cm_error_t *err);

/** The sub-matrix over @p count distinct ranks @p ranks (rank ranks[k]
 *  becomes k).  Traffic to ranks outside the subset is dropped.  A new
 *  matrix the caller frees, or NULL with @p err: NULL arguments, @p count
 *  outside 1..n, a rank out of range or repeated, no memory. */
cm_matrix_t *cm_matrix_sub(const cm_matrix_t *m, const int *ranks, int count,
                           cm_error_t *err);

/** Release @p m (NULL: no-op); pointers cm_matrix_row() gave die with it. */
void cm_matrix_free(cm_matrix_t *m);

/* Readers.  Every error names the file, the line and what was expected. */

typedef enum cm_format {
    CM_FORMAT_AUTO = 0, /**< by content: "%%MatrixMarket" header -> MTX;
                             a ".graph"/".metis" name -> METIS; else triplets */
    CM_FORMAT_MTX,      /**< Matrix Market coordinate real|integer,
                             general|symmetric, 1-based; value = bytes */
    CM_FORMAT_METIS,    /**< METIS graph: header "n m [fmt [ncon]]", one line
                             of 1-based neighbours per vertex; edge weights =
                             bytes (1 when the graph has none) */
    CM_FORMAT_TRIPLETS  /**< "src dst bytes [msgs]" per line, 0-based, '#'
                             comments; the rank count is max index + 1 unless
                             a "# ranks N" line precedes the entries */
} cm_format_t;

/** Parse a format name: "auto", "mtx", "metis", "triplets".  0, or -1 for
 *  NULL or an unknown name, @p out then untouched; @p out may be NULL (the
 *  name is only checked). */
int cm_format_parse(const char *name, cm_format_t *out);

/** Read a matrix from @p path: a new matrix the caller frees, or NULL with
 *  @p err (NULL path, unreadable file, a format number not in
 *  cm_format_t, the first error in the content). */
cm_matrix_t *cm_matrix_read(const char *path, cm_format_t fmt, cm_error_t *err);

/** Read a matrix from an open stream, which stays open (the caller closes
 *  it); @p name is used in error messages ("<stream>" when NULL).  As
 *  cm_matrix_read(); NULL with @p err for a NULL stream. */
cm_matrix_t *cm_matrix_read_stream(FILE *f, const char *name, cm_format_t fmt,
                                   cm_error_t *err);

/** Write a matrix as Matrix Market "coordinate real general" (bytes) to
 *  @p f, which stays open.  0, or -1 with @p err for NULL arguments (nothing
 *  written) or when the stream reports an error after the flush. */
int cm_matrix_write_mtx(const cm_matrix_t *m, FILE *f, cm_error_t *err);

/** Write a matrix as triplets ("# ranks N", then "src dst bytes msgs" per
 *  entry, 0-based; the msgs column only when cm_matrix_has_msgs()), which
 *  CM_FORMAT_TRIPLETS reads back exactly, message counts included.  Return
 *  and failures as cm_matrix_write_mtx(). */
int cm_matrix_write_triplets(const cm_matrix_t *m, FILE *f, cm_error_t *err);

/* ------------------------------------------------------------------------ */
/* Machine tree                                                             */
/* ------------------------------------------------------------------------ */

/** The machine an allocation runs on, as a tree: the root is the whole
 *  allocation, inner vertices are switches / nodes / sockets / caches, leaves
 *  are slots (usually cores).  Every vertex belongs to a named level; levels
 *  are numbered from the root (0) to the leaves.  Slots are numbered in
 *  depth-first order, so every vertex owns a contiguous slot range.
 *
 *  Each level carries the cost of traffic between two slots whose lowest
 *  common ancestor is a vertex of that level:  `byte_cost` per byte and
 *  `msg_cost` per message.  J(pi) = sum_ij bytes_ij * byte_cost[lca] +
 *  msgs_ij * msg_cost[lca].  The leaf level's costs apply to two ranks on the
 *  same slot (0 by default).  Trees read from hwloc or slurm.conf price a
 *  level in seconds: msg_cost = its latency (s per message), byte_cost =
 *  1 / its bandwidth (s per byte), so J is a communication time; trees
 *  from --hierarchy/--distances carry the distances as byte costs and no
 *  message costs (docs/machine-costs.md).
 *
 *  Vertices of the level named "node" are compute nodes.  They are also kept
 *  in allocation order (the order of the node list they were built from),
 *  which may differ from the depth-first order when switches interleave. */
typedef struct cm_tree cm_tree_t;

/* -- building a tree by hand (what the readers below and the plugin use) -- */

/** An empty tree (NULL out of memory).  Build it with cm_tree_add_level()
 *  and cm_tree_add_vertex(), then cm_tree_finalize(); release with
 *  cm_tree_free(). */
cm_tree_t *cm_tree_new(void);

/** Append a level (call from the root level down to the leaf level).
 *  Returns the level index.  Names are unique, [A-Za-z0-9_]+, 1 to 63
 *  bytes, and copied; a tree has at most 64 levels (cm_plan() takes 32).
 *  Costs are finite and >= 0.  -1 with @p err otherwise, for a NULL
 *  argument or on a finalized tree; the tree is then unchanged. */
int cm_tree_add_level(cm_tree_t *t, const char *name, double byte_cost,
                      double msg_cost, cm_error_t *err);

/** Add a vertex of @p level under @p parent (-1 for the root, which must be
 *  of level 0 and added first).  Children keep the order they were added in.
 *  Vertices may be added under any existing parent in any order; @p level
 *  must be deeper than the parent's (levels may be skipped, e.g. a node
 *  right under a "cluster" root).  @p label may be NULL (e.g. "n12" for a
 *  node, "s1" for a switch); it is copied.  Returns the vertex id (ids count
 *  up from 0 in insertion order; "node" vertices in that order are the
 *  allocation order), or -1 with @p err (NULL tree, finalized tree, level
 *  or parent that does not exist, a second root, a level not below the
 *  parent's, more than 2^28 vertices); the tree is then unchanged. */
int cm_tree_add_vertex(cm_tree_t *t, int parent, int level, const char *label,
                       cm_error_t *err);

/** Relative speed of a vertex (default 1.0; shares of work follow speed,
 *  docs/cluster-packing.md).  Used for compute nodes.  0, or -1 with @p err
 *  for a vertex that does not exist or a speed not finite and > 0. */
int cm_tree_set_speed(cm_tree_t *t, int vertex, double speed, cm_error_t *err);

/** Number the slots and freeze the tree: levels and vertices can no longer
 *  be added; the queries below that need slots or nodes answer from now
 *  on.  0 (also when already finalized), or -1 with @p err when a leaf is
 *  not of the last level, when there is no level or no vertex, when a
 *  level is empty, beyond 2^28 slots, or out of memory; the tree is then
 *  left as it was before the call. */
int cm_tree_finalize(cm_tree_t *t, cm_error_t *err);

/** Release @p t (NULL: no-op); its level names and labels die with it. */
void cm_tree_free(cm_tree_t *t);

/* -- readers -- */
/* Each returns a new finalized tree that the caller releases with
 * cm_tree_free(), or NULL with @p err naming the input and what was
 * expected. */

/** VieM/KaHIP convention: @p hierarchy "a1:a2:...:ak" (a1 slots per innermost
 *  group, a2 of those per next group, ...), @p distances "d1:...:dk" (cost per
 *  byte for slots whose lowest common group is level i).  Levels are named,
 *  innermost first: socket, node, switch, then group4, group5, ...; with a
 *  single entry the group is "node".  The slot level is "core" with cost 0.
 *  Or, with named levels, "core=8,node=2,switch=4" (fields separated
 *  by ','): field 1 is core=N, the cores of the innermost group;
 *  field i > 1 names the group holding field i - 1's items and says how
 *  many of them it holds; the root, holding the last field's items, is
 *  "cluster"; exactly one field must be node=.  @p distances as above, one
 *  per group.  At most 32 fields of at most 63 bytes each, at most 2^24
 *  slots; both strings are required. */
cm_tree_t *cm_tree_from_hierarchy(const char *hierarchy, const char *distances,
                                  cm_error_t *err);

/** @p nnodes identical nodes, each with the node-internal levels of an hwloc
 *  topology (XML exported by `lstopo --of xml`, or the live machine when
 *  @p xml_path is NULL), under one switch.  Levels: switch, node, then the
 *  hwloc levels that split (package -> "socket", NUMA -> "numa", L3 -> "l3",
 *  L2 -> "l2"), leaves "core" (hardware threads are not separate slots).
 *  A level splits when it has more groups than the level above and fewer
 *  than the level below and nests with both; "socket" is kept whenever the
 *  topology has packages, even a single one; of two levels with the same
 *  groups the first of socket, numa, l3, l2 is kept.  Levels are ordered
 *  coarsest first.  Vertex labels: "switch0", "node<i>", "core<L>" (hwloc
 *  logical core index).  Costs are the defaults of each level:
 *  cm_tree_default_latency() per message, 1 / cm_tree_default_bandwidth()
 *  per byte.  @p nnodes is 1 to 2^20, and the tree at most 2^24 slots. */
cm_tree_t *cm_tree_from_hwloc(const char *xml_path, int nnodes, cm_error_t *err);

/** @p nnodes identical nodes of the hwloc topology @p xml_path (NULL: the
 *  live machine) whose slots are GPUs (cm_devices_from_hwloc()), @p per_gpu
 *  (1 to 1024) slots per GPU, under one switch.  Levels: switch, node, then
 *  the GPU groups that split, coarsest first: "socket" (the package of a
 *  GPU's locality), "numa" (its NUMA node), and the interconnect level
 *  ("nvlink", "xgmi" or "xelink", after cm_devices_link_name()): the GPUs
 *  joined by links of the highest bandwidth of the matrix, in connected
 *  groups.  A level splits when it has more groups than the level above
 *  and fewer than there are GPUs and nests with its neighbours; of levels
 *  with the same groups the interconnect is kept, then numa, then socket.
 *  So an all-to-all switch (NVSwitch) adds no level.  Then "gpu" (one
 *  vertex per GPU, labelled "gpu<k>", k the GPU index on its node) and,
 *  when @p per_gpu > 1, leaves "task" (labelled "gpu<k>.<j>").  Costs: a
 *  level whose every pair of GPUs (with their lowest common ancestor
 *  there) has a direct link gets 1 / the smallest such bandwidth per byte
 *  and cm_tree_default_latency() of the interconnect level per message;
 *  other levels their defaults (cm_tree_default_latency(),
 *  cm_tree_default_bandwidth()); "gpu" and "task" cost 0.  Inside a node
 *  the GPUs are in the order of their locality's first PU (GPU index on
 *  ties), which is the order Slurm's block distribution with
 *  --gpu-bind=closest gives them, not necessarily the GPU index order:
 *  cm_tree_slot_gpu() gives a slot's GPU.  @p nnodes is 1 to 2^20, the
 *  tree at most 2^24 slots; a node without GPUs is an error naming the
 *  file. */
cm_tree_t *cm_tree_from_hwloc_gpus(const char *xml_path, int nnodes, int per_gpu,
                                   cm_error_t *err);

/** One machine from two: the levels and vertices of @p outer down to its
 *  "node" level (switches and nodes, in its order; what lies below its
 *  nodes is dropped), and under every node a copy of what lies below the
 *  first node of @p inner (its sockets, NUMA nodes, GPUs...: say
 *  cm_tree_from_hwloc_gpus() of one node), each level with the costs of
 *  the tree it comes from, node speeds and labels as in the tree they
 *  come from.  So Slurm's switches (cm_tree_from_switches()) and hwloc's
 *  view of a node price each what they know; cm_tree_slot_gpu() works on
 *  the result.  Both trees must be finalized and have a "node" level,
 *  and the inner node something inside; the inner levels' names must not
 *  be those of the outer levels kept.  A new finalized tree, or NULL with
 *  @p err (also for NULL trees, or a result cm_tree_finalize() refuses). */
cm_tree_t *cm_tree_graft(const cm_tree_t *outer, const cm_tree_t *inner, cm_error_t *err);

/** The GPU index, on its node, of slot @p s of a tree made by
 *  cm_tree_from_hwloc_gpus() (or cut from one by cm_tree_restrict()): the
 *  k of the "gpu<k>" label of the "gpu" vertex above the slot.  -1 for a
 *  NULL tree, a slot that does not exist, or a tree without such a
 *  vertex. */
int cm_tree_slot_gpu(const cm_tree_t *t, int s);

/** Slurm configuration files (no controller needed): NodeName lines of
 *  @p slurm_conf (Sockets, CoresPerSocket, ThreadsPerCore, CPUs, Boards,
 *  SocketsPerBoard, Weight; NodeName=DEFAULT; hostlist expressions; Include
 *  relative to the including file; '\' continuations), switches of
 *  @p topology_conf (may be NULL: all nodes under one switch), restricted to
 *  the nodes of @p nodelist (a hostlist expression such as "n[1-4,7]"; nodes
 *  in that order).  Levels: switch levels from the top ("switch" for Slurm
 *  switch level 0, "switch<k>" for level k >= 1, "cluster" above several
 *  top switches), "node", "socket", leaves "core" (one per core; threads
 *  are not slots; only CPUs= given means one socket of CPUs/ThreadsPerCore
 *  cores).  Costs are the defaults of each level (as cm_tree_from_hwloc());
 *  "cluster" gets those of the switch level above the top one (a "cluster"
 *  over top switches of level k costs what "switch<k+1>" would).
 *  A node of the list in no switch is an error; a switch listed under
 *  several parents hangs under the first.  Labels: node and switch names.
 *  @p slurm_conf and @p nodelist are required. */
cm_tree_t *cm_tree_from_slurm_conf(const char *slurm_conf,
                                   const char *topology_conf,
                                   const char *nodelist, cm_error_t *err);

/** A node's hardware as slurm.conf describes it: every field >= 1 for a
 *  node the file describes (Slurm's defaults filled in), all 0 for one it
 *  does not. */
typedef struct cm_node_hw {
    int sockets;
    int cores_per_socket;
    int threads_per_core;
} cm_node_hw_t;

/** The hardware of the @p n nodes named in @p names as the NodeName lines
 *  of @p slurm_conf give it, read as cm_tree_from_slurm_conf() reads them
 *  (NodeName=DEFAULT, hostlists, Include, CPUs= alone = one socket).
 *  @p hw[i] is all zeros for a name the file does not define (a dynamic
 *  node, say).  Returns how many names were found, or -1 with @p err
 *  (file, line, what was expected) when the file cannot be read, or for
 *  NULL @p slurm_conf, @p names or @p hw or n < 0 (a NULL entry of
 *  @p names is a name not found).  The plugin's srun side uses it so that
 *  a placed step asks the controller for no node record the local
 *  configuration already has. */
int cm_slurm_conf_node_hw(const char *slurm_conf, const char *const *names, int n,
                          cm_node_hw_t *hw, cm_error_t *err);

/** A node's generic resources (GPUs, NICs, ...) as gres.conf gives them. */
typedef struct cm_gres cm_gres_t;

/** Read the devices that gres.conf @p gres_conf gives node @p node: every
 *  line without NodeName= and every line whose NodeName= hostlist names
 *  the node, in file order.  Keys are case-insensitive, as in Slurm:
 *  NodeName, Name, Type, File (a range such as /dev/nvidia[0-3] is one
 *  device per file), MultipleFiles (one device, its first file kept),
 *  Count (devices without a file when there is no File=; K/M suffixes),
 *  Cores (Slurm's logical core indexes, "0-15,32"), Links (needs a single
 *  file), Flags (ignored), AutoDetect (alone on a line or with a
 *  resource).  Devices of one name are numbered in file order, as Slurm
 *  numbers them when it detects nothing.  NULL with @p err naming the
 *  file, line and key and what was expected (also for an unknown key,
 *  File= with MultipleFiles=, Count= differing from File='s files except
 *  for mps and shard, more than 2^16 devices, NULL arguments or an empty
 *  node name).  Release with cm_gres_free(). */
cm_gres_t *cm_gres_conf_read(const char *gres_conf, const char *node, cm_error_t *err);

/** cm_gres_conf_read() for the @p n nodes named in @p nodes at once (the
 *  file read once, each NodeName= expanded once): out[i] is node i's, or
 *  all NULL with @p err on the first error (NULL arguments, n outside 1 to
 *  2^20, an empty name, the errors of cm_gres_conf_read()).  0 or -1. */
int cm_gres_conf_read_nodes(const char *gres_conf, const char *const *nodes, int n,
                            cm_gres_t **out, cm_error_t *err);

/** Release @p g (NULL: no-op); the strings cm_gres_device() gave die with
 *  it. */
void cm_gres_free(cm_gres_t *g);

/** The AutoDetect= value that applies to the node (the last one read), or
 *  NULL when the file gives none or @p g is NULL.  With a value other
 *  than "off", Slurm may know devices the file does not list. */
const char *cm_gres_autodetect(const cm_gres_t *g);

/** How many devices of resource @p name ("gpu", "nic"; case-insensitive)
 *  the node has: 0 or more, -1 for a NULL argument. */
int cm_gres_count(const cm_gres_t *g, const char *name);

/** One device, as cm_gres_device() describes it; the pointers belong to
 *  the cm_gres_t. */
typedef struct cm_gres_dev {
    const char *type;  /**< Type=, or NULL */
    const char *file;  /**< its device file, or NULL (Count= only) */
    const int *cores;  /**< Cores=, ascending and unique; NULL when not given */
    int ncores;
    const int *links;  /**< Links= as written (-1 itself, 0 none); NULL when not given */
    int nlinks;
    int line;          /**< the line of gres.conf it comes from */
} cm_gres_dev_t;

/** Device @p i (0-based, in Slurm's order) of resource @p name into
 *  @p out.  0, or -1 (@p out untouched) for NULL arguments or no such
 *  device. */
int cm_gres_device(const cm_gres_t *g, const char *name, int i, cm_gres_dev_t *out);

/** One switch for cm_tree_from_switches(): its Slurm level (leaf switches
 *  0) and the index of its parent switch (-1 at the top; the parent's level
 *  must be higher). */
typedef struct cm_switch_desc {
    const char *name;
    int level;
    int parent;
} cm_switch_desc_t;

/** One compute node for cm_tree_from_switches(): the index of the leaf
 *  switch it hangs from (unused without switches) and its @p slots cores,
 *  @p cores_per_socket (>= 1) to a socket, the last socket holding the
 *  rest. */
typedef struct cm_node_desc {
    const char *name;
    int leaf;
    int cores_per_socket;
    int slots;
} cm_node_desc_t;

/** The tree of @p nnodes (>= 1) nodes, in allocation order, under a Slurm
 *  switch tree of @p nsw switches (0: all nodes under one switch).  Used by
 *  cm_tree_from_slurm_conf() and by the plugin (from the controller), so
 *  levels, names and costs are as described there: only switches above
 *  some node are kept, one level per Slurm level present, "cluster" over
 *  several top switches.  Labels: node and switch names (copied; NULL
 *  names leave vertices unlabelled).  NULL with @p err for NULL @p nodes,
 *  NULL @p sw with nsw > 0, nsw < 0, a switch level outside 0..65535, a
 *  parent index out of range or not higher, a node's leaf out of range,
 *  cores_per_socket < 1 or slots < 0. */
cm_tree_t *cm_tree_from_switches(const cm_switch_desc_t *sw, int nsw,
                                 const cm_node_desc_t *nodes, int nnodes,
                                 cm_error_t *err);

/** The tree of @p nnodes (>= 1) nodes under the @p nblocks (>= 1) blocks
 *  of Slurm's topology/block (a rack-scale NVLink domain, say), each a
 *  switch of level 0 without a parent, @p nodes[i].leaf the index of node
 *  i's block: as cm_tree_from_switches() (blocks no node is in pruned,
 *  "cluster" over several) except that the blocks' level is named "block"
 *  (default costs those of "switch").  Used by cm_tree_from_slurm_conf()
 *  and by the plugin, so "block=..." in a level spec means the same to
 *  both.  NULL with @p err for NULL @p blocks, @p nblocks < 1, a block
 *  with a level or a parent, and what cm_tree_from_switches() refuses. */
cm_tree_t *cm_tree_from_blocks(const cm_switch_desc_t *blocks, int nblocks,
                               const cm_node_desc_t *nodes, int nnodes, cm_error_t *err);

/** Default latency of a level by name, in seconds per message
 *  (docs/machine-costs.md): core 0 (same slot), l2/l3 0.2 us, numa/socket
 *  0.3 us, node 0.4 us, "switch" (the leaf switch) 1.05 us, "switch<k>"
 *  (k <= 30) 1.05 * (k + 1) us, "cluster"/"root" as "switch1" (the readers
 *  that know their top switch level use the level above it).  -1 for
 *  unknown names and NULL. */
double cm_tree_default_latency(const char *level_name);

/** Default bandwidth of a level by name, in bytes per second: core
 *  infinite (INFINITY), l2/l3 20e9, numa/socket 16e9, node 14e9, "switch"
 *  12.5e9, "switch<k>" 12.5e9 / 2^k, "cluster"/"root" as "switch1".  -1
 *  for unknown names and NULL. */
double cm_tree_default_bandwidth(const char *level_name);

/** Default byte cost of a level by name: 1 / cm_tree_default_bandwidth(),
 *  seconds per byte (0 for core), -1 for unknown names and NULL.  The default
 *  message cost is cm_tree_default_latency(). */
double cm_tree_default_cost(const char *level_name);

/** Override level byte costs from "name=cost,name=cost" (per byte, in the
 *  tree's unit: seconds for hwloc/slurm.conf trees).  Message costs are
 *  left as they are.  Unknown names are an error naming the known ones;
 *  values are finite and >= 0.  0, or -1 with @p err (also for a NULL
 *  tree or spec); on any error the tree is unchanged.  Works before and
 *  after cm_tree_finalize(). */
int cm_tree_set_level_costs(cm_tree_t *t, const char *spec, cm_error_t *err);

/** Override level message costs from "name=latency,..." in seconds, with
 *  an optional unit: s, ms, us, ns (e.g. "node=0.5us,switch=1.5us").
 *  Byte costs are left as they are; errors as cm_tree_set_level_costs(). */
int cm_tree_set_level_latencies(cm_tree_t *t, const char *spec, cm_error_t *err);

/** Override level byte costs with 1 / bandwidth from "name=bandwidth,..."
 *  in bytes per second (> 0, "inf" for free bytes), with an optional
 *  unit: B/s, kB/s (= KB/s), MB/s, GB/s, TB/s (powers of 1000), KiB/s,
 *  MiB/s, GiB/s (powers of 1024), or bits: b/s, kb/s, Mb/s, Gb/s, Tb/s
 *  (e.g. "switch=12.5GB/s" or "switch=100Gb/s").  Message costs are left
 *  as they are; errors as cm_tree_set_level_costs(). */
int cm_tree_set_level_bandwidths(cm_tree_t *t, const char *spec, cm_error_t *err);

/** The three kinds of "name=value,..." level specs above. */
typedef enum cm_level_spec {
    CM_LEVEL_COSTS,      /**< cm_tree_set_level_costs() */
    CM_LEVEL_LATENCIES,  /**< cm_tree_set_level_latencies() */
    CM_LEVEL_BANDWIDTHS  /**< cm_tree_set_level_bandwidths() */
} cm_level_spec_t;

/** Judge the form of a level spec of @p kind without a machine: every item
 *  is name=value with a value (and unit) the matching setter accepts.  The
 *  names are not judged (they are the machine's levels), so a spec that
 *  passes may still name an unknown level.  Lets a configuration reader
 *  refuse "level_latencies=debug" when it is read rather than at every
 *  placement.  0, or -1 with @p err naming the item and what was expected
 *  (also for a NULL spec or an unknown kind). */
int cm_level_spec_check(cm_level_spec_t kind, const char *spec, cm_error_t *err);

/** Set one level's costs (finite, >= 0).  0, or -1 with @p err for a level
 *  that does not exist or a bad cost, the level then unchanged. */
int cm_tree_set_level_cost(cm_tree_t *t, int level, double byte_cost,
                           double msg_cost, cm_error_t *err);

/* -- queries --
 * Levels, vertices, labels and speeds answer as soon as they are added;
 * slots, children and nodes once the tree is finalized (before: the
 * bad-index answer).  A NULL tree or an index out of range gets the
 * answer each note gives. */

/** Slots (leaves); 0 for NULL or before cm_tree_finalize(). */
int cm_tree_nslots(const cm_tree_t *t);
/** Levels; 0 for NULL. */
int cm_tree_nlevels(const cm_tree_t *t);
/** The name of @p level, owned by the tree (valid until cm_tree_free());
 *  NULL for a level that does not exist. */
const char *cm_tree_level_name(const cm_tree_t *t, int level);
/** Level index by name, -1 if none (or NULL). */
int cm_tree_level_index(const cm_tree_t *t, const char *name);
/** A level's cost per byte and per message; 0 for a level that does not
 *  exist. */
double cm_tree_level_byte_cost(const cm_tree_t *t, int level);
double cm_tree_level_msg_cost(const cm_tree_t *t, int level);

/** Vertices; 0 for NULL. */
int cm_tree_nvertices(const cm_tree_t *t);
/** Level of vertex @p v; -1 for a vertex that does not exist. */
int cm_tree_vertex_level(const cm_tree_t *t, int v);
/** Parent of @p v; -1 for the root and for a vertex that does not exist. */
int cm_tree_vertex_parent(const cm_tree_t *t, int v);
/** Children of @p v, in the order they were added: their number (0 for a
 *  vertex that does not exist) and the @p k-th (-1 for k out of range). */
int cm_tree_vertex_nchildren(const cm_tree_t *t, int v);
int cm_tree_vertex_child(const cm_tree_t *t, int v, int k);
/** The label of @p v, owned by the tree (valid until cm_tree_free()); NULL
 *  for an unlabelled vertex and for one that does not exist. */
const char *cm_tree_vertex_label(const cm_tree_t *t, int v);
/** Speed of @p v (cm_tree_set_speed()); 0 for a vertex that does not exist. */
double cm_tree_vertex_speed(const cm_tree_t *t, int v);
/** First slot and number of slots below vertex @p v (either pointer may be
 *  NULL); 0 and 0 for a vertex that does not exist. */
void cm_tree_vertex_slots(const cm_tree_t *t, int v, int *first, int *count);
/** The leaf vertex of slot @p s; -1 for a slot that does not exist. */
int cm_tree_slot_vertex(const cm_tree_t *t, int s);

/** Level of the lowest common ancestor of slots @p p and @p q (the leaf level
 *  when p == q); -1 when either slot does not exist. */
int cm_tree_lca_level(const cm_tree_t *t, int p, int q);

/** Compute nodes: vertices of the level "node", in allocation order.
 *  cm_tree_nnodes() is 0 when the tree has no "node" level (or NULL);
 *  cm_tree_node_vertex() is -1 for a node that does not exist. */
int cm_tree_nnodes(const cm_tree_t *t);
int cm_tree_node_vertex(const cm_tree_t *t, int node);
/** Index (allocation order) of the node holding slot @p s, -1 if none. */
int cm_tree_slot_node(const cm_tree_t *t, int s);

/** Print the tree to @p f (for tests and debugging): a summary line, one
 *  line per level (name, costs, vertex count), then, once finalized, one
 *  line per vertex in depth-first order, indented two blanks a depth, with
 *  its level, label, slot range, node index and speed when not 1.  Prints
 *  nothing when either argument is NULL.  test/data's *.expected files
 *  hold this text: a change of format rewrites them (CM_REGENERATE=1). */
void cm_tree_print(const cm_tree_t *t, FILE *f);

/* ------------------------------------------------------------------------ */
/* Cost model                                                               */
/* ------------------------------------------------------------------------ */

/** Check that @p map (n entries) sends every rank to an existing slot and no
 *  slot receives more than one rank.  0, or -1 with @p err naming the first
 *  bad rank (also for NULL arguments, n < 1 or n above the slots). */
int cm_mapping_check(const cm_tree_t *t, const int *map, int n, cm_error_t *err);

/** J(pi) = sum over stored entries (i, j), as given (directed), of
 *  bytes_ij * byte_cost[lca(pi(i), pi(j))] + msgs_ij * msg_cost[lca].
 *  A symmetric METIS graph lists each edge twice, so J equals the J printed
 *  by VieM and KaHIP for it.  The map must be valid (cm_mapping_check);
 *  NAN on NULL arguments, a tree without levels, a slot out of range or
 *  no memory. */
double cm_cost(const cm_matrix_t *m, const cm_tree_t *t, const int *map);

/** T_max(pi): the communication time of the slowest rank, the objective
 *  T = max_i sum_j t(i, j).  Every stored entry (i -> j)
 *  is priced as in J, msgs_ij * msg_cost[lca] + bytes_ij * byte_cost[lca],
 *  and charged to its receiver j -- except the bytes of an entry between
 *  two nodes, which are charged to the receiver's node (cm_tree_nnodes();
 *  a tree without nodes charges them to j).  A rank's figure is what it
 *  was charged plus what its node was charged; T_max is the largest (0
 *  for no ranks).  Receivers, because a blocking receive of a small
 *  message costs its rank a full latency (SMPI's default protocol, MPI
 *  rendezvous), one after the other, and a pipeline moves at the pace of
 *  its slowest rank; nodes for the bytes, because a node's ranks share its
 *  network interface.  Where J sums everything, T_max predicts
 *  latency-bound pipelines (docs/machine-costs.md, "T_max").  J / n <=
 *  T_max <= J.  Seconds on hwloc and slurm.conf trees.  O(nnz), n + nodes
 *  long doubles of scratch.  NAN on NULL arguments, a slot out of range or
 *  no memory; the map must be valid (cm_mapping_check). */
double cm_cost_max(const cm_matrix_t *m, const cm_tree_t *t, const int *map);

/** L_max, the busiest uplink: for every node and switch group v, the bytes
 *  its ranks send to ranks outside v (and, apart, receive from outside),
 *  priced at the byte cost of v's parent's level (one node's share of v's
 *  uplink) and divided by the number of nodes of the smallest group at
 *  v's level (a level's cost is the share of its smallest group: its
 *  groups' uplinks are taken as that many shares each); the largest.  What a bulk
 *  exchange across a narrow link -- a cluster's link to the others, an
 *  oversubscribed leaf uplink -- waits for, where J sums all links.
 *  Seconds on hwloc and slurm.conf trees; 0 with fewer than 2 nodes.
 *  O(nnz x depth).  NAN on NULL arguments, a slot out of range or no
 *  memory. */
double cm_cost_links(const cm_matrix_t *m, const cm_tree_t *t, const int *map);

/** Everything `clustermap eval` prints. */
typedef struct cm_cost_report {
    double J;             /**< as cm_cost() */
    int nlevels;          /**< entries used in the arrays below */
    double *level_bytes;  /**< [nlevels], caller-allocated: bytes whose lowest
                               common ancestor is at that level */
    double *level_msgs;   /**< [nlevels], caller-allocated, may be NULL */
    double max_node_out;  /**< max over nodes of bytes sent to other nodes */
    int max_node;         /**< that node (allocation order), -1 if no nodes */
} cm_cost_report_t;

/** Fill @p r (its arrays sized cm_tree_nlevels()).  0, or -1 with @p err
 *  for NULL arguments, a NULL r->level_bytes or a map that
 *  cm_mapping_check() refuses; @p r is then untouched. */
int cm_cost_report(const cm_matrix_t *m, const cm_tree_t *t, const int *map,
                   cm_cost_report_t *r, cm_error_t *err);

/** A lower bound on J(pi) over every valid mapping pi of @p m onto @p t
 *  (one rank per slot): no mapper can do better.  Built per level from the
 *  heaviest partners each rank could keep inside a group and from the
 *  cheapest cut of a maximum spanning forest into group-sized pieces
 *  (docs/machine-costs.md).  @p cut_lb (may be NULL, else
 *  cm_tree_nlevels() entries) adds what the caller knows: a lower bound on
 *  the byte volume (both directions) between different groups of each level,
 *  e.g. from the geometry of a stencil.  Returns the bound, or -1 with
 *  @p err set (NULL matrix or tree, more ranks than slots, no memory). */
double cm_cost_lower_bound(const cm_matrix_t *m, const cm_tree_t *t,
                           const double *cut_lb, cm_error_t *err);

/* ------------------------------------------------------------------------ */
/* Baseline mappings                                                        */
/* ------------------------------------------------------------------------ */

/* Each fills @p map (n entries, caller-allocated) and returns 0, or -1 with
 * @p err for a NULL tree or map, n < 1, more ranks than slots or no
 * memory; on failure @p map may be partly written. */

/** Slurm's default "block": consecutive ranks fill a node's slots in slot
 *  order, nodes in allocation order; on a tree without nodes, rank i -> slot
 *  i.  Fails when n > number of slots. */
int cm_map_block(const cm_tree_t *t, int n, int *map, cm_error_t *err);

/** "cyclic": rank i to node i mod N (skipping full nodes), next free slot.
 *  On a tree without a "node" level, rank i -> slot i (the identity). */
int cm_map_cyclic(const cm_tree_t *t, int n, int *map, cm_error_t *err);

/** A uniformly random injective mapping from a seeded generator that gives
 *  the same result on every machine. */
int cm_map_random(const cm_tree_t *t, int n, uint64_t seed, int *map,
                  cm_error_t *err);

/** Scotch's static mapping (SCOTCH_graphMap) of the symmetric volume onto a
 *  tree-leaf architecture equivalent to @p t, or to the part of it the
 *  ranks can use (cm_tree_restrict()) when that is smaller, so that its
 *  time follows the ranks (weights scaled into Scotch's integer range).
 *  @p seed makes it reproducible.  Also -1 for a NULL matrix, or when
 *  Scotch fails. */
int cm_map_scotch(const cm_matrix_t *m, const cm_tree_t *t, uint64_t seed,
                  int *map, cm_error_t *err);

/* ------------------------------------------------------------------------ */
/* The placement engine                                                     */
/* ------------------------------------------------------------------------ */

/** What the engine minimises per level (docs/design.md; the default mixes
 *  both because latency-bound programs suffer from a bytes-only
 *  objective). */
typedef enum cm_weight {
    CM_WEIGHT_MIXED = 0, /**< msg_cost x messages + byte_cost x bytes */
    CM_WEIGHT_BYTES,     /**< byte_cost x bytes only */
    CM_WEIGHT_MSGS       /**< msg_cost x messages only */
} cm_weight_t;

/** Parse "mixed", "bytes", "msgs".  0, or -1 for NULL or an unknown name,
 *  @p out then untouched; @p out may be NULL (the name is only checked). */
int cm_weight_parse(const char *name, cm_weight_t *out);

/** Replace the level costs of @p t by the ones cm_plan() minimises for
 *  @p weight and matrix @p m: bytes keeps byte costs and zeroes message
 *  costs; msgs the reverse (a tree without any message cost prices each
 *  message at its byte cost); mixed keeps both, or bytes only when @p m
 *  has no message counts.  cm_cost() on the result is the objective of
 *  `plan --weight` (what `eval --weight` prints).  Only the first 32 levels
 *  (the planner's limit) are rewritten.  0, or -1 with @p err for a NULL
 *  tree or matrix. */
int cm_tree_apply_weight(cm_tree_t *t, const cm_matrix_t *m,
                         cm_weight_t weight, cm_error_t *err);

/** Options of cm_plan().  Initialise with cm_plan_options_init(). */
typedef struct cm_plan_options {
    const char *algorithm; /**< a method's name (cm_method_info()):
                                "auto" (default), "block", "cyclic",
                                "random", "scotch", "scotch-ms", "cluster",
                                "treecut" */
    double time_budget;    /**< seconds (default 1.0); turned into a fixed
                                amount of work, so results do not depend on
                                the speed of the machine; a candidate whose
                                predicted time does not fit what is left is
                                not started (docs/machine-costs.md) */
    uint64_t seed;         /**< default 1 */
    cm_weight_t weight;    /**< default CM_WEIGHT_MIXED */
    const int *initial;    /**< optional incoming mapping (n entries) that
                                "auto" refines and compares against */
    double pack_low;       /**< packing: stdev of cluster sizes below which
                                Plain is used (default documented in docs/) */
    double pack_high;      /**< above which, with few clusters, First-Fit */
    int pack_kmax;         /**< "few clusters" threshold for First-Fit */
    int verbose;           /**< fill the report's candidate list */
    double deadline;       /**< hard wall-clock limit in seconds from the
                                call (CLOCK_MONOTONIC), 0 (default): none;
                                see cm_plan() */
    void (*progress)(const char *stage, void *arg);
                           /**< optional: called, in the caller's thread,
                                with each candidate's name as the planner
                                takes it up (run or skipped), for a
                                progress display; NULL (default): none */
    void *progress_arg;    /**< passed to progress */
    int threads;           /**< threads the planner may use, the caller's
                                one included (default 1); the mapping is the
                                same for any number: only the wall time
                                changes (the multisection and the
                                spanning-tree placement split the machine
                                tree's subtrees among them; refinements run
                                on one) */
    int figures;           /**< 1: fill the report's figures of the plan
                                and of Slurm's default layout
                                (cm_plan_figures_t; two O(nnz) passes per
                                mapping), 0 (default): leave them out */
} cm_plan_options_t;

/** Set every field of @p o to its default (given above).  No-op on NULL. */
void cm_plan_options_init(cm_plan_options_t *o);

/** Threads a caller may give cm_plan() without taking CPUs it was not
 *  given: the CPUs this thread may run on (its affinity mask, as taskset or
 *  a Slurm step sets it), at most 16 (what the planner uses at most); 1
 *  when the mask cannot be read. */
int cm_plan_threads_available(void);

#define CM_PLAN_MAX_CANDIDATES 16

/** One algorithm the planner ran. */
typedef struct cm_plan_candidate {
    char name[32];
    double J;        /**< the objective of o->weight: cm_cost() after
                          cm_tree_apply_weight() (equal to cm_cost() under
                          the default mixed weight) */
    double T_max;    /**< cm_cost_max() under the same costs as J */
    double L_max;    /**< cm_cost_links() under the same costs; NAN
                          unless o->verbose */
    int over_tmax;   /**< 1 when ok but not eligible in "auto": its T_max
                          is above block's */
    double seconds;  /**< wall time it took */
    int ok;          /**< 0 when it failed or did not fit the budget */
    double predicted;/**< seconds its construction was predicted to take
                          (docs/machine-costs.md), 0 when not predicted */
    char why[96];    /**< when ok is 0: why, e.g. "skipped: predicted 2.1 s
                          > budget 0.5 s"; "" otherwise */
} cm_plan_candidate_t;

/** Most levels a report's figures hold: the planner's own limit (a tree
 *  with more levels fails cm_plan()). */
#define CM_PLAN_MAX_LEVELS 32

/** One mapping's figures on the caller's tree under the costs of
 *  o->weight, by the public definitions: what cm_cost(), cm_cost_max()
 *  and cm_cost_report() return once cm_tree_apply_weight() has given the
 *  tree those costs (the tree itself is left as it is).  Plain values in
 *  the report's storage: nothing to free. */
typedef struct cm_plan_figures {
    double J;            /**< cm_cost() */
    double T_max;        /**< cm_cost_max() */
    int nlevels;         /**< cm_tree_nlevels() of the tree */
    double level_bytes[CM_PLAN_MAX_LEVELS];
                         /**< [nlevels]: cm_cost_report()'s level_bytes */
    double max_node_out; /**< cm_cost_report()'s max_node_out */
} cm_plan_figures_t;

/** What cm_plan() did.  Plain values in the caller's storage (no pointer,
 *  nothing to free), valid until the caller reuses it; after a failure
 *  its content is unspecified. */
typedef struct cm_plan_report {
    char winner[32]; /**< the candidate whose mapping was returned */
    double J;        /**< its J, as the candidates' */
    double T_max;    /**< its T_max, as the candidates' */
    double L_max;    /**< its L_max, as the candidates' (NAN unless
                          o->verbose) */
    int ncandidates;
    cm_plan_candidate_t candidates[CM_PLAN_MAX_CANDIDATES];
    char algorithm[32]; /**< what o->algorithm asked for (a method's name,
                             cm_method_info(), so it fits) */
    int has_figures; /**< 1 when plan and slurm_default below are filled:
                          o->figures was set and they could be computed
                          (0: no memory, or the tree has more than
                          CM_PLAN_MAX_LEVELS levels) */
    cm_plan_figures_t plan;          /**< the returned mapping's */
    cm_plan_figures_t slurm_default; /**< Slurm's default layout's: block
                                          (cm_map_block()) on the same tree,
                                          the tree's slot order */
} cm_plan_report_t;

/** Styles of cm_plan_report_format(). */
typedef enum cm_plan_report_style {
    /** The placement record's key=value lines (`clustermap explain`):
     *  algorithm=, winner=, J=, J_default=, J_ratio=, T_max=,
     *  T_max_default=, one level.<name>.bytes=X default=Y per level,
     *  max_node_out=X default=Y, then one candidate= line per candidate.
     *  Needs the report's figures (has_figures). */
    CM_PLAN_REPORT_EXPLAIN = 0,
    /** What `clustermap plan --verbose` prints of the portfolio: winner=,
     *  then one "candidate NAME J=.. T_max=.. L_max=.. time=.." line per
     *  candidate, numbers exact (integers as such, others in %.17g). */
    CM_PLAN_REPORT_VERBOSE
} cm_plan_report_style_t;

/** @p r as text in @p style, every line ending in a newline.  @p t is the
 *  tree given to cm_plan() (it names the levels; unused by
 *  CM_PLAN_REPORT_VERBOSE, may then be NULL).  Returns a NUL-terminated
 *  string the caller frees with free(), never cut; NULL with @p err set on
 *  NULL arguments, an unknown style, CM_PLAN_REPORT_EXPLAIN without
 *  figures, a tree whose levels do not match the figures', or no memory. */
char *cm_plan_report_format(const cm_plan_report_t *r, const cm_tree_t *t,
                            cm_plan_report_style_t style, cm_error_t *err);

/** Map the n ranks of @p m onto the slots of @p t: map[rank] = slot.
 *  "auto" runs every candidate that fits the budget, always including
 *  block, and returns the lowest J among those whose T_max (cm_cost_max(),
 *  the slowest rank) is no higher than block's, so it is never worse than
 *  block in either figure under the model: a candidate that lowers J by
 *  making one rank's receives slower (a latency-bound pipeline) is not
 *  chosen.  The chosen mapping's busiest uplinks are then relieved by
 *  trading whole nodes' ranks between switches (J and T_max kept within
 *  0.5 % of the choice and within block's; the winner's name gets
 *  "+links" and the candidate "links" is reported).  Each candidate's
 *  L_max (cm_cost_links()) is reported.  Both figures use the costs of
 *  o->weight.  Same inputs, options and seed give the same mapping (unless
 *  a deadline cuts the run short).  The candidates run on
 *  cm_tree_restrict() of @p t, so that time and memory follow n, not the
 *  slots of t; block, cyclic and random (drawn over all of t) are those of
 *  t, and @p map and @p report refer to t.  A single algorithm whose
 *  predicted time does not fit the budget, or the time left before the
 *  deadline, is not started: -1 with @p err saying so.  With
 *  o->deadline, past it nothing starts and the best complete mapping so
 *  far is returned ("auto" always has block).  @p o may be NULL (the
 *  defaults), @p report too; @p o->algorithm and @p o->initial are read
 *  during the call only.  0 with @p map filled and @p report (its content
 *  meaningful only then), or -1 with @p err, @p map untouched: NULL
 *  @p m, @p t or @p map, more ranks than slots, a tree of more than 32
 *  levels, an unknown algorithm, a time budget or deadline not finite and
 *  >= 0, threads < 1, a bad initial mapping, no memory. */
int cm_plan(const cm_matrix_t *m, const cm_tree_t *t,
            const cm_plan_options_t *o, int *map, cm_plan_report_t *report,
            cm_error_t *err);

/* ------------------------------------------------------------------------ */
/* Placement methods                                                        */
/* ------------------------------------------------------------------------ */

/** One placement method cm_plan() knows (what cm_plan_options_t.algorithm
 *  names).  The engine's table is the one list of methods: the command's
 *  --algorithm, the plugin's algorithm= and the documentation read it. */
typedef struct cm_method_info {
    const char *name;    /**< what cm_plan_options_t.algorithm accepts */
    const char *summary; /**< one line, for a --help listing */
    int refined;         /**< 1: run alone, its mapping is refined by local
                              search (cm_plan() "refine" step) */
    int in_auto;         /**< 1: "auto" runs it among its candidates */
    int is_portfolio;    /**< 1: "auto", the portfolio of the others */
} cm_method_info_t;

/** How many methods there are (at least 1); cm_method_info() takes 0 to
 *  this minus 1.  The same for the life of the program. */
int cm_method_count(void);

/** Method @p i (0 <= i < cm_method_count()), or NULL when @p i is out of
 *  range.  The pointer and its strings are static: valid for the life of
 *  the program, never to be freed or written. */
const cm_method_info_t *cm_method_info(int i);

/** The index of the method named @p name (exact, case-sensitive), or -1
 *  when there is none or @p name is NULL. */
int cm_method_by_name(const char *name);

/** The methods' names in cm_method_info() order, separated by @p sep and,
 *  before the last one, by @p last (e.g. ", " and " or "; NULL: @p sep),
 *  written into @p buf (@p len bytes, always NUL-terminated when @p len
 *  is at least 1; @p buf may be NULL when @p len is 0).  Returns the
 *  length of the whole list without the NUL, as snprintf(): the list was
 *  cut short when that is @p len or more. */
size_t cm_method_names(char *buf, size_t len, const char *sep, const char *last);

/* ------------------------------------------------------------------------ */
/* Utilities                                                                */
/* ------------------------------------------------------------------------ */

/** Deterministic 64-bit generator (splitmix64 seeding xoshiro256**): the same
 *  sequence on every platform.  Caller-owned state, seeded before use;
 *  with a NULL state the functions below do nothing and return 0. */
typedef struct cm_rng {
    uint64_t s[4];
} cm_rng_t;
void cm_rng_seed(cm_rng_t *r, uint64_t seed);
uint64_t cm_rng_next(cm_rng_t *r);
/** Uniform integer in [0, bound), bound >= 1, unbiased. */
uint64_t cm_rng_below(cm_rng_t *r, uint64_t bound);
/** Uniform double in [0, 1). */
double cm_rng_double(cm_rng_t *r);

/** Expand a Slurm hostlist expression ("n[1-3,5],gpu01") into names.  On
 *  success *names is a malloc'd array of *count malloc'd strings; release
 *  with cm_hostlist_free().  Names are at most 255 bytes, lists at most
 *  2^20 names.  -1 with @p err for NULL arguments (nothing
 *  written), or for a malformed or too large expression (*names NULL,
 *  *count 0). */
int cm_hostlist_expand(const char *expr, char ***names, int *count,
                       cm_error_t *err);
/** Release what cm_hostlist_expand() gave (NULL: no-op). */
void cm_hostlist_free(char **names, int count);

/** Read a mapping file: one 0-based slot per line, line i for rank i
 *  ('#' comments and blank lines skipped, lines of at most 1024 bytes),
 *  exactly @p n (>= 1) entries into @p map.  0, or -1 with @p err naming
 *  the file and line (also for NULL arguments); @p map may then be partly
 *  written.  The slots are not checked against a tree (cm_mapping_check()). */
int cm_mapping_read(const char *path, int n, int *map, cm_error_t *err);
/** Write a mapping in the same format, replacing @p path whole through
 *  cm_file_atomic_open(), whose refusals it shares.  0, or -1 with @p err
 *  (NULL arguments, n < 1, a negative slot, the file's refusals) and
 *  @p path left as it was. */
int cm_mapping_write(const char *path, const int *map, int n, cm_error_t *err);
/** Write the hostfile of a mapping: line i holds the name (vertex label)
 *  of the node holding rank i's slot -- what Slurm reads from
 *  SLURM_HOSTFILE with --distribution=arbitrary and what SimGrid's smpirun
 *  reads with -hostfile.  Fails, before writing, when a rank's slot is not
 *  in a node or its node has no label (--hierarchy machines), or when
 *  cm_mapping_check() refuses @p map.  Replaces @p path whole, as
 *  cm_mapping_write(); returns as it does. */
int cm_hostfile_write(const char *path, const cm_tree_t *t, const int *map,
                      int n, cm_error_t *err);

/* ------------------------------------------------------------------------ */
/* A node's devices: GPUs and NICs                                          */
/* ------------------------------------------------------------------------ */

/** The GPUs and NICs of one node as hwloc describes them, with their
 *  locality.  Immutable once read.
 *
 *  A GPU is a PCI device with a GPU or co-processor OS device of hwloc's
 *  NVML, RSMI, LevelZero, CUDA or OpenCL backend, or, when no backend named
 *  it, a PCI display or 3D controller (class 0x0300, 0x0302, 0x0380) of
 *  NVIDIA, AMD or Intel (vendor 0x10de, 0x1002, 0x8086): one GPU per
 *  physical device however many backends name it.  A NIC is a PCI device
 *  (not a GPU) with an OpenFabrics or Network OS device; network
 *  interfaces without a PCI device (loopback, virtual) are not NICs.  GPUs
 *  and NICs are each numbered in PCI bus id order from 0: GPU index k is
 *  Slurm's GPU index on the node (gres.conf File= order).  A device's
 *  locality is the cpuset of its nearest non-I/O ancestor, or for a GPU
 *  the cores gres.conf gives it (cm_devices_apply_gres()). */
typedef struct cm_devices cm_devices_t;

/** Read the devices of the hwloc XML @p xml_path (an `lstopo --of xml`
 *  export with I/O), or of the live machine when @p xml_path is NULL.  A
 *  node without GPUs or NICs is not an error (0 of them).  A new handle the
 *  caller releases with cm_devices_free(), or NULL with @p err naming the
 *  file (cannot open, not hwloc XML, more than 4096 GPUs or NICs, no
 *  memory). */
cm_devices_t *cm_devices_from_hwloc(const char *xml_path, cm_error_t *err);

/** Release @p d (NULL: no-op); strings and arrays it gave die with it. */
void cm_devices_free(cm_devices_t *d);

/** GPUs and NICs; 0 for NULL. */
int cm_devices_ngpus(const cm_devices_t *d);
int cm_devices_nnics(const cm_devices_t *d);

/** GPU @p gpu's name: its OS device of the first backend of NVML, RSMI,
 *  LevelZero, CUDA, OpenCL ("nvml0", "rsmi3"), or its PCI bus id when no
 *  backend named it.  NULL for a NULL handle or a GPU that does not exist
 *  (as every string query below). */
const char *cm_devices_gpu_name(const cm_devices_t *d, int gpu);
/** GPU @p gpu's PCI bus id, "dddd:bb:dd.f" in lower-case hex. */
const char *cm_devices_gpu_busid(const cm_devices_t *d, int gpu);
/** GPU @p gpu's PCI vendor id (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel),
 *  which says which runtime's visible-devices variable applies; -1 for a
 *  GPU that does not exist. */
int cm_devices_gpu_vendor(const cm_devices_t *d, int gpu);
/** OS index of the smallest NUMA node holding GPU @p gpu's whole locality
 *  (of equal ones the first in hwloc's order, so CPU memory before a
 *  GH200's GPU memory); -1 when none does or the GPU does not exist. */
int cm_devices_gpu_numa(const cm_devices_t *d, int gpu);
/** OS index of the package holding GPU @p gpu's locality; -1 when the
 *  locality is not inside one package or the GPU does not exist. */
int cm_devices_gpu_package(const cm_devices_t *d, int gpu);
/** The cores of GPU @p gpu's locality: their number, and in *@p cores
 *  (may be NULL) their hwloc logical indexes, ascending, owned by @p d
 *  (PUs when the topology has no cores).  0 and NULL for a GPU that does
 *  not exist. */
int cm_devices_gpu_cores(const cm_devices_t *d, int gpu, const int **cores);
/** As cm_devices_gpu_cores(), the OS indexes of the PUs (what
 *  sched_setaffinity() and Slurm's CPU masks count). */
int cm_devices_gpu_pus(const cm_devices_t *d, int gpu, const int **pus);
/** The PUs of cm_devices_gpu_pus() as a Linux CPU list ("0-7,16"). */
const char *cm_devices_gpu_cpulist(const cm_devices_t *d, int gpu);
/** The NIC nearest GPU @p gpu: the one whose locality shares the smallest
 *  common ancestor with the GPU's; among equally near NICs the one of
 *  index gpu x nnics / ngpus, else the nearest index to it (lower first),
 *  so GPUs sharing a locality share its NICs in turn.  -1 when the node
 *  has no NIC or the GPU does not exist. */
int cm_devices_gpu_nic(const cm_devices_t *d, int gpu);
/** Bandwidth in bytes per second of the direct link from GPU @p a to GPU
 *  @p b, from hwloc's NVLinkBandwidth, XGMIBandwidth or XeLinkBandwidth
 *  matrix (MB/s there; through a switch the closure hwloc computes, the
 *  largest of several matrices).  0 for no link, a == b, or a GPU that
 *  does not exist. */
double cm_devices_gpu_bandwidth(const cm_devices_t *d, int a, int b);
/** The interconnect the bandwidths come from: "nvlink", "xgmi" or
 *  "xelink" (the first matrix, in that order, with a link between two
 *  GPUs); NULL when there is none or for NULL.  Static string. */
const char *cm_devices_link_name(const cm_devices_t *d);

/** Called with one line of what cm_devices_apply_gres() took from
 *  gres.conf ("gres.conf Cores= of GPU 2 (0-15) differs from hwloc's
 *  (16-31): Slurm's used"); the line dies after the call. */
typedef void (*cm_devices_note_fn)(const char *line, void *arg);

/** Slurm's view of the node's GPUs over hwloc's, where they differ.  GPU k
 *  of @p d is GPU k of @p g (both in Slurm's order: PCI bus order is
 *  gres.conf's File= order).  A GPU whose Cores= is given and is not its
 *  locality's cores gets Slurm's: its cores are hwloc's logical cores of
 *  those indexes (Slurm numbers cores socket by socket, as hwloc's
 *  logical order does; every hardware thread of a core), its PUs, CPU
 *  list, package, NUMA node and nearest NIC follow.  When every GPU has a
 *  Links= of one count per GPU and a count differs from the links hwloc's
 *  matrix implies, Slurm's counts replace the matrix: a count is worth u
 *  bytes/s, u = hwloc's slowest linked pair's bandwidth (else the
 *  interconnect's cm_tree_default_bandwidth(): "nvlink", "xgmi" for AMD,
 *  "xelink" for Intel) / Slurm's smallest count, and hwloc's pair says
 *  round(bandwidth / u) links.  @p note (may be NULL) gets one line per GPU
 *  whose Cores= or Links= row was taken.  The number of GPUs whose
 *  Cores= was taken plus 1 when Links= was; 0 when gres.conf agrees with
 *  hwloc or gives neither; -1 with @p err (NULL arguments, another number
 *  of GPUs, a Cores= index outside hwloc's cores, no memory), @p d then
 *  partly changed. */
int cm_devices_apply_gres(cm_devices_t *d, const cm_gres_t *g, cm_devices_note_fn note,
                          void *arg, cm_error_t *err);

/** cm_tree_from_hwloc_gpus() of the devices @p d (say after
 *  cm_devices_apply_gres()); @p what names them in errors (NULL: "devices"). */
cm_tree_t *cm_tree_from_gpu_devices(const cm_devices_t *d, const char *what, int nnodes,
                                    int per_gpu, cm_error_t *err);

/** NIC @p nic's name: its network interface ("ib0", "hsn2") when it has
 *  one, else its OpenFabrics device. */
const char *cm_devices_nic_name(const cm_devices_t *d, int nic);
/** NIC @p nic's OpenFabrics device ("mlx5_0", "cxi2"): what UCX_NET_DEVICES
 *  and libfabric name; NULL when it has none. */
const char *cm_devices_nic_fabric(const cm_devices_t *d, int nic);
/** 1 when NIC @p nic's OpenFabrics device is an InfiniBand verbs device
 *  (hwloc found it under /sys/class/infiniband and gave it a NodeGUID):
 *  one UCX_NET_DEVICES and libfabric's FI_VERBS_DEVICE_NAME can name; 0
 *  otherwise (a Slingshot cxi or BXI device, no OpenFabrics device, NULL
 *  @p d, no such NIC). */
int cm_devices_nic_verbs(const cm_devices_t *d, int nic);
/** NIC @p nic's PCI bus id, as cm_devices_gpu_busid(). */
const char *cm_devices_nic_busid(const cm_devices_t *d, int nic);
/** NIC @p nic's NUMA node, as cm_devices_gpu_numa(). */
int cm_devices_nic_numa(const cm_devices_t *d, int nic);
/** NIC @p nic's locality as a Linux CPU list of OS PU indexes. */
const char *cm_devices_nic_cpulist(const cm_devices_t *d, int nic);

/* ------------------------------------------------------------------------ */
/* Output files                                                             */
/* ------------------------------------------------------------------------ */

/** An output file being written: a temporary beside the target that
 *  cm_file_atomic_commit() renames over it, so readers see the old content
 *  or the new, never a part. */
typedef struct cm_file_atomic cm_file_atomic_t;

/** Start replacing @p path.  Only an absent name or a regular file owned by
 *  the effective user (root included) is replaced: a symbolic link (even
 *  to a regular file), a directory, a device, a FIFO, a socket or another
 *  user's file is refused with a message naming @p path and what it is,
 *  before anything is created; so is a directory whose last component is
 *  a symbolic link.  A new file gets mode 0666 & ~umask, a replaced one
 *  keeps its permission bits and, when possible, its group.  Returns NULL
 *  with @p err on failure (also for a NULL or empty path); the handle is
 *  released by commit or abort.  @p path is copied. */
cm_file_atomic_t *cm_file_atomic_open(const char *path, cm_error_t *err);

/** Where to write the content (owned by the handle; do not fclose it).
 *  NULL for a NULL handle. */
FILE *cm_file_atomic_stream(const cm_file_atomic_t *a);

/** Flush and sync the content, check the target again as
 *  cm_file_atomic_open() did, and rename the temporary over it.  A write
 *  error on the stream fails the commit.  Always releases @p a; on failure
 *  the temporary is removed and the target left as it was.  0, or -1 with
 *  @p err (also for a NULL handle). */
int cm_file_atomic_commit(cm_file_atomic_t *a, cm_error_t *err);

/** Drop the content: remove the temporary, release @p a, leave the target
 *  as it was.  NULL is a no-op. */
void cm_file_atomic_abort(cm_file_atomic_t *a);

/* ------------------------------------------------------------------------ */
/* Bounded planning: the part of a machine a step can use                   */
/* ------------------------------------------------------------------------ */

/* A step of n ranks in a large allocation never needs the whole machine.
 * cm_plan() plans on the part cm_tree_restrict() keeps, so that its time
 * and memory follow n and the nodes the step can use, not the slots of the
 * allocation; the mapping it returns is on the tree it was given.  A
 * restricted tree is an ordinary tree whose slots and nodes also know the
 * slot and node of the tree it was cut from (docs/machine-costs.md,
 * "Bounded planning"). */

/** The part of @p t that @p n ranks (n >= 1) can use.  From the root down,
 *  a vertex that must hold q ranks (q = n at the root) keeps its children
 *  in order of preference -- larger min(slots, q) x speed first, tree
 *  order on ties, so tree order when they are alike -- until those
 *  capacities, each capped at q, sum to 2q (the spare leaves packing room
 *  to keep groups whole), never more than q children; each kept child
 *  must hold its capped capacity.  So no node keeps more than n slots and
 *  no vertex more than n children.  Also kept: the slots cm_map_block()
 *  and cm_map_cyclic() use on @p t (both give those same slots on the
 *  result, through cm_tree_slot_origin()) and the @p nkeep slots of
 *  @p keep (may be NULL; entries that are not slots of t are ignored),
 *  e.g. an incoming mapping.  Levels (indices, names, costs, even when
 *  all their vertices are cut), labels, speeds and the order of slots and
 *  of nodes are those of @p t, so a mapping has the same J on both.  No
 *  mapping is lost on trees whose siblings are alike as long as the spare
 *  suffices; docs/machine-costs.md says what the rule can cost otherwise.
 *  Returns a new finalized tree, which the caller releases with
 *  cm_tree_free(), or NULL with @p err set (@p t NULL or not finalized,
 *  n < 1, no memory). */
cm_tree_t *cm_tree_restrict(const cm_tree_t *t, int n, const int *keep,
                            int nkeep, cm_error_t *err);

/** cm_tree_restrict(cm_tree_from_hierarchy(@p hierarchy, @p distances),
 *  @p n, @p keep, @p nkeep) without building the whole tree: time and
 *  memory follow n, not the slots of the hierarchy.  Same errors as
 *  cm_tree_from_hierarchy(); the caller frees the result. */
cm_tree_t *cm_tree_from_hierarchy_restricted(const char *hierarchy,
                                             const char *distances, int n,
                                             const int *keep, int nkeep,
                                             cm_error_t *err);

/** cm_tree_restrict(cm_tree_from_hwloc_gpus(@p xml_path, @p nnodes,
 *  @p per_gpu), @p n, @p keep, @p nkeep) reading one node and building only
 *  the nodes kept.  Same errors as cm_tree_from_hwloc_gpus(); the caller
 *  frees the result; cm_tree_slot_gpu() answers on it. */
cm_tree_t *cm_tree_from_hwloc_gpus_restricted(const char *xml_path, int nnodes,
                                              int per_gpu, int n, const int *keep,
                                              int nkeep, cm_error_t *err);

/** cm_tree_restrict(cm_tree_from_hwloc(@p xml_path, @p nnodes), @p n,
 *  @p keep, @p nkeep) reading one node and building only the nodes kept.
 *  Same errors as cm_tree_from_hwloc(); the caller frees the result. */
cm_tree_t *cm_tree_from_hwloc_restricted(const char *xml_path, int nnodes,
                                         int n, const int *keep, int nkeep,
                                         cm_error_t *err);

/** Slots and nodes of the tree @p t was cut from (those of t itself when
 *  it was not made by a restriction); 0 for NULL. */
int cm_tree_origin_nslots(const cm_tree_t *t);
int cm_tree_origin_nnodes(const cm_tree_t *t);

/** The slot of the tree @p t was cut from that slot @p s of @p t stands
 *  for (s when t was not cut); -1 when s is not a slot of t. */
int cm_tree_slot_origin(const cm_tree_t *t, int s);

/** The reverse: the slot of @p t that stands for slot @p origin of the
 *  tree it was cut from; -1 when t does not keep it.  O(log slots). */
int cm_tree_slot_from_origin(const cm_tree_t *t, int origin);

/** The allocation index, in the tree @p t was cut from, of node @p node
 *  of @p t; -1 when t has no such node. */
int cm_tree_node_origin(const cm_tree_t *t, int node);

/** A mapping onto the tree @p t was cut from, @p orig (n entries), as
 *  slots of @p t in @p map (which may be @p orig), checked as
 *  cm_mapping_check() checks it on that tree (same messages, naming its
 *  slots); a slot that @p t does not keep is an error too.  Returns 0, or
 *  -1 with @p err set (also for NULL arguments or n < 1); @p map may then
 *  be partly written. */
int cm_tree_map_from_origin(const cm_tree_t *t, const int *orig, int n,
                            int *map, cm_error_t *err);

/** The reverse: @p map (n slots of @p t) as slots of the tree t was cut
 *  from, in @p orig (which may be @p map).  Returns 0, or -1 with @p err
 *  set when an entry is not a slot of t or an argument is NULL; @p orig
 *  may then be partly written. */
int cm_tree_map_to_origin(const cm_tree_t *t, const int *map, int n,
                          int *orig, cm_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* CLUSTERMAP_H */
