#ifndef SPMVKIT_EXAMPLES_EXAMPLE_MAIN_HPP
#define SPMVKIT_EXAMPLES_EXAMPLE_MAIN_HPP

// The frame of the self-checking examples, so that they all answer --help, bad
// arguments and failed checks alike: exit code 0 when every check passes, 1
// when one fails, 2 for a usage or runtime error. Not part of the library.

#include "example_utils.hpp"

#include <Kokkos_Core.hpp>

#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit::examples {

/// Failed correctness checks. Each is reported on stderr when it happens, so
/// that a ctest log names every check that failed, not just the first.
class Checks {
public:
  void expect(bool ok, std::string const& failure) {
    if (ok) return;
    std::cerr << "FAILED: " << failure << "\n";
    ++failed_;
  }
  int exit_code() const { return failed_ == 0 ? 0 : 1; }

private:
  int failed_ = 0;
};

/// --C: a chunk size, or "auto" for default_chunk_size.
template <class ExecSpace>
int chunk_size_option(Args const& args) {
  return args.str("C") == "auto" ? default_chunk_size<ExecSpace>()
                                 : static_cast<int>(args.integer("C"));
}

/// The whole of an example's main(): example(args) between Kokkos initialize and
/// finalize, unless --help asks for `summary` and the options. An exception
/// becomes a message prefixed with `name` and exit code 2.
inline int run_example(int argc, char* argv[], char const* name, char const* summary,
                       std::map<std::string, std::string> defaults,
                       std::vector<std::string> switches, int (*example)(Args const&)) {
  // Kokkos removes its own --kokkos-* arguments here, before Args sees them.
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    const Args args(argc, argv, std::move(defaults), std::move(switches));
    if (args.help()) {
      std::cout << name << ": " << summary << args.usage() << "\n";
      return 0;
    }
    return example(args);
  } catch (std::exception const& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 2;
  }
}

} // namespace spmvkit::examples

#endif
