// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_CHECKED_MATH_HPP
#define SPMVKIT_CORE_CHECKED_MATH_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmvkit {
namespace detail {

/// Bytes (or any other sizes) as an unsigned 64-bit count. Every byte count
/// that is derived from user input (declared sizes, extents) goes through
/// checked_bytes / checked_add, so that it can never wrap around into a small
/// allocation that a later write overruns.
using byte_count = std::uint64_t;

/// Largest byte count the helpers below return: what std::size_t (hence an
/// allocation) and std::int64_t (hence Kokkos extents) can both represent.
inline constexpr byte_count max_byte_count =
    static_cast<std::uint64_t>(std::numeric_limits<std::size_t>::max()) <
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
        ? static_cast<std::uint64_t>(std::numeric_limits<std::size_t>::max())
        : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

/// count * size, or std::length_error "<where>: <what>: <count> x <size> bytes
/// overflows ..." when count is negative or the product exceeds
/// max_byte_count. `what` names the array (e.g. "row_starts"), `where` the
/// API entry point (e.g. "spmvkit::read_matrix_market").
inline byte_count checked_bytes(std::int64_t count, std::size_t size, char const* what,
                                char const* where) {
  if (count < 0) {
    throw std::length_error(std::string(where) + ": " + what + ": negative count " +
                            std::to_string(count));
  }
  auto const c = static_cast<std::uint64_t>(count);
  auto const s = static_cast<std::uint64_t>(size);
  if (s != 0 && c > max_byte_count / s) {
    throw std::length_error(std::string(where) + ": " + what + ": " + std::to_string(c) + " x " +
                            std::to_string(s) + " bytes overflows a " +
                            std::to_string(sizeof(std::size_t) * 8) + "-bit byte count");
  }
  return c * s;
}

/// a + b with the same overflow rule as checked_bytes.
inline byte_count checked_add(byte_count a, byte_count b, char const* what, char const* where) {
  if (a > max_byte_count || b > max_byte_count - a) {
    throw std::length_error(std::string(where) + ": " + what + ": " + std::to_string(a) + " + " +
                            std::to_string(b) + " bytes overflows a " +
                            std::to_string(sizeof(std::size_t) * 8) + "-bit byte count");
  }
  return a + b;
}

/// count + 1 for an extent such as num_rows + 1 (row_starts), checked like
/// checked_add; count must not be negative.
inline std::int64_t checked_extent_plus_one(std::int64_t count, char const* what,
                                            char const* where) {
  if (count < 0 || count == std::numeric_limits<std::int64_t>::max()) {
    throw std::length_error(std::string(where) + ": " + what + " = " + std::to_string(count) +
                            " has no valid extent + 1");
  }
  return count + 1;
}

} // namespace detail
} // namespace spmvkit

#endif
