// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_EXAMPLES_EXAMPLE_MEMORY_HPP
#define SPMVKIT_EXAMPLES_EXAMPLE_MEMORY_HPP

// What an example may allocate, checked before it allocates: a 76-byte file
// declaring a 3e8 x 3e8 matrix must not turn into gigabytes of vectors and
// format copies. The budget is the memory limit of the execution space's
// memory (core/memory_limit.hpp: SPMVKIT_MEMORY_LIMIT, else what is free),
// taken once at the start, and every estimate is of what is alive at once.
#include "example_utils.hpp"

#include <spmvkit/core/memory_limit.hpp>
#include <spmvkit/formats/format_list.hpp>
#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/select/auto_matrix.hpp>
#include <spmvkit/select/format_costs.hpp>
#include <spmvkit/select/matrix_features.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit::examples {

/// GB or MB with a few digits, for memory messages.
inline std::string memory_size(double bytes) {
  return bytes >= 1e9 ? fixed(bytes / 1e9, 2) + " GB" : megabytes(bytes);
}

/// The memory an example may use in its execution space, fixed at its start.
class MemoryBudget {
public:
  /// The limit of Exec's memory space now (std::invalid_argument for a bad
  /// SPMVKIT_MEMORY_LIMIT, naming it).
  template <class Exec>
  static MemoryBudget of() {
    MemoryBudget b;
    b.limit_ = memory_limit<typename Exec::memory_space>();
    b.space_ = Exec::memory_space::name();
    return b;
  }

  /// Whether `bytes` fit (always, when no limit is known).
  bool admits(double bytes) const {
    return !limit_.known() || bytes <= static_cast<double>(limit_.bytes);
  }

  /// "more than the 1.20 GB limit (MemAvailable, HostSpace)".
  std::string limit_text() const {
    return "more than the " + memory_size(static_cast<double>(limit_.bytes)) + " limit (" +
           limit_.source + ", " + space_ + "); SPMVKIT_MEMORY_LIMIT (bytes) sets the limit";
  }

  /// Throws std::runtime_error "<what> needs about X (<parts>), more than the
  /// Y limit (source)" unless `bytes` fit.
  void require(double bytes, std::string const& what, std::string const& parts) const {
    if (admits(bytes)) return;
    throw std::runtime_error(what + " needs about " + memory_size(bytes) + " (" + parts + "), " +
                             limit_text());
  }

private:
  MemoryLimit limit_;
  std::string space_;
};

/// Bytes of a CRS matrix with int indices and offsets.
inline double crs_bytes(double rows, double nnz, int scalar_bytes = 8) {
  return (rows + 1) * sizeof(int) + nnz * (scalar_bytes + sizeof(int));
}

/// The stored entries a Matrix Market header allows at most (symmetric files
/// mirror their off-diagonal entries).
inline double declared_entries(MatrixMarketInfo const& info) {
  const double entries = static_cast<double>(info.entries);
  return info.symmetry == MatrixMarketInfo::Symmetry::symmetric ? 2 * entries : entries;
}

/// Conversion work beyond the result, in bytes per row and per entry. Most
/// conversions hold a few device arrays per row (lengths, permutation, keys,
/// starts): 32 bytes a row. CSR-k (and the automatic choice, which may pick
/// it) builds its Band-k ordering on the host from a symmetrized graph: 2.2 GB
/// beside the matrix and vectors for a 3e7-row matrix of one entry (73 bytes a
/// row; matrix_market_spmv, OpenMP, 2-core VM, 2026-11-27), so 128 a row and
/// 48 an entry (the graph holds each entry twice, 64-bit, with its copy).
template <class F>
struct ConversionWork {
  static constexpr bool host_graph = std::is_same_v<F, CsrkFormat> || std::is_same_v<F, AutoFormat>;
  static constexpr double per_row = host_graph ? 128.0 : 32.0;
  static constexpr double per_entry = host_graph ? 48.0 : 0.0;
};

/// An upper estimate of what format F holds once converted from A with
/// options o, conversion work included (ConversionWork): the format's byte
/// model where select/format_costs.hpp has one (padding included), else
/// twice A's CRS bytes.
template <class F, class Exec, class Crs>
double format_footprint(Crs const& A, MatrixFeatures const& f, typename F::options_type const& o) {
  using S = typename Crs::value_type;
  const TypeSizes s{static_cast<int>(sizeof(S)),
                    static_cast<int>(sizeof(typename Crs::ordinal_type)),
                    static_cast<int>(sizeof(typename Crs::offset_type))};
  const double rows = static_cast<double>(A.num_rows());
  double matrix = 2 * crs_bytes(rows, static_cast<double>(A.nnz()), s.scalar);
  if constexpr (format_cost<F>::available) {
    if (const auto e = format_cost<F>::template estimate<Exec>(f, o, s); e) {
      matrix = e->bytes - static_cast<double>(A.num_rows() + A.num_cols()) * s.scalar;
    }
  }
  return matrix + ConversionWork<F>::per_row * (rows + 1) +
         ConversionWork<F>::per_entry * static_cast<double>(A.nnz());
}

/// Whether format F (options o, shown as `name`) fits beside `base` bytes
/// already in use; if not, prints "note: <name> skipped: ..." and returns false.
template <class F, class Exec, class Crs>
bool fits_memory(MemoryBudget const& budget, double base, Crs const& A, MatrixFeatures const& f,
                 typename F::options_type const& o, std::string const& name,
                 std::ostream& os = std::cout) {
  const double need = format_footprint<F, Exec>(A, f, o);
  if (budget.admits(base + need)) return true;
  os << "note: " << name << " skipped: needs about " << memory_size(need) << " beside the "
     << memory_size(base) << " in use, " << budget.limit_text() << "\n";
  return false;
}

} // namespace spmvkit::examples

#endif
