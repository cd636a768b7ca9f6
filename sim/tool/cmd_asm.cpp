// `npu asm check PROGRAM --hw CONFIG`: read a .npuasm program, check it against a hardware
// config (isa/check/program_check.hpp) and print a one-line summary, or every issue with exit status 1.
// `npu asm fmt PROGRAM [-o FILE]`: print the canonical form of a program (docs/isa.md).
// A malformed program or config throws npu::ConfigError; main() prints it and exits 1.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "command.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/io/output_files.hpp"

namespace npu::tool {
namespace {

/// "ok: 14 instructions (6 LOAD, 4 STORE, 4 CONV), 4 tensors, 4718592 MACs, DDR 24192 B read /
/// 32768 B written, SRAM [0x0, 0xa000) used of 65536 B"
std::string summary(const isa::Program& p, const HwConfig& hw) {
  std::map<isa::Opcode, int> per_op;
  std::uint64_t macs = 0, ddr_read = 0, ddr_written = 0, sram_end = 0;
  for (const auto& inst : p.instructions) {
    ++per_op[inst.op];
    if (const auto* c = std::get_if<isa::ConvParams>(&inst.params)) macs = checked_add(macs, c->macs(), "total MACs");
    if (const auto* g = std::get_if<isa::GemmParams>(&inst.params)) macs = checked_add(macs, g->macs(), "total MACs");
    if (const auto* d = std::get_if<isa::DmaDesc>(&inst.params)) {
      std::uint64_t& total = inst.op == isa::Opcode::Load ? ddr_read : ddr_written;
      total = checked_add(total, d->bytes(), "total DDR bytes");
    }
    for (const auto& op : isa::sram_operands(inst, p.dtype)) sram_end = std::max(sram_end, op.addr + op.bytes);
  }
  std::string ops;
  for (const auto& [op, n] : per_op) ops += fmt::format("{}{} {}", ops.empty() ? "" : ", ", n, isa::to_string(op));
  return fmt::format(
      "ok: {} instructions ({}), {} tensors, {} MACs, DDR {} B read / {} B written, SRAM [0x0, 0x{:x}) used of {} B",
      p.instructions.size(), ops.empty() ? "none" : ops, p.tensors.size(), macs, ddr_read, ddr_written, sram_end,
      hw.sram.capacity_bytes);
}

void add_asm_commands(CLI::App& app) {
  auto* asm_cmd = app.add_subcommand("asm", "NPU assembly (.npuasm): check and format programs");
  asm_cmd->require_subcommand(1);

  auto* check = asm_cmd->add_subcommand(
      "check", "Check a program against a hardware config: SRAM and DDR ranges, tensor regions, tile shapes, "
               "data type, token balance, deadlock and DDR data flow (a LOAD of stored data after its STORE; outputs "
               "written whole). Prints 'ok: ...' (exit 0) or every issue (exit 1)");
  auto program = std::make_shared<std::string>();
  auto hw_path = std::make_shared<std::string>();
  check->add_option("PROGRAM", *program, "program in .npuasm text, e.g. tests/isa/data/double_buffered_conv.npuasm")
      ->required();
  check->add_option("--hw", *hw_path, "hardware config (YAML), e.g. configs/edge-npu-ddr4.yaml")->required();
  check->callback([program, hw_path]() {
    const isa::Program p = isa::read_program_file(*program);
    const HwConfig hw = load_hw_config(*hw_path);
    auto issues = isa::check_program(p, hw);
    for (auto& issue : isa::check_dataflow(p)) issues.push_back(std::move(issue));     // DDR data flow
    for (auto& issue : isa::check_sram_races(p)) issues.push_back(std::move(issue));  // SRAM races
    if (issues.empty()) {
      std::cout << summary(p, hw) << "\n";
      return;
    }
    for (const auto& issue : issues) {
      if (issue.source_line > 0)
        std::cerr << fmt::format("{}:{}: error: {}\n", *program, issue.source_line, issue.message);
      else
        std::cerr << fmt::format("{}: error: {}\n", *program, issue.message);
    }
    std::cerr << fmt::format("{}: {} issue{} against {}\n", *program, issues.size(), issues.size() == 1 ? "" : "s",
                             *hw_path);
    set_exit_status(1);
  });

  auto* fmt_cmd = asm_cmd->add_subcommand(
      "fmt", "Print the canonical form of a program (fixed key order, defaults omitted; comments are dropped)");
  auto fmt_program = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  fmt_cmd->add_option("PROGRAM", *fmt_program, "program in .npuasm text")->required();
  fmt_cmd->add_option("-o,--output", *output, "write to this file instead of standard output");
  fmt_cmd->callback([fmt_program, output]() {
    const std::string text = isa::write_program(isa::read_program_file(*fmt_program));
    if (output->empty()) {
      std::cout << text;
      return;
    }
    npu::sim::write_file_atomic(*output, text);
  });
}

}  // namespace

NPU_COMMAND("asm", add_asm_commands);

}  // namespace npu::tool
