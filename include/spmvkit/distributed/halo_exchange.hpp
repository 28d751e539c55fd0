// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_DISTRIBUTED_HALO_EXCHANGE_HPP
#define SPMVKIT_DISTRIBUTED_HALO_EXCHANGE_HPP

/// \file
/// The halo exchange of a distributed matrix: which vector entries go to which
/// neighbour (built once from the column pattern), and the exchange itself,
/// split into begin() and end() so that work can run in between.
///
/// A rank's ghost entries (the columns of its off-process block) are sorted by
/// global index, so the entries from one neighbour form one contiguous range
/// and are received in place: only the send side needs a pack kernel
/// ("SpMVKit::distributed::halo_pack", a gather of the requested entries into
/// one buffer). Messages are non-blocking point-to-point (MPI_Irecv posted
/// first, then MPI_Isend), one per neighbour and direction.
///
/// Where the vectors live in memory the host cannot read (CUDA), the buffers
/// are handed to MPI directly when the MPI is GPU-aware, and otherwise staged
/// through host buffers, pinned where Kokkos has a pinned host space (Kokkos
/// 4: SharedHostPinnedSpace; Kokkos 3 with CUDA: CudaHostPinnedSpace); the
/// copy of the staged receive buffer into the ghost vector is then the unpack
/// ("SpMVKit::distributed::halo_unpack"). GPU awareness is detected with Open
/// MPI's MPIX_Query_cuda_support() when mpi-ext.h offers it; HaloOptions and
/// the environment variable SPMVKIT_MPI_GPU_AWARE (0 or 1) override it.
///
/// Device vectors (Kokkos 4): the pack and the staging copies run on an
/// execution space instance of their own (on CUDA a stream of the highest
/// priority, elsewhere Kokkos::Experimental::partition_space), so that they
/// overlap the diagonal-block SpMV queued on the caller's instance between
/// begin() and end() instead of queueing before or after it; begin() orders
/// them behind the caller's work (CUDA: an event, the host does not wait) and
/// only launches them, end() waits for them, posts the sends and waits for
/// the messages. Measured on 2 H200 with a staged (not GPU-aware) MPI: see
/// docs/notes/2026-11-24-distributed-h200-scaling.md. Kokkos 3 has no partition_space:
/// the exchange then runs on the caller's instance.
#include <spmvkit/core/memory.hpp>
#include <spmvkit/distributed/detail/mpi_utils.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace spmvkit {

/// Whether halo messages hand device buffers to MPI directly (HaloOptions).
enum class GpuAwareMpi {
  automatic, ///< SPMVKIT_MPI_GPU_AWARE if set, else what MPIX_Query_cuda_support() says
  yes,       ///< hand device buffers to MPI (the user vouches for a GPU-aware MPI)
  no         ///< stage through host buffers
};

/// How halo messages travel (HaloOptions).
enum class HaloMethod {
  point_to_point,    ///< one MPI_Irecv and one MPI_Isend per neighbour
  neighbor_alltoallv ///< one MPI_Ineighbor_alltoallv on a distributed graph communicator
};

/// Options of the halo exchange.
struct HaloOptions {
  /// Whether device buffers go to MPI directly; only matters for vectors in
  /// memory the host cannot access (host backends always pass host memory).
  GpuAwareMpi gpu_aware = GpuAwareMpi::automatic;
  /// Whether exchanges of device vectors pack and stage on an execution space
  /// instance of their own (Kokkos 4), overlapping the SpMV queued between
  /// begin() and end(); false runs them on the caller's instance (the
  /// behaviour before, kept for measuring what the overlap gains).
  bool own_instance = true;
  /// Point-to-point messages (receives posted before the pack) or one
  /// neighbourhood collective over a graph communicator of the neighbours
  /// (MPI-3). Measured against each other in docs/distributed.md.
  HaloMethod method = HaloMethod::point_to_point;
};

/// Whether this MPI can take CUDA device buffers: SPMVKIT_MPI_GPU_AWARE=0/1
/// when set, else Open MPI's MPIX_Query_cuda_support() where mpi-ext.h
/// declares it, else false.
inline bool mpi_is_gpu_aware() {
  if (char const* env = std::getenv("SPMVKIT_MPI_GPU_AWARE")) {
    if (env[0] == '0' || env[0] == '1') return env[0] == '1';
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

/// A neighbour in a halo plan: its rank and its range of a buffer.
struct HaloNeighbour {
  int rank = 0;            ///< the neighbour's rank
  std::int64_t offset = 0; ///< first entry of its range (send buffer or ghost vector)
  std::int64_t count = 0;  ///< entries in its range
};

namespace detail {

template <class Buffer, class Vector, class Indices>
struct HaloPack {
  Buffer buffer;
  Vector x;
  Indices indices;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const { buffer(i) = x(indices(i)); }
};

/// buffer(i k + j) = X(indices(i), j): the rows sent, row-major.
template <class Buffer, class Multi, class Indices>
struct HaloPackColumns {
  Buffer buffer;
  Multi x;
  Indices indices;
  std::int64_t k;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    const std::int64_t i = t / k;
    buffer(t) = x(indices(i), t - i * k);
  }
};

} // namespace detail

/// The halo exchange of one distributed matrix: the plan (send indices and
/// neighbour ranges, made by DistributedMatrix from its column pattern) and the
/// buffers, allocated once.
///
/// begin(exec, x) packs and posts the messages; end(exec) waits for them and
/// leaves the ghost entries in ghosts(). One exchange at a time per object.
template <class Scalar, class ExecutionSpace, class Ordinal = int>
class HaloExchange {
public:
  /// The memory space of the vectors and the device buffers.
  using memory_space = typename ExecutionSpace::memory_space;
  /// The vectors exchanged: rank-1 Views of Scalar in memory_space.
  using vector_type = Kokkos::View<Scalar*, Kokkos::Device<ExecutionSpace, memory_space>>;
  /// The local indices of the entries sent, neighbour after neighbour.
  using index_type = Kokkos::View<Ordinal*, Kokkos::Device<ExecutionSpace, memory_space>>;

  /// An empty exchange (nothing to send or receive).
  HaloExchange() = default;

  /// The exchange with the given plan on `comm` (not owned; the matrix's own
  /// duplicate): send_indices holds the local entries to send, grouped by the
  /// neighbours of `sends`; `receives` cover the num_ghosts ghost entries.
  /// Allocates the buffers (AllocationError when that fails).
  HaloExchange(MPI_Comm comm, ExecutionSpace const& exec, index_type send_indices,
               std::vector<HaloNeighbour> sends, std::vector<HaloNeighbour> receives,
               std::int64_t num_ghosts, HaloOptions const& options)
      : comm_(comm), sends_(std::move(sends)), receives_(std::move(receives)),
        send_indices_(std::move(send_indices)), state_(std::make_shared<State>()),
        halo_exec_(exec) {
    const auto sent = static_cast<std::int64_t>(send_indices_.extent(0));
    send_buffer_ =
        detail::allocate_view<vector_type>(exec, "SpMVKit::distributed::halo_send", sent);
    ghosts_ = detail::allocate_view<vector_type>(exec, "SpMVKit::distributed::ghosts", num_ghosts);
    constexpr bool host_memory =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    gpu_aware_ =
        !host_memory && (options.gpu_aware == GpuAwareMpi::yes ||
                         (options.gpu_aware == GpuAwareMpi::automatic && mpi_is_gpu_aware()));
    staged_ = !host_memory && !gpu_aware_;
    if (staged_) {
      host_send_ = detail::allocate_view<HostBuffer>(Kokkos::DefaultHostExecutionSpace(),
                                                     "SpMVKit::distributed::halo_send_host", sent);
      host_receive_ =
          detail::allocate_view<HostBuffer>(Kokkos::DefaultHostExecutionSpace(),
                                            "SpMVKit::distributed::halo_receive_host", num_ghosts);
    }
    state_->requests.reserve(sends_.size() + receives_.size());
    if (options.method == HaloMethod::neighbor_alltoallv) make_graph(comm);
#if KOKKOS_VERSION >= 40000
    if (!host_memory && options.own_instance) {
      own_instance_ = true;
#if defined(KOKKOS_ENABLE_CUDA)
      if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
        // A stream of the highest priority: the pack is queued behind the
        // caller's work by an event (order_after), and when that work ends the
        // pack and the caller's next SpMV become ready together; at equal
        // priority the pack's few blocks waited behind the SpMV's thousands
        // (the exchange then added up to 19% to the SpMV, under 1% at the
        // highest priority: docs/notes/2026-11-24-distributed-h200-scaling.md).
        int least = 0, greatest = 0;
        cuda_check(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                   "cudaDeviceGetStreamPriorityRange");
        cuda_check(cudaStreamCreateWithPriority(&state_->stream, cudaStreamNonBlocking, greatest),
                   "cudaStreamCreateWithPriority");
        cuda_check(cudaEventCreateWithFlags(&state_->event, cudaEventDisableTiming),
                   "cudaEventCreateWithFlags");
        halo_exec_ = Kokkos::Cuda(state_->stream);
      } else
#endif
      {
        halo_exec_ = Kokkos::Experimental::partition_space(exec, 1)[0];
      }
    }
#endif
  }

  /// Packs the entries of x that neighbours need and posts every receive;
  /// returns without waiting for any message. Host memory: the pack runs on
  /// exec and the sends are posted here. Device memory with an instance of
  /// its own: the exchange's instance is ordered behind exec's work so far
  /// (x must be complete; on CUDA by an event, without the host waiting), the
  /// pack and staging copy are launched there, and end() posts the sends once
  /// they are done, so that work queued on exec in between overlaps them.
  void begin(ExecutionSpace const& exec, vector_type const& x) const {
    state_->columns = 0;
    auto& requests = state_->requests;
    requests.clear();
    Scalar* receive_to = staged_ ? host_receive_.data() : ghosts_.data();
    for (auto const& nb : receives_) {
      if (graph_) break; // the collective posts receives with the sends
      requests.emplace_back();
      detail::mpi_check(MPI_Irecv(receive_to + nb.offset, static_cast<int>(nb.count),
                                  detail::mpi_datatype<Scalar>(), nb.rank, tag, comm_,
                                  &requests.back()),
                        "MPI_Irecv");
    }
    if (sends_.empty()) {
      if (graph_) state_->sends_pending = true; // still receives through the collective
      return;
    }
    if (own_instance_) order_after(exec);
    ExecutionSpace const& pack_exec = own_instance_ ? halo_exec_ : exec;
    Kokkos::parallel_for(
        "SpMVKit::distributed::halo_pack",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
            pack_exec, 0, static_cast<std::int64_t>(send_indices_.extent(0))),
        detail::HaloPack<vector_type, vector_type, index_type>{send_buffer_, x, send_indices_});
    if (staged_) Kokkos::deep_copy(pack_exec, host_send_, send_buffer_);
    state_->sends_pending = true;
    if (!own_instance_) post_sends(exec);
  }

  /// Waits for every message of the last begin(); then ghosts() holds the
  /// neighbours' entries (staged: after the unpack copy, queued on exec, or on
  /// the exchange's own instance and waited for).
  void end(ExecutionSpace const& exec) const {
    if (state_->sends_pending) post_sends(halo_exec_);
    auto& requests = state_->requests;
    if (!requests.empty()) {
      detail::mpi_check(
          MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
      requests.clear();
    }
    if (staged_ && !receives_.empty()) {
      Kokkos::Profiling::pushRegion("SpMVKit::distributed::halo_unpack");
      auto const& st = *state_;
      const auto range = Kokkos::make_pair(
          std::int64_t(0), received_entries() * std::max<std::int64_t>(1, st.columns));
      auto to = st.columns > 0 ? Kokkos::subview(st.ghost_columns, range)
                               : Kokkos::subview(ghosts_, range);
      auto from = st.columns > 0 ? Kokkos::subview(st.host_receive_columns, range)
                                 : Kokkos::subview(host_receive_, range);
      if (own_instance_) {
        Kokkos::deep_copy(halo_exec_, to, from);
        halo_exec_.fence();
      } else {
        Kokkos::deep_copy(exec, to, from);
      }
      Kokkos::Profiling::popRegion();
    }
  }

  /// The ghost rows of a multi-vector exchange (ghosts x k, row-major).
  using column_ghosts_type =
      Kokkos::View<Scalar**, Kokkos::LayoutRight, Kokkos::Device<ExecutionSpace, memory_space>,
                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// Makes the buffers of a k-column exchange (kept for later ones of k or
  /// fewer columns). Throws AllocationError when they do not fit, and
  /// std::length_error when a neighbour's message would exceed MPI's int
  /// counts; a multi-vector begin() needs it first.
  void reserve_columns(ExecutionSpace const& exec, std::int64_t k) const {
    auto& st = *state_;
    if (k <= st.capacity) return;
    const auto limit = static_cast<std::int64_t>(std::numeric_limits<int>::max());
    for (auto const* list : {&sends_, &receives_}) {
      for (auto const& nb : *list) {
        if (nb.count > limit / k) {
          throw std::length_error("spmvkit::HaloExchange: " + std::to_string(k) +
                                  " columns of the " + std::to_string(nb.count) +
                                  " entries exchanged with rank " + std::to_string(nb.rank) +
                                  " exceed MPI's int counts");
        }
      }
    }
    const std::int64_t sent = sent_entries() * k, received = received_entries() * k;
    st.send_columns = vector_type();
    st.ghost_columns = vector_type();
    st.host_send_columns = HostBuffer();
    st.host_receive_columns = HostBuffer();
    st.capacity = 0;
    st.send_columns =
        detail::allocate_view<vector_type>(exec, "SpMVKit::distributed::halo_send_columns", sent);
    st.ghost_columns =
        detail::allocate_view<vector_type>(exec, "SpMVKit::distributed::ghost_columns", received);
    if (staged_) {
      st.host_send_columns =
          detail::allocate_view<HostBuffer>(Kokkos::DefaultHostExecutionSpace(),
                                            "SpMVKit::distributed::halo_send_columns_host", sent);
      st.host_receive_columns = detail::allocate_view<HostBuffer>(
          Kokkos::DefaultHostExecutionSpace(), "SpMVKit::distributed::halo_receive_columns_host",
          received);
    }
    st.capacity = k;
  }

  /// begin() for the k columns of X (a rank-2 View of the local rows, any
  /// layout; reserve_columns(exec, k) first): the same messages with k
  /// entries per ghost. end() then leaves them in column_ghosts().
  template <class Multi,
            std::enable_if_t<Kokkos::is_view<Multi>::value && Multi::rank == 2, int> = 0>
  void begin(ExecutionSpace const& exec, Multi const& X) const {
    auto& st = *state_;
    const auto k = static_cast<std::int64_t>(X.extent(1));
    if (k > st.capacity) {
      throw std::logic_error("spmvkit::HaloExchange: " + std::to_string(k) +
                             " columns exchanged, buffers reserved for " +
                             std::to_string(st.capacity));
    }
    st.columns = k;
    auto& requests = st.requests;
    requests.clear();
    Scalar* receive_to = staged_ ? st.host_receive_columns.data() : st.ghost_columns.data();
    for (auto const& nb : receives_) {
      if (graph_) break;
      requests.emplace_back();
      detail::mpi_check(MPI_Irecv(receive_to + nb.offset * k, static_cast<int>(nb.count * k),
                                  detail::mpi_datatype<Scalar>(), nb.rank, tag, comm_,
                                  &requests.back()),
                        "MPI_Irecv");
    }
    if (sends_.empty()) {
      if (graph_) st.sends_pending = true;
      return;
    }
    if (own_instance_) order_after(exec);
    ExecutionSpace const& pack_exec = own_instance_ ? halo_exec_ : exec;
    const std::int64_t n = sent_entries() * k;
    Kokkos::parallel_for(
        "SpMVKit::distributed::halo_pack_columns",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(pack_exec, 0, n),
        detail::HaloPackColumns<vector_type, Multi, index_type>{st.send_columns, X, send_indices_,
                                                                k});
    if (staged_) {
      const auto range = Kokkos::make_pair(std::int64_t(0), n);
      Kokkos::deep_copy(pack_exec, Kokkos::subview(st.host_send_columns, range),
                        Kokkos::subview(st.send_columns, range));
    }
    st.sends_pending = true;
    if (!own_instance_) post_sends(exec);
  }

  /// The ghost rows of the last multi-vector exchange (after end()).
  column_ghosts_type column_ghosts() const {
    return column_ghosts_type(state_->ghost_columns.data(),
                              static_cast<std::size_t>(received_entries()),
                              static_cast<std::size_t>(state_->columns));
  }

  /// The ghost entries, in the order of the off-process block's columns.
  vector_type const& ghosts() const { return ghosts_; }
  /// The neighbours this rank sends to, with their ranges of the send buffer.
  std::vector<HaloNeighbour> const& sends() const { return sends_; }
  /// The neighbours this rank receives from, with their ranges of ghosts().
  std::vector<HaloNeighbour> const& receives() const { return receives_; }
  /// Entries sent per exchange.
  std::int64_t sent_entries() const { return static_cast<std::int64_t>(send_indices_.extent(0)); }
  /// Entries received per exchange (the number of ghosts).
  std::int64_t received_entries() const { return static_cast<std::int64_t>(ghosts_.extent(0)); }
  /// Bytes this rank sends and receives per exchange.
  double bytes() const {
    return static_cast<double>(sent_entries() + received_entries()) * sizeof(Scalar);
  }
  /// Whether device buffers go to MPI directly (false for host memory).
  bool gpu_aware() const { return gpu_aware_; }
  /// Whether messages are staged through host buffers.
  bool staged() const { return staged_; }

  /// Whether the pack and staging copies run on an instance of their own
  /// (device memory, Kokkos 4), overlapping work queued on the caller's.
  bool own_instance() const { return own_instance_; }
  /// How the messages travel (HaloOptions::method).
  HaloMethod method() const {
    return graph_ ? HaloMethod::neighbor_alltoallv : HaloMethod::point_to_point;
  }

private:
  using HostBuffer = Kokkos::View<Scalar*, detail::StagingHostSpace>;
  static constexpr int tag = 1717;

  // The exchange in flight, shared so that copies of the matrix (operators
  // are passed by value) see the same exchange.
  struct State {
    std::vector<MPI_Request> requests;
    bool sends_pending = false; // packed (on pack_exec), sends not posted yet
    std::int64_t columns = 0;   // k of the exchange in flight; 0: a vector
    // The buffers of multi-vector exchanges, for up to `capacity` columns.
    std::int64_t capacity = 0;
    vector_type send_columns, ghost_columns;
    HostBuffer host_send_columns, host_receive_columns;
    std::vector<int> graph_counts; // the collective's counts scaled by columns
#if defined(KOKKOS_ENABLE_CUDA)
    cudaEvent_t event = nullptr;   // order_after's, with an instance of its own
    cudaStream_t stream = nullptr; // that instance's
    State() = default;
    State(State const&) = delete;
    State& operator=(State const&) = delete;
    ~State() {
      // Errors at exit change nothing; the instances on the stream are gone.
      if (event != nullptr) (void)cudaEventDestroy(event);
      if (stream != nullptr) (void)cudaStreamDestroy(stream);
    }
#endif
  };

#if defined(KOKKOS_ENABLE_CUDA)
  static void cuda_check(cudaError_t rc, char const* call) {
    if (rc != cudaSuccess) {
      throw std::runtime_error(std::string("spmvkit::HaloExchange: ") + call +
                               " failed: " + cudaGetErrorString(rc));
    }
  }
#endif

  /// Orders the exchange's instance behind the work queued on exec so far:
  /// on CUDA an event recorded on exec's stream that the exchange's stream
  /// waits for (the host goes on; a fence here stalled the host until the
  /// caller's previous kernel had finished, then the device until the next
  /// launch), elsewhere a fence of exec.
  void order_after(ExecutionSpace const& exec) const {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
      if (state_->event != nullptr) {
        cuda_check(cudaEventRecord(state_->event, exec.cuda_stream()), "cudaEventRecord");
        cuda_check(cudaStreamWaitEvent(halo_exec_.cuda_stream(), state_->event, 0),
                   "cudaStreamWaitEvent");
        return;
      }
    }
#endif
    exec.fence();
  }

  /// Waits for the pack on pack_exec (MPI reads the buffer from the host
  /// thread) and posts the sends.
  void post_sends(ExecutionSpace const& pack_exec) const {
    pack_exec.fence();
    auto& st = *state_;
    st.sends_pending = false;
    // A multi-vector exchange sends k entries per ghost (reserve_columns checked the counts).
    const bool columns = st.columns > 0;
    const std::int64_t k = columns ? st.columns : 1;
    Scalar* send_from = columns ? (staged_ ? st.host_send_columns.data() : st.send_columns.data())
                                : (staged_ ? host_send_.data() : send_buffer_.data());
    if (graph_) {
      Scalar* receive_to =
          columns ? (staged_ ? st.host_receive_columns.data() : st.ghost_columns.data())
                  : (staged_ ? host_receive_.data() : ghosts_.data());
      // The counts must outlive the request: kept in the state.
      st.graph_counts = graph_counts_;
      for (auto& c : st.graph_counts) c = static_cast<int>(c * k);
      int const* counts = st.graph_counts.data();
      st.requests.emplace_back();
      detail::mpi_check(MPI_Ineighbor_alltoallv(
                            send_from, counts, counts + sends_.size(),
                            detail::mpi_datatype<Scalar>(), receive_to, counts + 2 * sends_.size(),
                            counts + 2 * sends_.size() + receives_.size(),
                            detail::mpi_datatype<Scalar>(), *graph_, &st.requests.back()),
                        "MPI_Ineighbor_alltoallv");
      return;
    }
    for (auto const& nb : sends_) {
      st.requests.emplace_back();
      detail::mpi_check(MPI_Isend(send_from + nb.offset * k, static_cast<int>(nb.count * k),
                                  detail::mpi_datatype<Scalar>(), nb.rank, tag, comm_,
                                  &st.requests.back()),
                        "MPI_Isend");
    }
  }

  /// The graph communicator of the neighbourhood collective: sources are the
  /// ranks this one receives from, destinations those it sends to, in the
  /// order of the plan (collective over comm: every rank builds one).
  void make_graph(MPI_Comm comm) {
    std::vector<int> sources, destinations;
    std::vector<int> counts; // send counts, send offsets, receive counts, receive offsets
    for (auto const& nb : sends_) destinations.push_back(nb.rank);
    for (auto const& nb : receives_) sources.push_back(nb.rank);
    auto as_int = [](std::int64_t v) {
      if (v > std::numeric_limits<int>::max()) {
        throw std::length_error("spmvkit::HaloExchange: a halo of " + std::to_string(v) +
                                " entries exceeds MPI's int counts");
      }
      return static_cast<int>(v);
    };
    for (auto const& nb : sends_) counts.push_back(as_int(nb.count));
    for (auto const& nb : sends_) counts.push_back(as_int(nb.offset));
    for (auto const& nb : receives_) counts.push_back(as_int(nb.count));
    for (auto const& nb : receives_) counts.push_back(as_int(nb.offset));
    graph_counts_ = std::move(counts);
    graph_ = std::shared_ptr<MPI_Comm>(new MPI_Comm(MPI_COMM_NULL), [](MPI_Comm* c) {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized && *c != MPI_COMM_NULL) MPI_Comm_free(c);
      delete c;
    });
    detail::mpi_check(MPI_Dist_graph_create_adjacent(
                          comm, static_cast<int>(sources.size()), sources.data(), MPI_UNWEIGHTED,
                          static_cast<int>(destinations.size()), destinations.data(),
                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, graph_.get()),
                      "MPI_Dist_graph_create_adjacent");
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::shared_ptr<MPI_Comm> graph_; // neighbor_alltoallv only
  std::vector<int> graph_counts_;
  std::vector<HaloNeighbour> sends_, receives_;
  index_type send_indices_;
  vector_type send_buffer_, ghosts_;
  HostBuffer host_send_, host_receive_;
  // Before halo_exec_: on CUDA it owns the stream halo_exec_ runs on, so the
  // instance goes first.
  std::shared_ptr<State> state_ = std::make_shared<State>();
  ExecutionSpace halo_exec_;
  bool gpu_aware_ = false, staged_ = false, own_instance_ = false;
};

} // namespace spmvkit

#endif
