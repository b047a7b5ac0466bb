/*
 * cmd_explain.c -- `clustermap explain JOBID[.STEP]`: what the plugin chose
 * for a placed step and why -- the winner, J and T_max against Slurm's
 * default, bytes per level of the machine for both, and every candidate
 * with its figures or why it was not run -- as srun recorded it in the
 * user's store directory at the step's end (src/store/store_explain.c).
 */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cm_store.h"
#include "cm_text.h"

#define CMD "explain"

static void usage(FILE *f)
{
    fputs("Usage: clustermap explain JOBID[.STEP] [--store DIR] [--user U]\n\n"
          "Print the record the Slurm plugin kept of a step it placed with\n"
          "--mapping=cluster: the algorithm that won, J and T_max of the\n"
          "placement and of Slurm's default, bytes per machine level for both,\n"
          "every candidate with its figures (or why it did not run), the nodes\n"
          "used and the time the placement took.  JOBID alone prints every\n"
          "recorded step of the job.  The last 64 placed steps of each user are\n"
          "kept.\n\n"
          "Options:\n"
          "  --store DIR   store root (default $CLUSTERMAP_STORE, else the\n"
          "                store= of clustermap's line in plugstack.conf,\n"
          "                else /var/spool/slurm/clustermap)\n"
          "  --user U      whose steps: name or uid (default: you; others'\n"
          "                records are readable by root only)\n"
          "  -h, --help    this text\n", f);
}

int cm_cmd_explain(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "store", required_argument, NULL, 's' },
        { "user", required_argument, NULL, 'u' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *store = NULL, *user = NULL;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 's': store = optarg; break;
        case 'u': user = optarg; break;
        case 'h': usage(stdout); return CM_EXIT_OK;
        default: return cm_cli_bad_option(CMD, c, argv);
        }
    }
    if (optind != argc - 1)
        return cm_cli_usage_error(CMD, "expected one JOBID[.STEP]");
    uid_t uid = getuid();
    uint64_t v;
    if (user) {
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (cm_cli_parse_u64(user, UINT32_MAX - 1, &v) == 0)
            uid = (uid_t)v;
        else if (getpwnam_r(user, &pw, buf, sizeof buf, &res) == 0 && res)
            uid = pw.pw_uid;
        else
            return cm_cli_usage_error(CMD, "--user '%s': no such user", user);
    }
    cm_error_t err = { "" };
    cm_store_t *s = cm_store_open(cm_cli_store_root(store), uid, 0, 0, &err);
    if (!s)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s", err.msg);
    char *text = cm_store_explain_get(s, argv[optind], &err);
    cm_store_close(s);
    if (!text)
        return cm_cli_fail(CM_EXIT_FAIL, CMD, "%s", err.msg);
    /* The record is the user's file, written in part from the user's
     * input: each line is escaped (cm_text.h), the lines stay lines. */
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        cm_text_fwrite(line, n, stdout);
        if (line[n] == '\n')
            putchar('\n');
        line += n + (line[n] == '\n');
    }
    free(text);
    return fflush(stdout) == 0 ? CM_EXIT_OK : CM_EXIT_FAIL;
}
