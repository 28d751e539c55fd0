// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_COMMON_HPP
#define SPMVKIT_PERF_COMMON_HPP

// Types, machine description, process-wide registries and the small kernels around the
// benchmarks. Nothing here names a format but CRS, the form every matrix is loaded in.

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/interop/kokkos_kernels.hpp>
#include <spmvkit/operations/spmv.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace spmvkit::perf {

// ---------------------------------------------------------------------------------------------
// Types: everything runs on the default execution space, in its default memory space.
// ---------------------------------------------------------------------------------------------
using Exec = Kokkos::DefaultExecutionSpace;
using MemSpace = Exec::memory_space;
using Device = Kokkos::Device<Exec, MemSpace>;

template <class Scalar>
using Vector = Kokkos::View<Scalar*, Device>;
template <class Scalar>
using Crs = CrsMatrix<Scalar, Exec>;
template <class Scalar>
using KKMatrix = kokkos_kernels_matrix_t<Crs<Scalar>>;
template <class Scalar>
using KKSpmv = KokkosKernelsSpmv<KKMatrix<Scalar>, Vector<Scalar>, Vector<Scalar>>;
using Ordinal = int;
using Offset = int;

/// Host memory that host-to-device transfers start from when "pinned": page-locked memory
/// on CUDA; on host-only builds the transfer is a host-to-host copy and there is nothing to
/// pin. The only backend-specific type choice of the benchmarks.
#ifdef KOKKOS_ENABLE_CUDA
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

/// True when the default execution space runs on host threads (the "device" is the host).
inline constexpr bool device_is_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;

template <class Scalar>
inline char const* precision_name() {
  return sizeof(Scalar) == 8 ? "double" : "float";
}

// ---------------------------------------------------------------------------------------------
// Machine description (system_info.cpp)
// ---------------------------------------------------------------------------------------------
struct DeviceInfo {
  std::string name;           // GPU name, or the CPU model name
  std::int64_t llc_bytes = 0; // last-level cache: L2 on GPUs, L3 (or highest level) on CPUs
};
DeviceInfo const& device_info();
std::string kokkos_version_string();
std::string enabled_backends();
std::string utc_date();

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------
double median(std::vector<double> v);

/// Releases every cached View; main calls it before Kokkos::finalize.
void register_cleanup(std::function<void()> f);
void run_cleanups();

/// Prints "skipped <name>: <why>" to stderr, once per name (repetitions call it again).
void note_skip(std::string const& name, std::string const& why);

/// Benchmarks that failed their correctness check or threw: main's exit status.
void record_failure(std::string const& what);
int failure_count();

// ---------------------------------------------------------------------------------------------
// Kernels used around the benchmarks (functors: they must compile for CUDA too)
// ---------------------------------------------------------------------------------------------
template <class Scalar>
struct AbsRowSumMax {
  Kokkos::View<const Offset*, Device> row_starts;
  Kokkos::View<const Ordinal*, Device> cols;
  Kokkos::View<const Scalar*, Device> vals;
  Kokkos::View<const Scalar*, Device> x;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, double& m) const {
    double s = 0;
    for (Offset k = row_starts(i); k < row_starts(i + 1); ++k) {
      const double a = static_cast<double>(vals(k)) * static_cast<double>(x(cols(k)));
      s += a < 0 ? -a : a;
    }
    if (s > m) m = s;
  }
};

struct MaxRowLength {
  Kokkos::View<const Offset*, Device> row_starts;
  KOKKOS_INLINE_FUNCTION void operator()(Ordinal i, Offset& m) const {
    const Offset l = row_starts(i + 1) - row_starts(i);
    if (l > m) m = l;
  }
};

template <class Scalar>
struct MaxAbsDiff {
  Kokkos::View<const Scalar*, Device> a;
  Kokkos::View<const Scalar*, Device> b;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& m) const {
    const double d = static_cast<double>(a(i)) - static_cast<double>(b(i));
    const double ad = d < 0 ? -d : d;
    // NaN compares false: record it as (almost) infinitely wrong.
    if (!(ad <= m)) m = (ad == ad) ? ad : 1e300;
  }
};

template <class Scalar>
struct CopyKernel {
  Kokkos::View<const Scalar*, Device> x;
  Kokkos::View<Scalar*, Device> y;
  /// n / 4: each thread copies four elements a quarter of the array apart.
  /// Four independent loads in flight per thread reach a higher bandwidth
  /// than one (H200: 3.79 vs 3.32 TB/s), and the yardstick must be the best
  /// copy we can measure, or frac_copy would flatter the SpMV kernels.
  std::int64_t quarter;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    y(i) = x(i);
    y(i + quarter) = x(i + quarter);
    y(i + 2 * quarter) = x(i + 2 * quarter);
    y(i + 3 * quarter) = x(i + 3 * quarter);
  }
};

/// The read-only yardstick: sum of x, each thread summing four elements a quarter of the
/// array apart (four loads in flight per thread, as in CopyKernel), added pairwise so that
/// one dependent addition per four loads does not limit a CPU core.
template <class Scalar>
struct ReadKernel {
  using value_type = double;
  Kokkos::View<const Scalar*, Device> x;
  std::int64_t quarter;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, double& sum) const {
    sum += (static_cast<double>(x(i)) + static_cast<double>(x(i + quarter))) +
           (static_cast<double>(x(i + 2 * quarter)) + static_cast<double>(x(i + 3 * quarter)));
  }
};

/// Fills v with uniform values in [-1, 1] on the device (deterministic for a seed).
template <class Scalar>
void fill_random(Vector<Scalar> const& v, std::uint64_t seed) {
  Kokkos::Random_XorShift64_Pool<Exec> pool(seed);
  Kokkos::fill_random(v, pool, Scalar(-1), Scalar(1));
}

template <class Scalar>
Vector<Scalar> random_vector(std::string const& what, std::int64_t n, std::uint64_t seed) {
  Vector<Scalar> v(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::") + what),
      static_cast<std::size_t>(n));
  fill_random(v, seed);
  return v;
}

/// to(i) = from(i) in another precision (Kokkos::deep_copy needs one value type).
template <class From, class To>
struct ConvertValues {
  Kokkos::View<const From*, Device> from;
  Kokkos::View<To*, Device> to;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { to(i) = static_cast<To>(from(i)); }
};

/// A copy of v with its values converted to To (exact from float to double).
template <class To, class From>
Vector<To> converted(Vector<From> const& v, std::string const& what) {
  Vector<To> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("SpMVKit::perf::") + what),
      v.extent(0));
  Kokkos::parallel_for("SpMVKit::perf::convert",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           0, static_cast<std::int64_t>(v.extent(0))),
                       ConvertValues<From, To>{v, out});
  return out;
}

/// Deep copy of a CRS matrix into new allocations (used to rotate among copies).
template <class Scalar>
Crs<Scalar> clone(Crs<Scalar> const& A) {
  Crs<Scalar> B("SpMVKit::perf::copy", A.num_rows(), A.num_cols(), A.nnz());
  Kokkos::deep_copy(B.row_starts(), A.row_starts());
  Kokkos::deep_copy(B.column_indices(), A.column_indices());
  Kokkos::deep_copy(B.values(), A.values());
  return B;
}

/// max_i |y - y_ref|_i
template <class Scalar>
double max_abs_diff(Vector<Scalar> const& y, Vector<Scalar> const& y_ref) {
  double m = 0;
  Kokkos::parallel_reduce("SpMVKit::perf::max_abs_diff",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                              0, static_cast<std::int64_t>(y.extent(0))),
                          MaxAbsDiff<Scalar>{y, y_ref}, Kokkos::Max<double>(m));
  return m;
}

/// (|A| |x|)_inf: the scale of the norm-wise correctness check.
template <class Scalar>
double abs_product_norm(Crs<Scalar> const& A, Vector<Scalar> const& x) {
  double m = 0;
  Kokkos::parallel_reduce("SpMVKit::perf::abs_product_norm",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(0, A.num_rows()),
                          AbsRowSumMax<Scalar>{A.row_starts(), A.column_indices(), A.values(), x},
                          Kokkos::Max<double>(m));
  return m;
}

template <class Scalar>
Offset max_row_length(Crs<Scalar> const& A) {
  Offset m = 0;
  Kokkos::parallel_reduce("SpMVKit::perf::max_row_length",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<Ordinal>>(0, A.num_rows()),
                          MaxRowLength{A.row_starts()}, Kokkos::Max<Offset>(m));
  return m;
}

/// Relative tolerance of the check ||y - y_ref||_inf <= tol * (|A||x|)_inf: 1e-12 (double)
/// or 1e-5 (float), raised to 4 * eps * (longest row) for matrices with very long rows, where
/// two summation orders may legitimately differ by more.
template <class Scalar>
double check_tolerance(Offset longest_row) {
  const double base = sizeof(Scalar) == 8 ? 1e-12 : 1e-5;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  return std::max(base, 4.0 * eps * static_cast<double>(longest_row));
}

} // namespace spmvkit::perf

#endif
