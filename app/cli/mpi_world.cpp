// MPI up and down, the ranks, and checked calls (app/cli/mpi_world.h).
#include "app/cli/mpi_world.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace circles {

namespace {

std::string mpi_reason(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<std::size_t>(len));
}

}  // namespace

void mpi_abort(const std::string& why) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);  // best effort: this is the way out
  std::fprintf(stderr, "circles: error: rank %d: %s (the job is aborted)\n", rank, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return; should it, the rank ends here
}

void mpi_check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) mpi_abort(std::string(call) + " failed: " + mpi_reason(rc));
}

MpiWorld::MpiWorld() {
  // The renderers' threads never call MPI: the main thread alone does.
  int provided = 0;
  const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) throw std::runtime_error("MPI_Init_thread failed: " + mpi_reason(rc));
  mpi_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  if (provided < MPI_THREAD_FUNNELED) {
    // Threads that do not call MPI are beyond what MPI_THREAD_SINGLE promises; say so and go on
    // (every MPI implementation at hand gives FUNNELED).
    std::fprintf(stderr, "circles: note: this MPI gives no MPI_THREAD_FUNNELED; cpu-mt's threads never call MPI\n");
  }
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm host = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host),
            "MPI_Comm_split_type");
  mpi_check(MPI_Comm_rank(host, &host_rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(host, &host_size_), "MPI_Comm_size");
  mpi_check(MPI_Comm_free(&host), "MPI_Comm_free");
}

MpiWorld::~MpiWorld() {
  const int rc = MPI_Finalize();
  if (rc != MPI_SUCCESS)
    std::fprintf(stderr, "circles: error: rank %d: MPI_Finalize failed: %s\n", rank_, mpi_reason(rc).c_str());
}

std::vector<std::int64_t> MpiWorld::gather_at_root(std::int64_t v) const {
  std::vector<std::int64_t> all(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  long long mine = v;
  std::vector<long long> got(all.size());
  mpi_check(MPI_Gather(&mine, 1, MPI_LONG_LONG, rank_ == 0 ? got.data() : nullptr, 1, MPI_LONG_LONG, 0, comm()),
            "MPI_Gather");
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = got[k];
  return all;
}

}  // namespace circles
