/* report_host.h -- for the test programs of the virtual cluster: every rank
 * reports one line
 *     rank R size N host H cpus LIST
 * (LIST = its affinity mask as sorted CPU ranges, "0-1" or "0,2-3"), and rank
 * 0 prints them in rank order, so the output does not depend on how srun
 * interleaves the tasks' streams.  Include first: it needs _GNU_SOURCE for
 * the CPU_* macros. */
#ifndef CM_TEST_REPORT_HOST_H
#define CM_TEST_REPORT_HOST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define REPORT_LINE_LEN 512

/* Open MPI 5.0.7 can crash a rank that is still waiting on MPI_Init's fence
 * when a peer that left the fence first already sends to it (ob1 matches
 * against a world communicator not yet set up: open-mpi/ompi issue 12495).
 * These test programs let every rank leave MPI_Init before the first
 * message; it is Open MPI's bug, not the placement's, and real programs
 * meet it with or without clustermap. */
static void settle_after_init(void)
{
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION == 5
    usleep(300000);
#endif
}

static void cpu_list(char *buf, size_t len)
{
    cpu_set_t set;
    size_t used = 0;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(buf, len, "?");
        return;
    }
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int end = c;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set))
            end++;
        int n = end > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, end)
                        : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        if (n < 0 || (size_t)n >= len - used)
            return; /* truncated: keep what fits */
        used += (size_t)n;
        c = end;
    }
}

/* Collective over MPI_COMM_WORLD: the report lines, printed by rank 0. */
static void report_host(void)
{
    int rank, size;
    char host[256], cpus[256], line[REPORT_LINE_LEN];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    cpu_list(cpus, sizeof cpus);
    memset(line, 0, sizeof line);
    snprintf(line, sizeof line, "rank %d size %d host %s cpus %s", rank, size, host, cpus);
    if (rank == 0) {
        puts(line);
        for (int r = 1; r < size; r++) {
            MPI_Recv(line, REPORT_LINE_LEN, MPI_CHAR, r, 99, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            puts(line);
        }
        fflush(stdout);
    } else {
        MPI_Send(line, REPORT_LINE_LEN, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
    }
}

#endif
