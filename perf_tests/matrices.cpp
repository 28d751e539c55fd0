// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Matrix sources: the FEM sweep, real matrices, --mtx files and R-MAT graphs.

#include "benchmarks.hpp"
#include "options.hpp"
#include "rmat.hpp"

#include <spmvkit/io/matrix_market.hpp>
#include <spmvkit/problems/elasticity.hpp>
#include <spmvkit/problems/fem_poisson.hpp>
#include <spmvkit/reorder/degree.hpp>

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>

namespace spmvkit::perf {

namespace {

std::string file_stem(std::string const& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (char const* ext : {".gz", ".mtx"}) {
    const std::string e = ext;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
      name.resize(name.size() - e.size());
    }
  }
  return name;
}

std::vector<std::string> list_matrix_dir(std::string const& dir) {
  std::vector<std::string> out;
  if (dir.empty()) return out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".mtx.gz") == 0) {
      out.push_back(dir + "/" + name);
    }
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

/// R-MAT graphs are generated once and kept on the host for both precisions.
HostCrsGraph const& rmat_graph(int scale, int edge_factor, std::uint64_t seed) {
  static std::unique_ptr<HostCrsGraph> graph;
  static std::tuple<int, int, std::uint64_t> key{-1, -1, 0};
  if (!graph || key != std::make_tuple(scale, edge_factor, seed)) {
    graph.reset();
    graph = std::make_unique<HostCrsGraph>(generate_rmat(scale, edge_factor, seed));
    key = {scale, edge_factor, seed};
  }
  return *graph;
}

template <class Scalar>
Crs<Scalar> upload(std::string const& label, HostCrsGraph const& g) {
  const auto nnz = static_cast<std::int64_t>(g.cols.size());
  Crs<Scalar> A(label, g.rows, g.rows, nnz);
  auto rs = Kokkos::create_mirror_view(A.row_starts());
  auto ci = Kokkos::create_mirror_view(A.column_indices());
  auto va = Kokkos::create_mirror_view(A.values());
  for (std::size_t i = 0; i < g.row_starts.size(); ++i) rs(i) = g.row_starts[i];
  for (std::size_t k = 0; k < g.cols.size(); ++k) {
    ci(k) = g.cols[k];
    va(k) = static_cast<Scalar>(g.values[k]);
  }
  Kokkos::deep_copy(A.row_starts(), rs);
  Kokkos::deep_copy(A.column_indices(), ci);
  Kokkos::deep_copy(A.values(), va);
  return A;
}

template <class Scalar>
struct MatrixCache {
  std::string key;
  Crs<Scalar> matrix;
  MatrixCache() {
    register_cleanup([this] {
      matrix = Crs<Scalar>();
      key.clear();
    });
  }
};

} // namespace

std::vector<MatrixSource> matrix_sources(Options const& o) {
  std::vector<MatrixSource> out;
  auto in = [](std::vector<int> const& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::set<int> fem(o.fem_n.begin(), o.fem_n.end());
  for (int n : o.cg_sizes()) fem.insert(n);
  if (o.has_family("spgemm") || o.has_family("galerkin"))
    fem.insert(o.spgemm_fem_n.begin(), o.spgemm_fem_n.end());
  for (int n : fem) {
    MatrixSource s;
    s.kind = MatrixSource::Kind::fem;
    s.fem_n = n;
    s.name = "fem_N" + std::to_string(n);
    s.in_sweep = in(o.fem_n, n);
    s.in_cg = in(o.cg_sizes(), n);
    s.in_spgemm = in(o.spgemm_fem_n, n);
    out.push_back(s);
  }
  for (int n : o.elasticity_n) {
    MatrixSource s;
    s.kind = MatrixSource::Kind::elasticity;
    s.fem_n = n;
    s.name = "elasticity_N" + std::to_string(n);
    out.push_back(s);
  }
  for (auto const& path : list_matrix_dir(o.matrix_dir)) {
    if (!o.wants_real_matrix(file_stem(path))) continue;
    MatrixSource s;
    s.kind = MatrixSource::Kind::mtx;
    s.path = path;
    s.name = file_stem(path);
    s.in_spgemm = true;
    out.push_back(s);
  }
  for (auto const& path : o.mtx_files) {
    MatrixSource s;
    s.kind = MatrixSource::Kind::mtx;
    s.path = path;
    s.name = file_stem(path);
    s.in_spgemm = true;
    out.push_back(s);
  }
  std::set<int> scales(o.rmat_scales.begin(), o.rmat_scales.end());
  if (o.has_family("spgemm"))
    scales.insert(o.spgemm_rmat_scales.begin(), o.spgemm_rmat_scales.end());
  for (int scale : scales) {
    MatrixSource s;
    s.kind = MatrixSource::Kind::rmat;
    s.rmat_scale = scale;
    s.rmat_edge_factor = o.rmat_edge_factor;
    s.name = "rmat_s" + std::to_string(scale) + "_e" + std::to_string(o.rmat_edge_factor);
    s.in_sweep = in(o.rmat_scales, scale);
    s.in_spgemm = in(o.spgemm_rmat_scales, scale);
    out.push_back(s);
  }
  // --orderings degree: a reordered twin of every matrix of the spmv sweep, after it.
  auto has = [&o](char const* ordering) {
    return std::find(o.orderings.begin(), o.orderings.end(), ordering) != o.orderings.end();
  };
  if (has("degree")) {
    const bool keep_original = has("none");
    std::vector<MatrixSource> with;
    for (auto const& src : out) {
      if (keep_original || !src.in_sweep) {
        with.push_back(src);
      } else if (src.in_cg || src.in_spgemm) {
        // --orderings=degree alone drops the original from the sweep, not from cg or spgemm.
        MatrixSource kept = src;
        kept.in_sweep = false;
        with.push_back(kept);
      }
      if (!src.in_sweep) continue;
      if (src.kind == MatrixSource::Kind::mtx) {
        const auto info = read_matrix_market_info(src.path);
        if (info.rows != info.cols) {
          note_skip(src.name + "_degree", "not square: no symmetric reordering");
          continue;
        }
      }
      MatrixSource r = src;
      r.degree_order = true;
      r.name += "_degree";
      r.in_cg = false;
      r.in_spgemm = false;
      with.push_back(r);
    }
    out = std::move(with);
  }
  return out;
}

template <class Scalar>
Crs<Scalar> const& load_matrix(Options const& options, MatrixSource const& source) {
  static MatrixCache<Scalar> cache;
  const std::string key = source.name + "|" + source.path;
  if (cache.key == key) return cache.matrix;
  cache.matrix = Crs<Scalar>(); // release the previous matrix first
  cache.key.clear();
  const Exec exec;
  switch (source.kind) {
  case MatrixSource::Kind::fem:
    cache.matrix = make_fem_poisson_crs<Scalar, Exec>(exec, source.fem_n);
    break;
  case MatrixSource::Kind::elasticity:
    cache.matrix = make_elasticity<CrsFormat, Scalar>(exec, source.fem_n);
    break;
  case MatrixSource::Kind::mtx:
    cache.matrix = read_matrix_market<Scalar, Exec>(source.path, exec);
    break;
  case MatrixSource::Kind::rmat:
    cache.matrix = upload<Scalar>(
        source.name, rmat_graph(source.rmat_scale, source.rmat_edge_factor, options.seed));
    break;
  }
  if (source.degree_order) cache.matrix = reorder_degree(exec, cache.matrix).matrix;
  exec.fence();
  cache.key = key;
  return cache.matrix;
}

template Crs<double> const& load_matrix<double>(Options const&, MatrixSource const&);
template Crs<float> const& load_matrix<float>(Options const&, MatrixSource const&);

} // namespace spmvkit::perf
