// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_EXAMPLES_EXAMPLE_CLI_HPP
#define SPMVKIT_EXAMPLES_EXAMPLE_CLI_HPP

// The examples' command line, shared so that they all behave alike (not part
// of the library):
//
// - each example lists its options in one table (flag, description, default,
//   parser); --help prints that table, with defaults, and exits 0;
// - numbers are parsed strictly and range-checked, unknown options and
//   unexpected positional arguments are rejected, input files must exist;
// - Kokkos' own options (--kokkos-*) are checked here before
//   Kokkos::initialize, which would abort on a bad value, and only they reach
//   Kokkos, so that Kokkos never reads the example's options (Kokkos 3.x also
//   reads --help, --threads, --device without the prefix);
// - every mistake is one line "<example>: <what>" on stderr and exit status 2.
//
// run_example() is the whole of an example's main().
#include "example_utils.hpp"

#include <Kokkos_Core.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmvkit::examples {

/// A mistake on the command line (or in the environment Kokkos reads): the
/// example prints "<example>: <what>" and exits with status 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Exit statuses of every example.
enum ExitStatus : int { exit_ok = 0, exit_check_failed = 1, exit_usage = 2 };

/// One row of an example's option table. `set` parses a value and stores it
/// (throwing UsageError that names the flag); `shown` gives the current value
/// as --help prints it, which before parsing is the default.
struct Option {
  std::string flag;    ///< without "--"; empty for the positional argument
  std::string metavar; ///< "INT", "LIST", "PATH"; empty for a switch
  std::string description;
  std::function<std::string()> shown;
  std::function<void(std::string const&)> set;
  bool is_switch() const { return metavar.empty(); }
  bool is_positional() const { return flag.empty(); }
  std::string display() const { return is_positional() ? metavar : "--" + flag; }
};

namespace detail {

inline std::string quote(std::string const& text) {
  // A bad value is quoted in the message; a few dozen characters are enough
  // to recognise it.
  constexpr std::size_t limit = 40;
  return "'" + (text.size() > limit ? text.substr(0, limit) + "..." : text) + "'";
}

/// Strict integer: optional '-', digits, nothing else (no spaces, no '+',
/// no "1e3"), within [lo, hi].
inline std::int64_t parse_integer(std::string const& name, std::string const& text, std::int64_t lo,
                                  std::int64_t hi) {
  const bool digits = !text.empty() && text.find_first_not_of("-0123456789") == std::string::npos &&
                      text.find('-', 1) == std::string::npos && text != "-";
  if (!digits) throw UsageError(name + ": " + quote(text) + " is not an integer");
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  const bool overflow = errno == ERANGE;
  if (overflow || value < lo || value > hi) {
    throw UsageError(name + ": " + quote(text) + " is out of range (" + std::to_string(lo) +
                     " .. " + std::to_string(hi) + ")");
  }
  return value;
}

inline std::string number_text(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

/// Strict finite real within lo < v < hi (or <= where inclusive).
inline double parse_real(std::string const& name, std::string const& text, double lo, bool lo_incl,
                         double hi, bool hi_incl) {
  errno = 0;
  char* end = nullptr;
  const double value = text.empty() || std::isspace(static_cast<unsigned char>(text[0]))
                           ? 0.0
                           : std::strtod(text.c_str(), &end);
  if (end == nullptr || end == text.c_str() || *end != '\0') {
    throw UsageError(name + ": " + quote(text) + " is not a number");
  }
  if (!std::isfinite(value))
    throw UsageError(name + ": " + quote(text) + " is not a finite number");
  if (errno == ERANGE) throw UsageError(name + ": " + quote(text) + " is out of range (underflow)");
  const bool above = lo_incl ? value >= lo : value > lo;
  const bool below = hi_incl ? value <= hi : value < hi;
  if (!above || !below) {
    std::string range;
    if (lo != -std::numeric_limits<double>::infinity())
      range += (lo_incl ? ">= " : "> ") + number_text(lo);
    if (hi != std::numeric_limits<double>::infinity())
      range +=
          (range.empty() ? "" : " and ") + std::string(hi_incl ? "<= " : "< ") + number_text(hi);
    throw UsageError(name + ": " + quote(text) + " is out of range (must be " + range + ")");
  }
  return value;
}

} // namespace detail

/// --flag INT in [lo, hi].
template <class Int>
Option integer_option(std::string flag, std::string description, Int& target, std::int64_t lo,
                      std::int64_t hi) {
  static_assert(std::is_integral_v<Int>);
  const std::string name = "--" + flag;
  return {std::move(flag), "INT", std::move(description),
          [&target] { return std::to_string(target); },
          [&target, name, lo, hi](std::string const& text) {
            target = static_cast<Int>(detail::parse_integer(name, text, lo, hi));
          }};
}

/// Bounds of a real option: lo < v < hi, or <= where the flag says inclusive.
struct RealRange {
  double lo = -std::numeric_limits<double>::infinity();
  bool lo_inclusive = false;
  double hi = std::numeric_limits<double>::infinity();
  bool hi_inclusive = false;
};

/// --flag REAL, finite and within `range`.
inline Option real_option(std::string flag, std::string description, double& target,
                          RealRange range) {
  const std::string name = "--" + flag;
  return {std::move(flag), "REAL", std::move(description),
          [&target] { return detail::number_text(target); },
          [&target, name, range](std::string const& text) {
            target = detail::parse_real(name, text, range.lo, range.lo_inclusive, range.hi,
                                        range.hi_inclusive);
          }};
}

/// --flag REAL or "auto" (stored as NaN; the example resolves it).
inline Option real_or_auto_option(std::string flag, std::string description, double& target,
                                  RealRange range) {
  Option o = real_option(std::move(flag), std::move(description), target, range);
  o.metavar = "REAL|auto";
  o.shown = [&target] { return std::isnan(target) ? "auto" : detail::number_text(target); };
  o.set = [&target, set = o.set](std::string const& text) {
    if (text == "auto") {
      target = std::numeric_limits<double>::quiet_NaN();
    } else {
      set(text);
    }
  };
  return o;
}

/// --flag (no value): sets target to true.
inline Option switch_option(std::string flag, std::string description, bool& target) {
  return {std::move(flag), "", std::move(description), [&target] { return target ? "on" : "off"; },
          [&target](std::string const&) { target = true; }};
}

/// --flag WORD, one of `choices`.
inline Option choice_option(std::string flag, std::string description, std::string& target,
                            std::vector<std::string> choices) {
  const std::string metavar = join(choices, "|");
  const std::string name = "--" + flag;
  return {std::move(flag), metavar, std::move(description), [&target] { return target; },
          [&target, name, choices, metavar](std::string const& text) {
            for (auto const& c : choices) {
              if (text == c) {
                target = text;
                return;
              }
            }
            throw UsageError(name + ": " + detail::quote(text) + " is not one of " + metavar);
          }};
}

/// Why `path` cannot be read as an input file ("" if it can).
inline std::string unreadable_file(std::string const& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (::access(path.c_str(), R_OK) != 0) return std::strerror(errno);
  return "";
}

/// An input file that must exist and be readable: `--flag PATH`, or the
/// positional argument when flag is empty. `when_absent` is what --help shows
/// when none is given.
inline Option input_file_option(std::string flag, std::string metavar, std::string description,
                                std::string& target, std::string when_absent) {
  const std::string name = flag.empty() ? "" : "--" + flag + ": ";
  return {std::move(flag), std::move(metavar), std::move(description),
          [&target, when_absent] { return target.empty() ? when_absent : target; },
          [&target, name](std::string const& path) {
            const std::string why = unreadable_file(path);
            if (!why.empty())
              throw UsageError(name + "cannot open " + detail::quote(path) + ": " + why);
            target = path;
          }};
}

/// An output file (`--flag PATH`, or "none" for no file): its directory must
/// exist and be writable, checked before the example runs.
inline Option output_file_option(std::string flag, std::string description, std::string& target) {
  const std::string name = "--" + flag + ": ";
  return {std::move(flag), "PATH|none", std::move(description), [&target] { return target; },
          [&target, name](std::string const& path) {
            if (path != "none") {
              if (path.empty()) throw UsageError(name + "needs a file name (or none)");
              const auto slash = path.find_last_of('/');
              const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
              struct stat st {};
              if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
                  ::access(dir.c_str(), W_OK) != 0) {
                throw UsageError(
                    name + "cannot write " + detail::quote(path) + ": directory " +
                    detail::quote(dir) + " " +
                    (::stat(dir.c_str(), &st) != 0 ? std::strerror(errno) : "is not writable"));
              }
            }
            target = path;
          }};
}

/// What --help says about the program.
struct ProgramInfo {
  std::string name;
  std::string about; ///< a paragraph: what the example does and checks
};

namespace detail {

/// `text` wrapped at `width` columns, continuation lines indented by `indent`.
inline std::string wrap(std::string const& text, std::size_t first_column, std::size_t indent,
                        std::size_t width = 100) {
  std::istringstream words(text);
  std::string out, word;
  std::size_t column = first_column;
  bool first = true;
  while (words >> word) {
    if (!first && column + 1 + display_width(word) > width) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += display_width(word);
    first = false;
  }
  return out;
}

inline void print_help(std::ostream& os, ProgramInfo const& info,
                       std::vector<Option> const& options) {
  std::string usage = "usage: " + info.name + " [options]";
  for (auto const& o : options)
    if (o.is_positional()) usage += " [" + o.metavar + "]";
  os << usage << "\n\n" << wrap(info.about, 0, 0) << "\n";
  constexpr std::size_t column = 26;
  auto row = [&](std::string head, std::string const& text) {
    head = "  " + head;
    head += head.size() + 2 <= column ? std::string(column - head.size(), ' ')
                                      : "\n" + std::string(column, ' ');
    os << head << wrap(text, column, column) << "\n";
  };
  bool any_positional = false;
  for (auto const& o : options) {
    if (!o.is_positional()) continue;
    if (!any_positional) os << "\narguments:\n";
    any_positional = true;
    row(o.metavar, o.description + " [" + o.shown() + "]");
  }
  os << "\noptions [default]:\n";
  for (auto const& o : options) {
    if (o.is_positional()) continue;
    row(o.display() + (o.is_switch() ? "" : " " + o.metavar),
        o.description + (o.is_switch() ? "" : " [" + o.shown() + "]"));
  }
  row("-h, --help", "print this help and exit");
  os << "\n"
     << wrap("Kokkos options (--kokkos-*) are passed to Kokkos, e.g. --kokkos-num-threads=4, "
             "--kokkos-disable-warnings; --kokkos-help lists them. OMP_PROC_BIND and OMP_PLACES "
             "set the OpenMP thread binding.",
             0, 0)
     << "\n";
}

/// The Kokkos options we pass on, checked here because Kokkos::initialize
/// aborts (3.x: an uncaught std::invalid_argument from std::stoi; 4.x:
/// Kokkos::abort) on a bad value. Spellings are translated to what this Kokkos
/// understands: --kokkos-num-threads and --kokkos-tools-libs arrived in 3.7,
/// which deprecated --kokkos-threads and --kokkos-tools-library; before 3.7 a
/// switch takes no =BOOL.
inline std::vector<std::string> kokkos_arguments(std::vector<std::string> const& given,
                                                 bool& help) {
  constexpr bool modern = KOKKOS_VERSION >= 30700;
  enum class Kind { count, device, toggle, text, help };
  struct Known {
    char const* flag;
    Kind kind;
    char const* here; // the spelling this Kokkos reads
  };
  static const Known known[] = {
      {"--kokkos-num-threads", Kind::count, modern ? "--kokkos-num-threads" : "--kokkos-threads"},
      {"--kokkos-threads", Kind::count, modern ? "--kokkos-num-threads" : "--kokkos-threads"},
      {"--kokkos-device-id", Kind::device, "--kokkos-device-id"},
      {"--kokkos-disable-warnings", Kind::toggle, "--kokkos-disable-warnings"},
      {"--kokkos-tune-internals", Kind::toggle, "--kokkos-tune-internals"},
      {"--kokkos-print-configuration", Kind::toggle, modern ? "--kokkos-print-configuration" : ""},
      {"--kokkos-tools-libs", Kind::text,
       modern ? "--kokkos-tools-libs" : "--kokkos-tools-library"},
      {"--kokkos-tools-library", Kind::text,
       modern ? "--kokkos-tools-libs" : "--kokkos-tools-library"},
      {"--kokkos-tools-args", Kind::text, "--kokkos-tools-args"},
      {"--kokkos-tools-help", Kind::toggle, "--kokkos-tools-help"},
      {"--kokkos-help", Kind::help, "--kokkos-help"},
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::string& arg = given[i];
    const auto eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    const bool has_value = eq != std::string::npos;
    std::string value = has_value ? arg.substr(eq + 1) : "";
    Known const* k = nullptr;
    for (auto const& candidate : known)
      if (flag == candidate.flag) k = &candidate;
    if (k == nullptr) {
      std::vector<std::string> flags;
      for (auto const& candidate : known) flags.emplace_back(candidate.flag);
      const std::string list = join(flags, ", ");
      throw UsageError("unknown Kokkos option " + quote(flag) + " (known here: " + list + ")");
    }
    switch (k->kind) {
    case Kind::count:
    case Kind::device:
    case Kind::text:
      if (!has_value) {
        // Kokkos wants --flag=VALUE; accept "--flag VALUE" too.
        if (i + 1 >= given.size() || given[i + 1].rfind("--", 0) == 0) {
          throw UsageError(flag + ": needs a value (" + flag + "=" +
                           (k->kind == Kind::text ? "TEXT" : "INT") + ")");
        }
        value = given[++i];
      }
      if (k->kind == Kind::count) {
        parse_integer(flag, value, 1, 65536);
      } else if (k->kind == Kind::device) {
        parse_integer(flag, value, 0, 65535);
      } else if (value.empty()) {
        throw UsageError(flag + ": needs a non-empty value");
      }
      out.push_back(std::string(k->here) + "=" + value);
      break;
    case Kind::toggle: {
      bool on = true;
      if (has_value) {
        if (value == "1" || value == "true" || value == "yes" || value == "on") {
          on = true;
        } else if (value == "0" || value == "false" || value == "no" || value == "off") {
          on = false;
        } else {
          throw UsageError(flag + ": " + quote(value) + " is not a boolean (true or false)");
        }
      }
      if (on && *k->here == '\0') {
        throw UsageError(flag + " needs Kokkos 3.7 or later (this is " +
                         std::to_string(KOKKOS_VERSION) + ")");
      }
      if (on) out.push_back(k->here);
      break;
    }
    case Kind::help:
      if (has_value) throw UsageError(flag + " takes no value");
      help = true;
      out.push_back(k->here);
      break;
    }
  }
  // Kokkos reads these too, and aborts on a bad one or on a disagreement with
  // the command line.
  for (auto const& [variable, lo, hi] :
       {std::tuple<char const*, std::int64_t, std::int64_t>{"KOKKOS_NUM_THREADS", 1, 65536},
        {"KOKKOS_DEVICE_ID", 0, 65535}}) {
    if (char const* v = std::getenv(variable)) parse_integer(variable, v, lo, hi);
  }
  return out;
}

} // namespace detail

/// The parsed command line: options are already stored by their setters.
struct CommandLine {
  bool help = false;
  bool kokkos_help = false;
  std::vector<std::string> kokkos; ///< checked --kokkos-* arguments, this Kokkos' spellings
};

/// Parses argv against `options`: "--flag VALUE", "--flag=VALUE", switches,
/// at most one positional argument where the table has one, and --kokkos-*
/// arguments (checked, kept for Kokkos). Throws UsageError.
inline CommandLine parse_command_line(int argc, char* argv[], std::vector<Option> const& options,
                                      std::string const& program) {
  CommandLine cl;
  Option const* positional = nullptr;
  for (auto const& o : options)
    if (o.is_positional()) positional = &o;
  bool positional_seen = false;
  std::vector<std::string> kokkos;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      cl.help = true;
      continue;
    }
    if (arg.rfind("--kokkos-", 0) == 0) {
      kokkos.push_back(arg);
      // "--kokkos-num-threads 4": the value travels with its flag.
      const bool takes_value = arg.find('=') == std::string::npos &&
                               (arg == "--kokkos-num-threads" || arg == "--kokkos-threads" ||
                                arg == "--kokkos-device-id" || arg == "--kokkos-tools-libs" ||
                                arg == "--kokkos-tools-library" || arg == "--kokkos-tools-args");
      if (takes_value && i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0)
        kokkos.push_back(argv[++i]);
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::string flag = arg.rfind("--", 0) == 0 ? arg.substr(2) : "";
      const auto eq = flag.find('=');
      const std::string name = eq == std::string::npos ? flag : flag.substr(0, eq);
      Option const* match = nullptr;
      for (auto const& o : options)
        if (!o.is_positional() && !name.empty() && o.flag == name) match = &o;
      if (match == nullptr) {
        throw UsageError("unknown option " + detail::quote(arg.substr(0, arg.find('='))) +
                         " (see " + program + " --help)");
      }
      if (match->is_switch()) {
        if (eq != std::string::npos) throw UsageError("--" + name + " takes no value");
        match->set("");
      } else if (eq != std::string::npos) {
        match->set(flag.substr(eq + 1));
      } else if (i + 1 < argc) {
        match->set(argv[++i]); // taken as the value even if it starts with '-' ("--N -5")
      } else {
        throw UsageError("--" + name + ": needs a value (" + match->metavar + ")");
      }
      continue;
    }
    if (positional == nullptr) {
      throw UsageError("unexpected argument " + detail::quote(arg) + ": " + program +
                       " takes no positional arguments (see " + program + " --help)");
    }
    if (positional_seen) {
      throw UsageError("unexpected argument " + detail::quote(arg) + ": " + program +
                       " takes one " + positional->metavar + " (see " + program + " --help)");
    }
    positional_seen = true;
    positional->set(arg);
  }
  cl.kokkos = detail::kokkos_arguments(kokkos, cl.kokkos_help);
  return cl;
}

/// Failed correctness checks. Each is reported on stderr when it happens, so
/// that a ctest log names every check that failed, not just the first.
class Checks {
public:
  void expect(bool ok, std::string const& failure) {
    if (ok) return;
    std::cerr << "FAILED: " << failure << "\n";
    ++failed_;
  }
  int failures() const { return failed_; }
  int exit_code() const { return failed_ == 0 ? exit_ok : exit_check_failed; }

private:
  int failed_ = 0;
};

/// The whole of an example's main(): parses the command line against
/// `options` (--help: print and exit 0), initializes Kokkos with the checked
/// --kokkos-* arguments only, runs `body` and finalizes. Usage errors and
/// exceptions from `body` become one line "<name>: <what>" on stderr and exit
/// status 2; `body` returns 0 (checks passed) or 1 (a check failed).
inline int run_example(int argc, char* argv[], ProgramInfo const& info,
                       std::vector<Option> const& options, std::function<int()> const& body) {
  // --help wins over any mistake beside it, and shows the defaults.
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      detail::print_help(std::cout, info, options);
      return exit_ok;
    }
  }
  CommandLine cl;
  try {
    cl = parse_command_line(argc, argv, options, info.name);
  } catch (std::exception const& e) {
    std::cerr << info.name << ": " << e.what() << "\n";
    return exit_usage;
  }
  std::vector<std::string> kokkos_args{argv[0]};
  kokkos_args.insert(kokkos_args.end(), cl.kokkos.begin(), cl.kokkos.end());
  std::vector<char*> kargv;
  for (auto& a : kokkos_args) kargv.push_back(a.data());
  kargv.push_back(nullptr);
  int kargc = static_cast<int>(kokkos_args.size());
  try {
    Kokkos::initialize(kargc, kargv.data());
  } catch (std::exception const& e) { // Kokkos 3.x throws for what we did not foresee
    std::cerr << info.name << ": Kokkos::initialize: " << e.what() << "\n";
    return exit_usage;
  }
  int status = exit_ok;
  if (!cl.kokkos_help) { // Kokkos has printed its help
    try {
      status = body();
    } catch (UsageError const& e) {
      std::cerr << info.name << ": " << e.what() << "\n";
      status = exit_usage;
    } catch (std::exception const& e) {
      std::cerr << info.name << ": " << e.what() << "\n";
      status = exit_usage;
    }
  }
  Kokkos::finalize();
  return status;
}

} // namespace spmvkit::examples

#endif
