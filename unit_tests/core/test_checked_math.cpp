// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spmvkit::detail::checked_bytes and friends (include/spmvkit/core/checked_math.hpp), the
// overflow-checked byte counts that the Matrix Market reader's memory estimate is built from.
// (Belongs in unit_tests/core/ once that folder exists; it lives beside its first user for now.)
#include <spmvkit/core/checked_math.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

TEST(CheckedMath, BytesAndSums) {
  using spmvkit::detail::checked_add;
  using spmvkit::detail::checked_bytes;
  using spmvkit::detail::checked_extent_plus_one;
  using spmvkit::detail::max_byte_count;
  EXPECT_EQ(checked_bytes(0, 8, "a", "f"), 0u);
  EXPECT_EQ(checked_bytes(1000, 0, "a", "f"), 0u);
  EXPECT_EQ(checked_bytes(std::int64_t(1) << 40, 24, "a", "f"), std::uint64_t(24) << 40);
  EXPECT_EQ(checked_bytes(std::numeric_limits<std::int64_t>::max(), 1, "a", "f"),
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  EXPECT_THROW(checked_bytes((std::int64_t(1) << 62) + 1, 2, "a", "f"), std::length_error);
  EXPECT_THROW(checked_bytes((std::int64_t(1) << 62) + 1, 8, "a", "f"), std::length_error);
  EXPECT_THROW(checked_bytes(-1, 8, "a", "f"), std::length_error);
  try {
    checked_bytes((std::int64_t(1) << 62) + 1, 8, "values", "spmvkit::CrsMatrix");
  } catch (std::length_error const& e) {
    EXPECT_EQ(std::string(e.what()),
              "spmvkit::CrsMatrix: values: 4611686018427387905 x 8 bytes overflows a 64-bit byte "
              "count");
  }
  EXPECT_EQ(checked_add(1, 2, "a", "f"), 3u);
  EXPECT_EQ(checked_add(max_byte_count - 1, 1, "a", "f"), max_byte_count);
  EXPECT_THROW(checked_add(max_byte_count, 1, "a", "f"), std::length_error);
  EXPECT_THROW(checked_add(std::numeric_limits<std::uint64_t>::max(), 0, "a", "f"),
               std::length_error);
  EXPECT_EQ(checked_extent_plus_one(0, "n", "f"), 1);
  EXPECT_THROW(checked_extent_plus_one(-1, "n", "f"), std::length_error);
  EXPECT_THROW(checked_extent_plus_one(std::numeric_limits<std::int64_t>::max(), "n", "f"),
               std::length_error);
}

} // namespace
