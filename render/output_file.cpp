#include "render/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace circles {

namespace fs = std::filesystem;

std::string output_target(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.string();
}

void check_output_path(const std::string& path, const std::string& what) {
  if (path.empty()) throw std::invalid_argument(what + " is empty: give a file name");
  const fs::path target = output_target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec))
    throw std::invalid_argument(what + " '" + path + "' is a directory, not a file");
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument(what + " '" + path + "': directory '" + dir.string() + "' does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument(what + " '" + path + "': directory '" + dir.string() + "' is not writable");
}

void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what) {
  const std::string target = output_target(path);
  std::string tmp = target + ".XXXXXX";
  auto failure = [&](int err, bool remove_tmp) {
    if (remove_tmp) ::unlink(tmp.c_str());
    return std::runtime_error("cannot write " + what + " '" + path + "': " + std::strerror(err));
  };
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw failure(errno, false);
  // mkstemp makes the file 0600; give it the mode a new file gets here (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  std::size_t done = 0;
  int err = ::fchmod(fd, 0666 & ~mask) == 0 ? 0 : errno;
  while (err == 0 && done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = n < 0 ? errno : EIO;
    else done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw failure(err, true);
  if (std::rename(tmp.c_str(), target.c_str()) != 0) throw failure(errno, true);
}

}  // namespace circles
