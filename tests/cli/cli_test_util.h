// Helpers of the in-process command-line tests (tests/cli/): cli(...) runs `circles ARGS...`
// through run_cli, and the CliTest fixture gives each test an empty folder of its own
// (test::TempDirTest, tests/test_util.h).
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "test_util.h"

namespace circles::test {

// `circles ARGS...` in-process: its exit code.
inline int cli(std::vector<std::string> args) {
  args.insert(args.begin(), "circles");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return run_cli(static_cast<int>(argv.size()), argv.data());
}

// The in-process tests' fixture: an empty folder per test, path(NAME) is NAME in it.
class CliTest : public TempDirTest {};

}  // namespace circles::test
