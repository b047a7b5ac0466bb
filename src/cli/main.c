/*
 * main.c -- `clustermap [--version] [--help] <command> [options]`: finds the
 * subcommand in the table below and hands it the rest of the command line.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand_t;

/* One line per subcommand; `clustermap --help` lists them in this order. */
static const subcommand_t subcommands[] = {
    { "plan", cm_cmd_plan, "compute a placement of a job's ranks and write it" },
    { "eval", cm_cmd_eval, "print the communication cost of a placement" },
    { "render", cm_cmd_render, "draw a placement or the judge's CSV: png, svg, pdf" },
    { "calibrate", cm_cmd_calibrate, "measure latency and bandwidth per machine "
      "level inside an allocation" },
    { "explain", cm_cmd_explain, "print what the plugin chose for a placed step, "
      "and why" },
    { "devices", cm_cmd_devices, "list a node's GPUs and NICs with their "
      "locality, as --gpus sees them" },
    { "profile", cm_cmd_profile, "manage the profile store: list, show, "
      "export, import, merge, ingest, delete, reset, prune" },
};

#define NSUBCOMMANDS ((int)(sizeof subcommands / sizeof subcommands[0]))

static void usage(FILE *f)
{
    fputs("Usage: clustermap [--version] [--help] <command> [options]\n"
          "\n"
          "Hierarchical, profile-guided placement of MPI ranks on a Slurm\n"
          "allocation.\n"
          "\n"
          "Commands:\n", f);
    for (int k = 0; k < NSUBCOMMANDS; k++)
        fprintf(f, "  %-10s %s\n", subcommands[k].name, subcommands[k].summary);
    fputs("\n"
          "Options:\n"
          "  -h, --help      this text\n"
          "  -V, --version   print the version\n"
          "\n"
          "'clustermap <command> --help' describes a command.\n"
          "Example:\n"
          "  clustermap plan --matrix app.mtx --hierarchy 4:2:4:2 \\\n"
          "      --distances 1:2:10:20 --algorithm scotch --output app.map\n", f);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "clustermap: %s%s%s%s\nTry 'clustermap --help'.\n", what,
            arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    return CM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    const char *name;

    if (argc < 2)
        return usage_error("missing command", NULL);
    name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0
        || strcmp(name, "help") == 0) {
        usage(stdout);
        return fflush(stdout) == 0 ? CM_EXIT_OK : CM_EXIT_FAIL;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("clustermap %s\n", CM_VERSION);
        return fflush(stdout) == 0 ? CM_EXIT_OK : CM_EXIT_FAIL;
    }
    if (name[0] == '-')
        return usage_error("unknown option", name);
    for (int k = 0; k < NSUBCOMMANDS; k++)
        if (strcmp(name, subcommands[k].name) == 0)
            return subcommands[k].run(argc - 1, argv + 1);
    return usage_error("unknown command", name);
}
