#include "npu/compiler/backend/tiling/tile_override.hpp"

#include <algorithm>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "npu/base/closest_name.hpp"
#include "npu/base/config_error.hpp"
#include "npu/base/files.hpp"
#include "npu/base/text_lines.hpp"

namespace npu::compiler {
namespace {

constexpr const char* kNotation =
    "  the notation is ONNXim's: '[T] N1 C64 M64 P56 Q56 S3 R3 - [O] N1 C1 M8 P4 Q4 S1 R1 - [I] N1 C64 M8 P15 Q17 S3 "
    "R3' ([T] totals, [O] tiles per dimension, [I] tile sizes; docs/compiler.md \"Given tiles\")";

std::int64_t* field(LoopSizes& l, char d) {
  switch (d) {
    case 'N': return &l.n;
    case 'C': return &l.c;
    case 'M': return &l.m;
    case 'P': return &l.p;
    case 'Q': return &l.q;
    case 'S': return &l.s;
    case 'R': return &l.r;
    default: return nullptr;
  }
}

// "N1 C64 M8 ..." into `l`; throws on an unknown letter or a size that is not a positive integer.
void parse_sizes(const std::string& part, LoopSizes& l, const std::string& where) {
  std::istringstream in(part);
  std::string tok;
  while (in >> tok) {
    std::int64_t* f = field(l, tok[0]);
    const std::string digits = tok.substr(1);
    if (!f || digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(digits) <= 0)
      throw ConfigError(fmt::format("{}: error: '{}' is not a loop size (a letter of N C M P Q S R and a positive "
                                    "integer)\n{}",
                                    where, tok, kNotation));
    *f = std::stoll(digits);
  }
}

void check_cover(const TileMapping& t, const std::string& where) {
  const char* names = "NCMPQSR";
  const std::int64_t tot[] = {t.total.n, t.total.c, t.total.m, t.total.p, t.total.q, t.total.s, t.total.r};
  const std::int64_t out[] = {t.outer.n, t.outer.c, t.outer.m, t.outer.p, t.outer.q, t.outer.s, t.outer.r};
  const std::int64_t inn[] = {t.inner.n, t.inner.c, t.inner.m, t.inner.p, t.inner.q, t.inner.s, t.inner.r};
  for (int i = 0; i < 7; ++i) {
    if (out[i] * inn[i] < tot[i] || inn[i] > tot[i])
      throw ConfigError(fmt::format("{}: error: dimension {}: {} tiles of {} do not cover the total {}\n"
                                    "  [O] x [I] must be at least [T] and [I] at most [T] in every dimension",
                                    where, names[i], out[i], inn[i], tot[i]));
  }
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : line) {
    if (ch == ',') out.push_back(cur), cur.clear();
    else if (ch != '\r') cur += ch;
  }
  out.push_back(cur);
  return out;
}

}  // namespace

TileMapping parse_tile_mapping(const std::string& text, const std::string& where) {
  TileMapping t;
  std::set<std::string> seen;
  std::size_t pos = 0;
  while ((pos = text.find('[', pos)) != std::string::npos) {
    const std::size_t close = text.find(']', pos);
    if (close == std::string::npos) break;
    const std::string tag = text.substr(pos + 1, close - pos - 1);
    std::size_t end = text.find('[', close);
    std::string part = text.substr(close + 1, end == std::string::npos ? std::string::npos : end - close - 1);
    const std::size_t dash = part.rfind('-');
    if (dash != std::string::npos && part.find_first_not_of(" -", dash) == std::string::npos) part.erase(dash);
    LoopSizes* l = tag == "T" ? &t.total : tag == "O" ? &t.outer : tag == "I" ? &t.inner : nullptr;
    if (!l || !seen.insert(tag).second)
      throw ConfigError(fmt::format("{}: error: part '[{}]' is {}\n{}", where, tag, l ? "given twice" : "unknown",
                                    kNotation));
    parse_sizes(part, *l, where);
    pos = close;
  }
  if (seen.size() != 3)
    throw ConfigError(fmt::format("{}: error: the mapping '{}' needs the three parts [T], [O] and [I]\n{}", where,
                                  text, kNotation));
  check_cover(t, where);
  return t;
}

std::vector<TileOverride> read_tile_overrides(const std::string& path) {
  require_regular_file(path, "tile-override CSV");
  std::ifstream in(path);
  if (!in)
    throw ConfigError(fmt::format("{}: error: cannot open the tile-override file\n  check the path", path));
  std::string line;
  std::size_t line_no = 0;
  int layer_col = -1, mapping_col = -1;
  std::vector<TileOverride> out;
  std::set<std::string> layers;
  while (getline_capped(in, line, path, ++line_no, "tile-override CSV")) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split_csv(line);
    if (layer_col < 0) {
      for (int i = 0; i < int(f.size()); ++i) {
        if (f[i] == "layer" || (f[i] == "test" && layer_col < 0)) layer_col = i;
        if (f[i] == "mapping") mapping_col = i;
      }
      if (layer_col < 0 || mapping_col < 0)
        throw ConfigError(fmt::format("{}:{}: error: the header needs a 'layer' (or 'test') and a 'mapping' column, "
                                      "got '{}'\n  e.g. 'layer,mapping' then one row per layer",
                                      path, line_no, line));
      continue;
    }
    const std::string where = fmt::format("{}:{}", path, line_no);
    if (int(f.size()) <= std::max(layer_col, mapping_col))
      throw ConfigError(fmt::format("{}: error: the row has {} fields, the header {}", where, f.size(),
                                    std::max(layer_col, mapping_col) + 1));
    TileOverride o{f[std::size_t(layer_col)], parse_tile_mapping(f[std::size_t(mapping_col)], where), where};
    if (!layers.insert(o.layer).second)
      throw ConfigError(fmt::format("{}: error: layer '{}' is listed twice\n  give one mapping per layer", where,
                                    o.layer));
    out.push_back(std::move(o));
  }
  if (out.empty())
    throw ConfigError(fmt::format("{}: error: no tile overrides in the file\n  give a header 'layer,mapping' and one "
                                  "row per layer",
                                  path));
  return out;
}

TileFootprint tile_footprint(const TileMapping& t, int stride, int act_bytes, int acc_elem_bytes) {
  const LoopSizes& i = t.inner;
  // Input pixels one tile reads per dimension: (P - 1) x min(S, stride) + S. With S >= stride
  // the windows touch ((P - 1) stride + S); with S < stride (a 1x1 stride-2 downsample) only
  // the P x S sampled pixels are loaded: Gemmini's DMA gathers strided rows, and the RTL ran
  // ResNet-18's layer3 downsample tile (C128 M8 P14 Q14, stride 2) in its 64 KiB scratchpad.
  const auto extent = [&](std::int64_t out, std::int64_t k) {
    return std::uint64_t((out - 1) * std::min<std::int64_t>(k, stride) + k);
  };
  const std::uint64_t in_h = extent(i.p, i.s), in_w = extent(i.q, i.r);
  TileFootprint f;
  f.scratchpad_bytes = (std::uint64_t(i.n) * in_h * in_w * std::uint64_t(i.c) +
                        std::uint64_t(i.s * i.r) * std::uint64_t(i.c) * std::uint64_t(i.m)) *
                       std::uint64_t(act_bytes);
  f.accumulator_bytes = std::uint64_t(i.n * i.p * i.q * i.m) * std::uint64_t(acc_elem_bytes);
  return f;
}

void check_tile_fits(const TileOverride& o, int stride, const HwConfig& hw) {
  const TileFootprint f =
      tile_footprint(o.mapping, stride, dtype_bytes(hw.mac_array.dtype), hw.accumulator.bytes_per_element);
  if (f.scratchpad_bytes > hw.sram.capacity_bytes)
    throw ConfigError(fmt::format("{}: error: the tile of layer '{}' needs {} bytes of scratchpad (inputs + weights), "
                                  "more than 'sram.capacity' = {} bytes of {}\n  give smaller [I] sizes (C, M, P, Q) "
                                  "or a larger SRAM",
                                  o.where, o.layer, f.scratchpad_bytes, hw.sram.capacity_bytes, hw.source));
  if (hw.accumulator.present && f.accumulator_bytes > hw.accumulator.capacity_bytes)
    throw ConfigError(fmt::format("{}: error: the tile of layer '{}' needs {} bytes of accumulator (N x P x Q x M "
                                  "partial sums of {} bytes), more than 'accumulator.capacity' = {} bytes of {}\n"
                                  "  give smaller [I] sizes (N, M, P, Q) or a larger accumulator",
                                  o.where, o.layer, f.accumulator_bytes, hw.accumulator.bytes_per_element,
                                  hw.accumulator.capacity_bytes, hw.source));
}

void check_override_layers(const std::vector<TileOverride>& overrides, const std::vector<std::string>& layers,
                           const std::string& model) {
  const std::set<std::string> have(layers.begin(), layers.end());
  for (const TileOverride& o : overrides) {
    if (have.count(o.layer)) continue;
    const auto near = closest_name(o.layer, layers);
    throw ConfigError(fmt::format("{}: error: '{}' has no layer '{}'\n  {}", o.where, model, o.layer,
                                  near ? fmt::format("did you mean '{}'?", *near)
                                       : "remove the row or fix the name (layer names as the model lists them)"));
  }
}

}  // namespace npu::compiler
