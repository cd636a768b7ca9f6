// The one printer of the terminal tables (npu experiment, npu sweep / npu report, npu verify's
// table, npu llm): each column as wide as its widest cell or heading, so long hw names such
// as sweep-derived `edge-npu-ddr4__capacity-256KiB` or model paths never push a row out of
// line. docs/experiment.md "The terminal table".
#pragma once

#include <string>
#include <vector>

namespace npu {

/// How a column's cells sit in its width: names left, numbers right.
enum class TextAlign { Left, Right };

/// One column: its heading and alignment.
struct TextColumn {
  std::string head;
  TextAlign align = TextAlign::Left;
};

/// The table as text: a heading line, then one line per row, columns separated by `gap`,
/// each column as wide as its widest cell (the heading included; width = UTF-8 code points),
/// no trailing spaces. A row with fewer cells than columns (a failed run: its names, then
/// "FAILED: why") pads the cells it has but its last cell, which runs on to the end of the
/// line, and takes no part in the widths. A row with more cells than columns throws
/// std::invalid_argument (a programming error).
std::string format_text_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                              const std::string& gap = "  ");

/// Display width of `s`: its UTF-8 code points (continuation bytes not counted).
std::size_t text_width(const std::string& s);

}  // namespace npu
