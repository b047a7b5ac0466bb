/*
 * abort.c -- sends a little, then calls MPI_Abort: the profiler must write
 * nothing (not even a temporary file).
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int n, r, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Sendrecv_replace(&x, 1, MPI_INT, (r + 1) % n, 0, (r + n - 1) % n, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
