// An environment variable set (or unset) for one scope: the destructor puts back what was there
// before, so a test that returns early (a failed ASSERT_*, an exception) leaves no switch behind
// for the tests after it.
#pragma once
#include <cstdlib>
#include <optional>
#include <utility>
#include <string>

namespace circles::test {

class ScopedEnv {
 public:
  // Sets `name` to `value`, or unsets it where `value` is null.
  ScopedEnv(std::string name, const char* value) : name_(std::move(name)), before_(current(name_)) {
    if (value) ::setenv(name_.c_str(), value, 1);
    else ::unsetenv(name_.c_str());
  }
  // Unsets `name`.
  explicit ScopedEnv(std::string name) : name_(std::move(name)), before_(current(name_)) { ::unsetenv(name_.c_str()); }
  ~ScopedEnv() {
    if (before_) ::setenv(name_.c_str(), before_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

  // Sets the variable to `value` for the rest of the scope (the value before the scope still
  // comes back at its end).
  void set(const std::string& value) const { ::setenv(name_.c_str(), value.c_str(), 1); }

 private:
  static std::optional<std::string> current(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  }

  std::string name_;
  std::optional<std::string> before_;
};

}  // namespace circles::test
