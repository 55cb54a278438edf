// Helpers of the in-process command-line tests (tests/cli/): cli(...) runs `circles ARGS...`
// through run_cli, and the CliTest fixture gives each test an empty folder of its own.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/cli.h"

namespace circles::test {

// `circles ARGS...` in-process: its exit code.
inline int cli(std::vector<std::string> args) {
  args.insert(args.begin(), "circles");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return run_cli(static_cast<int>(argv.size()), argv.data());
}

// An empty folder per test, named after the test; path(NAME) is NAME in it.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("circles_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

}  // namespace circles::test
