/* hello_hosts: each MPI rank prints one line
 *     rank R size N host H cpus LIST
 * (LIST = the CPUs of its affinity mask, e.g. "0-1" or "0,2-3"), so tests of
 * the virtual Slurm cluster can check where every rank ran and how it was
 * bound.  Rank 0 gathers the lines and prints them in rank order: the output
 * does not depend on how srun interleaves the tasks' streams. */
#include "cpulist.h"
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_LEN 512


int main(int argc, char **argv)
{
    int rank, size;
    char host[256], cpus[256], line[LINE_MAX_LEN];

    MPI_Init(&argc, &argv);
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
            MPI_Recv(line, LINE_MAX_LEN, MPI_CHAR, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            puts(line);
        }
        fflush(stdout);
    } else {
        MPI_Send(line, LINE_MAX_LEN, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
