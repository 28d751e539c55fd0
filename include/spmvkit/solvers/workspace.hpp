// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_SOLVERS_WORKSPACE_HPP
#define SPMVKIT_SOLVERS_WORKSPACE_HPP

/// \file
/// SolverWorkspace: the work vectors of cg(), bicgstab() and gmres() kept from
/// one solve to the next. Without one (SolverOptions::workspace = nullptr),
/// every solve allocates its vectors and frees them when it returns; a code
/// that solves many systems of one size (time steps, Newton steps, several
/// right-hand sides) pays that every time: the allocation, and on first touch
/// the operating system's or driver's mapping of every page. PETSc's KSP and
/// Ginkgo's solver objects keep their work vectors in the same way.
///
/// Usage:
/// \code
///   spmvkit::SolverWorkspace ws;
///   spmvkit::BicgstabOptions o;
///   o.workspace = &ws;
///   for (auto& b : right_hand_sides) spmvkit::bicgstab(exec, A, M, b, x, o);
/// \endcode
///
/// A solve takes each of its vectors by label: one of the same label, View
/// type and size is reused as it is (contents left over: solvers initialise
/// what they read); otherwise a new one replaces it, so keep one workspace per
/// problem size and solver configuration. One solve at a time per workspace: a
/// solve holds it from its set-up to its end, and a second solve that asks for
/// it meanwhile (nested in the first one's operator or preconditioner, or on
/// another thread) throws std::logic_error. A solve's vectors stay valid while
/// it runs even if the workspace is cleared, since Views count references.
/// Small per-solve buffers (host mirrors of scalars, flags, GMRES's
/// coefficients) are still allocated by each solve.
/// Measurements: docs/notes/2026-12-01-solver-workspace.md.
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>

#include <any>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace spmvkit {

/// Work vectors kept between solves (see the file comment). Not copyable: a
/// copy would share the vectors with the original.
class SolverWorkspace {
public:
  SolverWorkspace() = default;
  SolverWorkspace(SolverWorkspace const&) = delete;
  SolverWorkspace& operator=(SolverWorkspace const&) = delete;
  /// Takes other's kept Views (other is left empty); not while a solve holds either.
  SolverWorkspace(SolverWorkspace&& other) noexcept : views_(std::move(other.views_)) {}
  /// Takes other's kept Views, dropping this one's; not while a solve holds either.
  SolverWorkspace& operator=(SolverWorkspace&& other) noexcept {
    views_ = std::move(other.views_);
    return *this;
  }

  /// Whether a solve holds the workspace now.
  bool in_use() const { return busy_.load(); }

  /// The rank-1 View of type View labelled `label` with `extent` entries: the
  /// kept one if its type and extent match, else a new one (allocated without
  /// initialisation on exec, detail::allocate_view: AllocationError naming it)
  /// that replaces the kept one.
  template <class View, class ExecutionSpace>
  View view(ExecutionSpace const& exec, std::string const& label, std::int64_t extent) {
    static_assert(View::rank == 1, "SolverWorkspace keeps rank-1 Views");
    auto it = views_.find(label);
    if (it != views_.end()) {
      if (auto const* kept = std::any_cast<View>(&it->second.view)) {
        if (static_cast<std::int64_t>(kept->extent(0)) == extent) return *kept;
      }
      views_.erase(it); // freed here unless a running solve still holds it
    }
    View v = detail::allocate_view<View>(exec, label, extent);
    using Value = typename View::non_const_value_type;
    views_.emplace(label,
                   Entry{v, static_cast<std::size_t>(v.span()) * sizeof(Value),
                         [v](double value) { Kokkos::deep_copy(v, static_cast<Value>(value)); }});
    return v;
  }

  /// Number of Views kept.
  std::size_t size() const { return views_.size(); }
  /// Bytes of the Views kept.
  std::size_t bytes() const {
    std::size_t total = 0;
    for (auto const& e : views_) total += e.second.bytes;
    return total;
  }
  /// Whether a View labelled `label` is kept.
  bool holds(std::string const& label) const { return views_.count(label) != 0; }
  /// Drops every kept View (freed once no running solve holds it).
  void clear() { views_.clear(); }
  /// Sets every entry of every kept View to value (synchronous). For tests and
  /// debugging: a solve must give the same result whatever its work vectors
  /// held before, e.g. after fill(NaN).
  void fill(double value) {
    for (auto& e : views_) e.second.fill(value);
  }

  /// Taken by a solve for its duration (detail::WorkspaceLease); std::logic_error
  /// naming `where` if another solve holds it.
  void acquire(std::string const& where) {
    if (busy_.exchange(true)) {
      throw std::logic_error(where + ": the SolverWorkspace is in use by another solve (nested "
                                     "or concurrent); give each solve its own workspace");
    }
  }
  /// Given back at the end of the solve that acquired it.
  void release() { busy_.store(false); }

private:
  struct Entry {
    std::any view;
    std::size_t bytes = 0;
    std::function<void(double)> fill;
  };
  std::map<std::string, Entry> views_;
  std::atomic<bool> busy_{false};
};

namespace detail {

/// A solve's hold on its workspace (none when null): acquired at construction,
/// released at destruction; movable, not copyable.
class WorkspaceLease {
public:
  WorkspaceLease() = default;
  WorkspaceLease(SolverWorkspace* workspace, std::string const& where) {
    if (workspace) workspace->acquire(where);
    workspace_ = workspace;
  }
  WorkspaceLease(WorkspaceLease const&) = delete;
  WorkspaceLease& operator=(WorkspaceLease const&) = delete;
  WorkspaceLease(WorkspaceLease&& other) noexcept : workspace_(other.workspace_) {
    other.workspace_ = nullptr;
  }
  WorkspaceLease& operator=(WorkspaceLease&& other) noexcept {
    if (this != &other) {
      if (workspace_) workspace_->release();
      workspace_ = other.workspace_;
      other.workspace_ = nullptr;
    }
    return *this;
  }
  ~WorkspaceLease() {
    if (workspace_) workspace_->release();
  }

private:
  SolverWorkspace* workspace_ = nullptr;
};

/// A solver's rank-1 work View: from the workspace when there is one, else
/// newly allocated (detail::allocate_view).
template <class View, class ExecutionSpace>
View work_view(SolverWorkspace* workspace, ExecutionSpace const& exec, std::string const& label,
               std::int64_t extent) {
  return workspace ? workspace->view<View>(exec, label, extent)
                   : allocate_view<View>(exec, label, extent);
}

} // namespace detail

} // namespace spmvkit

#endif
