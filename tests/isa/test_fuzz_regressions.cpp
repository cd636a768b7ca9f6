// Inputs found by the libFuzzer targets (tests/fuzz, docs/validation.md "Fuzzing"), each
// reduced to the part that mattered, with the exact error the reader now gives.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/hw_config/hw_config.hpp"

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

// fuzz_hw_config (time-out, 1.7 GB): a NUL byte after a comment, then a line starting with
// ',', made yaml-cpp 0.7's LoadAll loop for ever, creating empty documents. Control
// characters are now refused before yaml-cpp parses the text (YAML 1.2 section 5.1 allows
// none but tab, LF and CR). "#a" is 2 bytes: the NUL is line 1, column 3.
TEST(FuzzRegression, HwConfigNulAfterCommentRefusedBeforeYamlCpp) {
  const std::string text("#a\0\n, b\n", 8);
  EXPECT_EQ(error_of([&] { parse_hw_config(text, "fuzz.yaml"); }),
            "fuzz.yaml:1:3: error: byte 0x00 (a control character) is not allowed in YAML\n"
            "  fix: give a hardware config YAML text file; YAML allows tab, newline and printable characters only "
            "(YAML 1.2, section 5.1); a binary or corrupted file is not one");
  // Other control bytes, and DEL, on a later line: line 2, column 5 (after "a: 1").
  EXPECT_NE(error_of([&] { parse_hw_config("a: 1\nb: 1\x07\n", "fuzz.yaml"); }).find("fuzz.yaml:2:5: error: byte 0x07"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_hw_config("a: \x7F\n", "fuzz.yaml"); }).find("fuzz.yaml:1:4: error: byte 0x7F"),
            std::string::npos);
}

// fuzz_hw_config (time-out, 1.7 GB), the cause of both time-outs: a line starting with ','
// outside a flow collection. yaml-cpp 0.7 returns an empty document without consuming the
// ',' and LoadAll asks for the next document for ever (yaml-cpp issue #1040). The loader now
// stops where no document makes progress: the ',' on line 2, column 1; also when it
// follows a complete first document (line 3).
TEST(FuzzRegression, HwConfigCommaOutsideFlowCollection) {
  const std::string hint =
      "  the file must be one YAML map of sections (npu, mac_array, sram, act_unit, dma, ddr, energy, host, accumulator, memory); check "
      "indentation, ':' after keys and closing quotes/brackets";
  EXPECT_EQ(error_of([&] { parse_hw_config("# Bad config\n, dtype: int8\n", "fuzz.yaml"); }),
            "fuzz.yaml:2:1: error: malformed YAML: unexpected ',' (a ',' separates the items of a [...] or {...} flow "
            "collection, and only there)\n" + hint);
  EXPECT_EQ(error_of([&] { parse_hw_config("npu: {name: n}\n---\n,\n", "fuzz.yaml"); }),
            "fuzz.yaml:3:1: error: malformed YAML: unexpected ',' (a ',' separates the items of a [...] or {...} flow "
            "collection, and only there)\n" + hint);
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
// tRAS + tRP is summed in 64 bits; such values are now refused first by the timing range
// (at most 1000000 tCK, docs/config.md "Limits"): the error names tRP (line 21, column 10).
TEST(FuzzRegression, HwConfigTrasPlusTrpOverflow) {
  const std::string text = with("    tRP: 22\n    tRAS: 52\n", "    tRP: 2000000000\n    tRAS: 2000000000\n");
  EXPECT_EQ(error_of([&] { parse_hw_config(text, "fuzz.yaml"); }),
            "fuzz.yaml:21:10: error: 'ddr.timing.tRP' = 2000000000 is out of range: at most 1000000\n"
            "  allowed: an integer from 1 to 1000000 (JEDEC timings are at most tens of thousands of tCK (tREFI 7.8 us = "
            "24960 tCK at 6400 MT/s); larger values stretch simulated time and runs would take minutes)");
}

// fuzz_hw_config (UBSan): tCCD_S * 2 overflowed for tCCD_S = 2000000000; now out of the
// timing range (line 24, column 13).
TEST(FuzzRegression, HwConfigLargeTccdRefused) {
  const std::string text = with("    tCCD_S: 4\n    tCCD_L: 8\n", "    tCCD_S: 2000000000\n    tCCD_L: 2000000000\n");
  EXPECT_EQ(error_of([&] { parse_hw_config(text, "fuzz.yaml"); }),
            "fuzz.yaml:24:13: error: 'ddr.timing.tCCD_S' = 2000000000 is out of range: at most 1000000\n"
            "  allowed: an integer from 1 to 1000000 (JEDEC timings are at most tens of thousands of tCK (tREFI 7.8 us = "
            "24960 tCK at 6400 MT/s); larger values stretch simulated time and runs would take minutes)");
}

// fuzz_hw_config (UBSan): the default write high watermark queue_depth * 3 / 4 overflowed
// for queue_depth = 2000000000; the depth is now at most 4096 (line 17, column 16).
TEST(FuzzRegression, HwConfigLargeQueueDepthRefused) {
  const std::string text = with("  burst_length: 8\n", "  burst_length: 8\n  queue_depth: 2000000000\n");
  EXPECT_EQ(error_of([&] { parse_hw_config(text, "fuzz.yaml"); }),
            "fuzz.yaml:17:16: error: 'ddr.queue_depth' = 2000000000 is out of range: at most 4096\n"
            "  allowed: an integer from 1 to 4096 (the FR-FCFS scheduler scans the whole queue for every command, so "
            "the cost grows with the depth; real controllers hold 32 to 128 entries per channel)");
}

}  // namespace
}  // namespace npu
