// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grammar of format-variant names (select/variant_names.hpp) that
// AutoOptions::candidates, the examples and spmvkit_perf share.
#include <spmvkit/select/variant_names.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using spmvkit::select_variants;
using spmvkit::split_variant_list;
using spmvkit::VariantName;

// An example's candidates: SELL's default options beside its variants, the
// 16-bit-offset SELL's variants only, CRS whose default is one of its variants.
std::vector<VariantName> candidates() {
  return {{"crs", "crs", true},
          {"crs_vector", "crs", true},
          {"sell", "sell", false},
          {"sell_c8_s1", "sell", true},
          {"sell_c32_s1", "sell", true},
          {"sell_c32_s256", "sell", true},
          {"sell_offset16_c32_s1", "sell_offset16", true},
          {"kk_native", "kk", true}};
}

std::vector<std::string> selected(std::string const& list) {
  const auto c = candidates();
  const auto flags = select_variants(split_variant_list(list), c, "--formats");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (flags[i]) out.push_back(c[i].name);
  return out;
}

using Names = std::vector<std::string>;

TEST(VariantNames, EachRuleSelectsWhatItSays) {
  EXPECT_EQ(selected("crs"), Names({"crs"})); // a name wins over its family
  EXPECT_EQ(selected("sell"), Names({"sell"}));
  EXPECT_EQ(selected("sell_offset16"), Names({"sell_offset16_c32_s1"})); // a family
  EXPECT_EQ(selected("kk"), Names({"kk_native"}));
  EXPECT_EQ(selected("sell_c32"), Names({"sell_c32_s1", "sell_c32_s256"})); // leading parts
  EXPECT_EQ(selected("sell_c3*"), Names({"sell_c32_s1", "sell_c32_s256"}));
  EXPECT_EQ(selected("sell_*"),
            Names({"sell_c8_s1", "sell_c32_s1", "sell_c32_s256", "sell_offset16_c32_s1"}));
  // all and * skip extra candidates that only their own name selects.
  EXPECT_EQ(selected("all").size(), candidates().size() - 1);
  EXPECT_EQ(selected("*"), selected("all"));
  EXPECT_EQ(selected("crs_vector,,crs_vector,sell_c8_s1"), Names({"crs_vector", "sell_c8_s1"}));
}

TEST(VariantNames, FormerSell16NamesReadAsTheirNewOnes) {
  EXPECT_EQ(spmvkit::current_variant_name("sell16_c32_s1"), "sell_offset16_c32_s1");
  EXPECT_EQ(spmvkit::current_variant_name("sell16*"), "sell_offset16*");
  EXPECT_EQ(spmvkit::current_variant_name("sell160"), "sell160");
  EXPECT_EQ(selected("sell16"), Names({"sell_offset16_c32_s1"}));
  EXPECT_EQ(selected("sell16_c32_s1"), Names({"sell_offset16_c32_s1"}));
}

TEST(VariantNames, AnItemThatSelectsNothingIsNamed) {
  for (std::string const bad : {"sell_c99", "bogus", "sell_c32_", "xyz*"}) {
    try {
      selected("crs," + bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (std::invalid_argument const& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--formats: '" + bad + "' selects nothing", 0), 0u)
          << e.what();
    }
  }
  EXPECT_THROW(selected(""), std::invalid_argument);
  EXPECT_THROW(selected(",,"), std::invalid_argument);
}

} // namespace
