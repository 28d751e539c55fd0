// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_CORE_DETAIL_KEPT_VALUE_HPP
#define SPMVKIT_CORE_DETAIL_KEPT_VALUE_HPP

// A value a matrix computes about its structure on first use and keeps, shared by the matrix's
// copies (they share its arrays): e.g. SELL's longest row, read by host launches.
#include <atomic>
#include <mutex>
#include <utility>

namespace spmvkit::detail {

template <class T>
class KeptValue {
public:
  /// The kept value, computed by `compute()` on the first call.
  template <class Compute>
  T get(Compute&& compute) {
    // Host launches above the static-launch size read it on every product: no lock once kept.
    if (kept_.load(std::memory_order_acquire)) return value_;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!kept_.load(std::memory_order_relaxed)) {
      value_ = std::forward<Compute>(compute)();
      kept_.store(true, std::memory_order_release);
    }
    return value_;
  }

private:
  std::mutex mutex_;
  std::atomic<bool> kept_{false};
  T value_{};
};

} // namespace spmvkit::detail

#endif
