// The command line as a separate process: what depends on the process itself (whether stderr is
// a terminal, signals, exit codes). The binary is test::circles_bin() (tests/test_util.h). Every
// wait is for a condition (a process that ends, a file that appears), with a deadline that only
// guards against a hang.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "render/png.h"
#include "test_util.h"

extern char** environ;

namespace circles {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How long a wait may take before the test calls it a hang: far beyond what any of these takes.
constexpr std::chrono::seconds kHang{60};

int ms_left(Clock::time_point end) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Reaps `pid`: its status as waitpid gives it.
int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Waits for `pid` to end: its status as waitpid gives it, or -1 (neither exited nor signalled)
// where there is no process or it was still running at `end` (then it is killed and the test
// fails).
int finish(pid_t pid, Clock::time_point end) {
  if (pid <= 0) return -1;  // waitpid(-1) would wait for any child
#ifdef SYS_pidfd_open
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) {  // readable once the process has ended
    pollfd p{fd, POLLIN, 0};
    int n = 0;
    while ((n = ::poll(&p, 1, ms_left(end))) < 0 && errno == EINTR) {
    }
    ::close(fd);
    if (n == 0) {
      ::kill(pid, SIGKILL);
      reap(pid);
      ADD_FAILURE() << "process " << pid << " still running at its deadline: killed";
      return -1;
    }
  }
#endif
  return reap(pid);  // where pidfd_open is missing (Linux before 5.3), a plain wait
}
int finish(pid_t pid) { return finish(pid, Clock::now() + kHang); }

// Waits until `ready()` holds, checking it again whenever something in `folder` changes (a file
// created, written, closed or moved there: inotify), for at most kHang. Whether it held.
bool wait_until(const fs::path& folder, const std::function<bool()>& ready) {
  const int fd = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0) {
    ADD_FAILURE() << "inotify_init1: " << std::strerror(errno);
    return ready();
  }
  if (::inotify_add_watch(fd, folder.c_str(), IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE) < 0) {
    ADD_FAILURE() << "inotify_add_watch " << folder << ": " << std::strerror(errno);
    ::close(fd);
    return ready();
  }
  const Clock::time_point end = Clock::now() + kHang;
  bool ok = ready();  // checked after the watch is in place, so no change after it is missed
  while (!ok && ms_left(end) > 0) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms_left(end)) > 0) {
      char events[4096];
      while (::read(fd, events, sizeof events) > 0) {
      }
    }
    ok = ready();
  }
  ::close(fd);
  return ok;
}

class CliProcess : public test::TempDirTest {
 protected:
  // Starts `circles args...` with stdout and stderr to files in the test's folder and `env`
  // added to (or replacing in) the environment; SIGINT has its default action in the child.
  pid_t start(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    std::vector<std::string> envs = env;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      const std::string key = kv.substr(0, kv.find('=') + 1);
      bool replaced = false;
      for (const std::string& mine : env) replaced = replaced || mine.rfind(key, 0) == 0;
      if (!replaced) envs.push_back(kv);
    }
    std::vector<std::string> argv_s = {test::circles_bin()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv, envp;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, path("out.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, path("err.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv_s[0].c_str(), &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    EXPECT_EQ(rc, 0) << "cannot start " << argv_s[0];
    return rc == 0 ? pid : -1;
  }

  // Runs `circles args...` to its end: its exit code, or -1 when it did not exit (a signal, a
  // hang, no process).
  int run(const std::vector<std::string>& args) {
    const int status = finish(start(args, {}));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

// Seeking far into an animation takes a while: with a progress line asked for, it is drawn in
// place (carriage returns) with what is under way, and erased before the frame's own message;
// with stderr a file (CI, pipes) and nothing asked for, there is none at all. The line stays quiet
// for the seek's first half second, so the seek is made longer (four times the frames) until its
// line shows, however fast the machine; a line that never shows fails at the deadline.
TEST_F(CliProcess, ProgressLineOnlyOnATerminalOrWhenAsked) {
  const auto seek_to = [&](std::int64_t frame) {
    return std::vector<std::string>{"render", "snow", "-r", "cpu-ref", "-s", "8x8", "--frames",
                                    std::to_string(frame), "-o", path("far.png")};
  };
  const Clock::time_point give_up = Clock::now() + kHang;
  std::int64_t frame = 3000;
  std::string err;
  for (;;) {
    const int status = finish(start(seek_to(frame), {"CIRCLES_PROGRESS=1"}), give_up);
    err = test::slurp(path("err.log"));
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << ": " << err;
    if (err.find("\rseek to frame ") != std::string::npos) break;
    ASSERT_GT(ms_left(give_up), 0) << "no progress line in a seek to frame " << frame << ": " << err;
    frame *= 4;
  }
  const std::string f = std::to_string(frame);
  EXPECT_NE(err.find("\rseek to frame " + f + ": frame "), std::string::npos) << err;
  EXPECT_NE(err.find("left"), std::string::npos) << err;
  // The line is erased before the frame's own message.
  EXPECT_NE(err.find("\x1b[Ksnow: frame " + f), std::string::npos) << err;

  // The same seek, long enough to show the line, shows none where stderr is a file.
  const int status = finish(start(seek_to(frame), {"CIRCLES_PROGRESS=", "CI="}));
  err = test::slurp(path("err.log"));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << ": " << err;
  EXPECT_EQ(err.find('\r'), std::string::npos) << err;
  EXPECT_EQ(err.find("seek to"), std::string::npos) << err;
  EXPECT_NE(err.find("snow: frame " + f), std::string::npos) << err;
}

// Ctrl-C while the output is being written (held there by a test hook, with its temporary file
// in place) leaves no file at all: no partial PNG and no stray temporary. The process still ends
// by the signal, as a shell expects.
TEST_F(CliProcess, CtrlCDuringAWriteLeavesNoFile) {
  fs::create_directories(path("out"));
  const pid_t pid = start({"render", "rgb", "-r", "cpu-ref", "-s", "32x32", "-o", path("out/x.png")},
                          {"CIRCLES_TEST_WRITE_DELAY_MS=20000"});
  ASSERT_GT(pid, 0);
  // Held: the temporary file is there with the whole PNG in it (its IEND chunk last), so the
  // write has reached the hook's delay.
  const auto temp_written = [&] {
    static const std::string iend("IEND\xae\x42\x60\x82", 8);
    for (const auto& e : fs::directory_iterator(path("out"))) {
      if (e.path().filename().string().rfind("x.png.", 0) != 0) continue;
      const std::string bytes = test::slurp(e.path());
      if (bytes.size() >= iend.size() && bytes.compare(bytes.size() - iend.size(), iend.size(), iend) == 0)
        return true;
    }
    return false;
  };
  EXPECT_TRUE(wait_until(path("out"), temp_written)) << "no complete temporary file in " << kHang.count() << " s";
  ::kill(pid, SIGINT);
  const int status = finish(pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
  EXPECT_TRUE(fs::is_empty(path("out"))) << "left: " << fs::directory_iterator(path("out"))->path();
}

// `circles check` as a shell sees it, where it passes: exit 0 and no difference image, with
// --tolerance 0 and --exact-bytes too (cpu-mt draws cpu-ref's floats to the bit); exit 2 for a
// command-line mistake. Its exit 1 needs a renderer that differs from cpu-ref, which no CPU
// renderer does: see CheckFailsWithExitOneAndWritesTheDifference (a GPU) and, in-process,
// CliTest.CheckFrame* (tests/cli/commands_test.cpp).
TEST_F(CliProcess, CheckPassesWithExitZeroAndWritesNoDifference) {
  const std::string scene = "rand10k";
  EXPECT_EQ(run({"check", scene, "-r", "cpu-mt", "-s", "61x47", "--diff", path("d.png")}), 0)
      << test::slurp(path("err.log"));
  std::string out = test::slurp(path("out.log"));
  EXPECT_NE(out.find("rand10k frame 0 61x47 cpu-mt vs cpu-ref: PASS"), std::string::npos) << out;
  EXPECT_EQ(run({"check", scene, "-r", "cpu-mt", "-s", "61x47", "--tolerance", "0", "--exact-bytes", "--diff",
                 path("d.png")}),
            0)
      << test::slurp(path("err.log"));
  out = test::slurp(path("out.log"));
  EXPECT_NE(out.find("vs cpu-ref: PASS"), std::string::npos) << out;
  EXPECT_NE(out.find("0 of 2867 pixels over tolerance; floats: 0 of 11468 values differ; 8-bit: 0 values differ"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(path("d.png")));
  // Command-line mistakes: exit 2, before any work.
  EXPECT_EQ(run({"check", "rgb", "-r", "cpu-mt", "--tolerance", "2", "--diff", path("d.png")}), 2);
  EXPECT_EQ(run({"check", "rgb", "-r", "cpu-mt", "--diff", path("no/such/dir/d.png")}), 2);
  EXPECT_NE(test::slurp(path("err.log")).find("does not exist"), std::string::npos) << test::slurp(path("err.log"));
  EXPECT_FALSE(fs::exists(path("d.png")));
}

// `circles check`'s exit 1, as a process: cuda-tile-binned's half colour (rand1M at 257x193,
// tile 32: the eight-pixel walk, R, G and B within 2^-10 of cpu-ref's and not its floats) keeps
// its mode's promise (exit 0) but fails --tolerance 0 (exit 1, the difference image written),
// and its 8-bit values that differ fail --exact-bytes within the tolerance (exit 1). Needs the
// GPU (NEED_GPU).
TEST_F(CliProcess, CheckFailsWithExitOneAndWritesTheDifference) {
  // Whether the binary under test can run cuda-tile-binned, as its `circles list` says.
  ASSERT_EQ(run({"list"}), 0);
  const std::string list = test::slurp(path("out.log"));
  const std::size_t at = list.find("\n  cuda-tile-binned ");
  ASSERT_NE(at, std::string::npos) << list;
  // Its block: the lines after its name that are indented under it.
  std::string why;
  for (std::size_t line = list.find('\n', at + 1); line != std::string::npos && why.empty();
       line = list.find('\n', line + 1)) {
    const std::string text = list.substr(line + 1, list.find('\n', line + 1) - line - 1);
    if (text.rfind(std::string(19, ' '), 0) != 0) break;
    if (text.find("UNAVAILABLE: ") != std::string::npos) why = text.substr(text.find("UNAVAILABLE: "));
  }
  NEED_GPU(why.empty() ? "" : "cuda-tile-binned is " + why);
  const std::vector<std::string> half = {"check", "rand1M", "-r", "cuda-tile-binned", "--half-colour",
                                         "--tile-size", "32", "-s", "257x193"};
  const auto with = [&](std::vector<std::string> more, const std::string& diff) {
    std::vector<std::string> args = half;
    args.insert(args.end(), more.begin(), more.end());
    args.insert(args.end(), {"--diff", path(diff)});
    return args;
  };
  // The mode's promise: passes.
  EXPECT_EQ(run(with({}, "promise.png")), 0) << test::slurp(path("out.log")) << test::slurp(path("err.log"));
  std::string out = test::slurp(path("out.log"));
  EXPECT_NE(out.find("PASS (half colour mode"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(path("promise.png")));
  // --tolerance 0: fails, exit 1, and the difference image is written, bright somewhere.
  EXPECT_EQ(run(with({"--tolerance", "0"}, "zero.png")), 1) << test::slurp(path("err.log"));
  out = test::slurp(path("out.log"));
  EXPECT_NE(out.find("vs cpu-ref: FAIL"), std::string::npos) << out;
  EXPECT_NE(out.find("difference (x16) written to " + path("zero.png")), std::string::npos) << out;
  ASSERT_TRUE(fs::exists(path("zero.png"))) << out;
  const Image diff = read_png(path("zero.png"));
  EXPECT_EQ(diff.width, 257);
  EXPECT_EQ(diff.height, 193);
  bool bright = false;
  for (const Float4& p : diff.pixels) bright = bright || p.x > 0.f || p.y > 0.f || p.z > 0.f;
  EXPECT_TRUE(bright);
  // Within a tolerance of 2^-9 it passes, though some 8-bit values differ; --exact-bytes fails it.
  EXPECT_EQ(run(with({"--tolerance", "0.002"}, "loose.png")), 0) << test::slurp(path("out.log"));
  out = test::slurp(path("out.log"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("8-bit: ([0-9]+) values differ"))) << out;
  EXPECT_GT(std::stoll(m[1].str()), 0) << "no 8-bit value differs, so --exact-bytes proves nothing: " << out;
  EXPECT_FALSE(fs::exists(path("loose.png")));
  EXPECT_EQ(run(with({"--tolerance", "0.002", "--exact-bytes"}, "bytes.png")), 1) << test::slurp(path("out.log"));
  out = test::slurp(path("out.log"));
  EXPECT_NE(out.find("FAIL (--exact-bytes)"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(path("bytes.png")));
}

}  // namespace
}  // namespace circles
