/*
 * cmp_slurm_conf.h -- where Slurm's configuration files are, found as
 * Slurm's own clients find them (slurm_conf.c).  No Slurm symbol: the
 * placement module and the command share it.
 *
 * libslurm's slurm_conf_init(NULL) takes $SLURM_CONF when it is set, else
 * the file it was built with (default_slurm_config_file, "$(sysconfdir)/
 * slurm.conf" of Slurm's build) when that exists, else the copy a
 * configless slurmd keeps in /run/slurm/conf, else asks the controller
 * for the files (nothing on disk).  plugstack.conf is slurm.conf's
 * PlugStackConfig=, else plugstack.conf beside slurm.conf.
 */
#ifndef CMP_SLURM_CONF_H
#define CMP_SLURM_CONF_H

/* The slurm.conf of the libslurm this was built against (the Makefile
 * reads it from libslurm; Debian's Slurm: /etc/slurm/slurm.conf). */
#ifndef CMP_SLURM_CONF_DEFAULT
#define CMP_SLURM_CONF_DEFAULT "/etc/slurm/slurm.conf"
#endif
/* Where a configless slurmd keeps the files the controller sent it. */
#define CMP_SLURM_CONF_CACHED "/run/slurm/conf/slurm.conf"

/** slurm.conf by Slurm's rules, from what they read: @p env (the value
 *  of SLURM_CONF; NULL or "" when unset) as it is, else @p builtin when it
 *  exists, else @p cached when it exists.  A malloc'd path the caller
 *  frees, or NULL: no file (the configuration came from the controller),
 *  or out of memory.  NULL @p builtin or @p cached: not looked at. */
char *cmp_slurm_conf_find(const char *env, const char *builtin, const char *cached);

/** cmp_slurm_conf_find(getenv("SLURM_CONF"), CMP_SLURM_CONF_DEFAULT,
 *  CMP_SLURM_CONF_CACHED). */
char *cmp_slurm_conf_path(void);

/** plugstack.conf for @p slurm_conf: its PlugStackConfig= (the key in any
 *  case, as Slurm reads it; the last one counts; taken as it is, as Slurm
 *  opens it), else plugstack.conf beside it.  A malloc'd
 *  path, or NULL for a NULL @p slurm_conf or out of memory.  An unreadable
 *  slurm.conf gives the file beside it.  Include lines of slurm.conf are
 *  not followed. */
char *cmp_slurm_plugstack_path(const char *slurm_conf);

/** gres.conf for @p slurm_conf: the file beside it, where Slurm always
 *  looks.  A malloc'd path, or NULL for a NULL @p slurm_conf or out of
 *  memory. */
char *cmp_slurm_gres_path(const char *slurm_conf);

#endif /* CMP_SLURM_CONF_H */
