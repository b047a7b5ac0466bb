/*
 * cmp_request.h -- a step's `--mapping=<mode>[,modifier...]` and the overlays it asks for
 * (options.c).  No Slurm symbol: the plugin, the mpirun wrapper and the
 * tests share it.
 */
#ifndef CMP_REQUEST_H
#define CMP_REQUEST_H

#include <stddef.h>
#include <sys/types.h>

#include "clustermap.h"
#include "cm_overlay_spec.h"
#include "cmp_limits.h"

/* ---- --mapping=<mode>[,modifier...] (options.c) ---- */

typedef enum cmp_mode {
    CMP_MODE_UNSET = 0, /* no --mapping anywhere: the configured default */
    CMP_MODE_OFF,
    CMP_MODE_CLUSTER,
    CMP_MODE_PROFILE,
    CMP_MODE_BLOCK,
    CMP_MODE_CYCLIC,
    CMP_MODE_HELP
} cmp_mode_t;

typedef struct cmp_request {
    cmp_mode_t mode;
    char name[CMP_NAME_MAX + 1]; /* name=<profile>: "" = the job's name */
    int verbose;
    int noprofile;
    int pack;         /* may run more tasks on a node than Slurm would */
    unsigned overlay; /* css, overlap: CMP_OVL_* the step runs */
    int nooverlay;    /* nooverlay: not even plugstack's overlay= */
} cmp_request_t;

/* The communication overlays of libclustermap-prof.so (docs/overlays.md)
 * a step may ask for: the bits and names of cm_overlay_spec.h. */
#define CMP_OVL_CSS CM_OVL_CSS   /* --mapping=...,css;     overlay=css */
#define CMP_OVL_TNBC CM_OVL_TNBC /* --mapping=...,overlap; overlay=tnbc */

/** A spec as plugstack's overlay= and the launcher's marks hold it: none,
 *  css, tnbc, css,tnbc (either order; cm_overlay_spec_parse, strict).  0
 *  with *@p out, or -1 with *@p out unchanged (@p v or @p out NULL
 *  included). */
int cmp_overlay_parse(const char *v, unsigned *out);

/** The spec of @p bits ("css", "tnbc", "css,tnbc", "" for none;
 *  cm_overlay_spec_print) into @p buf of @p size bytes, cut to fit (a
 *  NULL @p buf or a 0 @p size: nothing written). */
void cmp_overlay_spec(unsigned bits, char *buf, size_t size);

/** Parse a --mapping value.  0, or -1 with @p err naming what is wrong (a
 *  NULL or empty @p value, a NULL @p out, a name= longer than
 *  CMP_NAME_MAX: refused, never cut). */
int cmp_request_parse(const char *value, cmp_request_t *out, cm_error_t *err);

/** "cluster", "off", ...; "default" for CMP_MODE_UNSET or a value out of
 *  the enum. */
const char *cmp_mode_name(cmp_mode_t mode);

/** The text of --mapping=help. */
extern const char cmp_help_text[];

#endif /* CMP_REQUEST_H */
