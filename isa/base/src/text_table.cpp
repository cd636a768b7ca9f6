#include "npu/base/text_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace npu {

std::size_t text_width(const std::string& s) {
  return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

namespace {

// `cell` padded to `width` on the side `align` leaves open.
std::string padded(const std::string& cell, std::size_t width, TextAlign align) {
  const std::size_t w = text_width(cell);
  const std::string pad(w < width ? width - w : 0, ' ');
  return align == TextAlign::Left ? cell + pad : pad + cell;
}

// One line: each cell padded to its column, the last cell of a short row as it is.
std::string table_line(const std::vector<TextColumn>& columns, const std::vector<std::size_t>& widths,
                       const std::vector<std::string>& cells, const std::string& gap) {
  std::string line;
  const bool full = cells.size() == columns.size();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) line += gap;
    line += full || i + 1 < cells.size() ? padded(cells[i], widths[i], columns[i].align) : cells[i];
  }
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

}  // namespace

std::string format_text_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                              const std::string& gap) {
  std::vector<std::size_t> widths;
  std::vector<std::string> heads;
  for (const auto& c : columns) {
    widths.push_back(text_width(c.head));
    heads.push_back(c.head);
  }
  for (const auto& row : rows) {
    if (row.size() > columns.size())
      throw std::invalid_argument("format_text_table: a row has more cells than the table has columns");
    const std::size_t sized = row.size() == columns.size() ? row.size() : row.empty() ? 0 : row.size() - 1;
    for (std::size_t i = 0; i < sized; ++i) widths[i] = std::max(widths[i], text_width(row[i]));
  }
  std::string text = table_line(columns, widths, heads, gap);
  for (const auto& row : rows) text += table_line(columns, widths, row, gap);
  return text;
}

}  // namespace npu
