// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_EXAMPLES_EXAMPLE_SVG_HPP
#define SPMVKIT_EXAMPLES_EXAMPLE_SVG_HPP

// A horizontal bar chart written as SVG text, with no dependency: one bar per
// entry (the median), a whisker from min to max, the value beside it. Not part
// of the library.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmvkit::examples {

struct Bar {
  std::string label;
  double median = 0, min = 0, max = 0;
  bool reference = false; ///< drawn in the second colour (e.g. Kokkos Kernels)
};

struct BarChart {
  std::string title;
  std::string subtitle;
  std::string axis_label;       ///< e.g. "time per CG iteration [ms]"
  std::string unit;             ///< after each value, e.g. "ms"
  std::string legend_main;      ///< what the first colour means
  std::string legend_reference; ///< what the second colour means
  std::vector<Bar> bars;
};

namespace detail {

inline std::string xml_escape(std::string const& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// A round axis step (1, 2 or 5 times a power of ten) giving about 5 ticks up to `top`.
inline double tick_step(double top) {
  const double raw = top / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

inline std::string number(double v, int digits = 3) {
  std::ostringstream os;
  os.precision(digits);
  os << v;
  return os.str();
}

} // namespace detail

/// Writes `chart` to `path`; throws std::runtime_error naming the file if it cannot.
inline void write_svg(BarChart const& chart, std::string const& path) {
  using detail::number;
  using detail::xml_escape;
  const double label_width = 230, plot_width = 520, right_margin = 90;
  const double top = 70, bar_height = 22, gap = 10, bottom = 70;
  const double width = label_width + plot_width + right_margin;
  const double height = top + chart.bars.size() * (bar_height + gap) + bottom;
  double largest = 0;
  for (auto const& b : chart.bars) largest = std::max({largest, b.max, b.median});
  if (!(largest > 0)) largest = 1;
  const double step = detail::tick_step(largest);
  const double axis_end = std::ceil(largest / step) * step;
  auto x_of = [&](double v) { return label_width + plot_width * v / axis_end; };
  const char* main_colour = "#4c72b0";
  const char* reference_colour = "#dd8452";

  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">" << xml_escape(chart.title)
      << "</text>\n"
      << "<text x=\"10\" y=\"42\" fill=\"#444\">" << xml_escape(chart.subtitle) << "</text>\n";
  const double plot_bottom = top + chart.bars.size() * (bar_height + gap);
  for (double v = 0; v <= axis_end * (1 + 1e-9); v += step) {
    svg << "<line x1=\"" << x_of(v) << "\" y1=\"" << top - 6 << "\" x2=\"" << x_of(v) << "\" y2=\""
        << plot_bottom << "\" stroke=\"#ddd\"/>\n"
        << "<text x=\"" << x_of(v) << "\" y=\"" << plot_bottom + 16 << "\" text-anchor=\"middle\">"
        << number(v) << "</text>\n";
  }
  svg << "<text x=\"" << label_width + plot_width / 2 << "\" y=\"" << plot_bottom + 36
      << "\" text-anchor=\"middle\">" << xml_escape(chart.axis_label) << "</text>\n";
  double y = top;
  for (auto const& b : chart.bars) {
    const double mid = y + bar_height / 2;
    svg << "<text x=\"" << label_width - 8 << "\" y=\"" << mid + 4 << "\" text-anchor=\"end\">"
        << xml_escape(b.label) << "</text>\n"
        << "<rect x=\"" << label_width << "\" y=\"" << y << "\" width=\""
        << std::max(0.0, x_of(b.median) - label_width) << "\" height=\"" << bar_height
        << "\" fill=\"" << (b.reference ? reference_colour : main_colour) << "\"/>\n"
        << "<line x1=\"" << x_of(b.min) << "\" y1=\"" << mid << "\" x2=\"" << x_of(b.max)
        << "\" y2=\"" << mid << "\" stroke=\"black\"/>\n";
    for (double v : {b.min, b.max})
      svg << "<line x1=\"" << x_of(v) << "\" y1=\"" << mid - 6 << "\" x2=\"" << x_of(v)
          << "\" y2=\"" << mid + 6 << "\" stroke=\"black\"/>\n";
    svg << "<text x=\"" << x_of(b.max) + 6 << "\" y=\"" << mid + 4 << "\">" << number(b.median)
        << (chart.unit.empty() ? "" : " ") << xml_escape(chart.unit) << "</text>\n";
    y += bar_height + gap;
  }
  const double legend_y = height - 14;
  svg << "<rect x=\"10\" y=\"" << legend_y - 10 << "\" width=\"12\" height=\"12\" fill=\""
      << main_colour << "\"/>\n<text x=\"28\" y=\"" << legend_y << "\">"
      << xml_escape(chart.legend_main) << "</text>\n"
      << "<rect x=\"" << width / 2 << "\" y=\"" << legend_y - 10
      << "\" width=\"12\" height=\"12\" fill=\"" << reference_colour << "\"/>\n<text x=\""
      << width / 2 + 18 << "\" y=\"" << legend_y << "\">" << xml_escape(chart.legend_reference)
      << "</text>\n</svg>\n";

  std::ofstream out(path);
  out << svg.str();
  out.close();
  if (!out) throw std::runtime_error("cannot write the picture to '" + path + "'");
}

} // namespace spmvkit::examples

#endif
