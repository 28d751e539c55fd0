// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_PERF_OPTIONS_HPP
#define SPMVKIT_PERF_OPTIONS_HPP

// SpMVKit's own command-line options of spmvkit_perf, defined by one table (options.cpp): each
// entry is a flag, its help, its default (and its --smoke value), and a setter that parses the
// text into Options. The defaults go through the same setters as the command line, so the
// table is the only place an option is described. parse_options() returns an Options that is
// then only read: the registration gets it as `Options const&` (or a shared_ptr to const).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// One CSR-k group size of a --csrk-sizes sweep: "SRS" (CSR-2) or "SRSxSSRS" (CSR-3).
struct CsrkSweepSize {
  int k = 2;
  std::int64_t rows_per_super_row = 0;
  std::int64_t super_rows_per_super_super_row = 0;
};
/// One GPU block shape of a --csrk-shapes sweep: "LANESxROWSxSUPER_ROWS[:rows|:entries]"
/// (CsrkOptions::gpu_lanes, gpu_row_slots, gpu_super_row_slots, gpu_lanes_over_entries).
struct CsrkSweepShape {
  int lanes = 0;
  int row_slots = 0;
  int super_row_slots = 0;
  int lanes_over_entries = 0; // 1: entries, -1: rows, 0: by mean row length
};

/// What the options set. Filled by parse_options() and immutable afterwards.
struct Options {
  std::vector<std::string> precisions;  // double, float
  std::vector<std::string> families;    // copy, read, spmv, spmv200, transfer, cg, spgemm, ...
  std::vector<int> fem_n;               // FEM sweep (N intervals, (N-1)^3 rows)
  std::vector<int> elasticity_n;        // elasticity sweep (N intervals, 3N(N+1)^2 rows)
  std::optional<std::vector<int>> cg_n; // FEM sizes for CG; unset: fem_n
  std::vector<int> rmat_scales;
  int rmat_edge_factor = 0;
  std::vector<int> spgemm_fem_n;       // FEM sizes of spgemm (A*A)
  std::vector<int> spgemm_rmat_scales; // R-MAT scales of spgemm (A*A)
  std::string spgemm_offsets;          // spgemm's offsets: auto, 32, 64
  std::uint64_t seed = 0;
  std::string matrix_dir;                    // every *.mtx.gz in it
  std::vector<std::string> real_matrices;    // "all", "none" or file stems
  std::vector<std::string> mtx_files;        // more Matrix Market files
  std::vector<std::string> formats;          // "all", names or prefixes
  std::vector<std::string> transfer_formats; // "default", names or prefixes
  int repetitions = 0;
  double min_time = 0;            // seconds per repetition (Google Benchmark MinTime)
  int rounds = 0;                 // spmv: interleaved rounds of every implementation (0: off)
  std::uint64_t rounds_seed = 0;  // the rounds' random orders
  int warmup = 0;                 // untimed SpMVs before timing (at least one per rotated copy)
  int max_rotation = 0;           // upper bound on rotated (matrix, x, y) copies
  double rotation_factor = 0;     // rotate until the copies exceed this many times the LLC
  std::int64_t copy_elements = 0; // 0: automatic (>= 4x LLC on CPU, 2^27 on GPU)
  int copy_iterations = 0;
  int cg_max_iterations = 0;
  double cg_tolerance_double = 0;
  double cg_tolerance_float = 0;
  int cg_repetitions = 0;
  int cg_check_interval = 0; // CgOptions::check_interval (0: automatic)
  // CG ways: fused (standard CG, fused vector kernels), kokkos_blas (standard CG,
  // KokkosBlasVectors), pipelined (CgVariant::pipelined)
  std::vector<std::string> cg_variants;
  // numberings of the spmv sweep's matrices: "none", "degree" (reorder_degree)
  std::vector<std::string> orderings;
  // solve family (bench_solve.cpp): its matrices, the solver x preconditioner pairs and the
  // implementations it runs
  std::vector<int> solve_fem_n;            // FEM Poisson sizes N
  std::vector<int> solve_cd_n;             // 3D convection-diffusion sizes N
  double solve_peclet = 0;                 // mesh Peclet number of the convection-diffusion
  std::vector<std::string> solve_methods;  // "all", solvers ("gmres") or pairs ("gmres/ilu0")
  std::vector<std::string> solve_impls;    // spmvkit, kk, kk_gmres, petsc
  int solve_block_size = 0;                // rows per block of block-Jacobi
  int solve_chebyshev_degree = 0;          // ChebyshevOptions::degree of the solve family
  double solve_chebyshev_ratio = 0;        // ChebyshevOptions::eigenvalue_ratio of the solve family
  std::string solve_ilu_solve;             // ILU(0)/IC(0) solve: automatic, sweeps, substitution
  std::string solve_workspace;             // solver work vectors: kept (SolverWorkspace) or none
  std::string solve_amg_product;           // AMG's A P_tent: automatic, gather, spgemm
  std::string solve_amg_cycle;             // AMG's cycle: v or w
  long long solve_amg_coarse_size = 0;     // AMG's coarse_size; 0: AmgOptions' default
  std::string solve_amg_fine;              // AMG's level 0: shared (the solver's AutoMatrix) or own
  std::vector<CsrkSweepSize> csrk_sizes;   // replace CSR-k's variants (empty: the model's)
  std::vector<CsrkSweepShape> csrk_shapes; // crossed with the sizes (empty: the default shape)
  bool smoke = false;
  std::string command_line;

  std::vector<int> const& cg_sizes() const { return cg_n ? *cg_n : fem_n; }
  bool has_family(std::string const& f) const;
  bool has_precision(std::string const& p) const;
  /// Whether --solve-methods selects the pair solver/preconditioner ("all", the solver, or the
  /// pair).
  bool wants_solve_method(std::string const& solver, std::string const& preconditioner) const;
  bool wants_solve_impl(std::string const& impl) const;
  bool wants_real_matrix(std::string const& stem) const;
};

/// One solver x preconditioner pair of the solve family (--solve-methods): cg, pipelined_cg,
/// bicgstab, gmres with none, jacobi, block-jacobi, chebyshev, chebyshev-float, ic0, ilu0, amg.
struct SolveMethod {
  std::string solver;
  std::string preconditioner;
  bool spd_only; // CG and pipelined CG: symmetric matrices with a positive diagonal only
};
/// Every pair the solve family knows, in benchmark order.
std::vector<SolveMethod> const& solve_method_table();

/// One row of the option table.
struct OptionSpec {
  std::string flag;  // "--repetitions"
  std::string value; // what the value is, for the usage text ("INT", "LIST", ""); "" = no value
  std::string help;
  std::optional<std::string> default_value; // applied through `set` before the command line
  std::optional<std::string> smoke_value;   // applied after the defaults when --smoke is given
  std::function<void(Options&, std::string const&)> set;
};

/// The table (built once; defaults that depend on the backend or the environment are filled in).
std::vector<OptionSpec> const& option_table();

/// A malformed command line: the message names the option; spmvkit_perf exits with status 2.
struct OptionError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Removes SpMVKit's options from argv (argc updated), leaving Kokkos' (--kokkos-*) and Google
/// Benchmark's (--benchmark_*). Throws OptionError on an unknown option, a missing or malformed
/// value, or a value out of range. (--help is handled by main before anything else.)
std::shared_ptr<const Options> parse_options(int& argc, char** argv);

/// Whether the command line asks for --help (or -h).
bool wants_help(int argc, char** argv);

/// The usage text, generated from the table.
std::string usage(char const* program);

} // namespace spmvkit::perf

#endif
