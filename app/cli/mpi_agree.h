// Every rank's outcome of a step, joined into the job's one outcome, the same on every rank
// (collectives only: every rank calls it at the same step, failed or not). The job fails where
// any rank failed, with the first failing rank's code and message: said once, by rank 0, naming
// the rank where the ranks did not all fail alike.
#pragma once
#include "app/cli/failure.h"
#include "app/cli/mpi_world.h"

namespace circles {

// `mine`: this rank's failure (code 0: it did its part). Returns the job's failure (code 0: every
// rank did), its message prefixed "rank R of N: " (and "(K more ranks failed)" after it) unless
// every rank failed with the same words.
Failure agree(const MpiWorld& world, const Failure& mine);

// Prints the failure's line on rank 0 (nothing elsewhere) and returns its code.
int report(const MpiWorld& world, const Failure& failure);

}  // namespace circles
