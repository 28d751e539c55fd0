// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// fem_cg in float, a translation unit of its own so that the two precisions
// compile in parallel (the first run builds only fem_cg).
#include "fem_cg.hpp"

namespace fem_cg {
template int run<float>(Config const&);
} // namespace fem_cg
