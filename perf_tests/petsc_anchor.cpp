// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The spmvkit_perf side of the PETSc anchor (petsc_anchor.hpp): writes the system to a
// temporary directory, runs the helper spmvkit_perf_petsc there and reads back what it
// measured. SPMVKIT_PERF_PETSC_HELPER (the helper's path, from CMake) is defined only in builds
// with PETSc; the environment variable of the same name overrides it.

#include "petsc_anchor.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace spmvkit::perf {

namespace {

std::string helper_path() {
  if (char const* env = std::getenv("SPMVKIT_PERF_PETSC_HELPER")) {
    if (*env) return env;
  }
#ifdef SPMVKIT_PERF_PETSC_HELPER
  return SPMVKIT_PERF_PETSC_HELPER;
#else
  return "";
#endif
}

/// A temporary directory, removed with its files.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    char const* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/spmvkit_perf_petsc_XXXXXX";
    std::vector<char> text(pattern.begin(), pattern.end());
    text.push_back('\0');
    if (!mkdtemp(text.data())) {
      throw std::runtime_error("PETSc anchor: cannot create " + pattern + ": " +
                               std::strerror(errno));
    }
    path_ = text.data();
  }
  ~TemporaryDirectory() {
    for (auto const& f : files_) std::remove(f.c_str());
    rmdir(path_.c_str());
  }
  TemporaryDirectory(TemporaryDirectory const&) = delete;
  TemporaryDirectory& operator=(TemporaryDirectory const&) = delete;
  std::string file(std::string const& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }

private:
  std::string path_;
  std::vector<std::string> files_;
};

template <class T>
void write_array(std::ofstream& out, T const* data, std::int64_t count) {
  out.write(reinterpret_cast<char const*>(data), static_cast<std::streamsize>(count * sizeof(T)));
}

} // namespace

bool petsc_available() {
  const std::string helper = helper_path();
  return !helper.empty() && access(helper.c_str(), X_OK) == 0;
}

std::string petsc_version() {
#ifdef SPMVKIT_PERF_PETSC_VERSION
  return petsc_available() ? std::string("PETSc ") + SPMVKIT_PERF_PETSC_VERSION : "";
#else
  return "";
#endif
}

PetscRun run_petsc(PetscSystem const& s, PetscRequest const& r) {
  const std::string helper = helper_path();
  if (helper.empty()) throw std::runtime_error("this spmvkit_perf was built without PETSc");
  TemporaryDirectory dir;
  const std::string system_file = dir.file("system.bin");
  const std::string results_file = dir.file("results.txt");
  const std::string solutions_file = dir.file("solutions.bin");
  {
    std::ofstream out(system_file, std::ios::binary);
    out.write(petsc_system_magic, sizeof petsc_system_magic);
    const std::int64_t nnz = s.row_starts[s.n];
    write_array(out, &s.n, 1);
    write_array(out, &nnz, 1);
    write_array(out, s.row_starts, s.n + 1);
    write_array(out, s.columns, nnz);
    write_array(out, s.values, nnz);
    write_array(out, s.b, s.n);
    write_array(out, s.x0, s.n);
    if (!out) throw std::runtime_error("PETSc anchor: cannot write " + system_file);
  }
  std::ostringstream rtol;
  rtol.precision(17);
  rtol << r.relative_tolerance;
  std::vector<std::string> args{helper,
                                system_file,
                                results_file,
                                solutions_file,
                                r.solver,
                                r.preconditioner,
                                rtol.str(),
                                std::to_string(r.max_iterations),
                                std::to_string(r.restart),
                                std::to_string(r.solves),
                                std::to_string(r.block_size)};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int e = posix_spawn(&pid, helper.c_str(), nullptr, nullptr, argv.data(), environ)) {
    throw std::runtime_error("PETSc anchor: cannot run " + helper + ": " + std::strerror(e));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("PETSc anchor: waitpid failed");
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

  PetscRun run;
  std::ifstream results(results_file);
  std::string line;
  while (std::getline(results, line)) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "matrix_seconds") in >> run.matrix_seconds;
    if (key == "setup_seconds") in >> run.setup_seconds;
    if (key == "description") in >> run.description;
    if (key == "setup_error") {
      run.setup_failed = true;
      std::getline(in >> std::ws, run.error);
    }
    if (key == "solve") {
      PetscRun::Solve solve;
      int converged = 0;
      in >> converged >> solve.iterations >> solve.seconds >> solve.reason;
      solve.converged = converged != 0;
      run.solves.push_back(solve);
    }
  }
  if (code == 3 && run.setup_failed) return run;
  if (code != 0) {
    throw std::runtime_error("PETSc anchor: " + helper + " exited with status " +
                             std::to_string(code) + " (its message is on stderr)");
  }
  run.solutions.resize(run.solves.size() * static_cast<std::size_t>(s.n));
  std::ifstream solutions(solutions_file, std::ios::binary);
  solutions.read(reinterpret_cast<char*>(run.solutions.data()),
                 static_cast<std::streamsize>(run.solutions.size() * sizeof(double)));
  if (!solutions || run.solves.empty()) {
    throw std::runtime_error("PETSc anchor: " + helper + " left no solution");
  }
  return run;
}

} // namespace spmvkit::perf
