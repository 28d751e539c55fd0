// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_OPERATIONS_DETAIL_TRIPLET_SORT_HPP
#define SPMVKIT_OPERATIONS_DETAIL_TRIPLET_SORT_HPP

// The device sort behind assembly, transpose and sparse addition: entries
// (row, column) numbered t = 0..n-1 are ordered by (row, column, t) with two
// sorts of distinct 64-bit keys (column 2^s + t, then row 2^s + rank, 2^s >= n), so the
// order is unique whatever sort Kokkos runs: results are deterministic without
// a stable sort, and duplicates are summed in the order of t.
#include <spmvkit/core/checked_math.hpp>
#include <spmvkit/core/memory.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit::detail {

using SortKey = std::int64_t;

/// Keys index * 2^shift + t for t < count: packed and unpacked with a shift and
/// a mask (a division per key cost more than the rest of a transpose's fill).
struct KeyPacking {
  int shift = 1;
  SortKey mask = 1;
  KOKKOS_INLINE_FUNCTION SortKey pack(SortKey index, SortKey t) const {
    return (index << shift) | t;
  }
  KOKKOS_INLINE_FUNCTION SortKey low(SortKey key) const { return key & mask; }
  KOKKOS_INLINE_FUNCTION SortKey high(SortKey key) const { return key >> shift; }
};

/// The packing for t < count, checked against every index < extent: throws
/// std::length_error when index * 2^shift + t would not fit a signed 64-bit integer.
inline KeyPacking key_packing(std::int64_t extent, std::int64_t count, char const* what,
                              char const* where) {
  KeyPacking k;
  while (k.shift < 62 && (SortKey(1) << k.shift) < count) ++k.shift;
  k.mask = (SortKey(1) << k.shift) - 1;
  if (extent > (SortKey(1) << (63 - k.shift))) {
    throw std::length_error(std::string(where) + ": " + what + " (" + std::to_string(extent) +
                            ") times 2^" + std::to_string(k.shift) + " (room for " +
                            std::to_string(count) +
                            " entries) exceeds the 64-bit sort keys; split the input");
  }
  return k;
}

/// LSD radix sort of non-negative keys on the host, 16-bit digits, as many
/// passes as the largest key has digits. Kokkos::sort of host Views is one
/// thread's std::sort, several times slower for the millions of keys here.
template <class Keys>
void radix_sort_host(Keys const& keys) {
  const auto n = static_cast<std::size_t>(keys.extent(0));
  SortKey largest = 0;
  for (std::size_t i = 0; i < n; ++i) largest = keys(i) > largest ? keys(i) : largest;
  auto buffer = allocate_view<Kokkos::View<SortKey*, Kokkos::HostSpace>>(
      Kokkos::DefaultHostExecutionSpace(), "SpMVKit::sort_keys::buffer",
      static_cast<std::int64_t>(n));
  SortKey* from = keys.data();
  SortKey* to = buffer.data();
  std::vector<std::size_t> count(65537);
  for (int shift = 0; shift < 64 && (largest >> shift) > 0; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t i = 0; i < n; ++i) ++count[((from[i] >> shift) & 0xFFFF) + 1];
    for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (std::size_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & 0xFFFF]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys.data()) std::copy(from, from + n, keys.data());
}

/// Sorts keys ascending: a radix sort where the host can read them, else
/// Kokkos::sort, which runs on the View's default instance, so exec's work is
/// finished first and the sort's before returning.
template <class ExecutionSpace, class Keys>
void sort_distinct_keys(ExecutionSpace const& exec, Keys const& keys) {
  exec.fence();
  if (keys.extent(0) < 2) return;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename Keys::memory_space>::accessible) {
    radix_sort_host(keys);
  } else {
    Kokkos::sort(keys);
    typename Keys::execution_space().fence();
  }
}

/// Host backends: how many chunks of entries bucket_order_host counts on
/// their own (a count per chunk and bucket, 4 bytes each): at most one per
/// thread and count / num_buckets (the counts then take at most half the
/// bytes of the 8-byte keys). 1 (atomic cursors instead) where that keeps
/// fewer than 2 chunks or half the threads busy, or at 2^32 entries or more
/// (32-bit counts).
inline std::int64_t host_bucket_chunks(std::int64_t threads, std::int64_t num_buckets,
                                       std::int64_t count) {
  if (num_buckets < 1 || count >= (std::int64_t(1) << 32)) return 1;
  const std::int64_t chunks = std::min(threads, count / num_buckets);
  return chunks >= 2 && 2 * chunks >= threads ? chunks : 1;
}

/// Tests: the thread count bucket_order_host plans its chunks for; 0 (the
/// default): the backend's concurrency. The order does not depend on it.
inline std::int64_t& host_bucket_threads() {
  static std::int64_t threads = 0;
  return threads;
}

/// Host backends: keys(t) of the entries t < count grouped by bucket(t) and
/// ascending within each bucket, without a global sort. `starts` (num_buckets
/// + 1, any integer type) receives each bucket's first position. Keys must be
/// distinct (they end in t), so the result is the same on every run and for
/// every thread count.
/// - Where host_bucket_chunks gives 2 chunks or more, each thread counts its
///   chunk's entries per bucket and places them at its own cursors: a stable
///   counting sort without atomics (up to 4 more bytes per entry).
/// - Otherwise each entry is counted by an atomic add and placed by an atomic
///   cursor.
/// Each bucket is then sorted: rows of a few dozen entries, as FEM assembly
/// and transposes have, sort in cache.
template <class ExecutionSpace, class Order, class Starts, class BucketOf, class KeyOf>
void bucket_order_host(ExecutionSpace const& exec, std::int64_t num_buckets, std::int64_t count,
                       BucketOf const& bucket, KeyOf const& key, Starts const& starts,
                       Order const& order) {
  static_assert(is_host_space_v<ExecutionSpace>, "bucket_order_host: a host backend only");
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using Start = typename Starts::non_const_value_type;
  const std::int64_t threads = host_bucket_threads() > 0
                                   ? host_bucket_threads()
                                   : static_cast<std::int64_t>(exec.concurrency());
  const std::int64_t chunks = host_bucket_chunks(threads, num_buckets, count);
  if (chunks >= 2) {
    using Counts = Kokkos::View<std::uint32_t*, Kokkos::HostSpace>;
    const std::int64_t per_chunk = (count + chunks - 1) / chunks;
    // Chunk c's count of bucket b at c * num_buckets + b; then its cursor,
    // relative to the bucket's first position.
    auto cursor =
        allocate_view<Counts>(exec, "SpMVKit::bucket_order::chunk_cursors", chunks * num_buckets);
    Kokkos::parallel_for("SpMVKit::bucket_order::chunk_count", Range(exec, 0, chunks),
                         [=](std::int64_t c) {
                           std::uint32_t* mine = cursor.data() + c * num_buckets;
                           std::fill(mine, mine + num_buckets, std::uint32_t(0));
                           const std::int64_t last = std::min(count, (c + 1) * per_chunk);
                           for (std::int64_t t = c * per_chunk; t < last; ++t) ++mine[bucket(t)];
                         });
    Kokkos::parallel_scan("SpMVKit::bucket_order::chunk_scan", Range(exec, 0, num_buckets),
                          [=](std::int64_t b, std::int64_t& sum, bool final) {
                            std::uint32_t in_bucket = 0;
                            for (std::int64_t c = 0; c < chunks; ++c) {
                              const std::uint32_t n = cursor(c * num_buckets + b);
                              if (final) cursor(c * num_buckets + b) = in_bucket;
                              in_bucket += n;
                            }
                            if (final) starts(b) = static_cast<Start>(sum);
                            sum += in_bucket;
                          });
    exec.fence();
    starts(num_buckets) = static_cast<Start>(count);
    Kokkos::parallel_for("SpMVKit::bucket_order::chunk_place", Range(exec, 0, chunks),
                         [=](std::int64_t c) {
                           std::uint32_t* mine = cursor.data() + c * num_buckets;
                           const std::int64_t last = std::min(count, (c + 1) * per_chunk);
                           for (std::int64_t t = c * per_chunk; t < last; ++t) {
                             const auto b = static_cast<std::int64_t>(bucket(t));
                             order(static_cast<std::int64_t>(starts(b)) + mine[b]++) = key(t);
                           }
                         });
  } else {
    using Cursor = Kokkos::View<SortKey*, Kokkos::HostSpace>;
    auto cursor = allocate_view<Cursor>(exec, "SpMVKit::bucket_order::cursor", num_buckets + 1);
    Kokkos::deep_copy(exec, cursor, SortKey(0));
    Kokkos::parallel_for(
        "SpMVKit::bucket_order::count", Range(exec, 0, count),
        [=](std::int64_t t) { Kokkos::atomic_add(&cursor(bucket(t) + 1), SortKey(1)); });
    exec.fence();
    for (std::int64_t b = 0; b < num_buckets; ++b) cursor(b + 1) += cursor(b);
    for (std::int64_t b = 0; b <= num_buckets; ++b) starts(b) = static_cast<Start>(cursor(b));
    Kokkos::parallel_for("SpMVKit::bucket_order::place", Range(exec, 0, count),
                         [=](std::int64_t t) {
                           order(Kokkos::atomic_fetch_add(&cursor(bucket(t)), SortKey(1))) = key(t);
                         });
  }
  Kokkos::parallel_for("SpMVKit::bucket_order::sort",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                                           Kokkos::IndexType<std::int64_t>>(exec, 0, num_buckets),
                       [=](std::int64_t b) {
                         auto* first = order.data() + static_cast<std::int64_t>(starts(b));
                         auto* last = order.data() + static_cast<std::int64_t>(starts(b + 1));
                         if (last - first <= 64) {
                           for (auto* i = first + 1; i < last; ++i) { // insertion sort
                             const auto v = *i;
                             auto* j = i;
                             for (; j > first && v < *(j - 1); --j) *j = *(j - 1);
                             *j = v;
                           }
                         } else {
                           std::sort(first, last);
                         }
                       });
  exec.fence();
}

template <class Starts>
struct ScanStarts {
  Starts starts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, typename Starts::value_type& sum,
                                         bool final) const {
    sum += starts(i);
    if (final) starts(i) = sum;
  }
};

template <class Starts, class BucketOf>
struct CountIntoBuckets {
  Starts starts;
  BucketOf bucket;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    // atomic_add, not atomic_increment: deprecated in Kokkos 4.
    Kokkos::atomic_add(&starts(bucket(t) + 1), typename Starts::non_const_value_type(1));
  }
};

/// CountIntoBuckets for `group` consecutive entries per thread: a run of equal
/// buckets takes one atomic (element-ordered triplets repeat each row several
/// times in a row; CRS entries a whole row).
template <class Starts, class BucketOf>
struct CountGroupsIntoBuckets {
  Starts starts;
  BucketOf bucket;
  std::int64_t count, group;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t g) const {
    using Count = typename Starts::non_const_value_type;
    std::int64_t t = g * group;
    const std::int64_t last = t + group < count ? t + group : count;
    auto b = bucket(t);
    Count n = 1;
    for (++t; t < last; ++t) {
      const auto c = bucket(t);
      if (c != b) {
        Kokkos::atomic_add(&starts(b + 1), n);
        b = c;
        n = 0;
      }
      ++n;
    }
    Kokkos::atomic_add(&starts(b + 1), n);
  }
};

template <class Starts>
struct LargestBucket {
  Starts starts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t b, std::int64_t& largest) const {
    const auto n = static_cast<std::int64_t>(starts(b + 1) - starts(b));
    largest = n > largest ? n : largest;
  }
};

/// Counts the entries t < count of each bucket into starts (num_buckets + 1,
/// zeroed here) and scans them: starts(b) is bucket b's first position.
/// With group > 1 a thread counts that many consecutive entries, an atomic per
/// run of one bucket. Returns the largest bucket's size (synchronous).
template <class ExecutionSpace, class Starts, class BucketOf>
std::int64_t count_into_buckets(ExecutionSpace const& exec, std::int64_t num_buckets,
                                std::int64_t count, BucketOf const& bucket, Starts const& starts,
                                std::int64_t group = 1) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::deep_copy(exec, starts, typename Starts::non_const_value_type(0));
  if (group > 1) {
    Kokkos::parallel_for("SpMVKit::bucket_order::count",
                         Range(exec, 0, (count + group - 1) / group),
                         CountGroupsIntoBuckets<Starts, BucketOf>{starts, bucket, count, group});
  } else {
    Kokkos::parallel_for("SpMVKit::bucket_order::count", Range(exec, 0, count),
                         CountIntoBuckets<Starts, BucketOf>{starts, bucket});
  }
  Kokkos::parallel_scan("SpMVKit::bucket_order::scan", Range(exec, 0, num_buckets + 1),
                        ScanStarts<Starts>{starts});
  std::int64_t largest = 0;
  Kokkos::parallel_reduce("SpMVKit::bucket_order::largest", Range(exec, 0, num_buckets),
                          LargestBucket<Starts>{starts}, Kokkos::Max<std::int64_t>(largest));
  exec.fence();
  return largest;
}

/// GPUs: the bucket sorts below give each bucket a warp's lanes; a few buckets
/// share a team. Host backends (tests of this path) take one lane.
template <class ExecutionSpace>
constexpr int bucket_sort_lanes() {
  return is_host_space_v<ExecutionSpace> ? 1 : 32;
}
template <class ExecutionSpace>
constexpr int bucket_sort_buckets_per_team() {
  return is_host_space_v<ExecutionSpace> ? 1 : 4;
}

/// Buckets up to this size are sorted in the team's scratch memory (4 buckets
/// a team of 1024 8-byte keys stay under the 48 KiB a CUDA launch gets without
/// opting in); a larger one sends the input to the global sort. FEM rows and
/// columns hold tens of entries; the longest rows of power-law graphs are far
/// longer.
inline constexpr std::int64_t bucket_sort_largest = 1024;

/// Buckets up to this size are sorted by rank (each key counts the smaller
/// ones: n^2 / lanes broadcast reads per lane), longer ones by a bitonic network
/// (log^2 steps with exchanges): the rank sort was the faster for FEM element
/// rows of 64 triplets, the network's cost grows far slower
/// (docs/notes/2026-12-06-gpu-assembly-warp-place-and-network-sort.md).
inline constexpr std::int64_t bucket_rank_sort_largest = 64;

/// The power of two at or above n (1 for n <= 1).
KOKKOS_INLINE_FUNCTION std::int64_t power_of_two_above(std::int64_t n) {
  std::int64_t m = 1;
  while (m < n) m <<= 1;
  return m;
}

/// Scratch keys a bucket sort of buckets up to `largest` keys takes per bucket:
/// the power of two above `largest` for the network, two copies for the rank sort.
inline std::int64_t bucket_sort_scratch(std::int64_t largest) {
  return std::max(power_of_two_above(largest), 2 * std::min(largest, bucket_rank_sort_largest));
}

template <class Starts, class Keys, class BucketOf, class KeyOf>
struct PlaceInBuckets {
  Keys cursor, placed;
  BucketOf bucket;
  KeyOf key;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    const SortKey b = bucket(t);
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    // The lanes of a warp with one bucket (an element loop repeats each row)
    // take their places by one atomic: consecutive places, stores side by side.
    // __match_any_sync needs sm_70; older GPUs and other backends take one
    // atomic per entry.
    const unsigned same = __match_any_sync(__activemask(), static_cast<unsigned long long>(b));
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    const int leader = __ffs(same) - 1;
    long long first = 0;
    if (static_cast<int>(lane) == leader) {
      first = Kokkos::atomic_fetch_add(&cursor(b), SortKey(__popc(same)));
    }
    first = __shfl_sync(same, first, leader);
    placed(first + __popc(same & ((1u << lane) - 1u))) = key(t);
#else
    placed(Kokkos::atomic_fetch_add(&cursor(b), SortKey(1))) = key(t);
#endif
  }
};

/// The bucket a team thread of the bucket kernels takes: a few buckets per team,
/// one per team thread, its vector lanes sharing the bucket's entries.
template <class Member>
KOKKOS_INLINE_FUNCTION std::int64_t team_thread_bucket(Member const& team) {
  return static_cast<std::int64_t>(team.league_rank()) * team.team_size() + team.team_rank();
}

/// Each key's position in its bucket is the number of smaller keys there
/// (keys are distinct), so lanes write the sorted bucket without exchanging.
/// Only for buckets longer than bucket_sort_largest, where a caller forces this
/// path: they read the unsorted copy from global memory.
template <class ExecutionSpace, class Starts, class Placed, class Keys>
struct BucketRankSort {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Starts starts;
  Placed placed;
  Keys sorted;
  std::int64_t num_buckets;
  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t b = team_thread_bucket(team);
    if (b >= num_buckets) return;
    const auto first = static_cast<std::int64_t>(starts(b));
    const auto n = static_cast<std::int64_t>(starts(b + 1)) - first;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), [&](std::int64_t i) {
      const SortKey key = placed(first + i);
      std::int64_t rank = 0;
      for (std::int64_t j = 0; j < n; ++j) rank += placed(first + j) < key ? 1 : 0;
      sorted(first + rank) = key;
    });
  }
};

/// A team thread's lanes sort keys [first, first + n) (distinct) ascending in
/// scratch `bucket` (bucket_sort_scratch keys) and return the sorted keys' View
/// there. Up to bucket_rank_sort_largest keys, each key's rank is the number of
/// smaller ones: the keys are copied to scratch and each lane writes its keys'
/// ranks into a second copy. Longer buckets are padded with INT64_MAX to the
/// power of two m above n and sorted in place by a bitonic network:
/// log2(m) (log2(m) + 1) / 2 steps of m / 2 compare-exchanges. The vector
/// loops' ends synchronise the lanes.
template <class Member, class Keys, class Scratch>
KOKKOS_INLINE_FUNCTION Scratch sort_bucket(Member const& team, Keys const& keys, std::int64_t first,
                                           std::int64_t n, Scratch const& bucket) {
  if (n <= bucket_rank_sort_largest) {
    const Scratch sorted(bucket.data() + n, n);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n),
                         [&](std::int64_t i) { bucket(i) = keys(first + i); });
    // Each lane ranks keys i and i + half against one read of every key.
    const std::int64_t half = (n + 1) / 2;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, half), [&](std::int64_t i) {
      const bool second = i + half < n;
      const SortKey a = bucket(i), b = second ? bucket(i + half) : a;
      std::int64_t rank_a = 0, rank_b = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const SortKey key = bucket(j);
        rank_a += key < a ? 1 : 0;
        rank_b += key < b ? 1 : 0;
      }
      sorted(rank_a) = a;
      if (second) sorted(rank_b) = b;
    });
    return sorted;
  }
  const std::int64_t m = power_of_two_above(n);
  const SortKey pad = SortKey(0x7fffffffffffffff); // at or above every key
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m),
                       [&](std::int64_t i) { bucket(i) = i < n ? keys(first + i) : pad; });
  for (std::int64_t k = 2; k <= m; k <<= 1) {
    for (std::int64_t j = k >> 1; j > 0; j >>= 1) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m / 2), [&](std::int64_t i) {
        // Pair i's lower element: i with a zero bit inserted at j.
        const std::int64_t lo = ((i & ~(j - 1)) << 1) | (i & (j - 1)), hi = lo + j;
        const SortKey a = bucket(lo), b = bucket(hi);
        if ((a > b) == ((lo & k) == 0)) { // ascending where lo & k is 0
          bucket(lo) = b;
          bucket(hi) = a;
        }
      });
    }
  }
  return bucket;
}

/// Sorts each bucket in the team's scratch memory (`capacity` keys per bucket,
/// bucket_sort_scratch) and writes it back in place. With `runs`, also
/// counts each bucket's runs of equal high() (a row's distinct columns) into
/// runs(b + 1), reading the sorted bucket's neighbours in scratch: no second
/// pass over the keys.
template <class ExecutionSpace, class Starts, class Keys, class Runs>
struct BucketSortInScratch {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using Scratch = Kokkos::View<SortKey*, typename ExecutionSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Starts starts;
  Keys keys;
  Runs runs;
  KeyPacking packing;
  std::int64_t num_buckets, capacity;
  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const Scratch bucket(team.thread_scratch(0), capacity);
    const std::int64_t b = team_thread_bucket(team);
    if (b >= num_buckets) return;
    const auto first = static_cast<std::int64_t>(starts(b));
    const auto n = static_cast<std::int64_t>(starts(b + 1)) - first;
    const Scratch sorted = sort_bucket(team, keys, first, n, bucket);
    if (runs.data() == nullptr) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n),
                           [&](std::int64_t i) { keys(first + i) = sorted(i); });
      return;
    }
    std::int64_t heads = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, n),
        [&](std::int64_t i, std::int64_t& c) {
          const SortKey key = sorted(i);
          keys(first + i) = key;
          c += i == 0 || packing.high(key) != packing.high(sorted(i - 1)) ? 1 : 0;
        },
        heads);
    Kokkos::single(Kokkos::PerThread(team),
                   [&] { runs(b + 1) = static_cast<typename Runs::non_const_value_type>(heads); });
  }
};

/// Sorts each bucket of keys (bounds in starts, the largest holding `largest`
/// keys) ascending, in place; keys distinct. With `runs` (num_buckets + 1) and
/// buckets of at most bucket_sort_largest keys, also counts each bucket's runs
/// of equal packing.high() into runs(b + 1) and returns true; else returns
/// false and the caller counts them.
template <class ExecutionSpace, class Starts, class Keys,
          class Runs = Kokkos::View<SortKey*, typename Keys::device_type>>
bool bucket_sort(ExecutionSpace const& exec, std::int64_t num_buckets, Starts const& starts,
                 Keys const& keys, std::int64_t largest, Runs const& runs = Runs(),
                 KeyPacking packing = KeyPacking()) {
  constexpr int per_team = bucket_sort_buckets_per_team<ExecutionSpace>();
  const auto league = static_cast<int>((num_buckets + per_team - 1) / per_team);
  const int lanes = bucket_sort_lanes<ExecutionSpace>();
  if (largest <= bucket_sort_largest) {
    using Sort = BucketSortInScratch<ExecutionSpace, Starts, Keys, Runs>;
    const std::int64_t capacity = bucket_sort_scratch(largest);
    Kokkos::TeamPolicy<ExecutionSpace> policy(exec, league, per_team, lanes);
    policy.set_scratch_size(
        0, Kokkos::PerThread(static_cast<int>(Sort::Scratch::shmem_size(capacity))));
    Kokkos::parallel_for("SpMVKit::bucket_order::sort_in_scratch", policy,
                         Sort{starts, keys, runs, packing, num_buckets, capacity});
    return runs.data() != nullptr;
  }
  const auto unsorted = allocate_view<Kokkos::View<SortKey*, typename Keys::device_type>>(
      exec, "SpMVKit::bucket_order::unsorted", static_cast<std::int64_t>(keys.extent(0)));
  Kokkos::deep_copy(exec, unsorted, keys);
  Kokkos::parallel_for("SpMVKit::bucket_order::rank_sort",
                       Kokkos::TeamPolicy<ExecutionSpace>(exec, league, per_team, lanes),
                       BucketRankSort<ExecutionSpace, Starts, decltype(unsorted), Keys>{
                           starts, unsorted, keys, num_buckets});
  exec.fence();
  return false;
}

template <class Keys, class Starts>
struct CursorsFromStarts {
  Keys cursor;
  Starts starts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t b) const {
    cursor(b) = static_cast<SortKey>(starts(b));
  }
};

/// GPUs: keys(t) of the entries t < count grouped by bucket (starts from
/// count_into_buckets, the largest bucket holding `largest`) and ascending
/// within each bucket, in `keys`; `cursor` (num_buckets) is scratch. Entries
/// are placed by atomic cursors, then each bucket is sorted; keys must be
/// distinct (they end in t), so the result is the same on every run. Returns
/// whether the sort also counted each bucket's runs into `runs`
/// (bucket_sort).
template <class ExecutionSpace, class Starts, class BucketOf, class KeyOf, class Keys,
          class Runs = Keys>
bool bucket_order_device(ExecutionSpace const& exec, std::int64_t num_buckets, std::int64_t count,
                         BucketOf const& bucket, KeyOf const& key, Starts const& starts,
                         std::int64_t largest, Keys const& keys, Keys const& cursor,
                         Runs const& runs = Runs(), KeyPacking packing = KeyPacking()) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("SpMVKit::bucket_order::cursor", Range(exec, 0, num_buckets),
                       CursorsFromStarts<Keys, Starts>{cursor, starts});
  // One entry per thread: the lanes of a warp that share a row write its keys
  // side by side; 8 entries per thread, as the count takes them, scatter each
  // warp's stores (docs/notes/2026-12-06-gpu-assembly-fused-passes.md).
  Kokkos::parallel_for("SpMVKit::bucket_order::place", Range(exec, 0, count),
                       PlaceInBuckets<Starts, Keys, BucketOf, KeyOf>{cursor, keys, bucket, key});
  return bucket_sort(exec, num_buckets, starts, keys, largest, runs, packing);
}

/// What the sort found: the entries in (row, column, t) order and their runs of
/// equal (row, column), each run one entry of the result.
template <class Ordinal, class Offset, class Device>
struct SortedEntries {
  Kokkos::View<SortKey*, Device> order;      ///< entry t at each sorted position
  Kokkos::View<SortKey*, Device> run_starts; ///< first sorted position of each run; nnz + 1
  Kokkos::View<Offset*, Device> row_starts;  ///< runs per row, scanned; num_rows + 1
  Kokkos::View<Ordinal*, Device> columns;    ///< the column of each run
  std::int64_t nnz = 0;                      ///< number of runs
};

template <class Keys, class Source>
struct ColumnKeys {
  Keys keys;
  Source source;
  KeyPacking packing;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    keys(t) = packing.pack(static_cast<SortKey>(source.col(t)), t);
  }
};

template <class Keys, class Source>
struct RowKeys {
  Keys by_column, keys;
  Source source;
  KeyPacking packing;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t q) const {
    const SortKey t = packing.low(by_column(q));
    keys(q) = packing.pack(static_cast<SortKey>(source.row(t)), q);
  }
};

/// order(p) = the entry at sorted position p.
template <class Keys>
struct OrderFromKeys {
  Keys by_column, by_row, order;
  KeyPacking packing;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    order(p) = packing.low(by_column(packing.low(by_row(p))));
  }
};

/// Whether sorted position p starts a run of equal (row, column).
template <class Keys, class Source>
KOKKOS_INLINE_FUNCTION bool starts_run(Keys const& order, Source const& source, std::int64_t p) {
  if (p == 0) return true;
  const SortKey t = order(p), u = order(p - 1);
  return source.row(t) != source.row(u) || source.col(t) != source.col(u);
}

/// run_of(p) = the run number of position p's run (exclusive scan of the heads).
template <class Keys, class Source>
struct RunNumbers {
  Keys order, run_of;
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p, SortKey& sum, bool final) const {
    const bool head = starts_run(order, source, p);
    if (final && head) run_of(p) = sum;
    sum += head ? 1 : 0;
  }
};

/// Reads entry t's row and column into rc (one thread), for an error message.
template <class Pair, class Source>
struct ReadEntry {
  Pair rc;
  Source source;
  std::int64_t t;
  KOKKOS_INLINE_FUNCTION void operator()(int) const {
    rc(0) = static_cast<std::int64_t>(source.row(t));
    rc(1) = static_cast<std::int64_t>(source.col(t));
  }
};

template <class Keys, class Columns, class Counts, class Source>
struct FillRuns {
  Keys order, run_of, run_starts;
  Columns columns;
  Counts row_counts;
  Source source;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    if (!starts_run(order, source, p)) return;
    const SortKey t = order(p);
    const SortKey s = run_of(p);
    run_starts(s) = p;
    columns(s) = static_cast<typename Columns::value_type>(source.col(t));
    // atomic_add, not atomic_increment: deprecated in Kokkos 4.
    Kokkos::atomic_add(&row_counts(source.row(t) + 1), typename Counts::non_const_value_type(1));
  }
};

/// The first entry out of range [0, rows) x [0, cols), or count if none.
template <class Source>
struct FirstOutOfRange {
  Source source;
  std::int64_t rows, cols;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, std::int64_t& first) const {
    const auto r = static_cast<std::int64_t>(source.row(t));
    const auto c = static_cast<std::int64_t>(source.col(t));
    if ((r < 0 || r >= rows || c < 0 || c >= cols) && t < first) first = t;
  }
};

template <class Source>
struct RowOf {
  Source source;
  KOKKOS_INLINE_FUNCTION SortKey operator()(std::int64_t t) const {
    return static_cast<SortKey>(source.row(t));
  }
};

template <class Source>
struct ColumnKeyOf {
  Source source;
  KeyPacking packing;
  KOKKOS_INLINE_FUNCTION SortKey operator()(std::int64_t t) const {
    return packing.pack(static_cast<SortKey>(source.col(t)), t);
  }
};

/// Whether position p of a row's sorted (column, t) keys starts a run of one column.
template <class Keys>
KOKKOS_INLINE_FUNCTION bool starts_column_run(Keys const& sorted, KeyPacking const& packing,
                                              std::int64_t first, std::int64_t p) {
  return p == first || packing.high(sorted(p)) != packing.high(sorted(p - 1));
}

/// What sort_entries sums besides sorting: nothing (transpose, spadd).
struct NoRunSums {
  static constexpr bool sums = false;
  using value_type = char;
};

/// What sort_entries sums besides sorting (assemble_crs): into `values`, which
/// it allocates (nnz, labelled `label`), each run's value(t) in sorted order,
/// as SumRuns does. The host path sums while it fills the runs.
template <class Values, class ValueOf>
struct RunSums {
  static constexpr bool sums = true;
  using value_type = typename Values::non_const_value_type;
  Values values;
  ValueOf value;
  char const* label = "SpMVKit::sort_entries::sums";
  /// Whether sort_entries also returns the order and run starts (a pattern
  /// keeps them); without, they come back empty and the fill skips them.
  bool keep_order = true;
};

/// GPUs, after bucket_order_device by row: mode count writes each row's
/// number of runs into row_starts(r + 1); mode fill writes each run's first
/// position and column. With `capacity` > 0 (at least the longest row) the
/// fill reads each row's keys through scratch and also turns them into the
/// order (t), which a fill from global memory leaves to KeysToEntries: a lane
/// would overwrite the key its neighbour compares with. With `summing` (and
/// scratch), the lanes also gather each entry's value into scratch and each
/// run's head lane sums its run there, in sorted order as SumRuns does; without
/// `keep_order` the run starts and the order are not written.
template <class ExecutionSpace, class Keys, class Offsets, class Columns, class Sums = NoRunSums>
struct RowRuns {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using Scratch = Kokkos::View<SortKey*, typename ExecutionSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ScratchValues =
      Kokkos::View<typename Sums::value_type*, typename ExecutionSpace::scratch_memory_space,
                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Keys triplet_starts, sorted, run_starts;
  Offsets row_starts;
  Columns columns;
  KeyPacking packing;
  std::int64_t num_rows;
  bool fill;
  std::int64_t capacity = 0;
  Sums sink{};
  bool summing = false, keep_order = true;

  /// Scratch bytes per row of the fill through scratch.
  static std::size_t scratch_bytes(std::int64_t capacity, bool summing) {
    return Scratch::shmem_size(capacity) + (summing ? ScratchValues::shmem_size(capacity) : 0);
  }

  KOKKOS_INLINE_FUNCTION void operator()(member_type const& team) const {
    const std::int64_t r = team_thread_bucket(team);
    if (r >= num_rows) return;
    const std::int64_t first = triplet_starts(r), n = triplet_starts(r + 1) - first;
    if (fill && capacity > 0) {
      const Scratch row(team.thread_scratch(0), capacity);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n),
                           [&](std::int64_t i) { row(i) = sorted(first + i); });
      [[maybe_unused]] ScratchValues values;
      if constexpr (Sums::sums) {
        if (summing) {
          values = ScratchValues(team.thread_scratch(0), capacity);
          // All lanes gather: an element loop's triplets of a row lie side by side.
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), [&](std::int64_t i) {
            values(i) = sink.value(packing.low(row(i)));
          });
        }
      }
      const auto base = static_cast<std::int64_t>(row_starts(r));
      Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, n), [&](std::int64_t i, std::int64_t& s,
                                                                    bool final) {
        const SortKey key = row(i);
        const bool head = i == 0 || packing.high(key) != packing.high(row(i - 1));
        if (final) {
          if (head) {
            if (keep_order) run_starts(base + s) = first + i;
            columns(base + s) = static_cast<typename Columns::value_type>(packing.high(key));
            if constexpr (Sums::sums) {
              if (summing) {
                typename Sums::value_type sum = 0;
                for (std::int64_t q = i; q < n && packing.high(row(q)) == packing.high(key); ++q) {
                  sum += values(q);
                }
                sink.values(base + s) = sum;
              }
            }
          }
          if (keep_order) sorted(first + i) = packing.low(key);
        }
        s += head ? 1 : 0;
      });
      return;
    }
    if (!fill) {
      std::int64_t runs = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, n),
          [&](std::int64_t i, std::int64_t& c) {
            c += starts_column_run(sorted, packing, first, first + i) ? 1 : 0;
          },
          runs);
      Kokkos::single(Kokkos::PerThread(team), [&] {
        row_starts(r + 1) = static_cast<typename Offsets::non_const_value_type>(runs);
      });
      return;
    }
    const auto base = static_cast<std::int64_t>(row_starts(r));
    Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, n), [&](std::int64_t i, std::int64_t& s,
                                                                  bool final) {
      const std::int64_t p = first + i;
      const bool head = starts_column_run(sorted, packing, first, p);
      if (final) {
        if (head) {
          run_starts(base + s) = p;
          columns(base + s) = static_cast<typename Columns::value_type>(packing.high(sorted(p)));
        }
      }
      s += head ? 1 : 0;
    });
  }
};

/// keys(p) = t, the entry of the packed key at p.
template <class Keys>
struct KeysToEntries {
  Keys keys;
  KeyPacking packing;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const { keys(p) = packing.low(keys(p)); }
};

template <class Offsets>
struct SumCounts {
  Offsets counts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& sum) const {
    sum += static_cast<std::int64_t>(counts(r + 1));
  }
};

/// Consecutive entries a thread of the device path counts, one atomic per run of
/// a row: element triplets repeat each row (8 times for Q1 hexahedra), spadd's
/// entries a whole row.
inline constexpr std::int64_t sort_entries_group = 8;

/// values(s) = the sum, in sorted order, of value(t) over run s (no atomics).
template <class Values, class Keys, class ValueOf>
struct SumRuns {
  Values values;
  Keys order, run_starts;
  ValueOf value;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t s) const {
    typename Values::non_const_value_type sum = 0;
    for (SortKey p = run_starts(s); p < run_starts(s + 1); ++p) sum += value(order(p));
    values(s) = sum;
  }
};

/// Whether sort_entries returns the order and run starts: always, unless
/// `sums` asks for none (RunSums::keep_order).
template <class Sums>
bool order_kept(Sums const* sums) {
  if constexpr (Sums::sums) {
    return sums == nullptr || sums->keep_order;
  } else {
    return true;
  }
}

/// Empties the order and run starts of `sorted` where `sums` does not keep them.
template <class Sorted, class Sums>
void drop_order_unless_kept(Sorted& sorted, Sums const* sums) {
  if (!order_kept(sums)) {
    sorted.order = decltype(sorted.order)();
    sorted.run_starts = decltype(sorted.run_starts)();
  }
}

/// sort_entries' paths that do not sum while filling: sums each run by SumRuns.
template <class ExecutionSpace, class Sorted, class Sums>
void sum_runs_after(ExecutionSpace const& exec, Sorted const& sorted, Sums* sums) {
  if constexpr (Sums::sums) {
    if (sums == nullptr) return;
    using Values = decltype(sums->values);
    sums->values = allocate_view<Values>(exec, sums->label, sorted.nnz);
    Kokkos::parallel_for(
        "SpMVKit::sort_entries::sum_duplicates",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, sorted.nnz),
        SumRuns<Values, decltype(sorted.order), decltype(sums->value)>{
            sums->values, sorted.order, sorted.run_starts, sums->value});
    exec.fence();
  }
}

/// How sort_entries orders the entries: automatic picks by backend and row
/// length; the others force one path (tests run every path on every backend).
enum class EntrySort { automatic, host_buckets, device_buckets, global_sort };

/// Sorts the `count` entries of `source` (row(t), col(t) callable on the
/// device, in range) into runs of equal (row, column); with `sums` (RunSums),
/// also sums each run's values (and returns the order and run starts only
/// where sums->keep_order). Throws std::length_error when the keys or the
/// number of runs do not fit, AllocationError. Synchronous.
template <class Ordinal, class Offset, class ExecutionSpace, class Source, class Sums = NoRunSums>
SortedEntries<Ordinal, Offset, typename ExecutionSpace::device_type>
sort_entries(ExecutionSpace const& exec, std::int64_t num_rows, std::int64_t num_cols,
             std::int64_t count, Source const& source, char const* where,
             EntrySort path = EntrySort::automatic, Sums* sums = nullptr) {
  using Device = typename ExecutionSpace::device_type;
  using Keys = Kokkos::View<SortKey*, Device>;
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const KeyPacking packing =
      key_packing(std::max(num_rows, num_cols), count, "the number of rows or columns", where);
  SortedEntries<Ordinal, Offset, Device> out;
  out.row_starts = allocate_view<Kokkos::View<Offset*, Device>>(
      exec, "SpMVKit::sort_entries::row_starts", checked_extent_plus_one(num_rows, "rows", where));
  Kokkos::deep_copy(exec, out.row_starts, Offset(0));
  if (count == 0) {
    out.order = Keys("SpMVKit::sort_entries::order", 0);
    out.run_starts = Keys("SpMVKit::sort_entries::run_starts", 1);
    out.columns = Kokkos::View<Ordinal*, Device>("SpMVKit::sort_entries::columns", 0);
    exec.fence();
    sum_runs_after(exec, out, sums);
    drop_order_unless_kept(out, sums);
    return out;
  }
  out.order = allocate_view<Keys>(exec, "SpMVKit::sort_entries::order", count);
  if constexpr (is_host_space_v<ExecutionSpace>) {
    if (path == EntrySort::automatic || path == EntrySort::host_buckets) {
      // Buckets by row of keys (column, t), each sorted; the runs and columns are
      // then read off each row's keys in order, without a gather through t.
      const Keys keys = out.order;
      const Keys triplet_starts =
          allocate_view<Keys>(exec, "SpMVKit::sort_entries::triplet_starts",
                              checked_extent_plus_one(num_rows, "rows", where));
      bucket_order_host(
          exec, num_rows, count,
          [=](std::int64_t t) { return static_cast<SortKey>(source.row(t)); },
          [=](std::int64_t t) { return packing.pack(static_cast<SortKey>(source.col(t)), t); },
          triplet_starts, keys);
      const auto row_starts = out.row_starts;
      using Rows = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                                       Kokkos::IndexType<std::int64_t>>;
      Kokkos::parallel_for("SpMVKit::sort_entries::count_runs", Rows(exec, 0, num_rows),
                           [=](std::int64_t r) {
                             Offset runs = 0;
                             SortKey previous = -1;
                             for (SortKey p = triplet_starts(r); p < triplet_starts(r + 1); ++p) {
                               const SortKey col = packing.high(keys(p));
                               runs += col != previous ? 1 : 0;
                               previous = col;
                             }
                             row_starts(r + 1) = runs;
                           });
      exec.fence();
      SortKey runs = 0;
      for (std::int64_t r = 0; r < num_rows; ++r) {
        runs += row_starts(r + 1);
        checked_index<Offset>(runs, "number of entries after summing duplicates", where);
        row_starts(r + 1) = static_cast<Offset>(runs);
      }
      out.nnz = runs;
      // Without a kept order (assembly without a pattern) neither the run
      // starts nor the order are written: 8 bytes an entry less at the peak.
      const bool keep = order_kept(sums);
      if (keep) {
        out.run_starts = allocate_view<Keys>(exec, "SpMVKit::sort_entries::run_starts", runs + 1);
      }
      out.columns = allocate_view<Kokkos::View<Ordinal*, Device>>(
          exec, "SpMVKit::sort_entries::columns", runs);
      const auto run_starts = out.run_starts;
      const auto columns = out.columns;
      // With sums, each run is summed as it is filled: the order, the run
      // starts and the values are not read a second time.
      [[maybe_unused]] Sums sink = sums != nullptr ? *sums : Sums{};
      if constexpr (Sums::sums) {
        if (sums != nullptr) {
          sink.values = allocate_view<decltype(sink.values)>(exec, sink.label, runs);
          sums->values = sink.values;
        }
      }
      [[maybe_unused]] const bool summing = Sums::sums && sums != nullptr;
      Kokkos::parallel_for("SpMVKit::sort_entries::fill_runs", Rows(exec, 0, num_rows),
                           [=](std::int64_t r) {
                             SortKey s = row_starts(r), previous = -1;
                             [[maybe_unused]] typename Sums::value_type sum = 0;
                             for (SortKey p = triplet_starts(r); p < triplet_starts(r + 1); ++p) {
                               const SortKey col = packing.high(keys(p)), t = packing.low(keys(p));
                               if (col != previous) {
                                 if constexpr (Sums::sums) {
                                   if (summing && previous >= 0) sink.values(s - 1) = sum;
                                   sum = 0;
                                 }
                                 if (keep) run_starts(s) = p;
                                 columns(s++) = static_cast<Ordinal>(col);
                                 previous = col;
                               }
                               if constexpr (Sums::sums) {
                                 if (summing) sum += sink.value(t);
                               }
                               if (keep) keys(p) = t; // the order
                             }
                             if constexpr (Sums::sums) {
                               if (summing && previous >= 0) sink.values(s - 1) = sum;
                             }
                           });
      if (keep) run_starts(runs) = count;
      exec.fence();
      drop_order_unless_kept(out, sums);
      return out;
    }
  }
  // Buckets by row when no row is long (FEM assembly, spadd of PDE
  // matrices): two scattered passes and a sort per row in scratch, against two
  // global sorts of 64-bit keys and gathers through them.
  const Keys triplet_starts = allocate_view<Keys>(exec, "SpMVKit::sort_entries::triplet_starts",
                                                  checked_extent_plus_one(num_rows, "rows", where));
  const std::int64_t largest =
      path == EntrySort::global_sort
          ? 0
          : count_into_buckets(exec, num_rows, count, RowOf<Source>{source}, triplet_starts,
                               sort_entries_group);
  if (path != EntrySort::global_sort &&
      (largest <= bucket_sort_largest || path == EntrySort::device_buckets)) {
    using Offsets = Kokkos::View<Offset*, Device>;
    using Columns = Kokkos::View<Ordinal*, Device>;
    using Runs = RowRuns<ExecutionSpace, Keys, Offsets, Columns, Sums>;
    // The keys are placed and sorted in the order's storage; low() turns them into t at the end.
    // Rows that fit scratch are counted by the bucket sort and filled through scratch,
    // which also writes the order: two passes over the keys fewer.
    const Keys sorted = out.order;
    const bool counted =
        bucket_order_device(exec, num_rows, count, RowOf<Source>{source},
                            ColumnKeyOf<Source>{source, packing}, triplet_starts, largest, sorted,
                            allocate_view<Keys>(exec, "SpMVKit::sort_entries::cursor", num_rows),
                            out.row_starts, packing);
    constexpr int per_team = bucket_sort_buckets_per_team<ExecutionSpace>();
    Kokkos::TeamPolicy<ExecutionSpace> rows_policy(
        exec, static_cast<int>((num_rows + per_team - 1) / per_team), per_team,
        bucket_sort_lanes<ExecutionSpace>());
    Runs runs_of{triplet_starts, sorted,  Keys(),   out.row_starts,
                 Columns(),      packing, num_rows, false};
    if (!counted) Kokkos::parallel_for("SpMVKit::sort_entries::count_runs", rows_policy, runs_of);
    std::int64_t runs = 0;
    Kokkos::parallel_reduce("SpMVKit::sort_entries::sum_runs", Range(exec, 0, num_rows),
                            SumCounts<Offsets>{out.row_starts}, runs);
    exec.fence();
    checked_index<Offset>(runs, "number of entries after summing duplicates", where);
    Kokkos::parallel_scan("SpMVKit::sort_entries::row_starts", Range(exec, 0, num_rows + 1),
                          ScanStarts<Offsets>{out.row_starts});
    out.nnz = runs;
    // Rows filled through scratch are summed there too where their values fit
    // beside the keys: no pass over the order and run starts after.
    const std::int64_t capacity = largest > 0 ? largest : 1;
    // Kokkos' level-0 bound per team (on CUDA 48 KiB less its own team reductions' share).
    const bool sum_in_fill =
        Sums::sums && sums != nullptr && counted &&
        Runs::scratch_bytes(capacity, true) * per_team <=
            static_cast<std::size_t>(Kokkos::TeamPolicy<ExecutionSpace>::scratch_size_max(0));
    if constexpr (Sums::sums) {
      if (sum_in_fill) {
        runs_of.sink = *sums;
        runs_of.sink.values = allocate_view<decltype(sums->values)>(exec, sums->label, runs);
        sums->values = runs_of.sink.values;
        runs_of.summing = true;
        runs_of.keep_order = sums->keep_order;
      }
    }
    if (runs_of.keep_order) {
      out.run_starts = allocate_view<Keys>(exec, "SpMVKit::sort_entries::run_starts", runs + 1);
    }
    out.columns = allocate_view<Columns>(exec, "SpMVKit::sort_entries::columns", runs);
    runs_of.run_starts = out.run_starts;
    runs_of.columns = out.columns;
    runs_of.fill = true;
    if (counted) {
      runs_of.capacity = capacity;
      rows_policy.set_scratch_size(
          0, Kokkos::PerThread(static_cast<int>(Runs::scratch_bytes(capacity, runs_of.summing))));
    }
    Kokkos::parallel_for("SpMVKit::sort_entries::fill_runs", rows_policy, runs_of);
    if (!counted) {
      Kokkos::parallel_for("SpMVKit::sort_entries::order", Range(exec, 0, count),
                           KeysToEntries<Keys>{sorted, packing});
    }
    if (runs_of.keep_order) {
      Kokkos::deep_copy(exec, Kokkos::subview(out.run_starts, runs), SortKey(count));
    }
    exec.fence();
    if (!sum_in_fill) sum_runs_after(exec, out, sums);
    drop_order_unless_kept(out, sums);
    return out;
  }
  Keys run_of = allocate_view<Keys>(exec, "SpMVKit::sort_entries::run_of", count);
  {
    Keys by_column = run_of; // its storage holds run numbers once the keys are spent
    Kokkos::parallel_for("SpMVKit::sort_entries::column_keys", Range(exec, 0, count),
                         ColumnKeys<Keys, Source>{by_column, source, packing});
    sort_distinct_keys(exec, by_column);
    Keys by_row = allocate_view<Keys>(exec, "SpMVKit::sort_entries::row_keys", count);
    Kokkos::parallel_for("SpMVKit::sort_entries::row_keys", Range(exec, 0, count),
                         RowKeys<Keys, Source>{by_column, by_row, source, packing});
    sort_distinct_keys(exec, by_row);
    Kokkos::parallel_for("SpMVKit::sort_entries::order", Range(exec, 0, count),
                         OrderFromKeys<Keys>{by_column, by_row, out.order, packing});
  }
  SortKey runs = 0;
  Kokkos::parallel_scan("SpMVKit::sort_entries::runs", Range(exec, 0, count),
                        RunNumbers<Keys, Source>{out.order, run_of, source}, runs);
  exec.fence();
  checked_index<Offset>(runs, "number of entries after summing duplicates", where);
  out.nnz = runs;
  out.run_starts = allocate_view<Keys>(exec, "SpMVKit::sort_entries::run_starts", runs + 1);
  out.columns =
      allocate_view<Kokkos::View<Ordinal*, Device>>(exec, "SpMVKit::sort_entries::columns", runs);
  Kokkos::parallel_for(
      "SpMVKit::sort_entries::fill", Range(exec, 0, count),
      FillRuns<Keys, Kokkos::View<Ordinal*, Device>, Kokkos::View<Offset*, Device>, Source>{
          out.order, run_of, out.run_starts, out.columns, out.row_starts, source});
  Kokkos::deep_copy(exec, Kokkos::subview(out.run_starts, runs), SortKey(count));
  Kokkos::parallel_scan("SpMVKit::sort_entries::row_starts", Range(exec, 0, num_rows + 1),
                        ScanStarts<Kokkos::View<Offset*, Device>>{out.row_starts});
  exec.fence();
  sum_runs_after(exec, out, sums);
  drop_order_unless_kept(out, sums);
  return out;
}

/// Throws std::invalid_argument naming the first entry out of range.
template <class ExecutionSpace, class Source>
void check_entries_in_range(ExecutionSpace const& exec, std::int64_t num_rows,
                            std::int64_t num_cols, std::int64_t count, Source const& source,
                            char const* where) {
  if (count == 0) return;
  std::int64_t first = count;
  Kokkos::parallel_reduce(
      "SpMVKit::sort_entries::check_range",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count),
      FirstOutOfRange<Source>{source, num_rows, num_cols}, Kokkos::Min<std::int64_t>(first));
  exec.fence();
  if (first >= count) return; // Min starts from the largest int64
  using Pair = Kokkos::View<std::int64_t[2], typename ExecutionSpace::memory_space>;
  Pair d("SpMVKit::sort_entries::bad_entry");
  Kokkos::parallel_for("SpMVKit::sort_entries::read_bad",
                       Kokkos::RangePolicy<ExecutionSpace>(exec, 0, 1),
                       ReadEntry<Pair, Source>{d, source, first});
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  const std::int64_t rc[2] = {h(0), h(1)};
  throw std::invalid_argument(std::string(where) + ": entry " + std::to_string(first) + " at (" +
                              std::to_string(rc[0]) + ", " + std::to_string(rc[1]) +
                              ") lies outside the " + std::to_string(num_rows) + " x " +
                              std::to_string(num_cols) + " matrix");
}

} // namespace spmvkit::detail

#endif
