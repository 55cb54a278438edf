// What a failed command prints and the code it exits with, one mapping for every path (one
// process, or MPI ranks that send their failure to rank 0): a scene file's error as the reader
// words it (file:line:column: ...), exit 1; a command-line mistake (std::invalid_argument)
// "circles: error: ...", exit 2; any other failure "circles: error: ...", exit 1.
#pragma once
#include <exception>
#include <string>

namespace circles {

struct Failure {
  int code = 0;          // the exit code; 0: no failure
  std::string message;   // what went wrong, without the "circles: error: " prefix
  bool prefixed = true;  // printed after "circles: error: " (a scene file's error is printed as it is)

  // The line to print, with `context` ("rank 2 of 4") before the message when given.
  std::string line(const std::string& context = {}) const;
};

// The failure of the exception `e` (non-null).
Failure failure_of(const std::exception_ptr& e);

}  // namespace circles
