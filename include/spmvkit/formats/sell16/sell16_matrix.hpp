// SPDX-FileCopyrightText: 2026 SpMVKit contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef SPMVKIT_FORMATS_SELL16_SELL16_MATRIX_HPP
#define SPMVKIT_FORMATS_SELL16_SELL16_MATRIX_HPP

/// \file
/// Deprecated path (until 0.4): the format is SellOffset16Matrix in
/// formats/sell_offset16/sell_offset16_matrix.hpp, which also keeps the old names as
/// deprecated aliases.
#include <spmvkit/formats/sell_offset16/sell_offset16_matrix.hpp>

#endif
