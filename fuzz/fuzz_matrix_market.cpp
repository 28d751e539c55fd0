// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: the Matrix Market reader (plain and gzip) on arbitrary bytes.
//
// Input: one mode byte, then the file's bytes. The mode byte picks how those bytes reach the
// reader (read_matrix_market_from_memory, the same code path as a file but for read(2)):
//   bits 0-1: 0 as they are (raw gzip included), 1 compressed as one gzip member,
//             2 compressed as two members split at a point chosen by bits 4-7,
//             3 compressed, with the last (bits 4-7) bytes appended raw after the member
//   bit 2:    read into float (else double)
//   bit 3:    MatrixMarketUnderflow::flush_to_zero (else error)
// Properties checked:
//   - the only exception is spmvkit::MatrixMarketError, its message starts with the name and
//     stays short (the reader quotes at most 40 bytes of a token);
//   - a matrix that is read passes check_structure and has strictly ascending columns per row;
//   - whatever reads into <Scalar, int, int> also reads into <double, int64, int64> (a wider
//     target never rejects more), with the same structure and the same values once converted;
//   - memory: the read may use at most 4 MiB (MatrixMarketReadOptions::memory_limit), and
//     libFuzzer's -rss_limit_mb / -malloc_limit_mb catch any allocation that escapes it.
#include "fuzz_common.hpp"

#include <spmvkit/formats/crs/crs_matrix.hpp>
#include <spmvkit/io/matrix_market.hpp>

#include <zlib.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace {

using Exec = Kokkos::Serial;
constexpr std::uint64_t memory_limit = std::uint64_t(4) << 20;
constexpr char const* name = "fuzz.mtx";

std::string gzip_member(char const* data, std::size_t size) {
  z_stream zs{};
  // A small window and memory level: inputs are small, and big zlib states cost page faults.
  if (deflateInit2(&zs, 1, Z_DEFLATED, 9 + 16, 1, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&zs, static_cast<uLong>(size)) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  zs.avail_in = static_cast<uInt>(size);
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string encode(unsigned mode, char const* data, std::size_t size) {
  std::size_t const knob = (mode >> 4) & 15u;
  switch (mode & 3u) {
  case 0: return std::string(data, size);
  case 1: return gzip_member(data, size);
  case 2: {
    std::size_t const cut = size * knob / 15;
    return gzip_member(data, cut) + gzip_member(data + cut, size - cut);
  }
  default: {
    std::size_t const tail = std::min(knob, size);
    return gzip_member(data, size - tail) + std::string(data + size - tail, tail);
  }
  }
}

template <class Matrix>
void check_matrix(Matrix const& A) {
  spmvkit::check_structure(Exec(), A); // throws std::invalid_argument: escapes, a finding
  auto const& rs = A.row_starts();
  auto const& ci = A.column_indices();
  for (std::int64_t i = 0; i < A.num_rows(); ++i) {
    for (auto k = rs(i) + 1; k < rs(i + 1); ++k) SPMVKIT_FUZZ_CHECK(ci(k - 1) < ci(k));
  }
}

template <class Scalar>
void read_and_check(std::string const& bytes, spmvkit::MatrixMarketReadOptions options) {
  using Narrow = spmvkit::CrsMatrix<Scalar, Exec, int, int>;
  Narrow A;
  try {
    A = spmvkit::read_matrix_market_from_memory<Scalar, Exec, int, int>(name, bytes.data(),
                                                                        bytes.size(), options);
  } catch (spmvkit::MatrixMarketError const& e) {
    std::string const what = e.what();
    SPMVKIT_FUZZ_CHECK(what.rfind(name, 0) == 0);
    SPMVKIT_FUZZ_CHECK(what.size() < 1000);
    return;
  }
  check_matrix(A);
  // Values flushed to zero in Scalar before duplicates were summed may round a sum
  // differently from the wide read, which keeps them: compare values only without flushes.
  bool const flushed = options.report != nullptr && options.report->underflows > 0;

  // The same input into the widest target: must read, with the same structure and values.
  options.memory_limit = 2 * memory_limit; // 64-bit indices: at most twice the bytes
  auto const B = spmvkit::read_matrix_market_from_memory<double, Exec, std::int64_t, std::int64_t>(
      name, bytes.data(), bytes.size(), options);
  check_matrix(B);
  SPMVKIT_FUZZ_CHECK(B.num_rows() == A.num_rows() && B.num_cols() == A.num_cols());
  SPMVKIT_FUZZ_CHECK(B.nnz() == A.nnz());
  for (std::int64_t i = 0; i <= A.num_rows(); ++i) {
    SPMVKIT_FUZZ_CHECK(B.row_starts()(i) == A.row_starts()(i));
  }
  for (std::int64_t k = 0; k < A.nnz(); ++k) {
    SPMVKIT_FUZZ_CHECK(B.column_indices()(k) == A.column_indices()(k));
    Scalar const narrow = A.values()(k);
    double const wide = B.values()(k);
    if (std::isnan(wide)) {
      SPMVKIT_FUZZ_CHECK(std::isnan(narrow));
    } else if (flushed) {
      SPMVKIT_FUZZ_CHECK(!std::isnan(narrow));
    } else {
      // Checked before the conversion: a finite value never becomes inf.
      SPMVKIT_FUZZ_CHECK(std::isfinite(narrow) == std::isfinite(wide));
      SPMVKIT_FUZZ_CHECK(narrow == static_cast<Scalar>(wide));
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  spmvkit_fuzz::initialize_kokkos();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size < 1) return 0;
  unsigned const mode = data[0];
  std::string const bytes = encode(mode, reinterpret_cast<char const*>(data + 1), size - 1);
  spmvkit::MatrixMarketReadOptions options;
  options.memory_limit = memory_limit;
  options.underflow = (mode & 8u) != 0 ? spmvkit::MatrixMarketUnderflow::flush_to_zero
                                       : spmvkit::MatrixMarketUnderflow::error;
  spmvkit::MatrixMarketReport report;
  options.report = &report;
  if ((mode & 4u) != 0) {
    read_and_check<float>(bytes, options);
  } else {
    read_and_check<double>(bytes, options);
  }
  return 0;
}
