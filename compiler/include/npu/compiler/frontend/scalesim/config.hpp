// SCALE-Sim compatibility: a reader for SCALE-Sim's .cfg (our own, small), the array that
// sim/'s SCALE-Sim compute model (npu/sim/run/scalesim.hpp) runs a topology on. Format and
// quirks: ../shared/anchors/scalesim/README.md.
#pragma once

#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

/// The parts of a SCALE-Sim .cfg the compute model needs.
struct ScaleSimConfig {
  std::string source;
  std::string run_name;
  int array_height = 0;  ///< ArrayHeight: rows R
  int array_width = 0;   ///< ArrayWidth: columns C
  Dataflow dataflow = Dataflow::OutputStationary;
  std::string interface_bandwidth = "CALC";  ///< CALC | USER
  bool sparsity_support = false;             ///< [sparsity] SparsitySupport: true (v3; not modelled here)
  double ifmap_sram_kb = 0, filter_sram_kb = 0, ofmap_sram_kb = 0;
};

/// Reads an INI-style .cfg ([general], [architecture_presets], [run_presets], ...; `key: value`
/// or `key = value`, keys case-insensitive, `#`/`;` comments). Throws ConfigError naming
/// FILE:LINE for malformed lines, a missing ArrayHeight/ArrayWidth/Dataflow, or a bad value.
ScaleSimConfig read_scalesim_config(const std::string& path);
ScaleSimConfig parse_scalesim_config(const std::string& text, const std::string& source);

}  // namespace npu::compiler
