// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun), with its rank and
// the job's size as the launcher's environment gives them: known before MPI is up (and in a
// build without MPI), so that the command line, which every rank parses alike, speaks from
// rank 0 only, and a build without MPI can say so under mpirun.
#pragma once

namespace circles {

struct MpiLaunch {
  bool launched = false;  // a launcher's rank variable is set
  int rank = 0;           // this process's rank (0 when not launched)
  int size = 1;           // the job's processes (0: the launcher does not say)
};

// From OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE (Open MPI), PMI_RANK / PMI_SIZE (MPICH,
// Slurm) or PMIX_RANK (PMIx), read once.
const MpiLaunch& mpi_launch();

}  // namespace circles
