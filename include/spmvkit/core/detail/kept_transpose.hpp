// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_DETAIL_KEPT_TRANSPOSE_HPP
#define SPMVKIT_CORE_DETAIL_KEPT_TRANSPOSE_HPP

// The transposed twin a matrix keeps for transposed products (spmv with
// SpmvMode::transpose): built by the first such product, shared by the
// matrix's copies, freed by forget_transpose(). A twin rather than a scatter
// with atomics keeps transposed products deterministic and as fast as A x
// (PETSc's cuSPARSE matrices keep one the same way).

#include <memory>
#include <mutex>
#include <utility>

namespace spmvkit::detail {

class KeptTranspose {
public:
  /// The kept twin, of type T, built by `build()` (returning a T) if none is
  /// kept; a twin kept as another type is replaced.
  template <class T, class Build>
  std::shared_ptr<T const> get(Build&& build) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!twin_ || kind_ != kind<T>()) {
      twin_ = std::make_shared<T const>(std::forward<Build>(build)());
      kind_ = kind<T>();
    }
    return std::static_pointer_cast<T const>(twin_);
  }
  /// Whether a twin is kept.
  bool has() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<bool>(twin_);
  }
  /// Frees the twin; the next transposed product builds a new one.
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    twin_.reset();
    kind_ = nullptr;
  }

private:
  // One address per type, without RTTI.
  template <class T>
  static void const* kind() {
    static const char tag = 0;
    return &tag;
  }
  mutable std::mutex mutex_;
  std::shared_ptr<void const> twin_;
  void const* kind_ = nullptr;
};

} // namespace spmvkit::detail

#endif
