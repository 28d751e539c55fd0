// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_INTEROP_KOKKOS_KERNELS_HPP
#define SPMVKIT_INTEROP_KOKKOS_KERNELS_HPP

/// \file
/// Kokkos Kernels interop, the only header of the library that needs Kokkos
/// Kernels: zero-copy conversion between CrsMatrix and KokkosSparse::CrsMatrix,
/// a reusable Kokkos Kernels SpMV (the tests' reference and the benchmarks'
/// baseline), Kokkos Kernels' two-phase SpGEMM behind one interface for
/// Kokkos Kernels 3.4 and 4.x, and an operator adapter, so that spmvkit::cg
/// accepts a KokkosSparse::CrsMatrix.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/solvers/operator.hpp>

#include <KokkosKernels_Handle.hpp>
#include <KokkosKernels_config.h>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spgemm.hpp>
#include <KokkosSparse_spmv.hpp>

#include <memory>
#include <string>
#include <type_traits>

// SPMVHandle (algorithm choice, reusable TPL setup) replaced Controls in
// Kokkos Kernels 4.3; 3.x does not define KOKKOSKERNELS_VERSION at all.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40300
/// 1 when the Kokkos Kernels in use has `KokkosSparse::SPMVHandle` (4.3 and later), else 0.
#define SPMVKIT_KOKKOS_KERNELS_HAS_SPMV_HANDLE 1
#include <KokkosSparse_spmv_handle.hpp>
#else
#define SPMVKIT_KOKKOS_KERNELS_HAS_SPMV_HANDLE 0
#include <KokkosKernels_Controls.hpp>
#endif

namespace spmvkit {

/// The Kokkos Kernels matrix type that shares storage with `CrsMatrix<S, E, O, F>`.
///
/// `KokkosSparse::CrsMatrix<S, O, device_type, void, F>`: same value, ordinal
/// and offset types and the same device, so that no array needs a copy.
template <class Matrix>
using kokkos_kernels_matrix_t =
    KokkosSparse::CrsMatrix<typename Matrix::value_type, typename Matrix::ordinal_type,
                            typename Matrix::device_type, void, typename Matrix::offset_type>;

/// Zero-copy view of a CrsMatrix as a KokkosSparse::CrsMatrix: all three
/// arrays are shared, so writes through either are seen by both.
///
/// No allocation and no kernel.
template <class Scalar, class ExecutionSpace, class Ordinal, class Offset>
kokkos_kernels_matrix_t<CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>>
to_kokkos_kernels(CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset> const& A) {
  using KKMatrix = kokkos_kernels_matrix_t<CrsMatrix<Scalar, ExecutionSpace, Ordinal, Offset>>;
  using Graph = typename KKMatrix::staticcrsgraph_type;
  return KKMatrix("SpMVKit::to_kokkos_kernels", A.num_cols(), A.values(),
                  Graph(A.column_indices(), A.row_starts()));
}

/// CrsMatrix from a KokkosSparse::CrsMatrix. Column indices and values are
/// shared; the row map is copied once because Kokkos Kernels holds it const.
///
/// The Kokkos Kernels matrix must live in its execution space's default memory
/// space (compile-time check). Allocates num_rows + 1 offsets (AllocationError
/// on failure) and copies them (`Kokkos::deep_copy`, which fences).
template <class KKMatrix>
CrsMatrix<typename KKMatrix::non_const_value_type, typename KKMatrix::execution_space,
          typename KKMatrix::non_const_ordinal_type, typename KKMatrix::non_const_size_type>
from_kokkos_kernels(KKMatrix const& A) {
  using ExecutionSpace = typename KKMatrix::execution_space;
  using Result =
      CrsMatrix<typename KKMatrix::non_const_value_type, ExecutionSpace,
                typename KKMatrix::non_const_ordinal_type, typename KKMatrix::non_const_size_type>;
  static_assert(
      std::is_same_v<typename KKMatrix::memory_space, typename ExecutionSpace::memory_space>,
      "spmvkit::from_kokkos_kernels: the matrix must live in its execution space's "
      "default memory space");
  auto row_starts = detail::allocate_view<typename Result::row_starts_type>(
      ExecutionSpace(), "SpMVKit::CrsMatrix::row_starts(from_kokkos_kernels)",
      static_cast<std::int64_t>(A.graph.row_map.extent(0)));
  Kokkos::deep_copy(row_starts, A.graph.row_map);
  return Result(A.numRows(), A.numCols(), row_starts, A.graph.entries, A.values);
}

/// Which Kokkos Kernels SpMV to run: `native` is its own kernel even where a
/// vendor library is enabled; `vendor_default` is what KokkosSparse::spmv picks
/// by default (cuSPARSE on CUDA builds with the TPL, else native).
enum class KokkosKernelsAlgorithm { vendor_default, native };

/// The algorithm's name for reports: "kokkos_kernels_native" or "kokkos_kernels_default".
inline char const* name(KokkosKernelsAlgorithm a) {
  return a == KokkosKernelsAlgorithm::native ? "kokkos_kernels_native" : "kokkos_kernels_default";
}

/// A reusable Kokkos Kernels SpMV y = beta*y + alpha*A*x for fixed matrix and
/// vector types. It keeps the algorithm choice and, from Kokkos Kernels 4.3
/// on, the SPMVHandle, so vendor set-up (cuSPARSE descriptors, buffers) is done
/// once and not in every call, which is how a fair comparison has to call it.
///
/// \tparam KKMatrix a `KokkosSparse::CrsMatrix` type (kokkos_kernels_matrix_t of a CrsMatrix)
/// \tparam XView    the type of the x Views passed to apply()
/// \tparam YView    the type of the y Views passed to apply()
template <class KKMatrix, class XView, class YView>
class KokkosKernelsSpmv {
public:
  /// The matrix's execution space.
  using execution_space = typename KKMatrix::execution_space;

  /// Prepares an SpMV with the given algorithm; Kokkos Kernels does any vendor
  /// set-up in the first apply() and reuses it in later ones.
  explicit KokkosKernelsSpmv(KokkosKernelsAlgorithm algorithm) : algorithm_(algorithm) {
#if SPMVKIT_KOKKOS_KERNELS_HAS_SPMV_HANDLE
    handle_ = std::make_unique<Handle>(algorithm == KokkosKernelsAlgorithm::native
                                           ? KokkosSparse::SPMV_NATIVE
                                           : KokkosSparse::SPMV_DEFAULT);
#else
    if (algorithm == KokkosKernelsAlgorithm::native) controls_.setParameter("algorithm", "native");
#endif
  }

  /// The algorithm chosen at construction.
  KokkosKernelsAlgorithm algorithm() const { return algorithm_; }

  /// y = beta y + alpha A x through `KokkosSparse::spmv`, on exec.
  ///
  /// A must be the same matrix in every call (the handle caches its analysis).
  /// From Kokkos Kernels 4.3 on the call is queued on exec like any kernel;
  /// with 3.x, which has no execution-space argument, it fences exec before and
  /// the default instance after, so it is ordered with work on exec but
  /// synchronous. Sizes are checked by Kokkos Kernels, not here.
  void apply(execution_space const& exec, typename KKMatrix::non_const_value_type alpha,
             KKMatrix const& A, XView const& x, typename KKMatrix::non_const_value_type beta,
             YView const& y) {
#if SPMVKIT_KOKKOS_KERNELS_HAS_SPMV_HANDLE
    KokkosSparse::spmv(exec, handle_.get(), "N", alpha, A, x, beta, y);
#else
    // Kokkos Kernels 3.x has no execution-space argument: it runs on the
    // default instance, so order it after work queued on exec, and work
    // queued on exec afterwards after it.
    exec.fence();
    KokkosSparse::spmv(controls_, "N", alpha, A, x, beta, y);
    execution_space().fence();
#endif
  }

private:
  KokkosKernelsAlgorithm algorithm_;
#if SPMVKIT_KOKKOS_KERNELS_HAS_SPMV_HANDLE
  using Handle = KokkosSparse::SPMVHandle<typename KKMatrix::device_type, KKMatrix, XView, YView>;
  std::unique_ptr<Handle> handle_;
#else
  KokkosKernels::Experimental::Controls controls_;
#endif
};

/// Kokkos Kernels' SpGEMM C = A B in its two phases, with its default
/// algorithm (`KokkosSparse::SPGEMM_DEFAULT`: cuSPARSE on CUDA builds with
/// that TPL, else Kokkos Kernels' own kernels): the tests' reference and the
/// benchmarks' baseline. The handle is kept, so numeric() may be repeated
/// for new values of A and B with the same patterns, as with SpgemmHandle.
///
/// Kokkos Kernels 3.x destroys the SpGEMM handle in its matrix-level
/// spgemm_numeric; numeric() then calls the lower-level
/// `KokkosSparse::Experimental::spgemm_numeric`, which keeps it (4.x keeps
/// it in both). Both phases run on the default execution space instance and
/// are synchronous here (they read sizes back, and 3.x takes no instance).
/// Columns of C's rows come in the order the algorithm leaves them (sorted
/// or not).
///
/// \tparam KKMatrix a `KokkosSparse::CrsMatrix` type (kokkos_kernels_matrix_t of a CrsMatrix)
template <class KKMatrix>
class KokkosKernelsSpgemm {
public:
  /// The matrices' execution space.
  using execution_space = typename KKMatrix::execution_space;
  /// The Kokkos Kernels handle type for the matrices' index and value types.
  using handle_type = KokkosKernels::Experimental::KokkosKernelsHandle<
      typename KKMatrix::non_const_size_type, typename KKMatrix::non_const_ordinal_type,
      typename KKMatrix::non_const_value_type, execution_space, typename KKMatrix::memory_space,
      typename KKMatrix::memory_space>;

  /// The structure of C = A B (a new handle; any previous C is dropped).
  /// Kokkos Kernels allocates C's arrays; their contents before numeric()
  /// are undefined.
  void symbolic(KKMatrix const& A, KKMatrix const& B) {
    handle_ = std::make_unique<handle_type>();
    handle_->create_spgemm_handle(KokkosSparse::SPGEMM_DEFAULT);
    C_ = KKMatrix();
    KokkosSparse::spgemm_symbolic(*handle_, A, false, B, false, C_);
    execution_space().fence();
  }

  /// The values of C = A B for the structure symbolic() found; A and B must
  /// have the patterns symbolic() saw.
  void numeric(KKMatrix const& A, KKMatrix const& B) {
#if defined(KOKKOSKERNELS_VERSION)
    KokkosSparse::spgemm_numeric(*handle_, A, false, B, false, C_);
#else
    KokkosSparse::Experimental::spgemm_numeric(handle_.get(), A.numRows(), B.numRows(), B.numCols(),
                                               A.graph.row_map, A.graph.entries, A.values, false,
                                               B.graph.row_map, B.graph.entries, B.values, false,
                                               C_.graph.row_map, C_.graph.entries, C_.values);
#endif
    execution_space().fence();
  }

  /// C, valid after numeric().
  KKMatrix const& matrix() const { return C_; }

private:
  std::unique_ptr<handle_type> handle_;
  KKMatrix C_;
};

/// A KokkosSparse::CrsMatrix as a solver operator (solvers/operator.hpp).
///
/// It is applied through one KokkosKernelsSpmv for its whole life, so that the
/// algorithm choice and, from Kokkos Kernels 4.3 on, the SPMVHandle (vendor
/// descriptors, buffers) are set up once, not per apply. Holds a reference:
/// the matrix must outlive it.
///
/// Pass it to cg() as a non-const lvalue to choose the algorithm:
/// `KokkosKernelsOperator<KK> op(kk, KokkosKernelsAlgorithm::native); cg(exec, op, b, x);`.
template <class KKMatrix>
class KokkosKernelsOperator {
public:
  /// The matrix's execution space.
  using execution_space = typename KKMatrix::execution_space;
  /// The matrix's (non-const) value type.
  using scalar_type = typename KKMatrix::non_const_value_type;
  /// The device of the matrix and of the vectors.
  using device_type = Kokkos::Device<execution_space, typename KKMatrix::memory_space>;
  /// The vectors apply() and diagonal() take: `Kokkos::View<scalar_type*, device_type>`.
  using vector_type = Kokkos::View<scalar_type*, device_type>;

  /// Wraps A (held by reference, it must outlive the operator) with the given algorithm.
  explicit KokkosKernelsOperator(
      KKMatrix const& A, KokkosKernelsAlgorithm algorithm = KokkosKernelsAlgorithm::vendor_default)
      : A_(A), spmv_(algorithm) {}
  /// Number of rows of A.
  std::int64_t num_rows() const { return A_.numRows(); }
  /// Number of columns of A.
  std::int64_t num_cols() const { return A_.numCols(); }
  /// y = A x through KokkosKernelsSpmv::apply() (same ordering rules).
  void apply(execution_space const& exec, vector_type const& x, vector_type const& y) {
    spmv_.apply(exec, scalar_type(1), A_, x, scalar_type(0), y);
  }
  /// d(i) = the sum of A's stored entries (i, i), 0 for a row without one;
  /// asynchronous on exec, one pass over the entries.
  void diagonal(execution_space const& exec, vector_type const& d) const {
    Kokkos::parallel_for(
        "SpMVKit::interop::kokkos_kernels_diagonal",
        Kokkos::RangePolicy<execution_space, Kokkos::IndexType<std::int64_t>>(exec, 0, num_rows()),
        detail::CrsDiagonal<decltype(A_.graph.row_map), decltype(A_.graph.entries),
                            decltype(A_.values), vector_type>{A_.graph.row_map, A_.graph.entries,
                                                              A_.values, d});
  }
  /// The reduction policy: LocalReduction (one process).
  LocalReduction reduction() const { return {}; }

private:
  KKMatrix const& A_;
  KokkosKernelsSpmv<KKMatrix, vector_type, vector_type> spmv_;
};

/// cg(exec, kk_matrix, b, x) runs on a KokkosKernelsOperator with the default
/// (vendor) algorithm; pass a KokkosKernelsOperator to choose another.
template <class S, class O, class D, class M, class Sz>
struct operator_adapter<KokkosSparse::CrsMatrix<S, O, D, M, Sz>> {
  /// Marks this adapter as provided.
  static constexpr bool specialized = true;
  /// The operator cg() runs on: a KokkosKernelsOperator holding A by reference.
  static KokkosKernelsOperator<KokkosSparse::CrsMatrix<S, O, D, M, Sz>>
  make(KokkosSparse::CrsMatrix<S, O, D, M, Sz> const& A) {
    return KokkosKernelsOperator<KokkosSparse::CrsMatrix<S, O, D, M, Sz>>(A);
  }
};

} // namespace spmvkit

#endif
