// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// spmvkit_perf's option table and its parser (see options.hpp).

#include "options.hpp"

#include "perf_common.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <system_error>

#ifndef SPMVKIT_MATRIX_DIR
#define SPMVKIT_MATRIX_DIR ""
#endif
#ifndef SPMVKIT_SHIPPED_MATRIX_DIR
#define SPMVKIT_SHIPPED_MATRIX_DIR ""
#endif

namespace spmvkit::perf {

namespace {

// The parsers throw OptionError with the bare message; apply() prefixes "spmvkit_perf: <flag>: ".
[[noreturn]] void fail(std::string const& message) { throw OptionError(message); }

/// Comma-separated items; "" is the empty list, an empty item inside a list is an error.
std::vector<std::string> split_list(std::string const& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::string::size_type begin = 0;
  while (true) {
    const auto comma = text.find(',', begin);
    std::string item = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    if (item.empty()) fail("empty item in '" + text + "'");
    out.push_back(std::move(item));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return out;
}

std::string range_text(long long lo, long long hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

/// A whole decimal integer in [lo, hi]: "--reps: 'abc' is not an integer".
long long parse_integer(std::string const& text, long long lo, long long hi) {
  long long v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    fail("'" + text + "' is out of range " + range_text(lo, hi));
  }
  if (text.empty() || ec != std::errc() || ptr != end) {
    fail("'" + text + "' is not an integer");
  }
  if (v < lo || v > hi) fail(text + " is out of range " + range_text(lo, hi));
  return v;
}

/// A finite number in [lo, hi] (or (lo, hi] when lo_open).
double parse_number(std::string const& text, double lo, double hi, bool lo_open) {
  char* end = nullptr;
  errno = 0;
  const double v = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) {
    fail("'" + text + "' is not a number");
  }
  if (v > hi || v < lo || (lo_open && v == lo)) {
    std::ostringstream os;
    os << text << " is out of range " << (lo_open ? "(" : "[") << lo << ", " << hi << "]";
    fail(os.str());
  }
  return v;
}

using Setter = std::function<void(Options&, std::string const&)>;

template <class Int>
Setter integer(Int Options::*field, long long lo, long long hi) {
  return [field, lo, hi](Options& o, std::string const& text) {
    o.*field = static_cast<Int>(parse_integer(text, lo, hi));
  };
}

Setter integer_list(std::vector<int> Options::*field, long long lo, long long hi) {
  return [field, lo, hi](Options& o, std::string const& text) {
    std::vector<int> v;
    for (auto const& item : split_list(text)) {
      v.push_back(static_cast<int>(parse_integer(item, lo, hi)));
    }
    o.*field = v;
  };
}

Setter number(double Options::*field, double lo, double hi, bool lo_open) {
  return [field, lo, hi, lo_open](Options& o, std::string const& text) {
    o.*field = parse_number(text, lo, hi, lo_open);
  };
}

Setter text_list(std::vector<std::string> Options::*field) {
  return [field](Options& o, std::string const& text) { o.*field = split_list(text); };
}

/// A list whose items must come from `allowed`.
Setter choice_list(std::vector<std::string> Options::*field, std::vector<std::string> allowed) {
  return [field, allowed](Options& o, std::string const& text) {
    auto v = split_list(text);
    for (auto const& item : v) {
      if (std::find(allowed.begin(), allowed.end(), item) == allowed.end()) {
        std::string list;
        for (auto const& a : allowed) list += (list.empty() ? "" : ", ") + a;
        throw OptionError("unknown '" + item + "' (one of: " + list + ")");
      }
    }
    o.*field = v;
  };
}

/// One item of `allowed`.
Setter choice(std::string Options::*field, std::vector<std::string> allowed) {
  return [field, allowed](Options& o, std::string const& text) {
    if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
      std::string list;
      for (auto const& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw OptionError("unknown '" + text + "' (one of: " + list + ")");
    }
    o.*field = text;
  };
}

std::string default_matrix_dir() {
  if (char const* env = std::getenv("SPMVKIT_MATRIX_DIR")) {
    if (*env) return env;
  }
  const std::string configured = SPMVKIT_MATRIX_DIR;
  return configured.empty() ? std::string(SPMVKIT_SHIPPED_MATRIX_DIR) : configured;
}

std::vector<OptionSpec> make_table() {
  constexpr long long int_max = std::numeric_limits<int>::max();
  const bool host = device_is_host;
  std::vector<OptionSpec> t;
  t.push_back({"--precision",
               "LIST",
               "scalar types (double, float)",
               "double,float",
               {},
               choice_list(&Options::precisions, {"double", "float"})});
  t.push_back(
      {"--families", "LIST",
       "benchmark families: copy, read (the two bandwidth yardsticks), spmv, spmv200, "
       "transfer, cg; also spmv_mixed (spmv/mixed/...: float matrices with double vectors, "
       "with --precision float), convert and reorder (conversion and reordering cost in SpMVs) "
       "and spgemm (C = A A: symbolic, numeric, total; SpMVKit and Kokkos Kernels) and galerkin "
       "(Pᵀ A P on every level of make_amg's hierarchy of the --spgemm-fem-n matrices: "
       "triple_product against two Kokkos Kernels SpGEMMs) and solve "
       "(time to tolerance of every solver x preconditioner, against KokkosBlas + Kokkos "
       "Kernels and PETSc; its own ctest, not in --smoke) and ops (transpose, sparse "
       "addition A + Aᵀ and assembly from triplets, against Kokkos Kernels and one SpMV) and "
       "modes (A x and Aᵀ x with 1 to 64 vectors in both layouts, against Kokkos Kernels' "
       "spmv), not run by default",
       "copy,read,spmv,spmv200,transfer,cg",
       "copy,read,spmv,spmv200,transfer,cg,spmv_mixed,convert,reorder,spgemm,galerkin,ops,modes",
       choice_list(&Options::families,
                   {"copy", "read", "spmv", "spmv200", "transfer", "cg", "spmv_mixed", "convert",
                    "reorder", "spgemm", "galerkin", "solve", "ops", "modes"})});
  t.push_back({"--fem-n", "LIST",
               "3D Q1 FEM Poisson sizes N (intervals; (N-1)^3 rows) of spmv, spmv200, transfer "
               "(GPU builds default to 32,64,96,128,161)",
               host ? "16,32,64" : "32,64,96,128,161", "8",
               integer_list(&Options::fem_n, 2, 1290)});
  t.push_back({"--elasticity-n", "LIST",
               "3D linear elasticity sizes N (Q1, 3 unknowns per node, 3 x 3 blocks; "
               "3N(N+1)^2 rows) of spmv, spmv200, transfer (empty: none)",
               "", "3", integer_list(&Options::elasticity_n, 2, 700)});
  t.push_back({"--cg-n",
               "LIST",
               "FEM sizes of cg (unset: those of --fem-n)",
               {},
               "8",
               [](Options& o, std::string const& text) {
                 std::vector<int> v;
                 for (auto const& item : split_list(text)) {
                   v.push_back(static_cast<int>(parse_integer(item, 2, 1290)));
                 }
                 o.cg_n = v;
               }});
  t.push_back({"--rmat-scale", "LIST",
               "R-MAT graphs of 2^scale rows (empty: none; GPU builds default to 22)",
               host ? "18" : "22", "10", integer_list(&Options::rmat_scales, 1, 30)});
  t.push_back({"--spgemm-fem-n", "LIST",
               "FEM sizes N of spgemm (A*A; empty: none; GPU builds default to 32,48,64,96)",
               host ? "16,32" : "32,48,64,96", "8", integer_list(&Options::spgemm_fem_n, 2, 1290)});
  t.push_back({"--spgemm-rmat-scale", "LIST",
               "R-MAT scales of spgemm (A*A; empty: none; GPU builds default to 14,16: at 18 "
               "cuSPARSE and Kokkos Kernels run out of an H200's memory, at 20 C has more "
               "entries than 32-bit offsets hold: see --spgemm-offsets)",
               host ? "12,14" : "14,16", "8", integer_list(&Options::spgemm_rmat_scales, 1, 30)});
  t.push_back({"--spgemm-offsets",
               "NAME",
               "offsets of spgemm's SpMVKit products: auto (64-bit where A A's multiply-adds, a "
               "bound on nnz(C), exceed 32-bit offsets; Kokkos Kernels' default SpGEMM is then "
               "reported as not run), 32 or 64",
               "auto",
               {},
               choice(&Options::spgemm_offsets, {"auto", "32", "64"})});
  t.push_back({"--orderings",
               "LIST",
               "numberings the spmv, spmv200 and transfer families run each square matrix in: none "
               "(as generated or read), degree (reorder_degree: by decreasing degree, for "
               "power-law graphs; the matrix named <name>_degree, vectors in its numbering)",
               "none",
               {},
               choice_list(&Options::orderings, {"none", "degree"})});
  t.push_back({"--rmat-edge-factor", "INT", "R-MAT edges per row before deduplication", "16", "8",
               integer(&Options::rmat_edge_factor, 1, 4096)});
  t.push_back({"--matrix-dir",
               "DIR",
               "every *.mtx.gz in DIR (default: the SPMVKIT_MATRIX_DIR environment variable, "
               "else the configured SPMVKIT_MATRIX_DIR, else the shipped test matrices)",
               default_matrix_dir(),
               {},
               [](Options& o, std::string const& text) { o.matrix_dir = text; }});
  t.push_back({"--real-matrices", "LIST", "which of them: all, none, or file stems (1138_bus,...)",
               "all", "1138_bus", text_list(&Options::real_matrices)});
  t.push_back({"--mtx",
               "LIST",
               "more Matrix Market files (the option may repeat)",
               {},
               {},
               [](Options& o, std::string const& text) {
                 for (auto const& p : split_list(text)) o.mtx_files.push_back(p);
               }});
  t.push_back({"--formats",
               "LIST",
               "formats, in the grammar of every SpMVKit CLI (select/variant_names.hpp): all, "
               "names, families, leading parts up to an underscore (sell_c32, kk), prefixes "
               "ending in * (sell_c3*); every variant of every format of spmvkit::format_list, "
               "then kk_native, kk_default",
               "all",
               {},
               text_list(&Options::formats)});
  t.push_back({"--transfer-formats",
               "LIST",
               "formats whose transfer is timed: default (each format with its default options), "
               "all, names or prefixes",
               "default",
               {},
               text_list(&Options::transfer_formats)});
  t.push_back({"--repetitions", "INT", "repetitions of spmv (spmv200 and transfer: at most 3)", "5",
               "2", integer(&Options::repetitions, 1, 1000)});
  t.push_back({"--cg-repetitions", "INT", "CG solves per benchmark (also the solve family's)", "3",
               "1", integer(&Options::cg_repetitions, 1, 1000)});
  t.push_back({"--min-time", "SECONDS", "seconds per repetition (Google Benchmark MinTime)", "0.1",
               "0.002", number(&Options::min_time, 0, 3600, true)});
  t.push_back({"--rounds",
               "INT",
               "spmv: 0 times each implementation on its own (--repetitions of --min-time); R > 0 "
               "builds every --formats implementation of a matrix at once and times them in R "
               "rounds, each in a new random order, each implementation for --min-time seconds "
               "(after --warmup calls) per round; the round's time is the median of its calls, "
               "and the benchmark reports R repetitions, one per round",
               "0",
               {},
               integer(&Options::rounds, 0, 100000)});
  t.push_back({"--rounds-seed",
               "INT",
               "seed of the rounds' random orders (mixed with each matrix's name)",
               "1",
               {},
               integer(&Options::rounds_seed, 0, std::int64_t(1) << 62)});
  t.push_back({"--warmup", "INT", "untimed calls before timing (at least one per rotated copy)",
               "5", "2", integer(&Options::warmup, 0, 1000000)});
  t.push_back({"--max-rotation", "INT", "most rotated copies of (matrix, x, y)", "512", "4",
               integer(&Options::max_rotation, 1, 65536)});
  t.push_back({"--rotation-factor",
               "X",
               "rotate through copies until they exceed X times the last-level cache",
               "3",
               {},
               number(&Options::rotation_factor, 0, 1000, false)});
  t.push_back({"--copy-elements", "INT",
               "doubles per array of the copy and read yardsticks (0: each array >= 4x LLC and "
               ">= 2^24 on CPUs, 2^27 on GPUs)",
               "0", "1048576", integer(&Options::copy_elements, 0, std::int64_t(1) << 40)});
  t.push_back({"--copy-iterations", "INT", "iterations of each yardstick repetition", "20", "5",
               integer(&Options::copy_iterations, 1, 1000000)});
  t.push_back({"--cg-max-iterations",
               "INT",
               "CgOptions::max_iterations (also the solve family's iteration limit)",
               "10000",
               {},
               integer(&Options::cg_max_iterations, 1, int_max)});
  t.push_back({"--cg-check-interval",
               "INT",
               "CgOptions::check_interval: iterations between the host's reads of CG's scalars "
               "(0: automatic)",
               "0",
               {},
               integer(&Options::cg_check_interval, 0, int_max)});
  t.push_back({"--cg-variants",
               "LIST",
               "CG ways: fused (standard CG, fused vector kernels), kokkos_blas (standard CG, "
               "KokkosBlas vector calls), pipelined (CgVariant::pipelined), mixed (float matrix, "
               "double vectors, to --cg-tol-double; cg/mixed/..., with --precision float)",
               "fused,kokkos_blas,pipelined,mixed",
               {},
               choice_list(&Options::cg_variants, {"fused", "kokkos_blas", "pipelined", "mixed"})});
  t.push_back({"--cg-tol-double",
               "X",
               "CG relative residual tolerance in double (also the solve family's)",
               "1e-8",
               {},
               number(&Options::cg_tolerance_double, 0, 1, true)});
  t.push_back({"--cg-tol-float",
               "X",
               "CG relative residual tolerance in float (also the solve family's)",
               "1e-5",
               {},
               number(&Options::cg_tolerance_float, 0, 1, true)});
  t.push_back({"--solve-fem-n", "LIST",
               "FEM Poisson sizes N of the solve family (empty: none; start: "
               "fem_poisson_rough_guess)",
               "64", "8", integer_list(&Options::solve_fem_n, 2, 1290)});
  t.push_back({"--solve-cd-n", "LIST",
               "3D convection-diffusion sizes N of the solve family ((N-1)^3 rows; empty: none)",
               "48", "8", integer_list(&Options::solve_cd_n, 2, 1290)});
  t.push_back({"--solve-peclet",
               "X",
               "mesh Peclet number of the solve family's convection-diffusion (0: the symmetric "
               "Laplacian)",
               "1",
               {},
               number(&Options::solve_peclet, 0, 1e6, false)});
  t.push_back({"--solve-methods",
               "LIST",
               "solve family: all, solvers (cg, pipelined_cg, bicgstab, gmres) or "
               "solver/preconditioner pairs (cg/ic0, gmres/ilu0, ...; the pairs are "
               "perf_tests/README.md's)",
               "all",
               {},
               [](Options& o, std::string const& text) {
                 std::vector<std::string> allowed{"all"};
                 for (auto const& m : solve_method_table()) {
                   if (std::find(allowed.begin(), allowed.end(), m.solver) == allowed.end()) {
                     allowed.push_back(m.solver);
                   }
                 }
                 for (auto const& m : solve_method_table()) {
                   allowed.push_back(m.solver + "/" + m.preconditioner);
                 }
                 choice_list(&Options::solve_methods, allowed)(o, text);
               }});
  t.push_back(
      {"--solve-impls",
       "LIST",
       "solve family implementations: spmvkit, kk (KokkosBlas + Kokkos Kernels' SpMV), "
       "kk_gmres (KokkosSparse::Experimental::gmres, Kokkos Kernels >= 4.0), petsc "
       "(when PETSc was found at configure time; amg: GAMG), petsc_hypre (amg: PETSc's "
       "hypre BoomerAMG)",
       "spmvkit,kk,kk_gmres,petsc,petsc_hypre",
       {},
       choice_list(&Options::solve_impls, {"spmvkit", "kk", "kk_gmres", "petsc", "petsc_hypre"})});
  t.push_back({"--solve-block-size",
               "INT",
               "rows per block of the solve family's block-Jacobi",
               "8",
               {},
               integer(&Options::solve_block_size, 1, 32)});
  t.push_back({"--solve-chebyshev-degree",
               "INT",
               "degree of the solve family's Chebyshev preconditioners (ChebyshevOptions::degree: "
               "degree - 1 operator applies per apply)",
               "3",
               {},
               integer(&Options::solve_chebyshev_degree, 1, 16)});
  t.push_back({"--solve-chebyshev-ratio",
               "X",
               "λmax / λmin of the interval of the solve family's Chebyshev preconditioners "
               "(ChebyshevOptions::eigenvalue_ratio, > 1)",
               "30",
               {},
               number(&Options::solve_chebyshev_ratio, 1, 1e6, true)});
  t.push_back({"--solve-ilu-solve",
               "NAME",
               "triangular solve of the solve family's ILU(0) and IC(0) (Ilu0Options::"
               "triangular_solve): automatic, sweeps or substitution (host builds only)",
               "automatic",
               {},
               choice(&Options::solve_ilu_solve, {"automatic", "sweeps", "substitution"})});
  t.push_back({"--solve-workspace",
               "NAME",
               "work vectors of the solve family's SpMVKit solvers and KokkosBlas twins: kept "
               "(a SolverWorkspace reused by every timed solve, as PETSc's KSP keeps its own) or "
               "none (each solve allocates them)",
               "kept",
               {},
               choice(&Options::solve_workspace, {"kept", "none"})});
  t.push_back({"--solve-amg-product",
               "NAME",
               "how the solve family's AMG forms A P_tent for the prolongator smoothing "
               "(AmgOptions::prolongator_product): automatic, gather or spgemm",
               "automatic",
               {},
               choice(&Options::solve_amg_product, {"automatic", "gather", "spgemm"})});
  t.push_back({"--solve-amg-cycle",
               "NAME",
               "the solve family's AMG cycle (AmgOptions::cycle): v or w",
               "v",
               {},
               choice(&Options::solve_amg_cycle, {"v", "w"})});
  t.push_back({"--solve-amg-coarse-size",
               "N",
               "the solve family's AMG coarse size (AmgOptions::coarse_size, rows); 0: automatic",
               "0",
               {},
               integer(&Options::solve_amg_coarse_size, 0, 1000000000)});
  t.push_back({"--solve-amg-fine",
               "NAME",
               "the solve family's AMG level 0: shared (make_amg with the solver's AutoMatrix, "
               "not converted again) or own (make_amg converts A itself)",
               "shared",
               {},
               choice(&Options::solve_amg_fine, {"shared", "own"})});
  t.push_back({"--csrk-sizes",
               "LIST",
               "CSR-k group sizes to sweep, replacing its variants: SRS (CSR-2) or SRSxSSRS "
               "(CSR-3), e.g. 96,1536,8x12,16x8",
               {},
               {},
               [](Options& o, std::string const& text) {
                 o.csrk_sizes.clear();
                 for (auto const& item : split_list(text)) {
                   CsrkSweepSize size;
                   const auto x = item.find('x');
                   size.rows_per_super_row = parse_integer(item.substr(0, x), 1, int_max);
                   if (x != std::string::npos) {
                     size.k = 3;
                     size.super_rows_per_super_super_row =
                         parse_integer(item.substr(x + 1), 1, int_max);
                   }
                   o.csrk_sizes.push_back(size);
                 }
               }});
  t.push_back({"--csrk-shapes",
               "LIST",
               "CSR-k GPU block shapes to sweep (crossed with the sizes): LANESxROWSxSUPERROWS "
               "(0: the default of that dimension), optionally :rows (GPUSpMV-3) or :entries "
               "(GPUSpMV-3.5), e.g. 8x1x12:rows,4x8x12:entries; ignored by host kernels",
               {},
               {},
               [](Options& o, std::string const& text) {
                 o.csrk_shapes.clear();
                 for (auto const& item : split_list(text)) {
                   CsrkSweepShape shape;
                   const auto colon = item.find(':');
                   const std::string dims = item.substr(0, colon);
                   if (colon != std::string::npos) {
                     const std::string how = item.substr(colon + 1);
                     if (how != "rows" && how != "entries") {
                       throw OptionError("'" + item + "': the lanes go over 'rows' or 'entries'");
                     }
                     shape.lanes_over_entries = how == "entries" ? 1 : -1;
                   }
                   const auto x1 = dims.find('x');
                   const auto x2 = x1 == std::string::npos ? x1 : dims.find('x', x1 + 1);
                   if (x2 == std::string::npos) {
                     throw OptionError("'" + item + "' is not LANESxROWSxSUPERROWS");
                   }
                   shape.lanes = static_cast<int>(parse_integer(dims.substr(0, x1), 0, 32));
                   shape.row_slots =
                       static_cast<int>(parse_integer(dims.substr(x1 + 1, x2 - x1 - 1), 0, 1024));
                   shape.super_row_slots =
                       static_cast<int>(parse_integer(dims.substr(x2 + 1), 0, 1024));
                   if (shape.lanes & (shape.lanes - 1)) {
                     throw OptionError("'" + item + "': lanes must be 0 or a power of two");
                   }
                   if (std::max(shape.lanes, 1) * std::max(shape.row_slots, 1) *
                           std::max(shape.super_row_slots, 1) >
                       1024) {
                     throw OptionError("'" + item + "': more than 1024 threads per team");
                   }
                   o.csrk_shapes.push_back(shape);
                 }
               }});
  t.push_back({"--seed",
               "INT",
               "seed of the vectors and the R-MAT graphs",
               "20211024",
               {},
               [](Options& o, std::string const& text) {
                 std::uint64_t v = 0;
                 const char* end = text.data() + text.size();
                 const auto [ptr, ec] = std::from_chars(text.data(), end, v);
                 if (text.empty() || ec != std::errc() || ptr != end) {
                   throw OptionError("'" + text + "' is not an integer in [0, 2^64)");
                 }
                 o.seed = v;
               }});
  t.push_back({"--smoke",
               "",
               "tiny sizes of every family, the ctest perf_smoke: the --smoke values above "
               "(explicit options, before or after it, still apply)",
               {},
               {},
               [](Options& o, std::string const&) { o.smoke = true; }});
  return t;
}

/// Flags that existed once, with what replaces them.
struct RemovedFlag {
  char const* flag;
  char const* hint;
};
constexpr RemovedFlag removed_flags[] = {
    {"--sell-c", "the variants now come from each format's variants(); select them with "
                 "--formats (e.g. --formats=sell_c32)"},
    {"--sell-sigma", "the variants now come from each format's variants(); select them with "
                     "--formats (e.g. --formats=sell_c32_s1)"},
};

/// Runs a setter, prefixing its message with the flag.
void apply(OptionSpec const& spec, Options& o, std::string const& text) {
  try {
    spec.set(o, text);
  } catch (OptionError const& e) {
    throw OptionError("spmvkit_perf: " + spec.flag + ": " + e.what());
  }
}

bool contains(std::vector<std::string> const& v, std::string const& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string wrap(std::string const& text, std::size_t indent, std::size_t width) {
  std::istringstream words(text);
  std::string word, out, line;
  while (words >> word) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

} // namespace

bool Options::has_family(std::string const& f) const { return contains(families, f); }
bool Options::has_precision(std::string const& p) const { return contains(precisions, p); }

bool Options::wants_real_matrix(std::string const& stem) const {
  if (contains(real_matrices, "none")) return false;
  return contains(real_matrices, "all") || contains(real_matrices, stem);
}

bool Options::wants_solve_method(std::string const& solver,
                                 std::string const& preconditioner) const {
  return contains(solve_methods, "all") || contains(solve_methods, solver) ||
         contains(solve_methods, solver + "/" + preconditioner);
}
bool Options::wants_solve_impl(std::string const& impl) const {
  return contains(solve_impls, impl);
}

std::vector<SolveMethod> const& solve_method_table() {
  // CG needs an SPD preconditioner: IC(0), not ILU(0); pipelined CG takes element-wise ones only.
  static const std::vector<SolveMethod> table{{"cg", "none", true},
                                              {"cg", "jacobi", true},
                                              {"cg", "block-jacobi", true},
                                              {"cg", "chebyshev", true},
                                              {"cg", "chebyshev-float", true},
                                              {"cg", "ic0", true},
                                              {"cg", "amg", true},
                                              {"pipelined_cg", "jacobi", true},
                                              {"bicgstab", "none", false},
                                              {"bicgstab", "jacobi", false},
                                              {"bicgstab", "block-jacobi", false},
                                              {"bicgstab", "ilu0", false},
                                              {"bicgstab", "amg", false},
                                              {"gmres", "jacobi", false},
                                              {"gmres", "block-jacobi", false},
                                              {"gmres", "ilu0", false},
                                              {"gmres", "amg", false}};
  return table;
}

std::vector<OptionSpec> const& option_table() {
  static const std::vector<OptionSpec> table = make_table();
  return table;
}

std::string usage(char const* program) {
  constexpr std::size_t column = 30, width = 100;
  std::ostringstream os;
  os << "Usage: " << program
     << " [SpMVKit options] [--benchmark_* options] [--kokkos-* options]\n"
        "SpMVKit options (lists are comma-separated; defaults are this build's):\n";
  for (auto const& spec : option_table()) {
    std::string head = "  " + spec.flag + (spec.value.empty() ? "" : "=" + spec.value);
    head += head.size() + 1 < column ? std::string(column - head.size(), ' ')
                                     : "\n" + std::string(column, ' ');
    std::string help = spec.help;
    if (spec.default_value) {
      help += " [default: " + (spec.default_value->empty() ? "none" : *spec.default_value);
      help += spec.smoke_value ? "; --smoke: " + *spec.smoke_value + "]" : "]";
    } else if (spec.smoke_value) {
      help += " [--smoke: " + *spec.smoke_value + "]";
    }
    os << head << wrap(help, column, width) << "\n";
  }
  os << "Kokkos' options: --kokkos-help. Google Benchmark's options: below.\n";
  return os.str();
}

bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return true;
  }
  return false;
}

namespace {

/// Google Benchmark's reading of a boolean flag: empty is false; otherwise false only for
/// "false", "no", "off", "f", "n" (any case) and "0".
bool gb_flag_true(std::string value) {
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (value.empty()) return false;
  return !(value == "false" || value == "no" || value == "off" || value == "f" || value == "n" ||
           value == "0");
}

} // namespace

std::shared_ptr<const Options> parse_options(int& argc, char** argv) {
  auto const& table = option_table();
  Options o;
  for (auto const& spec : table) {
    if (spec.default_value) apply(spec, o, *spec.default_value);
  }
  // --smoke anywhere sets its values first, so that explicit options still win.
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--smoke") {
      for (auto const& spec : table) {
        if (spec.smoke_value) apply(spec, o, *spec.smoke_value);
      }
      break;
    }
  }
  std::ostringstream cmd;
  for (int i = 0; i < argc; ++i) cmd << (i ? " " : "") << argv[i];
  o.command_line = cmd.str();

  int out = 1;
  // Google Benchmark flags that --rounds cannot follow (they change how often a benchmark's
  // function is called): their values as Google Benchmark reads them, the environment first.
  auto env = [](char const* name) {
    char const* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  std::string interleaving = env("BENCHMARK_ENABLE_RANDOM_INTERLEAVING");
  std::string warmup_time = env("BENCHMARK_MIN_WARMUP_TIME");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_", 0) == 0 || arg.rfind("--kokkos", 0) == 0) {
      const auto eq = arg.find('=');
      const std::string name = arg.substr(0, eq);
      const std::string value = eq == std::string::npos ? "true" : arg.substr(eq + 1);
      if (name == "--benchmark_enable_random_interleaving") interleaving = value;
      if (name == "--benchmark_min_warmup_time") warmup_time = value;
      argv[out++] = argv[i];
      continue;
    }
    const auto eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    const auto spec = std::find_if(table.begin(), table.end(),
                                   [&flag](OptionSpec const& s) { return s.flag == flag; });
    if (spec == table.end()) {
      for (auto const& removed : removed_flags) {
        if (flag == removed.flag) {
          throw OptionError("spmvkit_perf: " + flag + ": no longer exists: " + removed.hint);
        }
      }
      if (arg.rfind("-", 0) != 0) {
        throw OptionError("spmvkit_perf: unexpected argument '" + arg +
                          "' (--help lists the options)");
      }
      throw OptionError("spmvkit_perf: unknown option '" + arg + "' (--help lists the options)");
    }
    if (spec->value.empty()) {
      if (eq != std::string::npos) throw OptionError("spmvkit_perf: " + flag + ": takes no value");
      apply(*spec, o, "");
    } else {
      if (eq == std::string::npos) {
        throw OptionError("spmvkit_perf: " + flag + ": needs a value (" + flag + "=" + spec->value +
                          ")");
      }
      apply(*spec, o, arg.substr(eq + 1));
    }
  }
  if (o.rounds > 0 && o.has_family("spmv")) {
    // Random interleaving would mix the matrices' repetitions, and a warm-up would call the
    // benchmark beyond its rounds: either would rebuild and time a matrix's rounds again.
    if (gb_flag_true(interleaving)) {
      throw OptionError("spmvkit_perf: --rounds: not with --benchmark_enable_random_interleaving "
                        "(the rounds interleave a matrix's implementations already)");
    }
    if (!warmup_time.empty() && std::strtod(warmup_time.c_str(), nullptr) > 0) {
      throw OptionError("spmvkit_perf: --rounds: not with --benchmark_min_warmup_time (the "
                        "rounds warm every implementation up already)");
    }
  }
  argc = out;
  argv[argc] = nullptr;
  return std::make_shared<const Options>(std::move(o));
}

} // namespace spmvkit::perf
