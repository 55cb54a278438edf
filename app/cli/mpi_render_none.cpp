// `circles render` under mpirun (or with --mpi) in a build without MPI: said, as a command-line
// mistake (app/cli/mpi_render.h).
#include <stdexcept>

#include "app/cli/mpi_render.h"

namespace circles {

bool have_mpi() { return false; }

int render_over_mpi(FrameJob&, const std::string&, const std::string&) {
  throw std::invalid_argument(
      "this build has no MPI: `circles render` over MPI ranks (mpirun, --mpi) needs Open MPI at configure time "
      "(Debian: openmpi-bin libopenmpi-dev, which scripts/install-deps.sh installs; then configure a fresh build "
      "directory). Without mpirun, circles renders in one process");
}

}  // namespace circles
