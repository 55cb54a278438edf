// The MPI launcher's environment, read once (app/cli/mpi_launch.h).
#include "app/cli/mpi_launch.h"

#include <cstdlib>

namespace circles {

namespace {

// A variable holding a whole number 0..2^31-1, or -1.
int env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n >= 0 && n <= 0x7fffffff ? static_cast<int>(n) : -1;
}

}  // namespace

const MpiLaunch& mpi_launch() {
  static const MpiLaunch launch = [] {
    MpiLaunch l;
    const struct {
      const char *rank, *size;
    } vars[] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"PMIX_RANK", nullptr}};
    for (const auto& v : vars) {
      const int rank = env_number(v.rank);
      if (rank < 0) continue;
      l.launched = true;
      l.rank = rank;
      const int size = v.size ? env_number(v.size) : -1;
      l.size = size > 0 ? size : 0;
      break;
    }
    return l;
  }();
  return launch;
}

}  // namespace circles
