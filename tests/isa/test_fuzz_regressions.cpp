// Inputs found by the libFuzzer targets (tests/fuzz, docs/validation.md "Fuzzing"), each
// reduced to the part that mattered, with the exact error the reader now gives.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/hw_config.hpp"

namespace npu {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// fuzz_npuasm: a layer name holding byte 0x15 was read, but write_program refuses such a
// name, so the program could not be written back. Column: "ACT     layer=" is 14 bytes, the
// name starts at 15, 'f', '4', then 0x15 at column 17.
TEST(FuzzRegression, NpuasmControlCharacterInName) {
  const std::string text = ".npuasm 1\nACT     layer=f4\x15 op=relu in=0x0 out=0x100 elems=16\n";
  EXPECT_EQ(error_of([&] { isa::read_program(text, "fuzz.npuasm"); }),
            "fuzz.npuasm:2:17: error: layer holds the control character 0x15\n"
            "  names are printable words: delete the character (editors often show it as ^X or not at all)");
}

// A valid config (the edge preset's required keys); line numbers on the right.
const std::string kConfig =
    "npu: {name: n, clock_mhz: 1000}\n"                                            // 1
    "mac_array: {rows: 32, cols: 32, dataflow: weight_stationary, dtype: int8}\n"  // 2
    "sram: {capacity: 1MiB, bytes_per_cycle: 32}\n"                                // 3
    "act_unit: {lanes: 32}\n"                                                      // 4
    "ddr:\n"                                                                       // 5
    "  standard: DDR4\n"                                                           // 6
    "  data_rate_mtps: 3200\n"                                                     // 7
    "  channels: 1\n"                                                              // 8
    "  ranks: 2\n"                                                                 // 9
    "  bank_groups: 4\n"                                                           // 10
    "  banks_per_group: 4\n"                                                       // 11
    "  rows: 65536\n"                                                              // 12
    "  columns: 1024\n"                                                            // 13
    "  device_width: 8\n"                                                          // 14
    "  bus_width_bits: 64\n"                                                       // 15
    "  burst_length: 8\n"                                                          // 16
    "  timing:\n"                                                                  // 17
    "    CL: 22\n"                                                                 // 18
    "    CWL: 16\n"                                                                // 19
    "    tRCD: 22\n"                                                               // 20
    "    tRP: 22\n"                                                                // 21
    "    tRAS: 52\n"                                                               // 22
    "    tRC: 74\n"                                                                // 23
    "    tCCD_S: 4\n"                                                              // 24
    "    tCCD_L: 8\n"                                                              // 25
    "    tRRD_S: 4\n"                                                              // 26
    "    tRRD_L: 8\n"                                                              // 27
    "    tFAW: 34\n"                                                               // 28
    "    tWR: 24\n"                                                                // 29
    "    tWTR_S: 4\n"                                                              // 30
    "    tWTR_L: 12\n"                                                             // 31
    "    tRTP: 12\n"                                                               // 32
    "    tRFC: 560\n"                                                              // 33
    "    tREFI: 12480\n";                                                          // 34

std::string with(const std::string& from, const std::string& to) {
  std::string text = kConfig;
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not in the config";
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

// fuzz_hw_config (UBSan: signed integer overflow in int): tRAS + tRP of two large values.
// Now summed in 64 bits: 2000000000 + 2000000000 = 4000000000 > tRC = 74, the error at tRC
// (line 23, value at column 10).
TEST(FuzzRegression, HwConfigTrasPlusTrpOverflow) {
  const std::string text = with("    tRP: 22\n    tRAS: 52\n", "    tRP: 2000000000\n    tRAS: 2000000000\n");
  EXPECT_EQ(error_of([&] { parse_hw_config(text, "fuzz.yaml"); }),
            "fuzz.yaml:23:10: error: timing cannot hold: tRC = 74 < tRAS + tRP = 2000000000 + 2000000000 = "
            "4000000000 tCK\n"
            "  a bank's activate-to-activate time covers the open row (tRAS) and its precharge (tRP); set tRC >= "
            "4000000000");
}

// fuzz_hw_config (UBSan): tCCD_S * 2 overflowed for tCCD_S = 2000000000. 2 x 2000000000 >=
// burst_length 8, so the (absurd but consistent) timing loads.
TEST(FuzzRegression, HwConfigLargeTccdLoads) {
  const std::string text = with("    tCCD_S: 4\n    tCCD_L: 8\n", "    tCCD_S: 2000000000\n    tCCD_L: 2000000000\n");
  EXPECT_EQ(error_of([&] { EXPECT_EQ(parse_hw_config(text, "fuzz.yaml").ddr.timing.t_ccd_s, 2000000000); }),
            "(no error)");
}

// fuzz_hw_config (UBSan): the default write high watermark queue_depth * 3 / 4 overflowed
// for queue_depth = 2000000000. Now 2000000000 * 3 / 4 = 1500000000; the low watermark is
// min(depth / 4, high - 1) = 500000000.
TEST(FuzzRegression, HwConfigLargeQueueDepthWatermarks) {
  const std::string text = with("  burst_length: 8\n", "  burst_length: 8\n  queue_depth: 2000000000\n");
  EXPECT_EQ(error_of([&] {
              const HwConfig cfg = parse_hw_config(text, "fuzz.yaml");
              EXPECT_EQ(cfg.ddr.write_high_watermark, 1500000000);
              EXPECT_EQ(cfg.ddr.write_low_watermark, 500000000);
            }),
            "(no error)");
}

}  // namespace
}  // namespace npu
