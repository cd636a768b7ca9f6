// Content keys of experiment and sweep cells (docs/sweep.md, "Cell keys"): a cell is stored
// under a hash of its resolved inputs, so shards share one folder without clobbering, a
// re-run skips finished cells and `npu report` recognises the same cell in two folders.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/transforms/strategy.hpp"

namespace npu::sim {

/// FNV-1a, 64 bit (Fowler, Noll, Vo; IETF draft-eastlake-fnv-21, section 2: offset basis
/// 14695981039346656037, prime 1099511628211): for each byte, h ^= byte, h *= prime.
/// Continues from `h` so that a long input can be hashed in pieces.
constexpr std::uint64_t kFnv1a64Offset = 14695981039346656037ULL;
std::uint64_t fnv1a64(std::string_view data, std::uint64_t h = kFnv1a64Offset);

/// 16 lower-case hex digits, most significant first.
std::string hex64(std::uint64_t v);

/// The resolved inputs of one cell, each as canonical text.
struct CellIdentity {
  std::string config_yaml;  ///< the config as hw_config_to_yaml writes it (defaults filled in)
  std::string model;        ///< model_identity()
  std::string strategy;     ///< strategy_identity()
  std::string options;      ///< options_identity()
  std::string tool;         ///< tool_identity()
};

/// 16 hex digits: FNV-1a 64 of every field of `id`, each preceded by its name and byte
/// length (so no two different identities concatenate to the same text).
std::string cell_key(const CellIdentity& id);

/// As cell_key without the strategy: cells with the same group share their `none` baseline
/// (speedup_vs_none, ddr_saved_pct).
std::string group_key(const CellIdentity& id);

/// The FNV-1a state of cell_key() after its config field: a sweep keeps this 8-byte state per
/// config point instead of the point's resolved YAML (about 3 KB), and finishes every key of
/// the point with cell_key_from (docs/sweep.md "Size limit and planning progress").
std::uint64_t cell_key_config_state(const std::string& config_yaml);

/// cell_key(id) for an identity whose config field gave `config_state`
/// (cell_key_config_state(id.config_yaml)); id.config_yaml is not read. Equal to cell_key(id).
std::string cell_key_from(std::uint64_t config_state, const CellIdentity& id);

/// "zoo:<name>:<hex>" with the hash of the zoo graph's structure (nodes, attributes, tensor
/// shapes and types; compiler/zoo.hpp builds it in about a millisecond), or
/// "onnx:<bytes>:<hex>" with the hash of the .onnx file's bytes (external-data files are not
/// read: timing never depends on weight values). Throws ConfigError when the file cannot be read.
std::string model_identity(const std::string& model_arg);

/// "<name>:<pass>,<pass>,...[;overlap=M][;traffic_weight=W]": what the compiler runs (a
/// strategy file's comments and layout do not matter); the depth-first keys appear only when
/// they differ from their defaults (overlap auto, traffic_weight 1).
std::string strategy_identity(const compiler::Strategy& s);

/// The options every child of an experiment or sweep gets, canonical (sorted, deduplicated):
/// "traces=...;input_shapes=...;dynamic_size=N;npu_only=0|1".
std::string options_identity(std::vector<std::string> traces, std::vector<std::string> input_shapes,
                             std::int64_t dynamic_size, bool npu_only);

/// "npu <version> exe:<hex>": the project version and the FNV-1a 64 of this executable's
/// bytes (/proc/self/exe), so a rebuilt tool with different code gives new keys. Computed once.
const std::string& tool_identity();

}  // namespace npu::sim
