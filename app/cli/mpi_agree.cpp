// Failures of the ranks joined into the job's one failure (app/cli/mpi_agree.h).
#include "app/cli/mpi_agree.h"

#include <cstdio>
#include <string>

namespace circles {

Failure agree(const MpiWorld& world, const Failure& mine) {
  const MPI_Comm comm = world.comm();
  const int size = world.size();
  const bool failed = mine.code != 0;
  int candidate = failed ? world.rank() : size, first = size;
  mpi_check(MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == size) return {};
  int one = failed ? 1 : 0, failures = 0;
  mpi_check(MPI_Allreduce(&one, &failures, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  // The first failing rank's failure, to every rank.
  int head[3] = {mine.code, mine.prefixed ? 1 : 0, static_cast<int>(mine.message.size())};
  mpi_check(MPI_Bcast(head, 3, MPI_INT, first, comm), "MPI_Bcast");
  Failure f;
  f.code = head[0];
  f.prefixed = head[1] != 0;
  f.message = world.rank() == first ? mine.message : std::string(static_cast<std::size_t>(head[2]), '\0');
  if (head[2] > 0) mpi_check(MPI_Bcast(f.message.data(), head[2], MPI_CHAR, first, comm), "MPI_Bcast");
  // Whether every rank failed with these words (a bad scene file, a missing folder: said once).
  int same = failed && mine.message == f.message ? 1 : 0, all_same = 0;
  mpi_check(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, comm), "MPI_Allreduce");
  if (!all_same) {
    f.message = "rank " + std::to_string(first) + " of " + std::to_string(size) + ": " + f.message;
    if (failures > 1)
      f.message += " (" + std::to_string(failures - 1) + " more rank" + (failures > 2 ? "s" : "") + " failed)";
  }
  return f;
}

int report(const MpiWorld& world, const Failure& failure) {
  if (failure.code != 0 && world.rank() == 0) {
    std::fprintf(stderr, "%s\n", failure.line().c_str());
    std::fflush(stderr);
  }
  return failure.code;
}

}  // namespace circles
