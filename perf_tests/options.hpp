#ifndef SPMVKIT_PERF_OPTIONS_HPP
#define SPMVKIT_PERF_OPTIONS_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace spmvkit::perf {

/// SpMVKit's own command-line options (everything not starting with
/// --benchmark_ or --kokkos-). See perf_tests/README.md for the full list.
struct Options {
  std::vector<std::string> precisions{"double", "float"};
  std::vector<std::string> families{"copy", "spmv", "spmv200", "transfer", "cg"};
  std::vector<int> fem_n; // FEM sweep (N intervals, (N-1)^3 rows)
  std::vector<int> cg_n;  // FEM sizes for CG; defaults to fem_n
  std::vector<int> rmat_scales;
  int rmat_edge_factor = 16;
  std::uint64_t seed = 20211024;
  std::string matrix_dir;                        // every *.mtx.gz in it
  std::vector<std::string> real_matrices{"all"}; // "all", "none" or names (file stems)
  std::vector<std::string> mtx_files;            // --mtx=path,...
  std::vector<std::string> formats{"all"};       // names or prefixes: crs, sell, kk, sell_c32_s1...
  std::vector<int> sell_c{4, 8, 32, 64};
  std::vector<std::int64_t> sell_sigma{1, 32, 1024};
  std::vector<std::string> transfer_formats{"crs", "sell_c32_s1"};
  int repetitions = 5;
  double min_time = 0.1;          // seconds per repetition (Google Benchmark MinTime)
  int warmup = 5;                 // untimed SpMVs before timing (at least one per rotated copy)
  int max_rotation = 512;         // upper bound on rotated (matrix, x, y) copies
  double rotation_factor = 3.0;   // rotate until the copies exceed this many times the LLC
  std::int64_t copy_elements = 0; // 0: automatic (>= 4x LLC on CPU, 2^27 on GPU)
  int copy_iterations = 20;
  int cg_max_iterations = 10000;
  double cg_tolerance_double = 1e-8;
  double cg_tolerance_float = 1e-5;
  int cg_repetitions = 3;
  int cg_check_interval = 0; // CgOptions::check_interval (0: automatic)
  bool smoke = false;
  std::string command_line;

  bool has_family(std::string const& f) const;
  bool has_precision(std::string const& p) const;
  /// Whether a format name (crs_row_per_thread, sell_c32_s1, kk_native, ...) is selected.
  bool has_format(std::string const& name) const;
  bool wants_real_matrix(std::string const& stem) const;
};

/// Removes SpMVKit's options from argv (argc updated), leaving Kokkos' and
/// Google Benchmark's. Throws std::invalid_argument on a malformed value.
/// Returns true when --help was asked for.
bool parse_options(int& argc, char** argv, Options& options);

void print_usage(char const* program);

Options const& options();
Options& mutable_options();

} // namespace spmvkit::perf

#endif
