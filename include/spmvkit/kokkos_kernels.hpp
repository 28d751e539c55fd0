#ifndef SPMVKIT_KOKKOS_KERNELS_HPP
#define SPMVKIT_KOKKOS_KERNELS_HPP

#include <spmvkit/crs_matrix.hpp>
#include <spmvkit/detail/memory.hpp>

#include <KokkosKernels_config.h>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <string>
#include <type_traits>

namespace spmvkit {

/// The Kokkos Kernels matrix type that shares storage with CrsMatrix<S, E, O, F>.
template <class Matrix>
using kokkos_kernels_matrix_t =
    KokkosSparse::CrsMatrix<typename Matrix::value_type, typename Matrix::ordinal_type,
                            typename Matrix::device_type, void, typename Matrix::offset_type>;

/// Zero-copy view of a CrsMatrix as a KokkosSparse::CrsMatrix: all three
/// arrays are shared, so writes through either are seen by both.
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
template <class KKMatrix>
CrsMatrix<typename KKMatrix::non_const_value_type, typename KKMatrix::execution_space,
          typename KKMatrix::non_const_ordinal_type, typename KKMatrix::non_const_size_type>
from_kokkos_kernels(KKMatrix const& A) {
  using Exec = typename KKMatrix::execution_space;
  using Result = CrsMatrix<typename KKMatrix::non_const_value_type, Exec,
                           typename KKMatrix::non_const_ordinal_type,
                           typename KKMatrix::non_const_size_type>;
  static_assert(std::is_same_v<typename KKMatrix::memory_space, typename Exec::memory_space>,
                "spmvkit::from_kokkos_kernels: the matrix must live in its execution space's "
                "default memory space");
  auto row_starts = detail::allocate_view<typename Result::row_starts_type>(
      Exec(), "SpMVKit::CrsMatrix::row_starts(from_kokkos_kernels)",
      static_cast<std::int64_t>(A.graph.row_map.extent(0)));
  Kokkos::deep_copy(row_starts, A.graph.row_map);
  return Result(A.numRows(), A.numCols(), row_starts, A.graph.entries, A.values);
}

} // namespace spmvkit

#endif
