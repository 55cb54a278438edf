// MPI for one command: up (MPI_Init_thread) and down (MPI_Finalize) with the object's life, the
// ranks it runs on, and every MPI call checked. MPI_COMM_WORLD returns its errors instead of
// ending the job, so each call's is seen; an MPI call that fails leaves the ranks unable to agree
// on anything more, so that one failure ends the job at once (MPI_Abort) with a line naming the
// call and MPI's reason. Every other failure reaches rank 0 through app/cli/mpi_agree.h.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace circles {

// Aborts the job, naming `call` and MPI's reason, unless rc is MPI_SUCCESS.
void mpi_check(int rc, const char* call);
// Aborts the job with "circles: error: rank R: <why> (the job is aborted)": where the ranks can no
// longer agree (a message that is not what the protocol sends).
[[noreturn]] void mpi_abort(const std::string& why);

class MpiWorld {
 public:
  // Throws std::runtime_error where MPI cannot start.
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // This rank among the ranks of its host (they share its memory and GPUs), and their number.
  int host_rank() const { return host_rank_; }
  int host_size() const { return host_size_; }

  // Every rank's `v`, in rank order, on rank 0 (empty elsewhere).
  std::vector<std::int64_t> gather_at_root(std::int64_t v) const;

 private:
  int rank_ = 0, size_ = 1, host_rank_ = 0, host_size_ = 1;
};

}  // namespace circles
