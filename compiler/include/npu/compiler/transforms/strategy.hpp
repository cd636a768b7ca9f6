// Fusion strategies: named, ordered lists of passes. Built in: none, conv-bn, conv-act,
// conv-bn-act, residual. Users may define more in YAML (load_strategy_file).
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/backend/tiling/tiling.hpp"

namespace npu::compiler {

struct Strategy {
  std::string name;                 ///< e.g. "conv-bn-act"
  std::vector<std::string> passes;  ///< pass names (pass_names()), run in this order
  std::string source = "<builtin>"; ///< file it came from, for messages
  /// Depth-first overlap modes the stack planner may choose (key `overlap: auto | recompute |
  /// cache`; only with fuse-layers). Auto: per stack, by the estimates.
  OverlapPolicy overlap = OverlapPolicy::Auto;
  /// Weight of DDR traffic in the depth-first planner's choice of stacks: it minimises
  /// estimated time + traffic_weight x DDR bytes / DDR bandwidth (key `traffic_weight: 1`;
  /// only with fuse-layers; 0: the fastest estimate). docs/depth_first.md.
  double traffic_weight = kDefaultTrafficWeight;
  /// True when `pass` is one of `passes`.
  bool uses(const std::string& pass) const;
};

/// Why `name` is not a valid strategy name ("is empty", "contains a space", ...), or "" if
/// it is valid. Valid: non-empty, only letters, digits, '-', '_' and '.' (the name is written
/// into .npuasm programs and used in output file names).
std::string strategy_name_problem(const std::string& name);

/// Names of the built-in strategies, in increasing order of fusion.
std::vector<std::string> builtin_strategy_names();

/// A built-in strategy:
///   none         no passes: BN is an ACT scale_shift, every activation its own ACT layer
///   conv-bn      fold-batchnorm
///   conv-act     fuse-bias, hoist-activation, fuse-activation. BN is not folded, so in
///                Conv -> BN -> Relu the BN sits between the Conv and the Relu and nothing
///                fuses (declined, with the reason); only activations after a Conv/Gemm fuse.
///   conv-bn-act  fold-batchnorm, fuse-bias, hoist-activation, fuse-activation
///   residual     conv-bn-act's passes, fuse-residual, fuse-se-gate, fuse-add-layernorm
///   depth-first  residual's passes, fuse-layers
/// Throws ConfigError "unknown strategy 'X' (allowed: ...)" for any other name, and
/// "empty strategy name" for "".
Strategy builtin_strategy(const std::string& name);

/// Parse a strategy from YAML text:
///   name: my-strategy
///   passes: [fold-batchnorm, fuse-activation]
///   overlap: cache            # optional, with fuse-layers only: auto (default), recompute, cache
///   traffic_weight: 0         # optional, with fuse-layers only: a number in [0, 100] (default 1)
/// `source` names the file in messages. Throws ConfigError "SOURCE:LINE:COL: error: ..."
/// for malformed YAML, a missing or unknown key, an empty name or one with characters other
/// than letters, digits, '-', '_', '.', an unknown pass (listing the allowed pass names), or
/// a pass listed twice.
Strategy parse_strategy_yaml(const std::string& yaml_text, const std::string& source = "<string>");

/// parse_strategy_yaml on a file; ConfigError if it cannot be read.
Strategy load_strategy_file(const std::string& path);

}  // namespace npu::compiler
