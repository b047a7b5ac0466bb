/* hwloc_internal.h -- loading an hwloc topology, for the engine's hwloc
 * readers (tree_hwloc.c, devices.c).  Private to the engine. */
#ifndef CM_HWLOC_INTERNAL_H
#define CM_HWLOC_INTERNAL_H

#include <hwloc.h>

#include "clustermap.h"

/** Load the topology of the XML export @p xml_path (NULL: the live
 *  machine) into @p topo, keeping the I/O objects @p io_filter says (none
 *  for cores and caches, the important ones for GPUs and NICs).  0, or -1
 *  with @p err naming the file (cannot open it, not hwloc XML) and
 *  @p topo then released. */
int cm_hwloc_load(hwloc_topology_t *topo, const char *xml_path,
                  enum hwloc_type_filter_e io_filter, cm_error_t *err);

#endif
