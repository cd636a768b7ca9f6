// The ground-truth CSV of Gemmini's RTL per-layer cycles (../shared/anchors/gemmini-rtl/onnxim/).
#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"
#include "npu/base/files.hpp"
#include "npu/base/text_lines.hpp"
#include "npu/sim/validate/gemmini_validation.hpp"

namespace npu::sim {
namespace {

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char ch : line) {
    if (ch == ',') out.emplace_back();
    else if (ch != '\r') out.back() += ch;
  }
  return out;
}

// A non-negative integer field (empty: `fallback`); throws naming the column.
std::int64_t int_field(const std::map<std::string, std::string>& row, const char* col, std::int64_t fallback,
                       const std::string& where) {
  const auto it = row.find(col);
  if (it == row.end() || it->second.empty()) return fallback;
  const std::string& v = it->second;
  if (v.size() > 15 || v.find_first_not_of("0123456789") != std::string::npos)
    throw ConfigError(fmt::format("{}: error: column '{}' must be a non-negative integer, got '{}'", where, col, v));
  return std::stoll(v);
}

RtlLayer layer_from(const std::map<std::string, std::string>& row, const std::string& where) {
  RtlLayer l;
  l.where = where;
  l.name = row.at("test");
  const std::string kind = row.at("kind");
  if (kind != "conv" && kind != "gemm")
    throw ConfigError(fmt::format("{}: error: kind '{}' is not conv or gemm", where, kind));
  l.conv = kind == "conv";
  l.n = int_field(row, "N_or_M", 1, where);
  l.c = int_field(row, "C", 0, where);
  l.m = int_field(row, "K_out", 0, where);
  l.in_h = int_field(row, "in_h", 1, where);
  l.in_w = int_field(row, "in_w", 1, where);
  l.kh = int_field(row, "kh", 1, where);
  l.kw = int_field(row, "kw", 1, where);
  l.stride = int_field(row, "stride", 1, where);
  l.pad = int_field(row, "pad", 0, where);
  l.out_h = int_field(row, "out_h", 1, where);
  l.out_w = int_field(row, "out_w", 1, where);
  l.rtl_cycles = int_field(row, "gemmini_cycles", 0, where);
  if (l.c <= 0 || l.m <= 0 || l.n <= 0 || l.rtl_cycles <= 0 || l.stride <= 0)
    throw ConfigError(fmt::format("{}: error: C, K_out, N_or_M, stride and gemmini_cycles must be positive", where));
  l.mapping = compiler::parse_tile_mapping(row.at("mapping"), where);
  return l;
}

}  // namespace

std::vector<RtlLayer> read_rtl_layers(const std::string& path) {
  require_regular_file(path, "ground-truth CSV");
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: error: cannot open the ground-truth CSV\n  check the path", path));
  static const char* const kColumns[] = {"test", "kind", "N_or_M", "C", "K_out", "gemmini_cycles", "mapping"};
  std::vector<std::string> header;
  std::vector<RtlLayer> out;
  std::string line;
  for (std::size_t line_no = 1; getline_capped(in, line, path, line_no, "ground-truth CSV"); ++line_no) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split_fields(line);
    if (header.empty()) {
      header = f;
      for (const char* col : kColumns)
        if (std::find(header.begin(), header.end(), col) == header.end())
          throw ConfigError(fmt::format("{}:{}: error: the header has no column '{}'\n  expected the columns of "
                                        "gemmini_gt.csv (docs/validation.md \"Against RTL\")",
                                        path, line_no, col));
      continue;
    }
    const std::string where = fmt::format("{}:{}", path, line_no);
    if (f.size() != header.size())
      throw ConfigError(fmt::format("{}: error: {} fields, the header has {}", where, f.size(), header.size()));
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size(); ++i) row[header[i]] = f[i];
    out.push_back(layer_from(row, where));
  }
  if (out.empty()) throw ConfigError(fmt::format("{}: error: no layers in the ground-truth CSV", path));
  return out;
}

}  // namespace npu::sim
