#ifndef SPMVKIT_EXAMPLES_EXAMPLE_UTILS_HPP
#define SPMVKIT_EXAMPLES_EXAMPLE_UTILS_HPP

// Small helpers shared by the examples: command-line flags, the SpMV byte
// model, and timing one SpMV. Not part of the library.

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/formats/sell16/sell16_matrix.hpp>
#include <spmvkit/formats/sell/sell_matrix.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::examples {

/// "--name value" and "--flag" arguments (Kokkos has already removed its own
/// --kokkos-* ones). Unknown flags are an error, so typos do not go unnoticed.
class Args {
public:
  Args(int argc, char* argv[], std::map<std::string, std::string> defaults,
       std::vector<std::string> switches = {})
      : values_(std::move(defaults)), switches_(std::move(switches)) {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        help_ = true;
        continue;
      }
      if (arg.rfind("--", 0) != 0) {
        positional_.push_back(arg);
        continue;
      }
      std::string key = arg.substr(2), value;
      const auto eq = key.find('=');
      if (eq != std::string::npos) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
      } else if (std::find(switches_.begin(), switches_.end(), key) != switches_.end()) {
        value = "1";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        throw std::invalid_argument("missing value for --" + key);
      }
      if (!values_.count(key) &&
          std::find(switches_.begin(), switches_.end(), key) == switches_.end()) {
        throw std::invalid_argument("unknown option --" + key + usage());
      }
      values_[key] = value;
    }
  }
  bool help() const { return help_; }
  std::string usage() const {
    std::ostringstream os;
    os << "\noptions (default):";
    for (auto const& [k, v] : values_) os << "\n  --" << k << " (" << v << ")";
    for (auto const& s : switches_) os << "\n  --" << s;
    return os.str();
  }
  std::string str(std::string const& key) const {
    auto it = values_.find(key);
    return it == values_.end() ? std::string() : it->second;
  }
  bool flag(std::string const& key) const {
    const auto v = str(key);
    return !v.empty() && v != "0" && v != "false";
  }
  std::int64_t integer(std::string const& key) const {
    std::size_t used = 0;
    const auto v = str(key);
    const long long r = std::stoll(v, &used);
    if (used != v.size()) throw std::invalid_argument("--" + key + ": not an integer: " + v);
    return r;
  }
  double real(std::string const& key) const {
    std::size_t used = 0;
    const auto v = str(key);
    const double r = std::stod(v, &used);
    if (used != v.size()) throw std::invalid_argument("--" + key + ": not a number: " + v);
    return r;
  }
  std::vector<std::string> list(std::string const& key) const {
    std::vector<std::string> out;
    std::stringstream ss(str(key));
    for (std::string item; std::getline(ss, item, ',');)
      if (!item.empty()) out.push_back(item);
    return out;
  }
  std::vector<std::string> const& positional() const { return positional_; }

private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> switches_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

/// Math functions for kernels (kmath::sin, cos, exp, fabs): Kokkos 3.4 keeps
/// them in Kokkos::Experimental, 3.7 moved them to Kokkos:: and 4.x dropped
/// the old names.
#if KOKKOS_VERSION >= 30700
namespace kmath = ::Kokkos;
#else
namespace kmath = ::Kokkos::Experimental;
#endif

/// SELL's chunk size default: C = 32 (a warp per chunk) on GPUs, 4 (one SIMD
/// register of doubles) on CPUs, as the founding report suggests.
template <class ExecSpace>
int default_chunk_size() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible ? 4 : 32;
}

/// Bytes one SpMV must move at least: every stored value and column index
/// (padding included), the row/chunk bookkeeping, x read once and y written
/// once. Caches may serve x more than once; this is the lower bound that makes
/// GB/s comparable across formats.
template <class S, class E, class O, class F>
double spmv_bytes(CrsMatrix<S, E, O, F> const& A) {
  return static_cast<double>(A.nnz()) * (sizeof(S) + sizeof(O)) +
         static_cast<double>(A.num_rows() + 1) * sizeof(F) +
         static_cast<double>(A.num_cols() + A.num_rows()) * sizeof(S);
}
template <class S, class E, class O, class F>
double spmv_bytes(SellMatrix<S, E, O, F> const& A) {
  return static_cast<double>(A.stored_entries()) * (sizeof(S) + sizeof(O)) +
         static_cast<double>(A.num_chunks() + 1) * sizeof(F) +
         static_cast<double>(A.num_chunks()) * sizeof(O) +
         (A.is_permuted() ? static_cast<double>(A.num_rows()) * sizeof(O) : 0.0) +
         static_cast<double>(A.num_cols() + A.num_rows()) * sizeof(S);
}

template <class S, class E, class O, class F>
double spmv_bytes(Sell16Matrix<S, E, O, F> const& A) {
  return static_cast<double>(A.stored_entries()) * (sizeof(S) + sizeof(std::int16_t)) +
         static_cast<double>(A.num_chunks() + 1) * sizeof(F) +
         static_cast<double>(A.num_chunks()) * sizeof(O) +
         (A.is_permuted() ? static_cast<double>(A.num_rows()) * sizeof(O) : 0.0) +
         static_cast<double>(A.num_cols() + A.num_rows()) * sizeof(S);
}

/// Median seconds of `repetitions` calls of op() after one warm-up call, each
/// timed between fences so that asynchronous backends are measured too.
template <class ExecSpace, class Op>
double median_seconds(ExecSpace const& exec, Op&& op, int repetitions = 11) {
  op();
  exec.fence();
  std::vector<double> t;
  Kokkos::Timer timer;
  for (int i = 0; i < std::max(1, repetitions); ++i) {
    timer.reset();
    op();
    exec.fence();
    t.push_back(timer.seconds());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

/// Largest |a(i) - b(i)| over max |b(i)| (1 if b is all zero), on the host.
template <class A, class B>
double relative_difference(A const& a, B const& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < ha.extent(0); ++i) {
    const double d = std::abs(static_cast<double>(ha(i)) - static_cast<double>(hb(i)));
    diff = d > diff || d != d ? d : diff; // NaN wins
    scale = std::max(scale, std::abs(static_cast<double>(hb(i))));
  }
  return diff / (scale > 0 ? scale : 1.0);
}

/// Left-aligned first column, right-aligned others, widths from the content.
class Table {
public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& os) const {
    std::vector<std::size_t> w;
    for (auto const& r : rows_)
      for (std::size_t c = 0; c < r.size(); ++c) {
        if (w.size() <= c) w.push_back(0);
        w[c] = std::max(w[c], r[c].size());
      }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      for (std::size_t c = 0; c < rows_[i].size(); ++c) {
        const auto pad = std::string(w[c] - rows_[i][c].size(), ' ');
        os << (c == 0 ? rows_[i][c] + pad : "  " + pad + rows_[i][c]);
      }
      os << "\n";
      if (i == 0) {
        std::size_t total = 0;
        for (auto x : w) total += x + 2;
        os << std::string(total - 2, '-') << "\n";
      }
    }
  }

private:
  std::vector<std::vector<std::string>> rows_;
};

inline std::string fixed(double v, int digits) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(digits);
  os << v;
  return os.str();
}
inline std::string sci(double v, int digits = 3) {
  std::ostringstream os;
  os.setf(std::ios::scientific);
  os.precision(digits);
  os << v;
  return os.str();
}

} // namespace spmvkit::examples

#endif
