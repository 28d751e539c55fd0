// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_ASSEMBLY_HPP
#define SPMVKIT_OPERATIONS_ASSEMBLY_HPP

/// \file
/// Assembly on the device: assemble_crs() turns unsorted (row, column, value)
/// triplets with duplicates into a CrsMatrix with sorted columns and the
/// duplicates summed; AssemblyPattern keeps what the sort found so that new
/// values of the same triplets refill the matrix without sorting or
/// allocating again (refill()), and maps each triplet to its entry (slots())
/// for element loops that add into the matrix themselves. Other formats
/// come from the result through their from_crs() (make_sell(), ...).
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/operations/detail/triplet_sort.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace spmvkit {

namespace detail {

/// Triplets as a sort source: row(t) and col(t) from two Views.
template <class Rows, class Cols>
struct TripletSource {
  Rows rows;
  Cols cols;
  KOKKOS_INLINE_FUNCTION auto row(std::int64_t t) const { return rows(t); }
  KOKKOS_INLINE_FUNCTION auto col(std::int64_t t) const { return cols(t); }
};

template <class Values>
struct ValueAt {
  Values values;
  KOKKOS_INLINE_FUNCTION auto operator()(std::int64_t t) const { return values(t); }
};

template <class Slots, class Keys>
struct SlotsOfTriplets {
  Slots slots;
  Keys order, run_starts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t s) const {
    for (SortKey p = run_starts(s); p < run_starts(s + 1); ++p)
      slots(order(p)) = static_cast<typename Slots::value_type>(s);
  }
};

/// Patterns of at most this many triplets (and at most 2^32 - 1) keep 32-bit
/// order indices; tests lower it to cover the 64-bit path.
inline std::int64_t& assembly_narrow_limit() {
  static std::int64_t limit = 0xffffffffLL;
  return limit;
}

template <class To, class From>
struct NarrowCopy {
  To to;
  From from;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    to(i) = static_cast<typename To::value_type>(from(i));
  }
};

} // namespace detail

/// A device-callable add(t, v): adds v atomically into the matrix entry of
/// triplet t, found through an AssemblyPattern's slot map (no search). Made by
/// AssemblyPattern::adder(); copy it into the element loop's kernel.
template <class Values, class Slots>
struct SlotAdder {
  Values values; ///< the matrix's values
  Slots slots;   ///< AssemblyPattern::slots()
  /// Adds v into the entry of triplet t (t < the pattern's num_triplets()).
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t,
                                         typename Values::non_const_value_type v) const {
    Kokkos::atomic_add(&values(slots(t)), v);
  }
};

/// What assemble_crs() found about one set of triplets: their order by (row,
/// column, triplet index), the entry each triplet adds into and the matrix's
/// shape. A pattern serves every later set of values for the same (row,
/// column) triplets, in the same order: refill() sums them into the matrix
/// without sorting or allocating.
///
/// \tparam ExecutionSpace where the arrays live and the kernels run
/// \tparam Offset         the matrix's entry index type
template <class ExecutionSpace, class Offset = int>
class AssemblyPattern {
public:
  /// `Kokkos::Device<execution_space, memory_space>`.
  using device_type = typename ExecutionSpace::device_type;
  /// The entry of the assembled matrix each triplet adds into.
  using slots_type = Kokkos::View<Offset*, device_type>;

  /// An empty pattern; assemble_crs() fills it.
  AssemblyPattern() = default;

  /// Number of triplets the pattern was made from.
  std::int64_t num_triplets() const { return num_triplets_; }
  /// Number of entries of the assembled matrix (distinct (row, column) pairs).
  std::int64_t nnz() const { return nnz_; }
  /// Rows of the assembled matrix.
  std::int64_t num_rows() const { return num_rows_; }
  /// Columns of the assembled matrix.
  std::int64_t num_cols() const { return num_cols_; }
  /// slots()(t): the index into the matrix's values() that triplet t adds
  /// into, for an element loop that adds into the matrix itself (with
  /// Kokkos::atomic_add; the sum's order then varies between runs, unlike
  /// refill()'s). Built on the first call, on a default instance of
  /// ExecutionSpace (a scatter over all triplets that refill() does not
  /// need); that first call is synchronous and not thread-safe.
  slots_type const& slots() const {
    if (static_cast<std::int64_t>(slots_.extent(0)) != num_triplets_) {
      using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
      const ExecutionSpace exec;
      auto slots =
          detail::allocate_view<slots_type>(exec, "SpMVKit::assembly::slots", num_triplets());
      visit_order([&](auto const& order, auto const& run_starts) {
        Kokkos::parallel_for("SpMVKit::assembly::slots", Range(exec, 0, nnz_),
                             detail::SlotsOfTriplets<slots_type, std::decay_t<decltype(order)>>{
                                 slots, order, run_starts});
      });
      exec.fence();
      slots_ = slots;
    }
    return slots_;
  }

  /// For an element loop that adds into A itself: zeroes A's values on exec
  /// (asynchronously) and returns add(t, v), which adds v atomically into the
  /// entry of triplet t. Launch the loop on exec. The sum's order then varies
  /// between runs, unlike refill()'s; in exchange no value array is read.
  /// Builds slots() on its first call. Throws std::invalid_argument when A's
  /// shape or nnz is not the pattern's.
  ///
  /// Usage: `auto add = pattern.adder(exec, A);` then `add(t, v)` in a kernel.
  template <class Scalar, class Ordinal>
  SlotAdder<typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::values_type,
            Kokkos::View<Offset const*, device_type>>
  adder(ExecutionSpace const& exec,
        CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) const {
    check_matrix(A, "spmvkit::AssemblyPattern::adder");
    auto const& s = slots();
    A.forget_transpose(); // its values are the old ones
    Kokkos::deep_copy(exec, A.values(), Scalar(0));
    return {A.values(), s};
  }

  /// Internal: throws std::invalid_argument naming `where` when A's shape or
  /// nnz is not the pattern's.
  template <class Matrix>
  void check_matrix(Matrix const& A, char const* where) const {
    if (A.num_rows() != num_rows_ || A.num_cols() != num_cols_ ||
        static_cast<std::int64_t>(A.nnz()) != nnz_) {
      throw std::invalid_argument(
          std::string(where) + ": the matrix (" + std::to_string(A.num_rows()) + " x " +
          std::to_string(A.num_cols()) + ", " + std::to_string(A.nnz()) +
          " entries) is not the one assembled with this pattern (" + std::to_string(num_rows_) +
          " x " + std::to_string(num_cols_) + ", " + std::to_string(nnz_) + " entries)");
    }
  }

  /// Internal: calls f(order, run_starts): the triplets in (row, column, t)
  /// order and where each entry's run of them starts in it (nnz + 1), as
  /// 32-bit Views when the triplets fit, 64-bit ones otherwise.
  template <class F>
  void visit_order(F&& f) const {
    if (!wide_) {
      f(order32_, run_starts32_);
    } else {
      f(order_, run_starts_);
    }
  }

  /// Internal: set by assemble_crs() on exec (asynchronously).
  template <class Sorted>
  void set(ExecutionSpace const& exec, Sorted const& sorted, std::int64_t num_rows,
           std::int64_t num_cols) {
    *this = AssemblyPattern(); // empty, not half-set, should an allocation below fail
    const auto n = static_cast<std::int64_t>(sorted.order.extent(0));
    Narrow order32, run_starts32;
    if (n <= std::min<std::int64_t>(detail::assembly_narrow_limit(), 0xffffffffLL)) {
      // Half the index bytes that every refill() reads.
      using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
      order32 = detail::allocate_view<Narrow>(exec, "SpMVKit::assembly::order", n);
      run_starts32 =
          detail::allocate_view<Narrow>(exec, "SpMVKit::assembly::run_starts", sorted.nnz + 1);
      Kokkos::parallel_for(
          "SpMVKit::assembly::narrow_order", Range(exec, 0, n),
          detail::NarrowCopy<Narrow, decltype(sorted.order)>{order32, sorted.order});
      Kokkos::parallel_for(
          "SpMVKit::assembly::narrow_run_starts", Range(exec, 0, sorted.nnz + 1),
          detail::NarrowCopy<Narrow, decltype(sorted.run_starts)>{run_starts32, sorted.run_starts});
      order32_ = order32;
      run_starts32_ = run_starts32;
    } else {
      order_ = sorted.order;
      run_starts_ = sorted.run_starts;
      wide_ = true;
    }
    num_triplets_ = n;
    nnz_ = sorted.nnz;
    num_rows_ = num_rows;
    num_cols_ = num_cols;
  }

private:
  using Narrow = Kokkos::View<std::uint32_t*, device_type>;
  Kokkos::View<detail::SortKey*, device_type> order_, run_starts_;
  Narrow order32_, run_starts32_;
  mutable slots_type slots_;
  bool wide_ = false; ///< order_ and run_starts_ hold the order (too many triplets for 32 bits)
  std::int64_t num_triplets_ = 0, nnz_ = 0, num_rows_ = 0, num_cols_ = 0;
};

/// Assembles a num_rows x num_cols CrsMatrix on `exec` from triplets
/// (rows(t), cols(t), values(t)), t < n, in any order and with duplicates:
/// each row's columns come out sorted and the values of equal (row, column)
/// are summed in the order of t, so the result is the same bit for bit on
/// every run and backend thread count. With `pattern`, also keeps what
/// refill() needs.
///
/// rows and cols are rank-1 Views of integers and values a rank-1 View of the
/// matrix's Scalar, all of n entries and accessible from exec. Throws
/// std::invalid_argument when the extents differ or a triplet lies outside
/// the matrix (naming the first, by t), std::length_error when a size does
/// not fit Ordinal or Offset or max(num_rows, num_cols) times the power of two
/// above n exceeds 2^63 (the sort keys), AllocationError. Memory: at most three 8-byte arrays of
/// n (sort keys and the order) besides the matrix, on host backends 4 bytes more per triplet
/// (each thread's counts); with a pattern the order
/// and nnz + 1 run starts stay, 4 bytes each for n < 2^32 (and n slots once slots() is called).
/// Synchronous. The result's structure is known valid (no check on first use).
///
/// Usage: `auto A = assemble_crs(exec, n, n, rows, cols, vals, &pattern);`
template <class Ordinal = int, class Offset = int, class ExecutionSpace, class Rows, class Cols,
          class Values>
CrsMatrix<typename Values::non_const_value_type, ExecutionSpace, Ordinal, Offset>
assemble_crs(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
             Rows const& rows, Cols const& cols, Values const& values,
             AssemblyPattern<ExecutionSpace, Offset>* pattern = nullptr) {
  using Scalar = typename Values::non_const_value_type;
  using Matrix = CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>;
  static_assert(Kokkos::is_view<Rows>::value && Kokkos::is_view<Cols>::value &&
                    Kokkos::is_view<Values>::value && Rows::rank == 1 && Cols::rank == 1 &&
                    Values::rank == 1,
                "spmvkit::assemble_crs: rows, cols and values must be rank-1 Views");
  static_assert(std::is_integral_v<typename Rows::non_const_value_type> &&
                    std::is_integral_v<typename Cols::non_const_value_type>,
                "spmvkit::assemble_crs: rows and cols must hold integers");
  static_assert(
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Rows::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecutionSpace, typename Cols::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecutionSpace, typename Values::memory_space>::accessible,
      "spmvkit::assemble_crs: the Views must be accessible from exec");
  constexpr char const* where = "spmvkit::assemble_crs";
  if (num_rows < 0 || num_cols < 0) {
    throw std::invalid_argument(std::string(where) + ": the matrix is " + std::to_string(num_rows) +
                                " x " + std::to_string(num_cols) + "; sizes must be >= 0");
  }
  detail::checked_index<Ordinal>(num_rows, "num_rows", where);
  detail::checked_index<Ordinal>(num_cols, "num_cols", where);
  const auto n = static_cast<std::int64_t>(values.extent(0));
  if (static_cast<std::int64_t>(rows.extent(0)) != n ||
      static_cast<std::int64_t>(cols.extent(0)) != n) {
    throw std::invalid_argument(std::string(where) +
                                ": rows, cols and values must have one "
                                "entry per triplet; they have " +
                                std::to_string(rows.extent(0)) + ", " +
                                std::to_string(cols.extent(0)) + " and " + std::to_string(n));
  }
  const detail::TripletSource<Rows, Cols> source{rows, cols};
  detail::check_entries_in_range(exec, num_rows, num_cols, n, source, where);
  detail::RunSums<typename Matrix::values_type, detail::ValueAt<Values>> sums{
      {}, {values}, "SpMVKit::CrsMatrix::values(assemble_crs)", pattern != nullptr};
  auto sorted = detail::sort_entries<Ordinal, Offset>(exec, num_rows, num_cols, n, source, where,
                                                      detail::EntrySort::automatic, &sums);
  Matrix A(num_rows, num_cols, sorted.row_starts, sorted.columns, sums.values);
  if (pattern) pattern->set(exec, sorted, num_rows, num_cols);
  exec.fence();
  A.trust_structure();
  return A;
}

/// Sums new values of the pattern's triplets (same (row, column) triplets in
/// the same order) into A's values, in place: no sort, no allocation, the same
/// summation order as assemble_crs(). A must be the matrix assembled with the
/// pattern (or a copy of it).
///
/// Throws std::invalid_argument when values does not have one entry per
/// triplet, shares storage with A's values, or A's shape or nnz is not the
/// pattern's. Asynchronous on exec.
template <class ExecutionSpace, class Offset, class Values, class Scalar, class Ordinal>
void refill(ExecutionSpace const& exec, AssemblyPattern<ExecutionSpace, Offset> const& pattern,
            Values const& values, CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  constexpr char const* where = "spmvkit::refill";
  if (static_cast<std::int64_t>(values.extent(0)) != pattern.num_triplets()) {
    throw std::invalid_argument(std::string(where) + ": " + std::to_string(values.extent(0)) +
                                " values for a pattern of " +
                                std::to_string(pattern.num_triplets()) + " triplets");
  }
  pattern.check_matrix(A, where);
  if (detail::storage_overlaps(values, A.values())) {
    throw std::invalid_argument(std::string(where) +
                                ": the triplet values share storage with "
                                "the matrix's values, which refill overwrites");
  }
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using Vals = typename CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>::values_type;
  A.forget_transpose(); // its values are the old ones
  pattern.visit_order([&](auto const& order, auto const& run_starts) {
    Kokkos::parallel_for(
        "SpMVKit::assembly::refill", Range(exec, 0, pattern.nnz()),
        detail::SumRuns<Vals, std::decay_t<decltype(order)>, detail::ValueAt<Values>>{
            A.values(), order, run_starts, {values}});
  });
}

} // namespace spmvkit

#endif
