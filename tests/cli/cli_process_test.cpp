// The command line as a separate process: what depends on the process itself (whether stderr is
// a terminal, signals, exit codes). The binary is $CIRCLES_BIN, else a `circles` next to this
// test executable (binaries copied together to another machine), else the one this build made.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "render/png.h"
#include "test_util.h"

extern char** environ;

namespace circles {
namespace {

namespace fs = std::filesystem;

std::string circles_bin() {
  if (const char* env = std::getenv("CIRCLES_BIN"); env && *env) return fs::absolute(env).string();
  std::error_code ec;
  const fs::path sibling = fs::read_symlink("/proc/self/exe", ec).parent_path() / "circles";
  if (!ec && fs::exists(sibling)) return sibling.string();
  return CIRCLES_BIN;
}

class CliProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("circles_proc_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

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
    std::vector<std::string> argv_s = {circles_bin()};
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

  // Runs `circles args...` to its end: its exit code, or -1 when it did not exit (a signal).
  int run(const std::vector<std::string>& args) {
    const int status = wait_for(start(args, {}));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }

  fs::path dir_;
};

// Seeking far into an animation takes a while: with a progress line asked for, it is drawn in
// place (carriage returns) with what is under way; with stderr a file (CI, pipes) and nothing
// asked for, there is none at all. The seek must outlast the line's quiet half second with room
// to spare: 800 frames took 0.4 s on an idle CI machine and the line never showed.
TEST_F(CliProcess, ProgressLineOnlyOnATerminalOrWhenAsked) {
  const std::vector<std::string> args = {"render", "snow", "-r", "cpu-ref", "-s", "8x8", "--frames", "3000",
                                         "-o", path("far.png")};
  int status = wait_for(start(args, {"CIRCLES_PROGRESS=1"}));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << test::slurp(path("err.log"));
  std::string err = test::slurp(path("err.log"));
  EXPECT_NE(err.find("\rseek to frame 3000: frame "), std::string::npos) << err;
  EXPECT_NE(err.find("left"), std::string::npos) << err;
  // The line is erased before the frame's own message.
  EXPECT_NE(err.find("\x1b[Ksnow: frame 3000"), std::string::npos) << err;

  status = wait_for(start(args, {"CIRCLES_PROGRESS=", "CI="}));  // stderr is a file: not a terminal
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  err = test::slurp(path("err.log"));
  EXPECT_EQ(err.find('\r'), std::string::npos) << err;
  EXPECT_EQ(err.find("seek to"), std::string::npos) << err;
  EXPECT_NE(err.find("snow: frame 3000"), std::string::npos) << err;
}

// Ctrl-C while the output is being written (held there by a test hook, with its temporary file
// in place) leaves no file at all: no partial PNG and no stray temporary. The process still ends
// by the signal, as a shell expects.
TEST_F(CliProcess, CtrlCDuringAWriteLeavesNoFile) {
  fs::create_directories(path("out"));
  const pid_t pid = start({"render", "rgb", "-r", "cpu-ref", "-s", "32x32", "-o", path("out/x.png")},
                          {"CIRCLES_TEST_WRITE_DELAY_MS=20000"});
  ASSERT_GT(pid, 0);
  bool temp_seen = false;
  for (int i = 0; i < 400 && !temp_seen; ++i) {
    for (const auto& e : fs::directory_iterator(path("out")))
      temp_seen = temp_seen || e.path().filename().string().rfind("x.png.", 0) == 0;
    if (!temp_seen) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(temp_seen) << "no temporary file appeared";
  ::kill(pid, SIGINT);
  const int status = wait_for(pid);
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
// and its 8-bit values that differ fail --exact-bytes within the tolerance (exit 1). Needs a GPU:
// skipped without one, failed instead with CIRCLES_REQUIRE_GPU=1.
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
  if (!why.empty()) {
    const char* require = std::getenv("CIRCLES_REQUIRE_GPU");
    if (require && std::string(require) == "1") FAIL() << "CIRCLES_REQUIRE_GPU=1, but cuda-tile-binned is " << why;
    GTEST_SKIP() << "cuda-tile-binned: " << why;
  }
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
