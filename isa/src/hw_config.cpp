// Hardware-config loading: the one place a YAML config is read and validated.
// Every key, unit, default and rule is documented in docs/config.md; keep the two in step.
//
// Errors: every problem throws npu::ConfigError with
//   "FILE:LINE:COL: error: <what>\n  <hint>"
// where LINE:COL is yaml-cpp's 0-based Mark printed 1-based, pointing at the offending key
// or value (at the enclosing map for a missing key).
#include "npu/isa/hw_config.hpp"
#include "npu/base/files.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "hw_config_rules.hpp"
#include "npu/base/checked_math.hpp"
#include "npu/isa/instruction.hpp"
#include "npu/base/yaml_file.hpp"
#include "npu/base/user_text.hpp"

namespace npu {

std::uint64_t HwConfig::min_sram_tile_bytes() const {
  // Accumulators are 32 bit for every supported dtype: int32 for int8 (as in the TPU v1
  // accumulators), fp32 for fp16 and fp32.
  const std::uint64_t acc_bytes = 4;
  const std::uint64_t r = std::uint64_t(mac_array.rows), c = std::uint64_t(mac_array.cols);
  const std::uint64_t b = std::uint64_t(dtype_bytes(mac_array.dtype));
  const char* what = "minimal SRAM tile 2 x rows x cols x dtype bytes + rows x dtype bytes + cols x 4";
  return checked_add(checked_add(checked_product({2, r, c, b}, what), r * b, what), c * acc_bytes, what);
}

namespace {

// ---------------------------------------------------------------------------------------
// Small helpers

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

/// Case-insensitive Levenshtein distance (insert, delete, substitute each cost 1).
std::size_t edit_distance(const std::string& a_in, const std::string& b_in) {
  const std::string a = lower(a_in), b = lower(b_in);
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// The allowed name closest to `word`, if it is plausibly a typo of it: edit distance at
/// most max(2, longer length / 3), or one is a prefix of the other (case-insensitive).
/// Ties go to the first allowed name, so the suggestion is deterministic.
std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& allowed) {
  std::optional<std::string> best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  const std::string lw = lower(word);
  for (const auto& cand : allowed) {
    const std::string lc = lower(cand);
    std::size_t d = edit_distance(word, cand);
    const std::size_t limit = std::max<std::size_t>(2, std::max(lw.size(), lc.size()) / 3);
    const bool prefix = !lw.empty() && (lc.rfind(lw, 0) == 0 || lw.rfind(lc, 0) == 0);
    if (d > limit && !prefix) continue;
    if (prefix && d > limit) d = limit;  // rank prefix matches like a borderline typo
    if (d < best_d) {
      best_d = d;
      best = cand;
    }
  }
  return best;
}

std::string choice_hint(const std::string& word, const std::vector<std::string>& allowed) {
  if (auto c = closest(word, allowed)) return fmt::format("  did you mean '{}'? (allowed: {})", *c, join(allowed));
  return fmt::format("  allowed: {}", join(allowed));
}

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "an empty value";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Scalar: return fmt::format("'{}'", echo(n.Scalar()));
    default: return "nothing";
  }
}

bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Allowed values of the enumerations, in the order docs/config.md lists them.
const std::vector<std::string> kDataflows = {"weight_stationary", "output_stationary", "input_stationary"};
const std::vector<std::string> kDtypes = {"int8", "fp16", "fp32"};
const std::vector<std::string> kPagePolicies = {"open", "closed"};
const std::vector<std::string> kDepthwiseMappings = {"scalesim", "channels_across_columns"};
const std::vector<std::string> kStandards = {"DDR3",   "DDR4",  "DDR5", "LPDDR3", "LPDDR4", "LPDDR4X", "LPDDR5",
                                             "GDDR5",  "GDDR6", "HBM",  "HBM2",   "HBM2E",  "HBM3"};
const std::vector<std::string> kMappingFields = {"ro", "ch", "ra", "ba", "bg", "co"};

/// Names accepted under act_unit.latency_cycles: `default` and every vector-unit op name,
/// each once. A name shared by two instructions is one key for both: `max` is POOL max and
/// ELTWISE max (a compare-select either way), `pow` is ACT pow and ELTWISE pow. The order is
/// the historical one, then the ops added later (hw_config_to_yaml prints in this order).
std::vector<std::string> act_latency_keys() {
  std::vector<std::string> keys = {"default"};
  auto add = [&keys](const char* name) {
    if (std::find(keys.begin(), keys.end(), name) == keys.end()) keys.emplace_back(name);
  };
  for (auto op : {isa::ActOp::Relu, isa::ActOp::Clip, isa::ActOp::LeakyRelu, isa::ActOp::Sigmoid, isa::ActOp::Silu,
                  isa::ActOp::HardSigmoid, isa::ActOp::HardSwish, isa::ActOp::ScaleShift})
    add(isa::to_string(op));
  for (auto op : {isa::EltwiseOp::Add, isa::EltwiseOp::Mul}) add(isa::to_string(op));
  for (auto op : {isa::PoolOp::Max, isa::PoolOp::Avg, isa::PoolOp::GlobalAvg}) add(isa::to_string(op));
  for (auto op : {isa::ActOp::Erf, isa::ActOp::Exp, isa::ActOp::Sqrt, isa::ActOp::Reciprocal, isa::ActOp::Tanh,
                  isa::ActOp::Gelu, isa::ActOp::Abs, isa::ActOp::Neg, isa::ActOp::Pow, isa::ActOp::Identity,
                  isa::ActOp::Softmax, isa::ActOp::LayerNorm})
    add(isa::to_string(op));
  for (auto op : {isa::EltwiseOp::Sub, isa::EltwiseOp::Div, isa::EltwiseOp::Max, isa::EltwiseOp::Min,
                  isa::EltwiseOp::Pow, isa::EltwiseOp::RSub, isa::EltwiseOp::RDiv})
    add(isa::to_string(op));
  return keys;
}

// ---------------------------------------------------------------------------------------
// The loader

/// One YAML map with its keys checked: known, unique, required ones present.
struct Section {
  std::string path;  ///< dotted path of the map ("" for the document root)
  YAML::Node node;
  std::map<std::string, YAML::Node> values;  ///< lookup only; never iterated into output
  std::map<std::string, YAML::Mark> key_marks;

  bool has(const std::string& key) const { return values.count(key) != 0; }
  std::string key_path(const std::string& key) const { return path.empty() ? key : path + "." + key; }
  std::string name() const { return path.empty() ? "the top-level map" : fmt::format("section '{}'", path); }
};

// What this reader calls its file in the errors of load_one_yaml_document.
const YamlFileKind kConfigYaml = {"hardware config YAML", "a config is one document",
    "  the file must be one YAML map of sections (npu, mac_array, sram, act_unit, dma, ddr, energy, host); "
    "check indentation, ':' after keys and closing quotes/brackets"};

class Loader {
 public:
  explicit Loader(std::string source) : source_(std::move(source)) {}

  HwConfig load(const std::string& text) {
    const YAML::Node root = load_one_yaml_document(text, source_, kConfigYaml);
    if (!root.IsDefined() || root.IsNull()) {
      fail(YAML::Mark(), "the config is empty",
           "  expected a map with sections: npu, mac_array, sram, act_unit, ddr (required), dma, energy, host "
           "(optional)");
    }

    HwConfig cfg;
    cfg.source = source_;
    Section top = open(root, "");

    {
      Section s = open(top, "npu");
      cfg.npu.name = get_string(s, "name");
      cfg.npu.clock_mhz = get_positive_double(s, "clock_mhz", "MHz");
      // Time is kept in whole picoseconds (period = 10^6 / clock_mhz ps). Above 10 GHz the
      // period (< 100 ps) rounds badly and, far above, to 0 (every run would take 0 cycles);
      // below 1 kHz one cycle is 10^9 ps and a 64-bit picosecond count overflows after
      // 1.8e10 cycles, which a real network reaches.
      if (cfg.npu.clock_mhz > 10000)
        fail(vmark(s, "clock_mhz"),
             fmt::format("'npu.clock_mhz' = {} MHz is out of range: at most 10000 (10 GHz)", cfg.npu.clock_mhz),
             "  the simulator keeps time in whole picoseconds; a clock above 10 GHz has a period under 100 ps that "
             "rounds away (runs would report 0 cycles); allowed: 1 to 10000 MHz, e.g. 'clock_mhz: 1000'");
      if (cfg.npu.clock_mhz < 1)
        fail(vmark(s, "clock_mhz"),
             fmt::format("'npu.clock_mhz' = {} MHz is out of range: at least 1 (1 MHz)", cfg.npu.clock_mhz),
             "  a slower clock stretches simulated time, which the DDR model fills with a refresh every tREFI "
             "(7.8 us), so a network would take minutes to simulate (and no NPU runs below 1 MHz); allowed: 1 to "
             "10000 MHz, e.g. 'clock_mhz: 1000'");
    }
    {
      Section s = open(top, "mac_array");
      cfg.mac_array.rows = get_int(s, "rows", 1);
      cfg.mac_array.cols = get_int(s, "cols", 1);
      cfg.mac_array.dataflow = static_cast<Dataflow>(get_enum(s, "dataflow", kDataflows, "dataflow"));
      cfg.mac_array.dtype = static_cast<DType>(get_enum(s, "dtype", kDtypes, "dtype"));
      if (s.has("macs_per_pe_per_cycle")) cfg.mac_array.macs_per_pe_per_cycle = get_int(s, "macs_per_pe_per_cycle", 1);
      if (s.has("depthwise_mapping")) {
        cfg.mac_array.depthwise_mapping = static_cast<DepthwiseMapping>(
            get_enum(s, "depthwise_mapping", kDepthwiseMappings, "depthwise_mapping"));
        if (cfg.mac_array.depthwise_mapping == DepthwiseMapping::ChannelsAcrossColumns &&
            cfg.mac_array.dataflow == Dataflow::InputStationary)
          fail(vmark(s, "depthwise_mapping"),
               "'mac_array.depthwise_mapping' = channels_across_columns needs a weight- or output-stationary array, "
               "but 'mac_array.dataflow' is input_stationary",
               "  an input-stationary PE holds one input element of one channel, which no other channel's output "
               "uses, so the channels cannot share the array's columns (docs/timing.md); use 'depthwise_mapping: "
               "scalesim' or another dataflow");
      }
    }
    {
      Section s = open(top, "sram");
      cfg.sram.capacity_bytes = get_size(s, "capacity");
      cfg.sram.bytes_per_cycle = get_int(s, "bytes_per_cycle", 1);
      if (s.has("banks")) cfg.sram.banks = get_int(s, "banks", 1);
      if (s.has("latency_cycles")) cfg.sram.latency_cycles = get_int(s, "latency_cycles", 1);
      // 0 until check_cross_section picks the default (it depends on the bank size).
      cfg.sram.bank_interleave_bytes = s.has("bank_interleave_bytes") ? get_size(s, "bank_interleave_bytes") : 0;
    }
    {
      Section s = open(top, "act_unit");
      cfg.act_unit.lanes = get_int(s, "lanes", 1);
      if (s.has("latency_cycles")) {
        Section lat = open(s, "latency_cycles");
        for (const auto& op : act_latency_keys()) {
          if (!lat.has(op)) continue;
          const int v = get_int(lat, op, 1);
          if (op == "default")
            cfg.act_unit.default_latency_cycles = v;
          else
            cfg.act_unit.op_latency_cycles[op] = v;
        }
      }
    }
    if (top.has("dma")) {
      Section s = open(top, "dma");
      if (s.has("burst_bytes")) cfg.dma.burst_bytes = int_size(s, "burst_bytes");
      if (s.has("max_outstanding")) cfg.dma.max_outstanding = get_int(s, "max_outstanding", 1);
      if (s.has("requests_per_cycle")) cfg.dma.requests_per_cycle = get_int(s, "requests_per_cycle", 1);
    }
    load_ddr(top, cfg.ddr);
    if (top.has("energy")) {
      Section s = open(top, "energy");
      cfg.energy.present = true;
      cfg.energy.pj_per_mac = get_positive_double(s, "pj_per_mac", "pJ");
      cfg.energy.pj_per_sram_byte = get_positive_double(s, "pj_per_sram_byte", "pJ");
      cfg.energy.pj_per_ddr_byte = get_positive_double(s, "pj_per_ddr_byte", "pJ");
    }
    if (top.has("host")) {
      // Each key is optional: a missing one keeps the documented default (HostConfig).
      Section s = open(top, "host");
      cfg.host.present = true;
      if (s.has("bandwidth_gbps")) cfg.host.bandwidth_gbps = get_positive_double(s, "bandwidth_gbps", "GB/s");
      if (s.has("gops")) cfg.host.gops = get_positive_double(s, "gops", "giga MAC/s");
    }

    check_cross_section(cfg);
    return cfg;
  }

 private:
  [[noreturn]] void fail(const YAML::Mark& m, const std::string& what, const std::string& hint) const {
    throw_yaml_error(source_, m, what, hint);
  }

  const YAML::Mark& mark_of(const std::string& key_path) const {
    static const YAML::Mark none = YAML::Mark::null_mark();
    auto it = marks_.find(key_path);
    return it == marks_.end() ? none : it->second;
  }

  /// Checks that `node` is a map whose keys are all in required + optional, each once, and
  /// that every required key is present. Unknown keys are reported before missing ones: a
  /// misspelt key is both, and the suggestion is the more useful message.
  Section open_node(const YAML::Node& node, const std::string& path, const std::vector<std::string>& required,
                    const std::vector<std::string>& optional, const YAML::Mark& key_mark) {
    const YAML::Mark where = node.IsNull() || node.Mark().is_null() ? key_mark : node.Mark();
    Section s;
    s.path = path;
    s.node = node;
    std::vector<std::string> allowed = required;
    allowed.insert(allowed.end(), optional.begin(), optional.end());
    if (!node.IsMap()) {
      fail(where,
           path.empty() ? fmt::format("the config must be a map of sections, got {}", describe(node))
                        : fmt::format("{} must be a map of keys, got {}", s.name(), describe(node)),
           fmt::format("  allowed keys: {}", join(allowed)));
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node k = it->first;  // a copy: the iterator yields a temporary pair
      if (!k.IsScalar()) fail(k.Mark(), fmt::format("a key in {} is {}, not a name", s.name(), describe(k)),
                              fmt::format("  allowed keys: {}", join(allowed)));
      const std::string key = k.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(k.Mark(), fmt::format("unknown key '{}' in {}", echo(key), s.name()),
             allowed.empty() ? std::string("  this section takes no keys") : choice_hint(key, allowed));
      }
      if (s.has(key)) {
        const YAML::Mark& first = s.key_marks[key];
        fail(k.Mark(), fmt::format("duplicate key '{}' in {}", echo(key), s.name()),
             fmt::format("  first given at line {}; keep one of them", first.line + 1));
      }
      s.values[key] = it->second;
      s.key_marks[key] = k.Mark();
    }
    for (const auto& key : required) {
      if (!s.has(key)) {
        fail(where, fmt::format("missing key '{}' in {}", key, s.name()),
             fmt::format("  required keys: {}{}", join(required),
                         optional.empty() ? "" : fmt::format("; optional: {}", join(optional))));
      }
    }
    return s;
  }

  /// The document root, with the keys hw_config_schema() allows at path "".
  Section open(const YAML::Node& root, const std::string& path) {
    const HwConfigSection& sec = schema_section(path);
    return open_node(root, path, sec.required, sec.optional, YAML::Mark());
  }

  /// The map under `key` of `parent`, with the keys hw_config_schema() allows there.
  Section open(const Section& parent, const std::string& key) {
    const HwConfigSection& sec = schema_section(parent.key_path(key));
    return open_node(parent.values.at(key), parent.key_path(key), sec.required, sec.optional,
                     parent.key_marks.at(key));
  }

  static const HwConfigSection& schema_section(const std::string& path) {
    for (const auto& sec : hw_config_schema())
      if (sec.path == path) return sec;
    throw std::logic_error("hw_config_schema() has no section '" + path + "'");
  }

  /// The value node of a present key; records its mark for cross-field messages.
  const YAML::Node& value(const Section& s, const std::string& key) {
    const YAML::Node& v = s.values.at(key);
    marks_[s.key_path(key)] = v.IsNull() ? s.key_marks.at(key) : v.Mark();
    return v;
  }

  const YAML::Mark& vmark(const Section& s, const std::string& key) const { return mark_of(s.key_path(key)); }

  std::string scalar(const Section& s, const std::string& key, const char* expected) {
    const YAML::Node& v = value(s, key);
    if (!v.IsScalar())
      fail(vmark(s, key), fmt::format("'{}' must be {}, got {}", s.key_path(key), expected, describe(v)),
           fmt::format("  write e.g. '{}: <{}>'", key, expected));
    return trim(v.Scalar());
  }

  std::string get_string(const Section& s, const std::string& key) {
    std::string text = scalar(s, key, "a string");
    if (text.empty())
      fail(vmark(s, key), fmt::format("'{}' must not be empty", s.key_path(key)), "  give a name, e.g. 'my-npu'");
    return text;
  }

  /// An integer key in [min_value, the smaller of type_max and the key's limit
  /// (hw_config_rules.cpp)]; every message names the range the key really allows.
  std::int64_t get_int64(const Section& s, const std::string& key, std::int64_t min_value,
                         std::int64_t type_max = std::numeric_limits<std::int64_t>::max()) {
    const std::string text = scalar(s, key, "an integer");
    const detail::KeyLimit* limit = detail::key_limit(s.key_path(key));
    const std::int64_t max_value = limit ? std::min<std::int64_t>(limit->max, type_max) : type_max;
    const std::string range = fmt::format("  allowed: an integer from {} to {}{}", min_value, max_value,
                                          limit ? fmt::format(" ({})", limit->reason) : std::string());
    std::int64_t v = 0;
    const char* b = text.data();
    const char* e = text.data() + text.size();
    if (b != e && *b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc::result_out_of_range)
      fail(vmark(s, key), fmt::format("'{}' = {} is out of range: at most {}", s.key_path(key), echo(text), max_value),
           range);
    if (ec != std::errc() || p != e || b == e) {
      const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
      if (hex)
        fail(vmark(s, key), fmt::format("'{}' must be a decimal integer, got '{}'", s.key_path(key), echo(text)),
             fmt::format("  hexadecimal is not accepted here; write the value in decimal{}",
                         [&] {
                           unsigned long long h = 0;
                           auto [hp, hec] = std::from_chars(text.data() + 2, text.data() + text.size(), h, 16);
                           return hec == std::errc() && hp == text.data() + text.size()
                                      ? fmt::format(" ('{}: {}')", key, h)
                                      : std::string();
                         }()));
      char* end = nullptr;
      const double d = std::strtod(text.c_str(), &end);
      const bool fraction = end && *end == '\0' && !text.empty() && std::isfinite(d) &&
                            text.find_first_of(".eE") != std::string::npos;
      fail(vmark(s, key),
           fmt::format("'{}' must be an integer, got {}'{}'", s.key_path(key), fraction ? "the fraction " : "",
                       echo(text)),
           fmt::format("  allowed: a whole number >= {}", min_value));
    }
    if (v < min_value)
      fail(vmark(s, key), fmt::format("'{}' must be >= {}, got {}", s.key_path(key), min_value, v),
           min_value == 1 ? "  allowed: a positive whole number (zero and negative values are not meaningful)"
                          : fmt::format("  allowed: a whole number >= {}", min_value));
    if (v > max_value)
      fail(vmark(s, key), fmt::format("'{}' = {} is out of range: at most {}", s.key_path(key), v, max_value), range);
    return v;
  }

  int get_int(const Section& s, const std::string& key, int min_value) {
    return int(get_int64(s, key, min_value, std::numeric_limits<int>::max()));
  }

  double get_positive_double(const Section& s, const std::string& key, const char* unit) {
    const std::string text = scalar(s, key, "a number");
    const bool chars_ok = !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
    char* end = nullptr;
    const double v = chars_ok ? std::strtod(text.c_str(), &end) : 0.0;
    if (!chars_ok || !end || *end != '\0' || !std::isfinite(v))
      fail(vmark(s, key), fmt::format("'{}' must be a number ({}), got '{}'", s.key_path(key), unit, echo(text)),
           fmt::format("  write a plain number, e.g. '{}: 1000' (the unit {} is implied by the key)", key, unit));
    if (!(v > 0))
      fail(vmark(s, key), fmt::format("'{}' must be > 0, got {}", s.key_path(key), echo(text)),
           fmt::format("  allowed: a positive number in {}", unit));
    return v;
  }

  std::uint64_t get_size(const Section& s, const std::string& key) {
    const std::string text = scalar(s, key, "a size");
    const std::string hint =
        "  allowed: bytes as an integer (1048576) or with a unit: B, KiB, MiB, GiB, TiB (x1024) or kB, KB, MB, "
        "GB, TB (x1000), e.g. '1MiB' or '24 MiB'";
    if (!text.empty() && text[0] == '-')
      fail(vmark(s, key), fmt::format("'{}' must be > 0, got '{}'", s.key_path(key), echo(text)), hint);
    auto v = parse_size_bytes(text);
    if (!v && size_too_large(text))
      fail(vmark(s, key), fmt::format("'{}' = '{}' is too large: more than 2^64 - 1 bytes", s.key_path(key), echo(text)),
           fmt::format("  allowed: at most {}", max_size_text(s.key_path(key))));
    if (!v) fail(vmark(s, key), fmt::format("'{}' is not a size: '{}'", s.key_path(key), echo(text)), hint);
    if (*v == 0) fail(vmark(s, key), fmt::format("'{}' must be > 0, got '{}'", s.key_path(key), echo(text)), hint);
    if (s.key_path(key) == "sram.capacity" && *v > (std::uint64_t(1) << 32))
      fail(vmark(s, key), fmt::format("'sram.capacity' = {} bytes is too large: at most 4 GiB (4294967296 bytes)", *v),
           "  SRAM addresses in the instruction set are 32-bit byte offsets (docs/isa.md), so larger buffers cannot "
           "be addressed; on-chip buffers are KiB to tens of MiB (TPU v1: 24 MiB)");
    return *v;
  }

  /// `text` is a well-formed size (digits, optional fraction, a known unit) whose value
  /// overflows 64 bits: parse_size_bytes rejects both, and they need different messages.
  static bool size_too_large(const std::string& text) {
    std::size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == 0) return false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    }
    const long double number = std::strtold(text.substr(0, i).c_str(), nullptr);
    while (i < text.size() && text[i] == ' ') ++i;
    const std::string unit = text.substr(i);
    const std::pair<const char*, long double> units[] = {
        {"", 1},          {"B", 1},          {"KiB", 1024.0L},    {"MiB", 1048576.0L}, {"GiB", 1073741824.0L},
        {"TiB", 1099511627776.0L}, {"kB", 1e3L}, {"KB", 1e3L}, {"MB", 1e6L}, {"GB", 1e9L}, {"TB", 1e12L}};
    for (const auto& [u, mult] : units)
      if (unit == u) return number * mult > 18446744073709551615.0L;
    return false;
  }

  static std::string max_size_text(const std::string& key_path) {
    if (key_path == "sram.capacity") return "4 GiB (SRAM addresses are 32-bit)";
    return fmt::format("{} bytes", std::numeric_limits<int>::max());
  }

  int int_size(const Section& s, const std::string& key) {
    const std::uint64_t v = get_size(s, key);
    if (v > std::uint64_t(std::numeric_limits<int>::max()))
      fail(vmark(s, key), fmt::format("'{}' = {} bytes is out of range", s.key_path(key), v),
           fmt::format("  allowed: at most {} bytes", std::numeric_limits<int>::max()));
    return int(v);
  }

  std::size_t get_enum(const Section& s, const std::string& key, const std::vector<std::string>& allowed,
                       const char* what) {
    const std::string text = scalar(s, key, "a name");
    auto it = std::find(allowed.begin(), allowed.end(), text);
    if (it == allowed.end())
      fail(vmark(s, key), fmt::format("unknown {} '{}' for '{}'", what, echo(text), s.key_path(key)),
           choice_hint(echo(text), allowed));
    return std::size_t(it - allowed.begin());
  }

  /// Parses an address mapping such as "rochrababgco" (MSB -> LSB, two-letter fields).
  std::string get_mapping(const Section& s, const std::string& key) {
    const std::string text = lower(scalar(s, key, "a mapping string"));
    const std::string fix = "  allowed: the six fields ro ch ra ba bg co, each exactly once, MSB first (e.g. "
                            "'rochrababgco'); case is ignored";
    if (text.size() % 2 != 0)
      fail(vmark(s, key), fmt::format("'{}' = '{}' has an odd length; fields are two letters each", s.key_path(key), echo(text)),
           fix);
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < text.size(); i += 2) {
      const std::string f = text.substr(i, 2);
      if (std::find(kMappingFields.begin(), kMappingFields.end(), f) == kMappingFields.end())
        fail(vmark(s, key),
             fmt::format("'{}' = '{}': unknown field '{}' at character {}", s.key_path(key), echo(text), echo(f), i + 1), fix);
      if (std::find(seen.begin(), seen.end(), f) != seen.end())
        fail(vmark(s, key), fmt::format("'{}' = '{}': field '{}' appears twice", s.key_path(key), echo(text), f), fix);
      seen.push_back(f);
    }
    for (const auto& f : kMappingFields)
      if (std::find(seen.begin(), seen.end(), f) == seen.end())
        fail(vmark(s, key), fmt::format("'{}' = '{}' lacks the field '{}'", s.key_path(key), echo(text), f), fix);
    return text;
  }

  void require_pow2(const std::string& key_path, std::uint64_t v, const char* why) {
    if (!is_pow2(v))
      fail(mark_of(key_path), fmt::format("'{}' = {} is not a power of two", key_path, v),
           fmt::format("  {}; allowed: 1, 2, 4, 8, ...", why));
  }

  void load_ddr(const Section& top, DdrConfig& d) {
    Section s = open(top, "ddr");
    d.standard = kStandards[get_enum(s, "standard", kStandards, "DDR standard")];
    d.data_rate_mtps = get_int(s, "data_rate_mtps", 1);
    // tCK = 2000 / data_rate_mtps ns: at 20000 MT/s it is 100 ps, the resolution the
    // timing model converts to; beyond that tCK rounds away (0-cycle transfers).
    if (d.data_rate_mtps > 20000)
      fail(vmark(s, "data_rate_mtps"),
           fmt::format("'ddr.data_rate_mtps' = {} MT/s is out of range: at most 20000", d.data_rate_mtps),
           "  tCK = 2000 / data_rate_mtps ns would be under 0.1 ns (today's fastest DRAM, HBM3E/GDDR7, is below "
           "20000 MT/s per pin); allowed: 1 to 20000, e.g. 3200 for DDR4-3200");
    d.channels = get_int(s, "channels", 1);
    d.ranks = get_int(s, "ranks", 1);
    d.bank_groups = get_int(s, "bank_groups", 1);
    d.banks_per_group = get_int(s, "banks_per_group", 1);
    d.rows = get_int64(s, "rows", 1);
    d.columns = get_int64(s, "columns", 1);
    d.device_width = get_int(s, "device_width", 1);
    d.bus_width_bits = get_int(s, "bus_width_bits", 1);
    d.burst_length = get_int(s, "burst_length", 1);
    if (s.has("address_mapping")) d.address_mapping = get_mapping(s, "address_mapping");
    if (s.has("page_policy"))
      d.page_policy = static_cast<PagePolicy>(get_enum(s, "page_policy", kPagePolicies, "page_policy"));
    if (s.has("queue_depth")) d.queue_depth = get_int(s, "queue_depth", 1);

    // Each field of the address mapping is a bit field, so every count it decodes must be
    // a power of two (otherwise some bit patterns name nothing and the mapping is not onto).
    {
      // Capacity = channels x ranks x bank_groups x banks x rows x columns x bus bytes must be
      // a 64-bit byte count; 2^50 B (1 PiB) is far above any real memory system.
      unsigned __int128 cap = 1;
      for (std::int64_t f : {std::int64_t(d.channels), std::int64_t(d.ranks), std::int64_t(d.bank_groups),
                             std::int64_t(d.banks_per_group), d.rows, d.columns, std::int64_t(d.bus_width_bits / 8)}) {
        cap *= static_cast<unsigned __int128>(f > 0 ? f : 1);
        if (cap > (static_cast<unsigned __int128>(1) << 100)) break;  // already far too large
      }
      if (cap > (static_cast<unsigned __int128>(1) << 50))
        fail(mark_of("ddr.rows"),
             "the DDR capacity channels x ranks x bank_groups x banks_per_group x rows x columns x bus_width_bits/8 "
             "is out of range: more than 2^50 bytes (1 PiB)",
             "  byte addresses and capacities are 64-bit counts; check 'ddr.rows' and 'ddr.columns' (e.g. 65536 "
             "rows x 1024 columns for DDR4 8 Gb x8)");
    }
    const char* bits = "the address mapping decodes this count as a bit field";
    require_pow2("ddr.channels", std::uint64_t(d.channels), bits);
    require_pow2("ddr.ranks", std::uint64_t(d.ranks), bits);
    require_pow2("ddr.bank_groups", std::uint64_t(d.bank_groups), bits);
    require_pow2("ddr.banks_per_group", std::uint64_t(d.banks_per_group), bits);
    require_pow2("ddr.rows", std::uint64_t(d.rows), bits);
    require_pow2("ddr.columns", std::uint64_t(d.columns), bits);
    require_pow2("ddr.device_width", std::uint64_t(d.device_width), "devices are x4, x8, x16, x32, ...");
    require_pow2("ddr.burst_length", std::uint64_t(d.burst_length), "burst lengths are 2, 4, 8, 16, 32");
    if (d.bus_width_bits % 8 != 0 || !is_pow2(std::uint64_t(d.bus_width_bits / 8)))
      fail(mark_of("ddr.bus_width_bits"),
           fmt::format("'ddr.bus_width_bits' = {} is not a power-of-two number of bytes", d.bus_width_bits),
           "  the byte offset within a beat is the mapping's lowest bit field; allowed: 8, 16, 32, 64, 128, ...");
    if (d.bus_width_bits % d.device_width != 0)
      fail(mark_of("ddr.device_width"),
           fmt::format("'ddr.device_width' = {} does not divide 'ddr.bus_width_bits' = {}", d.device_width,
                       d.bus_width_bits),
           "  a rank is bus_width_bits / device_width devices side by side; use e.g. x8 devices on a 64-bit bus");
    if (d.burst_length < 2)
      fail(mark_of("ddr.burst_length"), fmt::format("'ddr.burst_length' = {} is below 2", d.burst_length),
           "  a double-data-rate burst moves two beats per clock; allowed: 2, 4, 8, 16, 32");
    if (d.columns < d.burst_length)
      fail(mark_of("ddr.columns"),
           fmt::format("'ddr.columns' = {} is smaller than one burst ('ddr.burst_length' = {})", d.columns,
                       d.burst_length),
           "  a row holds whole bursts; columns counts device columns (e.g. 1024 for DDR4 x8)");

    // Write-drain watermarks: missing keys resolve to 3/4 and 1/4 of the queue depth.
    if (s.has("write_high_watermark"))
      d.write_high_watermark = get_int(s, "write_high_watermark", 1);
    else
      d.write_high_watermark = std::max(1, int(std::int64_t(d.queue_depth) * 3 / 4));  // 64-bit: depth may be INT_MAX
    if (s.has("write_low_watermark"))
      d.write_low_watermark = get_int(s, "write_low_watermark", 1);  // 0 means "derived" in the struct
    else
      d.write_low_watermark = std::min(d.queue_depth / 4, d.write_high_watermark - 1);
    if (d.write_high_watermark > d.queue_depth)
      fail(mark_of("ddr.write_high_watermark"),
           fmt::format("'ddr.write_high_watermark' = {} exceeds 'ddr.queue_depth' = {}", d.write_high_watermark,
                       d.queue_depth),
           fmt::format("  allowed: 1 to {} (omit it for 3/4 of the queue depth)", d.queue_depth));
    if (d.write_low_watermark >= d.write_high_watermark)
      fail(s.has("write_low_watermark") ? mark_of("ddr.write_low_watermark") : mark_of("ddr.write_high_watermark"),
           fmt::format("'ddr.write_low_watermark' = {} is not below 'ddr.write_high_watermark' = {}",
                       d.write_low_watermark, d.write_high_watermark),
           "  writes drain from the high mark down to the low mark; allowed: 1 <= low < high");

    load_timing(s, d);
  }

  void load_timing(const Section& ddr, DdrConfig& d) {
    Section s = open(ddr, "timing");
    DdrTimingCk& t = d.timing;
    t.cl = get_int(s, "CL", 1);
    t.cwl = get_int(s, "CWL", 1);
    t.t_rcd = get_int(s, "tRCD", 1);
    t.t_rp = get_int(s, "tRP", 1);
    t.t_ras = get_int(s, "tRAS", 1);
    t.t_rc = get_int(s, "tRC", 1);
    t.t_ccd_s = get_int(s, "tCCD_S", 1);
    t.t_ccd_l = get_int(s, "tCCD_L", 1);
    t.t_rrd_s = get_int(s, "tRRD_S", 1);
    t.t_rrd_l = get_int(s, "tRRD_L", 1);
    t.t_faw = get_int(s, "tFAW", 1);
    t.t_wr = get_int(s, "tWR", 1);
    t.t_wtr_s = get_int(s, "tWTR_S", 1);
    t.t_wtr_l = get_int(s, "tWTR_L", 1);
    t.t_rtp = get_int(s, "tRTP", 1);
    t.t_rfc = get_int(s, "tRFC", 1);
    t.t_refi = get_int(s, "tREFI", 1);
    if (s.has("tRTRS")) t.t_rtrs = get_int(s, "tRTRS", 0);

    const std::string p = "ddr.timing.";
    // A row stays open at least tRAS and needs tRP to close: ACT-to-ACT on a bank >= tRAS + tRP
    // (JESD79-4 and JESD79-3 define tRC = tRAS + tRP at every speed bin).
    const std::int64_t ras_rp = std::int64_t(t.t_ras) + t.t_rp;  // 64-bit: each may be INT_MAX
    if (t.t_rc < ras_rp)
      fail(mark_of(p + "tRC"),
           fmt::format("timing cannot hold: tRC = {} < tRAS + tRP = {} + {} = {} tCK", t.t_rc, t.t_ras, t.t_rp,
                       ras_rp),
           fmt::format("  a bank's activate-to-activate time covers the open row (tRAS) and its precharge (tRP); "
                       "set tRC >= {}",
                       ras_rp));
    if (t.t_ras < t.t_rcd)
      fail(mark_of(p + "tRAS"),
           fmt::format("timing cannot hold: tRAS = {} < tRCD = {} tCK", t.t_ras, t.t_rcd),
           fmt::format("  a row must stay open at least until its first column command; set tRAS >= {}", t.t_rcd));
    struct Pair {
      const char* s_name;
      const char* l_name;
      int s, l;
    };
    for (const Pair& pr : {Pair{"tCCD_S", "tCCD_L", t.t_ccd_s, t.t_ccd_l}, Pair{"tRRD_S", "tRRD_L", t.t_rrd_s, t.t_rrd_l},
                           Pair{"tWTR_S", "tWTR_L", t.t_wtr_s, t.t_wtr_l}}) {
      if (pr.l < pr.s)
        fail(mark_of(p + pr.l_name),
             fmt::format("timing cannot hold: {} = {} < {} = {} tCK", pr.l_name, pr.l, pr.s_name, pr.s),
             fmt::format("  the same-bank-group (_L) spacing is never shorter than the different-group (_S) one; "
                         "without bank groups set both equal (set {} >= {})",
                         pr.l_name, pr.s));
    }
    if (t.t_faw < t.t_rrd_l)
      fail(mark_of(p + "tFAW"),
           fmt::format("timing cannot hold: tFAW = {} < tRRD_L = {} tCK", t.t_faw, t.t_rrd_l),
           fmt::format("  the four-activate window spans at least one activate-to-activate gap; set tFAW >= {}",
                       t.t_rrd_l));
    if (std::int64_t(t.t_ccd_s) * 2 < d.burst_length)
      fail(mark_of(p + "tCCD_S"),
           fmt::format("timing cannot hold: tCCD_S = {} tCK is shorter than one burst (burst_length {} / 2 = {} tCK)",
                       t.t_ccd_s, d.burst_length, d.burst_length / 2),
           fmt::format("  back-to-back bursts cannot overlap on the data bus; set tCCD_S >= {}", d.burst_length / 2));
    if (t.t_refi <= t.t_rfc)
      fail(mark_of(p + "tREFI"),
           fmt::format("timing cannot hold: tREFI = {} <= tRFC = {} tCK (the device would refresh forever)", t.t_refi,
                       t.t_rfc),
           "  tREFI is the average refresh interval (7.8 us for DDR3/DDR4, 3.9 us for LPDDR4), tRFC one refresh's "
           "duration; check the units (both in tCK)");
    if (auto issue = detail::jedec_issue(d)) fail(mark_of(issue->key), issue->what, issue->hint);
  }

  /// Picks the default sram.bank_interleave_bytes (kDefaultSramInterleaveBytes, or contiguous
  /// banks when the bank size is not a multiple of it) or checks the given one divides the
  /// bank size, so every bank holds whole granules (docs/config.md "sram").
  void check_sram_interleave(SramConfig& sram) {
    const std::uint64_t bank = sram.bank_bytes();
    if (sram.bank_interleave_bytes == 0) {
      sram.bank_interleave_bytes = bank % kDefaultSramInterleaveBytes == 0 ? kDefaultSramInterleaveBytes : bank;
      return;
    }
    const std::uint64_t g = sram.bank_interleave_bytes;
    if (g > bank)
      fail(mark_of("sram.bank_interleave_bytes"),
           fmt::format("'sram.bank_interleave_bytes' = {} bytes is larger than one bank ('sram.capacity' {} / "
                       "'sram.banks' {} = {} bytes)",
                       g, sram.capacity_bytes, sram.banks, bank),
           fmt::format("  a granule must fit in a bank; use at most {} (contiguous banks) or a small power of two "
                       "such as 64 (fine interleaving)",
                       bank));
    if (bank % g != 0)
      fail(mark_of("sram.bank_interleave_bytes"),
           fmt::format("'sram.bank_interleave_bytes' = {} bytes does not divide the bank size ('sram.capacity' {} / "
                       "'sram.banks' {} = {} bytes)",
                       g, sram.capacity_bytes, sram.banks, bank),
           fmt::format("  every bank holds whole granules; use a divisor of {} such as 64, or {} for contiguous banks",
                       bank, bank));
  }

  void check_cross_section(HwConfig& cfg) {
    const std::uint64_t tile = cfg.min_sram_tile_bytes();
    if (cfg.sram.capacity_bytes < tile) {
      const auto& m = cfg.mac_array;
      fail(mark_of("sram.capacity"),
           fmt::format("'sram.capacity' = {} bytes is smaller than one minimal tile of {} bytes", cfg.sram.capacity_bytes,
                       tile),
           fmt::format("  minimal tile = 2 x rows x cols x dtype + rows x dtype + cols x 4 = 2 x {} x {} x {} + {} x {} + "
                       "{} x 4 = {} bytes ({} x {} {}); use a larger SRAM or a smaller array",
                       m.rows, m.cols, dtype_bytes(m.dtype), m.rows, dtype_bytes(m.dtype), m.cols, tile, m.rows, m.cols,
                       to_string(m.dtype)));
    }
    if (cfg.sram.capacity_bytes % std::uint64_t(cfg.sram.banks) != 0)
      fail(mark_of("sram.banks"),
           fmt::format("'sram.capacity' = {} bytes does not split evenly into 'sram.banks' = {}", cfg.sram.capacity_bytes,
                       cfg.sram.banks),
           "  every bank has the same size; choose a bank count that divides the capacity");
    check_sram_interleave(cfg.sram);
    const int ddr_burst = cfg.ddr.burst_bytes();
    if (cfg.dma.burst_bytes % ddr_burst != 0) {
      const YAML::Mark& m = mark_of("dma.burst_bytes");
      fail(m.is_null() ? mark_of("ddr.burst_length") : m,
           fmt::format("'dma.burst_bytes' = {} is not a multiple of the DDR burst of {} bytes (bus {} bits / 8 x "
                       "burst_length {})",
                       cfg.dma.burst_bytes, ddr_burst, cfg.ddr.bus_width_bits, cfg.ddr.burst_length),
           fmt::format("  a DRAM moves whole bursts; set dma.burst_bytes to {} or a multiple of it", ddr_burst));
    }
  }

  std::string source_;
  std::map<std::string, YAML::Mark> marks_;  ///< dotted key path -> value mark (lookup only)
};

/// Shortest text that reads back as the same double (fmt's "{}" is round-trip exact).
std::string num(double v) { return fmt::format("{}", v); }

/// A YAML double-quoted scalar (JSON escaping is valid YAML).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(ch));
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

}  // namespace

std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& allowed) {
  return closest(word, allowed);
}

const std::vector<HwConfigSection>& hw_config_schema() {
  static const std::vector<HwConfigSection> kSchema = {
      {"", {"npu", "mac_array", "sram", "act_unit", "ddr"}, {"dma", "energy", "host"}},
      {"npu", {"name", "clock_mhz"}, {}},
      {"mac_array", {"rows", "cols", "dataflow", "dtype"}, {"macs_per_pe_per_cycle", "depthwise_mapping"}},
      {"sram", {"capacity", "bytes_per_cycle"}, {"banks", "latency_cycles", "bank_interleave_bytes"}},
      {"act_unit", {"lanes"}, {"latency_cycles"}},
      {"act_unit.latency_cycles", {}, act_latency_keys()},
      {"dma", {}, {"burst_bytes", "max_outstanding", "requests_per_cycle"}},
      {"ddr",
       {"standard", "data_rate_mtps", "channels", "ranks", "bank_groups", "banks_per_group", "rows", "columns",
        "device_width", "bus_width_bits", "burst_length", "timing"},
       {"address_mapping", "page_policy", "queue_depth", "write_high_watermark", "write_low_watermark"}},
      {"ddr.timing",
       {"CL", "CWL", "tRCD", "tRP", "tRAS", "tRC", "tCCD_S", "tCCD_L", "tRRD_S", "tRRD_L", "tFAW", "tWR", "tWTR_S",
        "tWTR_L", "tRTP", "tRFC", "tREFI"},
       {"tRTRS"}},
      {"energy", {"pj_per_mac", "pj_per_sram_byte", "pj_per_ddr_byte"}, {}},
      {"host", {}, {"bandwidth_gbps", "gops"}},
  };
  return kSchema;
}

std::optional<std::uint64_t> parse_size_bytes(const std::string& text_in) {
  const std::string text = trim(text_in);
  std::size_t i = 0;
  unsigned __int128 mantissa = 0;
  std::uint64_t denominator = 1;
  bool digits = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    mantissa = mantissa * 10 + unsigned(text[i] - '0');
    if (mantissa > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
    digits = true;
    ++i;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    bool frac = false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (denominator > 1000000000000000000ULL / 10) return std::nullopt;
      mantissa = mantissa * 10 + unsigned(text[i] - '0');
      denominator *= 10;
      frac = true;
      ++i;
    }
    if (!frac) return std::nullopt;
    if (mantissa > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
  }
  if (!digits) return std::nullopt;
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string unit = text.substr(i);
  static const std::vector<std::pair<std::string, std::uint64_t>> kUnits = {
      {"", 1},
      {"B", 1},
      {"KiB", 1ULL << 10},
      {"MiB", 1ULL << 20},
      {"GiB", 1ULL << 30},
      {"TiB", 1ULL << 40},
      {"kB", 1000ULL},
      {"KB", 1000ULL},
      {"MB", 1000ULL * 1000},
      {"GB", 1000ULL * 1000 * 1000},
      {"TB", 1000ULL * 1000 * 1000 * 1000},
  };
  for (const auto& [name, mult] : kUnits) {
    if (unit != name) continue;
    const unsigned __int128 scaled = mantissa * mult;
    if (scaled % denominator != 0) return std::nullopt;  // not a whole number of bytes
    const unsigned __int128 bytes = scaled / denominator;
    if (bytes > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
    return std::uint64_t(bytes);
  }
  return std::nullopt;
}

std::uint64_t host_cycles(const HwConfig& hw, std::uint64_t macs, std::uint64_t bytes) {
  // Cycles = seconds x clock_mhz x 1e6 with seconds = bytes / (GB/s x 1e9) or macs / (G/s x 1e9);
  // the 1e6 / 1e9 is folded first so that exact quotients stay exact in long double. The
  // relative 1e-12 keeps a quotient such as 1000000.0000000001 (rounding noise) from
  // ceil-ing up to the next cycle.
  const long double mhz = hw.npu.clock_mhz;
  auto cycles = [mhz](std::uint64_t amount, double per_ns_giga) -> long double {
    if (amount == 0 || !(per_ns_giga > 0)) return 0.0L;
    return (long double)amount * mhz / ((long double)per_ns_giga * 1000.0L);
  };
  const long double t = std::max(cycles(bytes, hw.host.bandwidth_gbps), cycles(macs, hw.host.gops));
  if (t <= 0) return 0;
  return std::uint64_t(std::ceil(t * (1.0L - 1e-12L)));
}

HwConfig parse_hw_config(const std::string& yaml_text, const std::string& source) {
  return Loader(source).load(yaml_text);
}

std::string config_label(const HwConfig& hw) {
  const std::filesystem::path p(hw.source);
  const std::string ext = p.extension().string();
  if (ext != ".yaml" && ext != ".yml") return hw.npu.name;
  std::string stem = p.stem().string();
  if (stem.empty()) return hw.npu.name;
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  return stem;
}

HwConfig load_hw_config(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(fmt::format("{}: error: is a directory, expected a file\n"
                                  "  give the hardware config YAML file, e.g. configs/edge-npu-ddr4.yaml",
                                  path));
  }
  require_regular_file(path, "hardware config YAML");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError(fmt::format("{}: error: cannot open the hardware config file\n"
                                  "  check the path (relative paths are relative to the working directory); "
                                  "presets are in configs/*.yaml",
                                  path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hw_config(text.str(), path);
}

std::string hw_config_to_yaml(const HwConfig& c) {
  std::string o;
  auto line = [&o](const std::string& s) {
    o += s;
    o += '\n';
  };
  line("npu:");
  line("  name: " + quoted(c.npu.name));
  line("  clock_mhz: " + num(c.npu.clock_mhz));
  line("mac_array:");
  line(fmt::format("  rows: {}", c.mac_array.rows));
  line(fmt::format("  cols: {}", c.mac_array.cols));
  line(fmt::format("  dataflow: {}", to_string(c.mac_array.dataflow)));
  line(fmt::format("  dtype: {}", to_string(c.mac_array.dtype)));
  line(fmt::format("  macs_per_pe_per_cycle: {}", c.mac_array.macs_per_pe_per_cycle));
  line(fmt::format("  depthwise_mapping: {}", to_string(c.mac_array.depthwise_mapping)));
  line("sram:");
  line(fmt::format("  capacity: {}  # bytes", c.sram.capacity_bytes));
  line(fmt::format("  banks: {}", c.sram.banks));
  line(fmt::format("  bytes_per_cycle: {}", c.sram.bytes_per_cycle));
  line(fmt::format("  latency_cycles: {}", c.sram.latency_cycles));
  line(fmt::format("  bank_interleave_bytes: {}", c.sram.bank_interleave_bytes));
  line("act_unit:");
  line(fmt::format("  lanes: {}", c.act_unit.lanes));
  line("  latency_cycles:");
  line(fmt::format("    default: {}", c.act_unit.default_latency_cycles));
  for (const auto& op : act_latency_keys()) {  // fixed order, not map order
    auto it = c.act_unit.op_latency_cycles.find(op);
    if (it != c.act_unit.op_latency_cycles.end()) line(fmt::format("    {}: {}", op, it->second));
  }
  line("dma:");
  line(fmt::format("  burst_bytes: {}", c.dma.burst_bytes));
  // 0 = derived (Little's law / one port per channel): leave the key out so that a reload
  // derives it again from the (possibly edited) DDR and SRAM sections.
  if (c.dma.max_outstanding > 0)
    line(fmt::format("  max_outstanding: {}", c.dma.max_outstanding));
  else
    line("  # max_outstanding: derived per DDR channel by Little's law (docs/timing.md, \"DMA\")");
  if (c.dma.requests_per_cycle > 0)
    line(fmt::format("  requests_per_cycle: {}", c.dma.requests_per_cycle));
  else
    line("  # requests_per_cycle: derived, = ddr.channels");
  const DdrConfig& d = c.ddr;
  line("ddr:");
  line("  standard: " + d.standard);
  line(fmt::format("  data_rate_mtps: {}", d.data_rate_mtps));
  line(fmt::format("  channels: {}", d.channels));
  line(fmt::format("  ranks: {}", d.ranks));
  line(fmt::format("  bank_groups: {}", d.bank_groups));
  line(fmt::format("  banks_per_group: {}", d.banks_per_group));
  line(fmt::format("  rows: {}", d.rows));
  line(fmt::format("  columns: {}", d.columns));
  line(fmt::format("  device_width: {}", d.device_width));
  line(fmt::format("  bus_width_bits: {}", d.bus_width_bits));
  line(fmt::format("  burst_length: {}", d.burst_length));
  line("  address_mapping: " + d.address_mapping);
  line(fmt::format("  page_policy: {}", to_string(d.page_policy)));
  line(fmt::format("  queue_depth: {}", d.queue_depth));
  line(fmt::format("  write_high_watermark: {}", d.write_high_watermark));
  if (d.write_low_watermark > 0)
    line(fmt::format("  write_low_watermark: {}", d.write_low_watermark));
  else  // queue_depth < 4: the derived low mark is 0, which the key itself does not accept
    line("  # write_low_watermark: 0 (derived: queue_depth / 4)");
  const DdrTimingCk& t = d.timing;
  line("  timing:  # DRAM clocks (tCK)");
  const std::pair<const char*, int> timings[] = {
      {"CL", t.cl},         {"CWL", t.cwl},       {"tRCD", t.t_rcd},    {"tRP", t.t_rp},      {"tRAS", t.t_ras},
      {"tRC", t.t_rc},      {"tCCD_S", t.t_ccd_s}, {"tCCD_L", t.t_ccd_l}, {"tRRD_S", t.t_rrd_s}, {"tRRD_L", t.t_rrd_l},
      {"tFAW", t.t_faw},    {"tWR", t.t_wr},      {"tWTR_S", t.t_wtr_s}, {"tWTR_L", t.t_wtr_l}, {"tRTP", t.t_rtp},
      {"tRFC", t.t_rfc},    {"tREFI", t.t_refi},  {"tRTRS", t.t_rtrs}};
  for (const auto& [name, v] : timings) line(fmt::format("    {}: {}", name, v));
  if (c.energy.present) {
    line("energy:");
    line("  pj_per_mac: " + num(c.energy.pj_per_mac));
    line("  pj_per_sram_byte: " + num(c.energy.pj_per_sram_byte));
    line("  pj_per_ddr_byte: " + num(c.energy.pj_per_ddr_byte));
  }
  line("host:");
  line("  bandwidth_gbps: " + num(c.host.bandwidth_gbps));
  line("  gops: " + num(c.host.gops));
  return o;
}

}  // namespace npu
