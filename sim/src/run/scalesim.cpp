#include "npu/sim/run/scalesim.hpp"
#include "npu/base/text_lines.hpp"
#include "npu/base/user_text.hpp"
#include "npu/base/files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "npu/hw/mac_array/systolic_model.hpp"

namespace npu::sim {

namespace {
std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string read_file(const std::string& path, const char* what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": error: is a directory, expected a file\n  fix: give the " + what + " file itself");
  require_regular_file(path, what);
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ConfigError(path + ": error: cannot open the " + what + " file");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
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
}  // namespace

std::int64_t ScaleSimLayer::ofmap_h() const { return hw::scalesim_ofmap_size(ifmap_h, filter_h, stride_h); }
std::int64_t ScaleSimLayer::ofmap_w() const { return hw::scalesim_ofmap_size(ifmap_w, filter_w, stride_w); }

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
      if (format == TopologyFormat::Auto) {
        // "Layer, M, N, K," is a GEMM topology; the conv header has 8 or more columns.
        format = is_gemm_header(f) ? TopologyFormat::Gemm : TopologyFormat::Conv;
      } else if (format == TopologyFormat::Gemm && !is_gemm_header(f)) {
        throw ConfigError(fmt::format(
            "{}:{}: error: --format gemm, but the header '{}' is not a GEMM header 'Layer, M, N, K,' ({} columns{})\n"
            "  fix: use --format conv (or auto) for a convolution topology, or give a GEMM topology",
            source, lineno, trim(line), f.size(), f.size() >= 8 ? ", as a conv topology has" : ""));
      } else if (format == TopologyFormat::Conv && is_gemm_header(f)) {
        throw ConfigError(fmt::format(
            "{}:{}: error: --format conv, but the header '{}' is a GEMM header 'Layer, M, N, K,'\n"
            "  fix: use --format gemm (or auto) for a GEMM topology, or give a convolution topology",
            source, lineno, trim(line)));
      }
      continue;
    }
    ScaleSimLayer l;
    l.line = lineno;
    l.name = f.empty() ? "" : f[0];
    if (format == TopologyFormat::Gemm) {
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
      continue;
    }
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
  if (layers.empty()) throw ConfigError(source + ": error: no layers (the first row is the header)");
  return layers;
}

std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path, TopologyFormat format) {
  return parse_scalesim_topology(read_file(path, "topology"), path, format);
}

ScaleSimConfig parse_scalesim_config(const std::string& text, const std::string& source) {
  ScaleSimConfig c;
  c.source = source;
  check_line_lengths(text, source, "SCALE-Sim .cfg");
  std::istringstream in(text);
  std::string line, section;
  int lineno = 0, height_line = 0;
  bool have_h = false, have_w = false, have_df = false;
  std::map<std::string, int> key_lines;  // "section.key" -> line it was given on
  while (std::getline(in, line)) {
    ++lineno;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']') throw ConfigError(fmt::format("{}:{}: error: section header '{}' lacks ']'", source, lineno, echo(t)));
      section = lower(trim(t.substr(1, t.size() - 2)));
      continue;
    }
    const std::size_t sep = t.find_first_of(":=");
    if (sep == std::string::npos) {
      throw ConfigError(fmt::format("{}:{}: error: expected 'key: value' or 'key = value', got '{}'", source, lineno, echo(t)));
    }
    const std::string key = lower(trim(t.substr(0, sep))), value = trim(t.substr(sep + 1));
    // A key given twice in one section: SCALE-Sim (configparser) rejects it too; we never
    // silently keep one of the two values.
    const std::string qualified = section + "." + key;
    if (auto it = key_lines.find(qualified); it != key_lines.end())
      throw ConfigError(fmt::format("{}:{}: error: key '{}' is given twice in [{}] (lines {} and {})\n  fix: keep one "
                                    "of them",
                                    source, lineno, echo(trim(t.substr(0, sep))), echo(section), it->second, lineno));
    key_lines[qualified] = lineno;
    auto integer = [&](const char* name) {
      try {
        std::size_t used = 0;
        const int v = std::stoi(value, &used);
        if (used == value.size() && v > 0) return v;
      } catch (const std::exception&) {
      }
      throw ConfigError(fmt::format("{}:{}: error: {} must be a positive integer, got '{}'", source, lineno, name, echo(value)));
    };
    auto real = [&](const char* name) {
      try {
        return std::stod(value);
      } catch (const std::exception&) {
        throw ConfigError(fmt::format("{}:{}: error: {} must be a number, got '{}'", source, lineno, name, echo(value)));
      }
    };
    if (key == "run_name") c.run_name = value;
    else if (key == "arrayheight") c.array_height = integer("ArrayHeight"), have_h = true, height_line = lineno;
    else if (key == "arraywidth") c.array_width = integer("ArrayWidth"), have_w = true;
    else if (key == "ifmapsramszkb") c.ifmap_sram_kb = real("IfmapSramSzkB");
    else if (key == "filtersramszkb") c.filter_sram_kb = real("FilterSramSzkB");
    else if (key == "ofmapsramszkb") c.ofmap_sram_kb = real("OfmapSramSzkB");
    else if (key == "interfacebandwidth") c.interface_bandwidth = value;
    else if (key == "dataflow") {
      const std::string v = lower(value);
      if (v == "os") c.dataflow = Dataflow::OutputStationary;
      else if (v == "ws") c.dataflow = Dataflow::WeightStationary;
      else if (v == "is") c.dataflow = Dataflow::InputStationary;
      else throw ConfigError(fmt::format("{}:{}: error: Dataflow '{}' is not one of os, ws, is", source, lineno, echo(value)));
      have_df = true;
    }
  }
  (void)height_line;
  if (!have_h || !have_w || !have_df) {
    throw ConfigError(fmt::format("{}: error: missing {} in [architecture_presets]", source,
                                  !have_h ? "ArrayHeight" : !have_w ? "ArrayWidth" : "Dataflow"));
  }
  return c;
}

ScaleSimConfig read_scalesim_config(const std::string& path) {
  return parse_scalesim_config(read_file(path, "SCALE-Sim config"), path);
}

std::vector<ScaleSimLayerResult> scalesim_compute(const std::vector<ScaleSimLayer>& layers, const ScaleSimConfig& cfg) {
  std::vector<ScaleSimLayerResult> out;
  out.reserve(layers.size());
  for (const ScaleSimLayer& l : layers) {
    ScaleSimLayerResult r;
    r.layer = l;
    const hw::GemmDims d{l.ofmap_px(), l.filters, l.window()};
    const hw::SystolicCycles c = hw::systolic_cycles(d, cfg.array_height, cfg.array_width, cfg.dataflow);
    // folds x cycles_per_fold in 128 bits: a layer within the MAC limit can still need more
    // than 2^62 cycles on a very tall or wide array (few, very long folds).
    const unsigned __int128 cycles128 = static_cast<unsigned __int128>(std::max<std::int64_t>(c.row_folds, 0)) *
                                        std::uint64_t(std::max<std::int64_t>(c.col_folds, 0)) *
                                        std::uint64_t(std::max<std::int64_t>(c.cycles_per_fold, 0));
    if (cycles128 > (static_cast<unsigned __int128>(1) << 62)) {
      throw ConfigError(fmt::format(
          "{}: error: layer '{}' (topology line {}) needs more than 2^62 cycles on the {}x{} array (the count would "
          "overflow)\n  fix: check ArrayHeight/ArrayWidth and the layer's numbers",
          cfg.source, l.name, l.line, cfg.array_height, cfg.array_width));
    }
    r.cycles = c.scalesim_total_cycles();
    r.folds = c.row_folds * c.col_folds;
    r.cycles_per_fold = c.cycles_per_fold;
    r.mapping_efficiency_pct = 100.0 * c.mapping_efficiency;
    r.compute_util_pct = 100.0 * c.compute_utilisation;
    r.overall_util_pct = 100.0 * double(l.macs()) / (double(r.cycles) * cfg.array_height * cfg.array_width);
    out.push_back(r);
  }
  return out;
}

std::string scalesim_csv(const std::vector<ScaleSimLayerResult>& results) {
  std::string s =
      "layer_id,layer,ifmap_h,ifmap_w,filter_h,filter_w,channels,filters,stride,ofmap_h,ofmap_w,macs,folds,"
      "cycles_per_fold,total_cycles,mapping_efficiency_pct,compute_util_pct,overall_util_pct\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const auto& l = r.layer;
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.4f},{:.4f},{:.4f}\n", i, l.name, l.ifmap_h, l.ifmap_w,
                     l.filter_h, l.filter_w, l.channels, l.filters, l.stride_h, l.ofmap_h(), l.ofmap_w(), l.macs(), r.folds,
                     r.cycles_per_fold, r.cycles, r.mapping_efficiency_pct, r.compute_util_pct, r.overall_util_pct);
  }
  return s;
}

}  // namespace npu::sim
