// Writing output files safely, one way for every file circles writes (PNG frames, scene files,
// JSON results): checked before the work starts, written through a unique temporary file in the
// same directory and renamed over the target, so a failure or an interruption never leaves a
// partial file and never clobbers an unrelated one; whole (write_file_atomically) or as a stream
// (AtomicOutputFile: a PNG written row by row as its rows arrive). Writing through a symlink
// writes its target and keeps the link, as other tools do. An existing FIFO or device
// (/dev/null) is written in place, never replaced.
#pragma once
#include <cstddef>
#include <string>

namespace circles {

// Where writing `path` lands: the final target of a symlink (relative links resolved against the
// link's directory), else `path` itself.
std::string output_target(const std::string& path);

// Throws std::invalid_argument (a command-line mistake) when `path` cannot be written: empty, an
// existing directory, or its directory missing or not writable. `what` names the option ("-o").
void check_output_path(const std::string& path, const std::string& what);

// Writes `bytes` to `path` atomically (see above). Throws std::runtime_error "cannot write WHAT
// 'PATH': reason"; the target is then untouched.
void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what);

// The same as a stream: the constructor makes the temporary file, write() appends to it, commit()
// closes it and renames it over `path`; destroyed before commit() (a failure, an exception), the
// temporary is removed and the target is untouched. Every failure throws std::runtime_error
// "cannot write WHAT 'PATH': reason". An existing FIFO or device is written in place, as above.
class AtomicOutputFile {
 public:
  AtomicOutputFile(const std::string& path, const std::string& what);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void commit();
  // The file written until commit(): the temporary (or the FIFO or device itself), for another
  // process to write by name (the video encoder).
  const std::string& written_path() const { return tmp_.empty() ? target_ : tmp_; }

 private:
  [[noreturn]] void fail(int err);
  std::string path_, what_, target_, tmp_;  // tmp_ empty: written in place
  int fd_ = -1;
  bool tracked_ = false;  // the temporary is the one the signal handlers remove
  bool done_ = false;     // committed (or failed, and cleaned up)
};

}  // namespace circles
