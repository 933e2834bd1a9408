/* SPDX-License-Identifier: MIT */
/*
 * CI only (scripts/test.sh preloads it into the ranks of the MPI tests): MPICH's ch4:ucx device,
 * Debian's, busy-polls UCX while a rank waits in a collective and never yields. CI runs 3 and 4
 * ranks on 2 cores, so a waiting rank spins out its whole time slice before the rank it waits
 * for gets the core: test_mpi at 3 and 4 ranks took 83 and 135 CPU seconds, 97% of them in
 * UCX's polling, against 1 at 2 ranks. Here, after a few empty polls in a row, the rank sleeps
 * 20 us, which hands its core to a rank with work; the MPI calls and what they return are
 * unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    static unsigned empty_polls;
    if (!real) real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    const unsigned events = real(worker);
    if (events) {
        empty_polls = 0;
    } else if (++empty_polls == 16) {
        empty_polls = 0;
        const struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
    return events;
}
