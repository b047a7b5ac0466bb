/* hello_hosts: each MPI rank reports where it runs and how it is bound (one
 * "rank R size N host H cpus LIST" line per rank, in rank order; see
 * report_host.h), so tests of the virtual Slurm cluster can check where
 * every rank ran. */
#include "report_host.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    settle_after_init();
    report_host();
    MPI_Finalize();
    return 0;
}
