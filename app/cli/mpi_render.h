// `circles render` over MPI ranks (docs/SCALE.md), under mpirun or with --mpi: `frames` gives
// each rank a contiguous block of --frames, each file written by its rank; `bands` splits each
// frame's rows into bands, one a rank, drawn exactly (cpu-ref's pixels) and joined by rank 0 into
// one PNG written as the rows arrive: either way the files are the bytes one process writes.
// `circles` (sort-last) splits the scene's circles into ranges, one a rank, each drawn to a layer
// of the whole frame and composited in rank order: each 8-bit channel within 1 of cpu-ref's
// (docs/SCALE.md). The default: frames where --frames names several, else bands. Built with MPI (mpi_render.cpp) or
// without (mpi_render_none.cpp, which says this build has none).
#pragma once
#include <string>

namespace circles {

struct FrameJob;

// Whether this build has MPI.
bool have_mpi();

// Renders `job` to `pattern` (-o, resolved) over the ranks, `mode` "frames", "bands" or "" (the
// default). Returns the exit code; every rank's failure is said once, by rank 0. Throws
// std::invalid_argument where this build has no MPI.
int render_over_mpi(FrameJob& job, const std::string& pattern, const std::string& mode);

}  // namespace circles
