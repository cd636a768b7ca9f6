#include "npu/sim/run/compiled_for.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "npu/compiler/backend/tiling/sram_plans.hpp"

namespace npu::sim {

namespace {

std::string describe(const std::string& name, int rows, int cols, const std::string& dataflow, std::uint64_t sram) {
  return fmt::format("{} ({}x{} {} array, {} SRAM)", name, rows, cols, dataflow, compiler::sram_size_text(sram));
}

}  // namespace

std::string compiled_for_warning(const isa::Program& program, const HwConfig& hw, const std::string& program_path) {
  const isa::CompiledFor& c = program.compiled_for;
  if (c.hw.empty()) return "";
  const std::string dataflow = to_string(hw.mac_array.dataflow);
  if (c.rows == hw.mac_array.rows && c.cols == hw.mac_array.cols && c.sram_bytes == hw.sram.capacity_bytes &&
      c.dataflow == dataflow)
    return "";
  // The run's config by its file's name, as commands name a config (docs/experiment.md "Run
  // labels"): a copy of a preset with its array edited keeps the preset's npu.name.
  const std::string stem = std::filesystem::path(hw.source).stem().string();
  const std::string here = !stem.empty() ? stem : !hw.npu.name.empty() ? hw.npu.name : "the config";
  return fmt::format(
      "{}: warning: compiled for {}, run on {}: its tiles, loop orders and SRAM buffers were chosen for the "
      "first, so these figures are that program's on this hardware, not what compiling for it gives\n  fix: to "
      "measure this config, compile for it (npu compile MODEL --hw {}, or npu simulate)",
      program_path, describe(c.hw, c.rows, c.cols, c.dataflow, c.sram_bytes),
      describe(here, hw.mac_array.rows, hw.mac_array.cols, dataflow, hw.sram.capacity_bytes), hw.source);
}

}  // namespace npu::sim
