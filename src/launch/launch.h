/*
 * launch.h -- the Slurm-free launch model that the SPANK plugin
 * (src/plugin/) and clustermap's mpirun (src/mpirun/) share: the
 * --mapping request, the site's configuration, srun's and mpirun's
 * command lines, the allocation and Slurm's default layout of a step.
 * One header per module (cmp_*.h); this one includes them all for the
 * adapters.  libcm-launch.a links no Slurm symbol, so its unit tests run
 * without Slurm.
 */
#ifndef CMP_LAUNCH_H
#define CMP_LAUNCH_H

#include "cm_env.h"
#include "cmp_alloc.h"
#include "cmp_config.h"
#include "cmp_dirwalk.h"
#include "cmp_env_value.h"
#include "cmp_layout_text.h"
#include "cmp_leftovers.h"
#include "cmp_mpirun.h"
#include "cmp_request.h"
#include "cmp_slurm_conf.h"
#include "cmp_srun_args.h"
#include "cmp_step.h"

#endif /* CMP_LAUNCH_H */
