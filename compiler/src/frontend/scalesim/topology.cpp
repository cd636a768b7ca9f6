// SCALE-Sim topology CSV reader (topology.hpp).
#include "npu/compiler/frontend/scalesim/topology.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "frontend/scalesim/scalesim_text.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/base/text_lines.hpp"
#include "npu/base/user_text.hpp"

namespace npu::compiler {

using scalesim_text::lower;
using scalesim_text::read_file;
using scalesim_text::trim;

namespace {
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  if (!out.empty() && out.back().empty()) out.pop_back();  // trailing comma (SCALE-Sim drops the last field)
  return out;
}
std::int64_t number(const std::string& field, const std::string& source, int line, const char* column) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (field.empty() || used != field.size()) {
    throw ConfigError(fmt::format("{}:{}: error: column '{}' is '{}', not an integer", source, line, column, echo(field)));
  }
  if (v <= 0) throw ConfigError(fmt::format("{}:{}: error: column '{}' must be positive, got {}", source, line, column, v));
  return v;
}
// Largest MAC count of one layer: 2^53 (9.0e15, ~10^4 times ResNet-50 in one layer), so
// that every figure derived from it (MACs, cycles, utilisation in double) stays exact and
// far from 64-bit overflow.
constexpr std::uint64_t kMaxLayerMacs = std::uint64_t(1) << 53;

// Checks that M = ofmap_h x ofmap_w, K = filter_h x filter_w x channels and M x N x K fit.
void check_layer_size(const ScaleSimLayer& l, const std::string& source, int line) {
  std::int64_t m = 0, k = 0, mn = 0, macs = 0;
  const bool overflow = __builtin_mul_overflow(l.ofmap_h(), l.ofmap_w(), &m) ||
                        __builtin_mul_overflow(l.filter_h, l.filter_w, &k) ||
                        __builtin_mul_overflow(k, l.channels, &k) || __builtin_mul_overflow(m, l.filters, &mn) ||
                        __builtin_mul_overflow(mn, k, &macs);
  if (overflow || std::uint64_t(macs) > kMaxLayerMacs) {
    throw ConfigError(fmt::format(
        "{}:{}: error: layer '{}' is too large: ofmap {}x{} x filters {} x window {}x{}x{} is more than 2^53 = {} "
        "MACs (the counts would overflow)\n  fix: check the row's numbers (a typo such as an extra digit?); one "
        "layer may have at most {} MACs",
        source, line, l.name, l.ofmap_h(), l.ofmap_w(), l.filters, l.filter_h, l.filter_w, l.channels, kMaxLayerMacs,
        kMaxLayerMacs));
  }
}

// Most layers a topology may hold after depthwise ("DP") layers are split per channel: 2^16.
// SCALE-Sim's own topologies hold a few thousand layers after the split (MobileNet's 13
// depthwise layers have 32..1024 channels); a 40-byte "DP" row with 10^9 channels used to make
// 10^9 layers (minutes, gigabytes), and one with 51121 channels took seconds under sanitizers.
constexpr std::size_t kMaxTopologyLayers = std::size_t(1) << 16;

bool is_gemm_header(const std::vector<std::string>& f) {
  return f.size() >= 4 && f.size() <= 5 && lower(f[1]) == "m";
}

// The header row's format: the one detected ("Layer, M, N, K," is GEMM) when `format` is
// Auto, else `format` after checking that the header agrees with it.
TopologyFormat header_format(const std::vector<std::string>& f, const std::string& line, TopologyFormat format,
                             const std::string& source, int lineno) {
  if (format == TopologyFormat::Auto) {
    // "Layer, M, N, K," is a GEMM topology; the conv header has 8 or more columns.
    return is_gemm_header(f) ? TopologyFormat::Gemm : TopologyFormat::Conv;
  }
  if (format == TopologyFormat::Gemm && !is_gemm_header(f)) {
    throw ConfigError(fmt::format(
        "{}:{}: error: --format gemm, but the header '{}' is not a GEMM header 'Layer, M, N, K,' ({} columns{})\n"
        "  fix: use --format conv (or auto) for a convolution topology, or give a GEMM topology",
        source, lineno, trim(line), f.size(), f.size() >= 8 ? ", as a conv topology has" : ""));
  }
  if (format == TopologyFormat::Conv && is_gemm_header(f)) {
    throw ConfigError(fmt::format(
        "{}:{}: error: --format conv, but the header '{}' is a GEMM header 'Layer, M, N, K,'\n"
        "  fix: use --format gemm (or auto) for a GEMM topology, or give a convolution topology",
        source, lineno, trim(line)));
  }
  return format;
}

// Reads a GEMM row 'Layer, M, N, K,' and appends its layer to `layers`.
void add_gemm_row(const std::vector<std::string>& f, const std::string& source, int lineno,
                  std::vector<ScaleSimLayer>& layers) {
  ScaleSimLayer l;
  l.line = lineno;
  l.name = f.empty() ? "" : f[0];
  if (f.size() < 4) {
    throw ConfigError(fmt::format("{}:{}: error: a GEMM row needs 'Layer, M, N, K,' ({} fields found)", source,
                                  lineno, f.size()));
  }
  const std::int64_t m = number(f[1], source, lineno, "M"), n = number(f[2], source, lineno, "N"),
                     k = number(f[3], source, lineno, "K");
  // topology_utils.py load_arrays_gemm: [m, k, 1, k, 1, n, 1, 1]
  l.ifmap_h = m, l.ifmap_w = k, l.filter_h = 1, l.filter_w = k, l.channels = 1, l.filters = n;
  l.stride_h = l.stride_w = 1;
  check_layer_size(l, source, lineno);
  if (layers.size() >= kMaxTopologyLayers)
    throw ConfigError(fmt::format("{}:{}: error: layer '{}' makes the topology longer than {} layers\n  fix: split "
                                  "the topology into several files",
                                  source, lineno, l.name, kMaxTopologyLayers));
  layers.push_back(l);
}

// Reads a conv row 'Layer name, IFMAP Height, ..., Strides[, Stride W | Sparsity],' into one
// layer, checked: positive sizes, a filter within the ifmap, a size within kMaxLayerMacs.
ScaleSimLayer conv_row(const std::vector<std::string>& f, const std::string& source, int lineno) {
  ScaleSimLayer l;
  l.line = lineno;
  l.name = f.empty() ? "" : f[0];
  if (f.size() < 8) {
    throw ConfigError(fmt::format(
        "{}:{}: error: a conv row needs 8 fields 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
        "Channels, Num Filter, Strides,' ({} found)",
        source, lineno, f.size()));
  }
  l.ifmap_h = number(f[1], source, lineno, "IFMAP Height");
  l.ifmap_w = number(f[2], source, lineno, "IFMAP Width");
  l.filter_h = number(f[3], source, lineno, "Filter Height");
  l.filter_w = number(f[4], source, lineno, "Filter Width");
  l.channels = number(f[5], source, lineno, "Channels");
  l.filters = number(f[6], source, lineno, "Num Filter");
  l.stride_h = l.stride_w = number(f[7], source, lineno, "Strides");
  // A 9th numeric field is the column stride (SCALE-Sim); v3's "N:M" sparsity is ignored.
  if (f.size() >= 9 && !f[8].empty() && f[8].find(':') == std::string::npos) {
    l.stride_w = number(f[8], source, lineno, "Stride Width");
  }
  if (l.filter_h > l.ifmap_h || l.filter_w > l.ifmap_w) {
    throw ConfigError(fmt::format("{}:{}: error: filter {}x{} is larger than the ifmap {}x{} (SCALE-Sim convolutions "
                                  "are 'valid', without padding)",
                                  source, lineno, l.filter_h, l.filter_w, l.ifmap_h, l.ifmap_w));
  }
  check_layer_size(l, source, lineno);
  return l;
}

// Appends conv layer `l` to `layers`, split into one single-channel layer per channel when
// its name contains "DP" (depthwise), within kMaxTopologyLayers.
void add_conv_layer(const ScaleSimLayer& l, const std::string& source, int lineno, std::vector<ScaleSimLayer>& layers) {
  const std::int64_t rows = l.name.find("DP") != std::string::npos ? l.channels : 1;
  if (std::uint64_t(rows) > kMaxTopologyLayers - layers.size()) {
    throw ConfigError(fmt::format(
        "{}:{}: error: layer '{}' makes the topology longer than {} layers{}\n  fix: check the row's numbers (a "
        "typo such as an extra digit?); split a larger topology into several files",
        source, lineno, l.name, kMaxTopologyLayers,
        rows > 1 ? fmt::format(" (its name contains \"DP\", so its {} channels become {} single-channel layers)",
                               l.channels, l.channels)
                 : ""));
  }
  if (l.name.find("DP") != std::string::npos) {
    // topology_utils.py: depthwise -> one single-channel layer per channel.
    const std::int64_t ch = l.channels;
    for (std::int64_t c = 0; c < ch; ++c) {
      ScaleSimLayer d = l;
      d.name = l.name + "Channel_" + std::to_string(c);
      d.channels = 1;
      layers.push_back(d);
    }
  } else {
    layers.push_back(l);
  }
}
}  // namespace

std::int64_t scalesim_ofmap_size(std::int64_t in, std::int64_t filter, std::int64_t stride) {
  if (stride <= 0 || filter <= 0 || filter > in) {
    throw std::invalid_argument("scalesim_ofmap_size: need 0 < filter <= input and stride > 0");
  }
  return (in - filter + stride + stride - 1) / stride;  // ceil((in - filter + stride) / stride)
}

std::int64_t ScaleSimLayer::ofmap_h() const { return scalesim_ofmap_size(ifmap_h, filter_h, stride_h); }
std::int64_t ScaleSimLayer::ofmap_w() const { return scalesim_ofmap_size(ifmap_w, filter_w, stride_w); }

std::vector<ScaleSimLayer> parse_scalesim_topology(const std::string& text, const std::string& source,
                                                    TopologyFormat format) {
  check_line_lengths(text, source, "SCALE-Sim topology CSV");
  std::vector<ScaleSimLayer> layers;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    std::vector<std::string> f = split_csv(line);
    if (!header_seen) {
      header_seen = true;
      format = header_format(f, line, format, source, lineno);
    } else if (format == TopologyFormat::Gemm) {
      add_gemm_row(f, source, lineno, layers);
    } else {
      add_conv_layer(conv_row(f, source, lineno), source, lineno, layers);
    }
  }
  if (layers.empty()) throw ConfigError(source + ": error: no layers (the first row is the header)");
  return layers;
}

std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path, TopologyFormat format) {
  // A model or config given here failed on its second line ("a conv row needs 8 fields"): say
  // what it is (new-user finding).
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".yaml" || ext == ".yml" || ext == ".onnx" || ext == ".npuasm")
    throw ConfigError(path + ": error: a " + ext.substr(1) + " file, and npu scalesim reads a SCALE-Sim topology "
                      "(CSV: a header row, then one layer a row)\n  fix: give a topology CSV, e.g. "
                      "../shared/anchors/scalesim/v2/topologies/; a model goes to npu simulate --model");
  return parse_scalesim_topology(read_file(path, "topology"), path, format);
}

}  // namespace npu::compiler
