// The hardware-config loader's machinery, shared by the one file per config section
// (load/<section>_section.cpp) and the top-level loader (load/load_hw_config.cpp).
//
// Errors: every problem throws npu::ConfigError with
//   "FILE:LINE:COL: error: <what>\n  <hint>"
// where LINE:COL is yaml-cpp's 0-based Mark printed 1-based, pointing at the offending key
// or value (at the enclosing map for a missing key).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "npu/hw_config/hw_config.hpp"

namespace npu::config_loader {

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

/// Reads one config text: opens its maps against hw_config_schema() and reads typed values,
/// remembering where each value was (for messages about a value that only a later check,
/// across keys or sections, finds wrong).
class Loader {
 public:
  explicit Loader(std::string source) : source_(std::move(source)) {}

  /// The whole config (load/load_hw_config.cpp): every section, then the checks across them.
  HwConfig load(const std::string& text);
  /// The same from a parsed document (parse_hw_config_node).
  HwConfig load_root(const YAML::Node& root);

  /// Write watermarks the file leaves out are stored as 0 ("derived from queue_depth where
  /// used", DdrConfig) instead of their resolved values; for the DDR presets (ddr_presets.cpp),
  /// whose callers may change queue_depth afterwards.
  void keep_unset_watermarks() { resolve_watermarks_ = false; }
  bool resolves_watermarks() const { return resolve_watermarks_; }

  [[noreturn]] void fail(const YAML::Mark& m, const std::string& what, const std::string& hint) const;

  /// Where the value of a dotted key was (a null mark when it was never read).
  const YAML::Mark& mark_of(const std::string& key_path) const;
  const YAML::Mark& vmark(const Section& s, const std::string& key) const { return mark_of(s.key_path(key)); }

  /// The document root, with the keys hw_config_schema() allows at path "".
  Section open(const YAML::Node& root, const std::string& path);
  /// The map under `key` of `parent`, with the keys hw_config_schema() allows there.
  Section open(const Section& parent, const std::string& key);

  // Typed values (load/loader_values.cpp). Each throws ConfigError naming the key, the
  // value and what is allowed.
  std::string get_string(const Section& s, const std::string& key);
  /// An integer key in [min_value, the smaller of type_max and the key's limit
  /// (hw_config_rules.cpp)]; every message names the range the key really allows.
  std::int64_t get_int64(const Section& s, const std::string& key, std::int64_t min_value,
                         std::int64_t type_max = std::numeric_limits<std::int64_t>::max());
  int get_int(const Section& s, const std::string& key, int min_value);
  double get_positive_double(const Section& s, const std::string& key, const char* unit);
  std::uint64_t get_size(const Section& s, const std::string& key);
  int int_size(const Section& s, const std::string& key);
  std::size_t get_enum(const Section& s, const std::string& key, const std::vector<std::string>& allowed,
                       const char* what);
  /// Parses an address mapping such as "rochrababgco" (MSB -> LSB, two-letter fields).
  std::string get_mapping(const Section& s, const std::string& key);
  void require_pow2(const std::string& key_path, std::uint64_t v, const char* why);

 private:
  Section open_node(const YAML::Node& node, const std::string& path, const std::vector<std::string>& required,
                    const std::vector<std::string>& optional, const YAML::Mark& key_mark);
  static const HwConfigSection& schema_section(const std::string& path);
  /// The value node of a present key; records its mark for cross-field messages.
  const YAML::Node& value(const Section& s, const std::string& key);
  std::string scalar(const Section& s, const std::string& key, const char* expected);
  static bool size_too_large(const std::string& text);
  static std::string max_size_text(const std::string& key_path);

  std::string source_;
  std::map<std::string, YAML::Mark> marks_;  ///< dotted key path -> value mark (lookup only)
  bool resolve_watermarks_ = true;
};

// Message pieces (load/loader.cpp).
std::string join(const std::vector<std::string>& items, const char* sep = ", ");
/// "  did you mean 'X'? (allowed: ...)" when `word` is close to an allowed name, else "  allowed: ...".
std::string choice_hint(const std::string& word, const std::vector<std::string>& allowed);
/// A YAML node as a message shows it: "an empty value", "a list", "a map", "'<scalar>'".
std::string describe(const YAML::Node& n);
bool is_pow2(std::uint64_t v);

// One reader per config section, in the order the top-level loader calls them; each opens
// its section under `top` and fills its struct.
void load_npu_section(Loader& in, const Section& top, NpuSection& npu);
void load_mac_array_section(Loader& in, const Section& top, MacArrayConfig& mac);
/// The mac_array keys of decode and LLM precisions (load/mac_array_llm_keys.cpp): gemv_mapping,
/// gemv_max_m, weight_dtype, weight_group, kv_cache_dtype. Called by load_mac_array_section
/// after `dtype` is read (the weight dtype's rules depend on it).
void load_mac_array_llm_keys(Loader& in, const Section& s, MacArrayConfig& mac);
void load_sram_section(Loader& in, const Section& top, SramConfig& sram);
void load_act_unit_section(Loader& in, const Section& top, ActUnitConfig& act);
void load_dma_section(Loader& in, const Section& top, DmaConfig& dma);
void load_ddr_section(Loader& in, const Section& top, DdrConfig& d);
/// `ddr.timing` and the rules its values must satisfy together (called by load_ddr_section).
void load_ddr_timing_section(Loader& in, const Section& ddr, DdrConfig& d);
void load_energy_section(Loader& in, const Section& top, EnergyConfig& energy);
void load_host_section(Loader& in, const Section& top, HostConfig& host);
void load_gemmini_mac_array_keys(Loader& in, const Section& s, MacArrayConfig& mac);
void load_accumulator_section(Loader& in, const Section& top, AccumulatorConfig& acc);
void load_memory_section(Loader& in, const Section& top, MemoryConfig& mem);
/// Every section present (and every required one) in the order above (load/load_sections.cpp).
void load_sections(Loader& in, const Section& top, HwConfig& cfg);
/// The rules between sections (SRAM tile and banks, DMA burst vs DDR burst); fills in the
/// default sram.bank_interleave_bytes.
void check_cross_section(Loader& in, HwConfig& cfg);

}  // namespace npu::config_loader
