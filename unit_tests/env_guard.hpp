// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// EnvGuard: an environment variable set for one scope (the memory-limit tests).
#ifndef SPMVKIT_UNIT_TESTS_ENV_GUARD_HPP
#define SPMVKIT_UNIT_TESTS_ENV_GUARD_HPP

#include <cstdlib>
#include <optional>
#include <string>

namespace spmvkit::test {

/// Sets (or unsets, value == nullptr) an environment variable for one scope.
class EnvGuard {
public:
  EnvGuard(char const* name, char const* value) : name_(name) {
    if (char const* old = std::getenv(name); old != nullptr) old_ = std::string(old);
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~EnvGuard() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  EnvGuard(EnvGuard const&) = delete;
  EnvGuard& operator=(EnvGuard const&) = delete;

private:
  std::string name_;
  std::optional<std::string> old_;
};

} // namespace spmvkit::test

#endif
