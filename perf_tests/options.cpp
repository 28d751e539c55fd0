#include "options.hpp"

#include "perf_common.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#ifndef SPMVKIT_MATRIX_DIR
#define SPMVKIT_MATRIX_DIR ""
#endif

namespace spmvkit::perf {

namespace {

Options g_options;

std::vector<std::string> split(std::string const& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

template <class Int>
std::vector<Int> split_ints(std::string const& option, std::string const& s) {
  std::vector<Int> out;
  for (auto const& item : split(s)) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (end == item.c_str() || *end != '\0') {
      throw std::invalid_argument("spmvkit_perf: " + option + ": '" + item + "' is not an integer");
    }
    out.push_back(static_cast<Int>(v));
  }
  return out;
}

double to_double(std::string const& option, std::string const& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') {
    throw std::invalid_argument("spmvkit_perf: " + option + ": '" + s + "' is not a number");
  }
  return v;
}

bool contains(std::vector<std::string> const& v, std::string const& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void apply_backend_defaults(Options& o) {
  if (device_is_host) {
    o.fem_n = {16, 32, 64};
    o.rmat_scales = {18};
  } else {
    o.fem_n = {32, 64, 96, 128, 161};
    o.rmat_scales = {22};
  }
}

void apply_smoke_defaults(Options& o) {
  o.fem_n = {8};
  o.cg_n = {8};
  o.real_matrices = {"1138_bus"};
  o.rmat_scales = {10};
  o.rmat_edge_factor = 8;
  o.repetitions = 2;
  o.cg_repetitions = 1;
  o.min_time = 0.002;
  o.warmup = 2;
  o.max_rotation = 4;
  o.copy_elements = std::int64_t(1) << 20;
  o.copy_iterations = 5;
}

} // namespace

Options const& options() { return g_options; }
Options& mutable_options() { return g_options; }

bool Options::has_family(std::string const& f) const { return contains(families, f); }
bool Options::has_precision(std::string const& p) const { return contains(precisions, p); }

bool Options::has_format(std::string const& name) const {
  for (auto const& f : formats) {
    if (f == "all" || name == f || name.rfind(f + "_", 0) == 0 ||
        (f == "kk" && name.rfind("kk_", 0) == 0)) {
      return true;
    }
  }
  return false;
}

bool Options::wants_real_matrix(std::string const& stem) const {
  if (contains(real_matrices, "none")) return false;
  return contains(real_matrices, "all") || contains(real_matrices, stem);
}

void print_usage(char const* program) {
  std::printf(
      "Usage: %s [SpMVKit options] [--benchmark_* options] [--kokkos-* options]\n"
      "SpMVKit options (lists are comma-separated):\n"
      "  --precision=double,float     scalar types\n"
      "  --families=copy,spmv,spmv200,transfer,cg\n"
      "  --fem-n=16,32,64             3D Q1 FEM Poisson sizes (N intervals, (N-1)^3 rows)\n"
      "  --cg-n=...                   FEM sizes for CG (default: --fem-n)\n"
      "  --rmat-scale=18              R-MAT graphs with 2^scale rows (empty: none)\n"
      "  --rmat-edge-factor=16        edges per row before deduplication\n"
      "  --matrix-dir=DIR             every *.mtx.gz in DIR (default: SPMVKIT_MATRIX_DIR)\n"
      "  --real-matrices=all|none|name,...  which of them (file stems)\n"
      "  --mtx=path,...               extra Matrix Market files\n"
      "  --formats=all|crs|sell|kk|crs_vector|sell_c32_s1|...  (names or prefixes)\n"
      "  --sell-c=4,8,32,64 --sell-sigma=1,32,1024\n"
      "  --transfer-formats=crs,sell_c32_s1\n"
      "  --repetitions=5 --cg-repetitions=3 --min-time=0.1 (s) --warmup=5\n"
      "  --max-rotation=512 --rotation-factor=3   rotate copies until > factor x LLC\n"
      "  --copy-elements=N --copy-iterations=20   STREAM copy size (doubles) and iterations\n"
      "  --cg-max-iterations=10000 --cg-tol-double=1e-8 --cg-tol-float=1e-5\n"
      "  --cg-check-interval=0        CgOptions::check_interval (0: automatic)\n"
      "  --seed=20211024\n"
      "  --smoke                      tiny sizes of every family (the ctest perf_smoke)\n"
      "Defaults of --fem-n/--rmat-scale depend on the backend (host: 16,32,64 / 18;\n"
      "GPU: 32,64,96,128,161 / 22).\n",
      program);
}

bool parse_options(int& argc, char** argv, Options& o) {
  apply_backend_defaults(o);
  o.matrix_dir = SPMVKIT_MATRIX_DIR;
  if (char const* env = std::getenv("SPMVKIT_MATRIX_DIR")) {
    if (*env) o.matrix_dir = env;
  }
  std::ostringstream cmd;
  for (int i = 0; i < argc; ++i) cmd << (i ? " " : "") << argv[i];
  o.command_line = cmd.str();

  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) apply_smoke_defaults(o);
  }
  bool cg_n_given = o.smoke;
  bool help = false;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : arg.substr(eq + 1);
    auto need_value = [&]() {
      if (eq == std::string::npos) {
        throw std::invalid_argument("spmvkit_perf: " + key + " needs a value (" + key + "=...)");
      }
    };
    if (key == "--smoke") {
      o.smoke = true;
      cg_n_given = true;
    } else if (key == "--help" || key == "-h") {
      help = true;
      argv[out++] = argv[i]; // let Google Benchmark print its own help as well
    } else if (key == "--precision") {
      need_value();
      o.precisions = split(value);
      for (auto const& p : o.precisions) {
        if (p != "double" && p != "float") {
          throw std::invalid_argument("spmvkit_perf: --precision: unknown '" + p + "'");
        }
      }
    } else if (key == "--families") {
      need_value();
      o.families = split(value);
    } else if (key == "--fem-n") {
      need_value();
      o.fem_n = split_ints<int>(key, value);
    } else if (key == "--cg-n") {
      need_value();
      o.cg_n = split_ints<int>(key, value);
      cg_n_given = true;
    } else if (key == "--rmat-scale") {
      need_value();
      o.rmat_scales = split_ints<int>(key, value);
    } else if (key == "--rmat-edge-factor") {
      need_value();
      o.rmat_edge_factor = static_cast<int>(to_double(key, value));
    } else if (key == "--matrix-dir") {
      need_value();
      o.matrix_dir = value;
    } else if (key == "--real-matrices") {
      need_value();
      o.real_matrices = split(value);
    } else if (key == "--mtx") {
      need_value();
      for (auto const& p : split(value)) o.mtx_files.push_back(p);
    } else if (key == "--formats") {
      need_value();
      o.formats = split(value);
    } else if (key == "--sell-c") {
      need_value();
      o.sell_c = split_ints<int>(key, value);
    } else if (key == "--sell-sigma") {
      need_value();
      o.sell_sigma = split_ints<std::int64_t>(key, value);
    } else if (key == "--transfer-formats") {
      need_value();
      o.transfer_formats = split(value);
    } else if (key == "--repetitions") {
      need_value();
      o.repetitions = std::max(1, static_cast<int>(to_double(key, value)));
    } else if (key == "--cg-repetitions") {
      need_value();
      o.cg_repetitions = std::max(1, static_cast<int>(to_double(key, value)));
    } else if (key == "--min-time") {
      need_value();
      o.min_time = to_double(key, value);
    } else if (key == "--warmup") {
      need_value();
      o.warmup = std::max(0, static_cast<int>(to_double(key, value)));
    } else if (key == "--max-rotation") {
      need_value();
      o.max_rotation = std::max(1, static_cast<int>(to_double(key, value)));
    } else if (key == "--rotation-factor") {
      need_value();
      o.rotation_factor = to_double(key, value);
    } else if (key == "--copy-elements") {
      need_value();
      o.copy_elements = static_cast<std::int64_t>(to_double(key, value));
    } else if (key == "--copy-iterations") {
      need_value();
      o.copy_iterations = std::max(1, static_cast<int>(to_double(key, value)));
    } else if (key == "--cg-max-iterations") {
      need_value();
      o.cg_max_iterations = static_cast<int>(to_double(key, value));
    } else if (key == "--cg-tol-double") {
      need_value();
      o.cg_tolerance_double = to_double(key, value);
    } else if (key == "--cg-tol-float") {
      need_value();
      o.cg_tolerance_float = to_double(key, value);
    } else if (key == "--cg-check-interval") {
      need_value();
      o.cg_check_interval = std::max(0, static_cast<int>(to_double(key, value)));
    } else if (key == "--seed") {
      need_value();
      o.seed = static_cast<std::uint64_t>(std::strtoull(value.c_str(), nullptr, 10));
    } else if (arg.rfind("--benchmark_", 0) == 0 || arg.rfind("--kokkos", 0) == 0) {
      argv[out++] = argv[i];
    } else {
      throw std::invalid_argument("spmvkit_perf: unknown option '" + arg +
                                  "' (--help lists the options)");
    }
  }
  argc = out;
  argv[argc] = nullptr;
  if (!cg_n_given) o.cg_n = o.fem_n;
  return help;
}

} // namespace spmvkit::perf
