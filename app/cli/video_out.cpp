// The video writer (app/cli/video_out.h): ffmpeg reads raw RGBA frames on its stdin and writes
// the container to the output's temporary file; its messages go to a file of their own, read
// back for the error when it fails.
#include "app/cli/video_out.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/output_file.h"

extern char** environ;

namespace circles {

namespace {

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t k = 0; k < suffix.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + k])) != suffix[k]) return false;
  return true;
}

std::string fps_text(double fps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", fps);
  return buf;
}

}  // namespace

bool is_video_path(const std::string& path) { return ends_with_ci(path, ".mp4") || ends_with_ci(path, ".webm"); }

void check_video(const std::string& path, int width, int height, double fps) {
  if (width % 2 || height % 2)
    throw std::invalid_argument("-o " + path + ": video in yuv420p needs an even width and height, not " +
                                std::to_string(width) + "x" + std::to_string(height) +
                                " (circles neither pads nor resizes: give -s with even sides)");
  if (!(fps >= 1 && fps <= 240)) throw std::invalid_argument("--fps takes 1 to 240 frames a second, not " + fps_text(fps));
}

struct VideoWriter::Impl {
  std::string path;
  int width = 0, height = 0;
  AtomicOutputFile file;
  std::FILE* log = nullptr;  // ffmpeg's messages
  pid_t pid = -1;
  int in = -1;  // ffmpeg's stdin
  bool done = false;
  Impl(const std::string& p, int w, int h) : path(p), width(w), height(h), file(p, "video") {}
  ~Impl() {
    if (log) std::fclose(log);
  }

  std::string messages() {
    std::string out;
    if (!log) return out;
    std::fflush(log);
    std::rewind(log);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, log)) > 0 && out.size() < 4000) out.append(buf, n);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }
  // Waits for ffmpeg; its exit status (or -1 when it was killed).
  int wait() {
    if (in >= 0) ::close(in);
    in = -1;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  [[noreturn]] void fail(const std::string& why) {
    const std::string said = messages();
    throw std::runtime_error("cannot write video '" + path + "': " + why + (said.empty() ? "" : ": ffmpeg: " + said));
  }
};

VideoWriter::VideoWriter(const std::string& path, int width, int height, double fps) {
  check_video(path, width, height, fps);
  impl_ = std::make_unique<Impl>(path, width, height);
  Impl& m = *impl_;
  m.log = std::tmpfile();
  const bool webm = ends_with_ci(path, ".webm");
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  std::vector<std::string> args = {"ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-f", "rawvideo",
                                   "-pix_fmt", "rgba", "-s", size, "-r", fps_text(fps), "-i", "pipe:0"};
  if (webm) {
    args.insert(args.end(), {"-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-crf", "24", "-b:v", "0", "-f", "webm"});
  } else {
    args.insert(args.end(), {"-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "medium", "-crf", "16",
                             "-movflags", "+faststart", "-f", "mp4"});
  }
  args.insert(args.end(), {"-y", m.file.written_path()});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipe_fd[2];
  if (::pipe(pipe_fd) != 0) m.fail(std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fd[0], 0);
  posix_spawn_file_actions_addclose(&actions, pipe_fd[1]);
  if (m.log) {
    posix_spawn_file_actions_adddup2(&actions, fileno(m.log), 1);
    posix_spawn_file_actions_adddup2(&actions, fileno(m.log), 2);
  }
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, "ffmpeg", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fd[0]);
  if (rc != 0) {
    ::close(pipe_fd[1]);
    m.fail(rc == ENOENT ? std::string("no ffmpeg program on PATH (Debian's ffmpeg package: scripts/install-deps.sh "
                                      "installs it)")
                        : std::string("cannot start ffmpeg: ") + std::strerror(rc));
  }
  m.pid = pid;
  m.in = pipe_fd[1];
  // A write to an encoder that has died fails with EPIPE here instead of ending the process.
  std::signal(SIGPIPE, SIG_IGN);
}

VideoWriter::~VideoWriter() {
  if (!impl_) return;
  Impl& m = *impl_;
  if (m.pid > 0) {
    ::kill(m.pid, SIGTERM);
    m.wait();
  }
  // m.file's destructor removes the temporary, and the log is closed with it.
}

void VideoWriter::add(const Image& frame) {
  Impl& m = *impl_;
  if (frame.width != m.width || frame.height != m.height)
    throw std::logic_error("VideoWriter: a frame of another size");
  const std::vector<std::uint8_t> rgba = to_rgba8(frame);  // top row first, as ffmpeg reads it
  std::size_t done = 0;
  while (done < rgba.size()) {
    const ssize_t n = ::write(m.in, rgba.data() + done, rgba.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      const int status = m.wait();
      m.fail(err == EPIPE ? "the encoder stopped (exit " + std::to_string(status) + ")" : std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
}

void VideoWriter::finish() {
  Impl& m = *impl_;
  const int status = m.wait();
  if (status != 0) m.fail("ffmpeg exited with status " + std::to_string(status));
  m.file.commit();
}

}  // namespace circles
