// The command line as a separate process: what depends on the process itself (whether stderr is
// a terminal, signals). The binary is the `circles` built beside these tests (CIRCLES_BIN).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

extern char** environ;

namespace circles {
namespace {

namespace fs = std::filesystem;

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
    std::vector<std::string> argv_s = {CIRCLES_BIN};
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

}  // namespace
}  // namespace circles
