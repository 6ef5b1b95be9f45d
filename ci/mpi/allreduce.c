/* MPI_Allreduce timing for ci/mpi-compare: float sums, out of place, sizes from
 * MIN to MAX bytes multiplied by FACTOR, ITERS timed after WARMUP untimed calls.
 * Prints "bytes time_us" per size on rank 0: the slowest rank's average. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc != 6) {
        fprintf(stderr, "usage: allreduce MIN MAX FACTOR ITERS WARMUP\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long min = atol(argv[1]), max = atol(argv[2]), factor = atol(argv[3]);
    int iters = atoi(argv[4]), warmup = atoi(argv[5]);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    float *in = malloc(max), *out = malloc(max);
    for (long i = 0; i < max / (long)sizeof(float); i++) in[i] = (float)(rank + i % 7);
    for (long bytes = min; bytes <= max; bytes *= factor) {
        int count = (int)(bytes / sizeof(float));
        for (int i = 0; i < warmup; i++)
            MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        double mine = (MPI_Wtime() - t0) / iters * 1e6, slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("%ld %.2f\n", bytes, slowest);
        if (factor <= 1) break;
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
