// libFuzzer target: the .npuasm assembly reader (npu::isa::read_program, isa/assembly.hpp)
// and the static checkers that `npu asm check` runs on what it read (isa/check/program_check.hpp,
// isa/check/dataflow_check.hpp).
// Property checked on every accepted program (assembly.hpp): write_program() can express
// it, and read_program(write_program(p)) == p.
#include <exception>
#include <stdexcept>

#include "fuzz_common.hpp"
#include "npu/isa/assembly.hpp"
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/dataflow_check.hpp"
#include "npu/isa/check/sram_race_check.hpp"

namespace {

// A fixed target for check_program: the edge preset.
const npu::HwConfig& hw() {
  static const npu::HwConfig cfg = npu::load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  return cfg;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::run_one([&] {
    const npu::isa::Program p = npu::isa::read_program(npu::fuzz::as_text(data, size), "fuzz.npuasm");
    std::string text;
    try {
      text = npu::isa::write_program(p);
    } catch (const std::invalid_argument& e) {
      npu::fuzz::fuzz_fail("write_program cannot express a program read_program accepted", e.what());
    }
    npu::isa::Program again;
    try {
      again = npu::isa::read_program(text, "round-trip.npuasm");
    } catch (const npu::ConfigError& e) {
      npu::fuzz::fuzz_fail("write_program output does not read again", std::string(e.what()) + "\n" + text);
    }
    if (!(again == p)) npu::fuzz::fuzz_fail("read_program(write_program(p)) != p", text);
    (void)npu::isa::check_program(p, hw());
    (void)npu::isa::check_dataflow(p);  // `npu asm check` and `npu run` run all three
    (void)npu::isa::check_sram_races(p);
  });
}
