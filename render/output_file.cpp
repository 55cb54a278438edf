#include "render/output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <csignal>
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

namespace {

// An existing target that is neither a regular file nor a directory: a FIFO or a device such as
// /dev/null. Renaming a temporary file over it would replace it with a plain file (as root, even
// /dev/null), so it is written in place instead, as `> path` writes it.
bool is_special_file(const std::string& target) {
  struct stat st {};
  return ::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

}  // namespace

void check_output_path(const std::string& path, const std::string& what) {
  if (path.empty()) throw std::invalid_argument(what + " is empty: give a file name");
  const fs::path target = output_target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec))
    throw std::invalid_argument(what + " '" + path + "' is a directory, not a file");
  if (is_special_file(target.string())) {
    if (::access(target.c_str(), W_OK) != 0)
      throw std::invalid_argument(what + " '" + path + "' is not writable");
    return;  // written in place: its directory need not be writable (/dev)
  }
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument(what + " '" + path + "': '" + dir.string() + "' " +
                                (fs::exists(dir, ec) ? "is not a directory" : "does not exist"));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument(what + " '" + path + "': directory '" + dir.string() + "' is not writable");
}

namespace {

// Ctrl-C (or SIGTERM, SIGHUP) while a temporary file exists removes it before the process ends,
// so an interrupted write leaves neither a partial file nor a stray temporary. The handler only
// calls unlink() and re-raises the signal with its default action (async-signal-safe).
char g_temp_path[4096];
std::atomic<bool> g_temp_live{false};
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temp_and_reraise(int sig) {
  if (g_temp_live.load()) ::unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Installs the handler where the signal still has its default action (a program's own
// handlers are left alone).
void install_cleanup_handlers() {
  static const bool installed = [] {
    for (int sig : kCleanupSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction act {};
      act.sa_handler = remove_temp_and_reraise;
      sigemptyset(&act.sa_mask);
      ::sigaction(sig, &act, nullptr);
    }
    return true;
  }();
  (void)installed;
}

// Test hook: CIRCLES_TEST_WRITE_DELAY_MS holds a write for that long with its temporary file in
// place, so a test can interrupt it there.
void test_write_delay() {
  const char* ms = std::getenv("CIRCLES_TEST_WRITE_DELAY_MS");
  if (ms && *ms) ::usleep(static_cast<useconds_t>(std::strtoul(ms, nullptr, 10) * 1000));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what) {
  AtomicOutputFile file(path, what);
  file.write(bytes.data(), bytes.size());
  file.commit();
}

AtomicOutputFile::AtomicOutputFile(const std::string& path, const std::string& what)
    : path_(path), what_(what), target_(output_target(path)) {
  if (is_special_file(target_)) {  // a FIFO or a device: in place (a FIFO's open waits for its reader)
    fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail(errno);
    return;
  }
  install_cleanup_handlers();
  std::string tmp = target_ + ".XXXXXX";
  // The cleanup signals wait while the file is made and tracked: one arriving between mkstemp
  // and the tracking would otherwise end the process with the temporary file left behind. One
  // temporary is tracked at a time (a second one open at once is not).
  sigset_t cleanup, before;
  sigemptyset(&cleanup);
  for (int sig : kCleanupSignals) sigaddset(&cleanup, sig);
  ::pthread_sigmask(SIG_BLOCK, &cleanup, &before);
  fd_ = ::mkstemp(tmp.data());
  const int mkstemp_errno = errno;
  if (fd_ >= 0 && tmp.size() < sizeof g_temp_path && !g_temp_live.load()) {
    std::memcpy(g_temp_path, tmp.c_str(), tmp.size() + 1);
    g_temp_live.store(true);
    tracked_ = true;
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (fd_ < 0) fail(mkstemp_errno);
  tmp_ = tmp;
  // mkstemp makes the file 0600; give it the mode a new file gets here (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd_, 0666 & ~mask) != 0) fail(errno);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (done_) return;
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  if (tracked_) g_temp_live.store(false);
}

void AtomicOutputFile::fail(int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  if (tracked_) g_temp_live.store(false);
  done_ = true;
  throw std::runtime_error("cannot write " + what_ + " '" + path_ + "': " + std::strerror(err));
}

void AtomicOutputFile::write(const void* data, std::size_t bytes) {
  if (done_ || fd_ < 0) throw std::logic_error("AtomicOutputFile::write after commit or failure: " + path_);
  const char* p = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(fd_, p + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
}

void AtomicOutputFile::commit() {
  if (done_ || fd_ < 0) throw std::logic_error("AtomicOutputFile::commit after commit or failure: " + path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errno);
  if (!tmp_.empty()) {
    test_write_delay();
    if (std::rename(tmp_.c_str(), target_.c_str()) != 0) fail(errno);
  }
  if (tracked_) g_temp_live.store(false);
  done_ = true;
}

}  // namespace circles
