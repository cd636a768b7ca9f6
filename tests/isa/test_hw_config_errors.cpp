// Malformed hardware configs: one test per mistake, each asserting the whole message:
// "FILE:LINE:COL: error: <what>" and the hint line. LINE:COL are 1-based positions in
// kBase below (line numbers are written beside it), counted by hand.
#include <gtest/gtest.h>

#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu {
namespace {

// A valid config (the edge preset's values, required keys only). Line numbers on the right
// are the ones the messages must name.
const std::string kBase =
    "npu:\n"                        // 1
    "  name: test-npu\n"            // 2
    "  clock_mhz: 1000\n"           // 3
    "mac_array:\n"                  // 4
    "  rows: 32\n"                  // 5
    "  cols: 32\n"                  // 6
    "  dataflow: weight_stationary\n"  // 7
    "  dtype: int8\n"               // 8
    "sram:\n"                       // 9
    "  capacity: 1MiB\n"            // 10
    "  bytes_per_cycle: 32\n"       // 11
    "act_unit:\n"                   // 12
    "  lanes: 32\n"                 // 13
    "ddr:\n"                        // 14
    "  standard: DDR4\n"            // 15
    "  data_rate_mtps: 3200\n"      // 16
    "  channels: 1\n"               // 17
    "  ranks: 2\n"                  // 18
    "  bank_groups: 4\n"            // 19
    "  banks_per_group: 4\n"        // 20
    "  rows: 65536\n"               // 21
    "  columns: 1024\n"             // 22
    "  device_width: 8\n"           // 23
    "  bus_width_bits: 64\n"        // 24
    "  burst_length: 8\n"           // 25
    "  timing:\n"                   // 26
    "    CL: 22\n"                  // 27
    "    CWL: 16\n"                 // 28
    "    tRCD: 22\n"                // 29
    "    tRP: 22\n"                 // 30
    "    tRAS: 52\n"                // 31
    "    tRC: 74\n"                 // 32
    "    tCCD_S: 4\n"               // 33
    "    tCCD_L: 8\n"               // 34
    "    tRRD_S: 4\n"               // 35
    "    tRRD_L: 8\n"               // 36
    "    tFAW: 34\n"                // 37
    "    tWR: 24\n"                 // 38
    "    tWTR_S: 4\n"               // 39
    "    tWTR_L: 12\n"              // 40
    "    tRTP: 12\n"                // 41
    "    tRFC: 560\n"               // 42
    "    tREFI: 12480\n";           // 43

/// kBase with the first occurrence of `from` replaced by `to` (the test fails if absent).
std::string config_with(const std::string& from, const std::string& to, std::string base = kBase) {
  const auto pos = base.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not in the base config";
  if (pos != std::string::npos) base.replace(pos, from.size(), to);
  return base;
}

/// The ConfigError message for `yaml`, or "<no error>".
std::string error_of(const std::string& yaml) {
  try {
    parse_hw_config(yaml, "bad.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(HwConfigError, BaseConfigIsValid) { EXPECT_EQ(error_of(kBase), "<no error>"); }

TEST(HwConfigError, UnknownTopLevelKeySuggestsClosest) {
  // "mac_aray" is one deletion from "mac_array"; the key starts line 4 column 1.
  EXPECT_EQ(error_of(config_with("mac_array:", "mac_aray:")),
            "bad.yaml:4:1: error: unknown key 'mac_aray' in the top-level map\n"
            "  did you mean 'mac_array'? (allowed: npu, mac_array, sram, act_unit, ddr, dma, energy, host, accumulator, memory)");
}

TEST(HwConfigError, UnknownSectionKeySuggestsClosest) {
  // "rws" -> "rows" is distance 1 (better than "cols" at 2); line 5, indented 2 -> column 3.
  EXPECT_EQ(error_of(config_with("  rows: 32", "  rws: 32")),
            "bad.yaml:5:3: error: unknown key 'rws' in section 'mac_array'\n"
            "  did you mean 'rows'? (allowed: rows, cols, dataflow, dtype, macs_per_pe_per_cycle, depthwise_mapping, "
            "gemv_mapping, gemv_max_m, weight_dtype, weight_group, kv_cache_dtype, conv_mapping, weight_preload)");
}

TEST(HwConfigError, UnknownTimingKeySuggestsTheJedecSpelling) {
  // Keys are case-sensitive; the suggestion compares case-insensitively ("trcd" ~ "tRCD").
  EXPECT_EQ(error_of(config_with("    tRCD: 22", "    trcd: 22")),
            "bad.yaml:29:5: error: unknown key 'trcd' in section 'ddr.timing'\n"
            "  did you mean 'tRCD'? (allowed: CL, CWL, tRCD, tRP, tRAS, tRC, tCCD_S, tCCD_L, tRRD_S, tRRD_L, "
            "tFAW, tWR, tWTR_S, tWTR_L, tRTP, tRFC, tREFI, tRTRS)");
}

TEST(HwConfigError, UnknownKeyWithNothingCloseListsAllowed) {
  EXPECT_EQ(error_of(config_with("  lanes: 32", "  lanes: 32\n  voltage: 0.8")),
            "bad.yaml:14:3: error: unknown key 'voltage' in section 'act_unit'\n"
            "  allowed: lanes, latency_cycles");
}

TEST(HwConfigError, MissingKeyPointsAtItsSection) {
  // The npu map starts at its first key, "name", line 2 column 3.
  EXPECT_EQ(error_of(config_with("  clock_mhz: 1000\n", "")),
            "bad.yaml:2:3: error: missing key 'clock_mhz' in section 'npu'\n"
            "  required keys: name, clock_mhz");
}

TEST(HwConfigError, MissingSection) {
  EXPECT_EQ(error_of(config_with("act_unit:\n  lanes: 32\n", "")),
            "bad.yaml:1:1: error: missing key 'act_unit' in the top-level map\n"
            "  required keys: npu, mac_array, sram, act_unit, ddr; optional: dma, energy, host, accumulator, memory");
}

TEST(HwConfigError, MissingTimingKeyListsOptionalOnes) {
  // ddr.timing begins at "CL", line 27 column 5.
  EXPECT_EQ(error_of(config_with("    tFAW: 34\n", "")),
            "bad.yaml:27:5: error: missing key 'tFAW' in section 'ddr.timing'\n"
            "  required keys: CL, CWL, tRCD, tRP, tRAS, tRC, tCCD_S, tCCD_L, tRRD_S, tRRD_L, tFAW, tWR, "
            "tWTR_S, tWTR_L, tRTP, tRFC, tREFI; optional: tRTRS");
}

TEST(HwConfigError, DuplicateKey) {
  EXPECT_EQ(error_of(config_with("  cols: 32\n", "  cols: 32\n  rows: 64\n")),
            "bad.yaml:7:3: error: duplicate key 'rows' in section 'mac_array'\n"
            "  first given at line 5; keep one of them");
}

TEST(HwConfigError, WordWhereIntegerExpected) {
  // The value starts after "  rows: " (8 characters) -> column 9.
  EXPECT_EQ(error_of(config_with("  rows: 32", "  rows: thirty-two")),
            "bad.yaml:5:9: error: 'mac_array.rows' must be an integer, got 'thirty-two'\n"
            "  allowed: a whole number >= 1");
}

TEST(HwConfigError, FractionWhereIntegerExpected) {
  EXPECT_EQ(error_of(config_with("  cols: 32", "  cols: 32.5")),
            "bad.yaml:6:9: error: 'mac_array.cols' must be an integer, got the fraction '32.5'\n"
            "  allowed: a whole number >= 1");
}

TEST(HwConfigError, MapWhereNumberExpected) {
  // Flow map value after "  clock_mhz: " (13 characters) -> column 14.
  EXPECT_EQ(error_of(config_with("  clock_mhz: 1000", "  clock_mhz: {mhz: 1000}")),
            "bad.yaml:3:14: error: 'npu.clock_mhz' must be a number, got a map\n"
            "  write e.g. 'clock_mhz: <a number>'");
}

TEST(HwConfigError, SectionThatIsNotAMap) {
  EXPECT_EQ(error_of(config_with("act_unit:\n  lanes: 32", "act_unit: 32")),
            "bad.yaml:12:11: error: section 'act_unit' must be a map of keys, got '32'\n"
            "  allowed keys: lanes, latency_cycles");
}

TEST(HwConfigError, ZeroSize) {
  EXPECT_EQ(error_of(config_with("  capacity: 1MiB", "  capacity: 0 KiB")),
            "bad.yaml:10:13: error: 'sram.capacity' must be > 0, got '0 KiB'\n"
            "  allowed: bytes as an integer (1048576) or with a unit: B, KiB, MiB, GiB, TiB (x1024) or kB, KB, MB, "
            "GB, TB (x1000), e.g. '1MiB' or '24 MiB'");
}

TEST(HwConfigError, MalformedSizeUnit) {
  EXPECT_EQ(error_of(config_with("  capacity: 1MiB", "  capacity: 1 MiBs")),
            "bad.yaml:10:13: error: 'sram.capacity' is not a size: '1 MiBs'\n"
            "  allowed: bytes as an integer (1048576) or with a unit: B, KiB, MiB, GiB, TiB (x1024) or kB, KB, MB, "
            "GB, TB (x1000), e.g. '1MiB' or '24 MiB'");
}

TEST(HwConfigError, NegativeClockRate) {
  EXPECT_EQ(error_of(config_with("  clock_mhz: 1000", "  clock_mhz: -800")),
            "bad.yaml:3:14: error: 'npu.clock_mhz' must be > 0, got -800\n"
            "  allowed: a positive number in MHz");
}

TEST(HwConfigError, ClockAboveTenGigahertzIsOutOfRange) {
  // 1e30 MHz has a period of 1e-24 ps, which rounds to 0: runs would report 0 cycles.
  // Value column: "  clock_mhz: " is 13 characters -> 14.
  EXPECT_EQ(error_of(config_with("  clock_mhz: 1000", "  clock_mhz: 1e30")),
            "bad.yaml:3:14: error: 'npu.clock_mhz' = 1e+30 MHz is out of range: at most 10000 (10 GHz)\n"
            "  the simulator keeps time in whole picoseconds; a clock above 10 GHz has a period under 100 ps that "
            "rounds away (runs would report 0 cycles); allowed: 1 to 10000 MHz, e.g. 'clock_mhz: 1000'");
  // The bounds themselves are accepted.
  EXPECT_EQ(error_of(config_with("  clock_mhz: 1000", "  clock_mhz: 10000")), "<no error>");
  EXPECT_EQ(error_of(config_with("  clock_mhz: 1000", "  clock_mhz: 1")), "<no error>");
  // 0.001 MHz was accepted once and a network then simulated for minutes (a refresh every
  // tREFI of a very long simulated time).
  EXPECT_EQ(error_of(config_with("  clock_mhz: 1000", "  clock_mhz: 0.001")),
            "bad.yaml:3:14: error: 'npu.clock_mhz' = 0.001 MHz is out of range: at least 1 (1 MHz)\n"
            "  a slower clock stretches simulated time, which the DDR model fills with a refresh every tREFI "
            "(7.8 us), so a network would take minutes to simulate (and no NPU runs below 1 MHz); allowed: 1 to "
            "10000 MHz, e.g. 'clock_mhz: 1000'");
}

TEST(HwConfigError, DataRateAbove20000IsOutOfRange) {
  // "  data_rate_mtps: " is 18 characters -> column 19 on line 16.
  EXPECT_EQ(error_of(config_with("  data_rate_mtps: 3200", "  data_rate_mtps: 20001")),
            "bad.yaml:16:19: error: 'ddr.data_rate_mtps' = 20001 MT/s is out of range: at most 20000\n"
            "  tCK = 2000 / data_rate_mtps ns would be under 0.1 ns (today's fastest DRAM, HBM3E/GDDR7, is below "
            "20000 MT/s per pin); allowed: 1 to 20000, e.g. 3200 for DDR4-3200");
  // 20000 passes that bound but is no DDR4 speed bin (JESD79-4: DDR4-1600 to DDR4-3200; issue 27).
  EXPECT_NE(error_of(config_with("  data_rate_mtps: 3200", "  data_rate_mtps: 20000"))
                .find("'ddr.data_rate_mtps' = 20000 MT/s is outside the DDR4 speed bins: 1600 to 3200 MT/s"),
            std::string::npos);
}

TEST(HwConfigError, DdrCapacityBeyondOnePebibyte) {
  // 2^6 ch x 4 ranks x 4 groups x 4 banks x 2^20 rows x 2^16 columns x 8 bytes = 2^51 B > 2^50
  // (each count within its own limit). "  rows: " is 8 characters -> column 9 on line 21.
  EXPECT_EQ(error_of(config_with("  channels: 1", "  channels: 64",
                          config_with("  ranks: 2", "  ranks: 4",
                               config_with("  columns: 1024", "  columns: 65536", config_with("  rows: 65536", "  rows: 1048576"))))),
            "bad.yaml:21:9: error: the DDR capacity channels x ranks x bank_groups x banks_per_group x rows x columns "
            "x bus_width_bits/8 is out of range: more than 2^50 bytes (1 PiB)\n"
            "  byte addresses and capacities are 64-bit counts; check 'ddr.rows' and 'ddr.columns' (e.g. 65536 "
            "rows x 1024 columns for DDR4 8 Gb x8)");
}

TEST(HwConfigError, DirectoryGivenAsConfig) {
  const std::string dir = testing::TempDir();
  try {
    load_hw_config(dir);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": error: is a directory, expected a file\n"
                                           "  give the hardware config YAML file, e.g. configs/edge-npu-ddr4.yaml");
  }
}

TEST(HwConfigError, ZeroCount) {
  EXPECT_EQ(error_of(config_with("  lanes: 32", "  lanes: 0")),
            "bad.yaml:13:10: error: 'act_unit.lanes' must be >= 1, got 0\n"
            "  allowed: a positive whole number (zero and negative values are not meaningful)");
}

TEST(HwConfigError, UnknownDataflowSuggestsClosest) {
  EXPECT_EQ(error_of(config_with("weight_stationary", "weight_stationery")),
            "bad.yaml:7:13: error: unknown dataflow 'weight_stationery' for 'mac_array.dataflow'\n"
            "  did you mean 'weight_stationary'? (allowed: weight_stationary, output_stationary, input_stationary)");
}

TEST(HwConfigError, UnknownDtypeSuggestsClosest) {
  EXPECT_EQ(error_of(config_with("  dtype: int8", "  dtype: bf16")),
            "bad.yaml:8:10: error: unknown dtype 'bf16' for 'mac_array.dtype'\n"
            "  did you mean 'fp16'? (allowed: int8, fp16, fp32)");
}

TEST(HwConfigError, UnknownGemvMappingSuggestsClosest) {
  // Line 9 is the inserted key; the value starts at column 17 after "  gemv_mapping: ".
  EXPECT_EQ(error_of(config_with("  dtype: int8\n", "  dtype: int8\n  gemv_mapping: vector\n")),
            "bad.yaml:9:17: error: unknown gemv_mapping 'vector' for 'mac_array.gemv_mapping'\n"
            "  did you mean 'vector_unit'? (allowed: dataflow, weight_stationary, output_stationary, vector_unit, "
            "auto)");
}

TEST(HwConfigError, UnknownWeightDtypeSuggestsClosest) {
  EXPECT_EQ(error_of(config_with("  dtype: int8\n", "  dtype: int8\n  weight_dtype: int3\n")),
            "bad.yaml:9:17: error: unknown weight_dtype 'int3' for 'mac_array.weight_dtype'\n"
            "  did you mean 'int8'? (allowed: same, int8, fp16, int4)");
}

TEST(HwConfigError, UnknownKvCacheDtypeSuggestsClosest) {
  EXPECT_EQ(error_of(config_with("  dtype: int8\n", "  dtype: int8\n  kv_cache_dtype: fp8\n")),
            "bad.yaml:9:19: error: unknown kv_cache_dtype 'fp8' for 'mac_array.kv_cache_dtype'\n"
            "  did you mean 'fp16'? (allowed: same, int8, fp16)");
}

TEST(HwConfigError, Int4WeightsNeedAnFp16Array) {
  // W4A16 only: the base array is int8.
  const std::string e = error_of(config_with("  dtype: int8\n", "  dtype: int8\n  weight_dtype: int4\n"));
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "bad.yaml:9:17: error: 'mac_array.weight_dtype' = int4 needs 'mac_array.dtype: fp16', but dtype is int8");
}

TEST(HwConfigError, Fp16WeightsOnAnInt8ArrayAreRejected) {
  const std::string e = error_of(config_with("  dtype: int8\n", "  dtype: int8\n  weight_dtype: fp16\n"));
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "bad.yaml:9:17: error: 'mac_array.weight_dtype' = fp16 needs 'mac_array.dtype' fp16 or fp32, but dtype "
            "is int8");
}

TEST(HwConfigError, WeightGroupWithoutInt4IsRejected) {
  const std::string e = error_of(config_with("  dtype: int8\n", "  dtype: int8\n  weight_group: 64\n"));
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "bad.yaml:9:17: error: 'mac_array.weight_group' is set but 'mac_array.weight_dtype' is not int4");
}

TEST(HwConfigError, GemvMaxMZeroIsRejected) {
  const std::string e = error_of(config_with("  dtype: int8\n", "  dtype: int8\n  gemv_max_m: 0\n"));
  EXPECT_EQ(e.substr(0, e.find('\n')), "bad.yaml:9:15: error: 'mac_array.gemv_max_m' must be >= 1, got 0");
}

TEST(HwConfigError, UnknownDepthwiseMappingListsAllowed) {
  // Inserted as line 9, after "dtype: int8"; the value starts at column 22
  // ("  depthwise_mapping: " is 21 characters).
  EXPECT_EQ(error_of(config_with("  dtype: int8\n", "  dtype: int8\n  depthwise_mapping: vector_unit\n")),
            "bad.yaml:9:22: error: unknown depthwise_mapping 'vector_unit' for 'mac_array.depthwise_mapping'\n"
            "  allowed: scalesim, channels_across_columns");
  // A near miss is suggested.
  EXPECT_EQ(error_of(config_with("  dtype: int8\n", "  dtype: int8\n  depthwise_mapping: channels_across_column\n")),
            "bad.yaml:9:22: error: unknown depthwise_mapping 'channels_across_column' for "
            "'mac_array.depthwise_mapping'\n"
            "  did you mean 'channels_across_columns'? (allowed: scalesim, channels_across_columns)");
  // Not a name at all.
  EXPECT_NE(error_of(config_with("  dtype: int8\n", "  dtype: int8\n  depthwise_mapping: [a, b]\n")).find("bad.yaml:9:22: error:"),
            std::string::npos);
}

TEST(HwConfigError, ChannelsAcrossColumnsNeedsWeightOrOutputStationary) {
  EXPECT_EQ(error_of(config_with("  dataflow: weight_stationary\n  dtype: int8\n",
                          "  dataflow: input_stationary\n  dtype: int8\n  depthwise_mapping: channels_across_columns\n")),
            "bad.yaml:9:22: error: 'mac_array.depthwise_mapping' = channels_across_columns needs a weight- or "
            "output-stationary array, but 'mac_array.dataflow' is input_stationary\n"
            "  an input-stationary PE holds one input element of one channel, which no other channel's output uses, "
            "so the channels cannot share the array's columns (docs/timing.md); use 'depthwise_mapping: scalesim' or "
            "another dataflow");
  // The default mapping is fine on an input-stationary array.
  EXPECT_EQ(error_of(config_with("  dataflow: weight_stationary\n  dtype: int8\n",
                          "  dataflow: input_stationary\n  dtype: int8\n  depthwise_mapping: scalesim\n")),
            "<no error>");
}

TEST(HwConfigError, UnknownPagePolicySuggestsByPrefix) {
  // "close" is a prefix of "closed".
  EXPECT_EQ(error_of(config_with("  burst_length: 8\n", "  burst_length: 8\n  page_policy: close\n")),
            "bad.yaml:26:16: error: unknown page_policy 'close' for 'ddr.page_policy'\n"
            "  did you mean 'closed'? (allowed: open, closed)");
}

TEST(HwConfigError, UnknownStandardIsCaseSensitiveButSuggested) {
  EXPECT_EQ(error_of(config_with("  standard: DDR4", "  standard: ddr4")),
            "bad.yaml:15:13: error: unknown DDR standard 'ddr4' for 'ddr.standard'\n"
            "  did you mean 'DDR4'? (allowed: DDR3, DDR4, DDR5, LPDDR3, LPDDR4, LPDDR4X, LPDDR5, GDDR5, GDDR6, HBM, "
            "HBM2, HBM2E, HBM3)");
}

const char* kMappingHint =
    "  allowed: the six fields ro ch ra ba bg co, each exactly once, MSB first (e.g. 'rochrababgco'); case is "
    "ignored";

TEST(HwConfigError, AddressMappingMissingAField) {
  EXPECT_EQ(error_of(config_with("  burst_length: 8\n", "  burst_length: 8\n  address_mapping: rochrababg\n")),
            std::string("bad.yaml:26:20: error: 'ddr.address_mapping' = 'rochrababg' lacks the field 'co'\n") +
                kMappingHint);
}

TEST(HwConfigError, AddressMappingRepeatsAField) {
  EXPECT_EQ(error_of(config_with("  burst_length: 8\n", "  burst_length: 8\n  address_mapping: rochrababaco\n")),
            std::string("bad.yaml:26:20: error: 'ddr.address_mapping' = 'rochrababaco': field 'ba' appears twice\n") +
                kMappingHint);
}

TEST(HwConfigError, AddressMappingUnknownField) {
  // "ro ch ra ba nk co": the fifth pair, "nk", starts at character 9.
  EXPECT_EQ(error_of(config_with("  burst_length: 8\n", "  burst_length: 8\n  address_mapping: rochrabankco\n")),
            std::string("bad.yaml:26:20: error: 'ddr.address_mapping' = 'rochrabankco': unknown field 'nk' at "
                        "character 9\n") +
                kMappingHint);
}

TEST(HwConfigError, RowCountNotAPowerOfTwo) {
  EXPECT_EQ(error_of(config_with("  rows: 65536", "  rows: 60000")),
            "bad.yaml:21:9: error: 'ddr.rows' = 60000 is not a power of two\n"
            "  the address mapping decodes this count as a bit field; allowed: 1, 2, 4, 8, ...");
}

TEST(HwConfigError, DeviceWidthDoesNotDivideBus) {
  EXPECT_EQ(error_of(config_with("  device_width: 8", "  device_width: 128")),
            "bad.yaml:23:17: error: 'ddr.device_width' = 128 does not divide 'ddr.bus_width_bits' = 64\n"
            "  a rank is bus_width_bits / device_width devices side by side; use e.g. x8 devices on a 64-bit bus");
}

TEST(HwConfigError, RowCycleShorterThanRasPlusPrecharge) {
  // tRC 60 < tRAS 52 + tRP 22 = 74; value after "    tRC: " (9 characters) -> column 10.
  EXPECT_EQ(error_of(config_with("    tRC: 74", "    tRC: 60")),
            "bad.yaml:32:10: error: timing cannot hold: tRC = 60 < tRAS + tRP = 52 + 22 = 74 tCK\n"
            "  a bank's activate-to-activate time covers the open row (tRAS) and its precharge (tRP); set tRC >= 74");
}

TEST(HwConfigError, FourActivateWindowShorterThanRrd) {
  EXPECT_EQ(error_of(config_with("    tFAW: 34", "    tFAW: 6")),
            "bad.yaml:37:11: error: timing cannot hold: tFAW = 6 < tRRD_L = 8 tCK\n"
            "  the four-activate window spans at least one activate-to-activate gap; set tFAW >= 8");
}

TEST(HwConfigError, SameGroupCcdShorterThanDifferentGroup) {
  EXPECT_EQ(error_of(config_with("    tCCD_L: 8", "    tCCD_L: 2")),
            "bad.yaml:34:13: error: timing cannot hold: tCCD_L = 2 < tCCD_S = 4 tCK\n"
            "  the same-bank-group (_L) spacing is never shorter than the different-group (_S) one; without bank "
            "groups set both equal (set tCCD_L >= 4)");
}

TEST(HwConfigError, ColumnSpacingShorterThanABurst) {
  // BL8 occupies the data bus for 8 / 2 = 4 tCK; tCCD_S 2 would overlap bursts.
  EXPECT_EQ(error_of(config_with("    tCCD_S: 4", "    tCCD_S: 2")),
            "bad.yaml:33:13: error: timing cannot hold: tCCD_S = 2 tCK is shorter than one burst (burst_length 8 / "
            "2 = 4 tCK)\n"
            "  back-to-back bursts cannot overlap on the data bus; set tCCD_S >= 4");
}

TEST(HwConfigError, RefreshIntervalNotLongerThanRefresh) {
  EXPECT_EQ(error_of(config_with("    tREFI: 12480", "    tREFI: 500")),
            "bad.yaml:43:12: error: timing cannot hold: tREFI = 500 <= tRFC = 560 tCK (the device would refresh "
            "forever)\n"
            "  tREFI is the average refresh interval (7.8 us for DDR3/DDR4, 3.9 us for LPDDR4), tRFC one refresh's "
            "duration; check the units (both in tCK)");
}

TEST(HwConfigError, SramSmallerThanOneMinimalTile) {
  // 2 KiB = 2048 B < 2 x 32 x 32 x 1 + 32 x 1 + 32 x 4 = 2208 B.
  EXPECT_EQ(error_of(config_with("  capacity: 1MiB", "  capacity: 2 KiB")),
            "bad.yaml:10:13: error: 'sram.capacity' = 2048 bytes is smaller than one minimal tile of 2208 bytes\n"
            "  minimal tile = 2 x rows x cols x dtype + rows x dtype + cols x 4 = 2 x 32 x 32 x 1 + 32 x 1 + 32 x 4 "
            "= 2208 bytes (32 x 32 int8); use a larger SRAM or a smaller array");
}

TEST(HwConfigError, DmaBurstNotAWholeNumberOfDdrBursts) {
  EXPECT_EQ(error_of(kBase + "dma:\n  burst_bytes: 32\n"),
            "bad.yaml:45:16: error: 'dma.burst_bytes' = 32 is not a multiple of the DDR burst of 64 bytes (bus 64 "
            "bits / 8 x burst_length 8)\n"
            "  a DRAM moves whole bursts; set dma.burst_bytes to 64 or a multiple of it");
}

TEST(HwConfigError, UnknownActivationOpInLatencies) {
  EXPECT_EQ(error_of(config_with("  lanes: 32\n", "  lanes: 32\n  latency_cycles:\n    reluu: 1\n")),
            "bad.yaml:15:5: error: unknown key 'reluu' in section 'act_unit.latency_cycles'\n"
            "  did you mean 'relu'? (allowed: default, relu, clip, leaky_relu, sigmoid, silu, hard_sigmoid, "
            "hard_swish, scale_shift, add, mul, max, avg, global_avg, erf, exp, sqrt, reciprocal, tanh, gelu, abs, "
            "neg, pow, identity, softmax, layer_norm, sub, div, min, rsub, rdiv, gelu_tanh, rms_norm, softmax_online, rope, avg_pad, lerp, lerp_round, "
            "log, floor, ceil, not, trunc, to_bool, equal, less, greater, less_equal, greater_equal, and, or, xor, mod, fmod)");
}

TEST(HwConfigError, WriteWatermarkAboveQueueDepth) {
  EXPECT_EQ(error_of(config_with("  burst_length: 8\n", "  burst_length: 8\n  queue_depth: 8\n  write_high_watermark: 12\n")),
            "bad.yaml:27:25: error: 'ddr.write_high_watermark' = 12 exceeds 'ddr.queue_depth' = 8\n"
            "  allowed: 1 to 8 (omit it for 3/4 of the queue depth)");
}

TEST(HwConfigError, ExplicitZeroLowWatermark) {
  // 0 would read as "derived" in the resolved struct (hw_config.hpp), so the key rejects it.
  EXPECT_EQ(error_of(config_with("  burst_length: 8\n", "  burst_length: 8\n  write_low_watermark: 0\n")),
            "bad.yaml:26:24: error: 'ddr.write_low_watermark' must be >= 1, got 0\n"
            "  allowed: a positive whole number (zero and negative values are not meaningful)");
}

TEST(HwConfigError, MalformedYamlReportsTheParserMark) {
  // An unclosed flow sequence on line 5 swallows "cols" from line 6; yaml-cpp gives up at
  // the ':' after it, line 6 column 7 ("  cols" fills columns 1-6).
  EXPECT_EQ(error_of(config_with("  rows: 32", "  rows: [32")),
            "bad.yaml:6:7: error: malformed YAML: end of sequence flow not found\n"
            "  the file must be one YAML map of sections (npu, mac_array, sram, act_unit, dma, ddr, energy, host, accumulator, memory); check "
            "indentation, ':' after keys and closing quotes/brackets");
}

TEST(HwConfigError, EmptyDocument) {
  EXPECT_EQ(error_of("# nothing but a comment\n"),
            "bad.yaml:1:1: error: the config is empty\n"
            "  expected a map with sections: npu, mac_array, sram, act_unit, ddr (required), dma, energy, host, "
            "accumulator, memory (optional)");
}

TEST(HwConfigError, DocumentThatIsAList) {
  EXPECT_EQ(error_of("- npu\n- ddr\n"),
            "bad.yaml:1:1: error: the config must be a map of sections, got a list\n"
            "  allowed keys: npu, mac_array, sram, act_unit, ddr, dma, energy, host, accumulator, memory");
}

TEST(HwConfigError, MissingFileNamesThePath) {
  try {
    load_hw_config("no/such/config.yaml");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no/such/config.yaml: error: cannot open the hardware config file\n"
              "  check the path (relative paths are relative to the working directory); presets are in "
              "configs/*.yaml");
  }
}

TEST(HwConfigError, EnergySectionNeedsPositiveFigures) {
  EXPECT_EQ(error_of(kBase + "energy:\n  pj_per_mac: 0.3\n  pj_per_sram_byte: 0\n  pj_per_ddr_byte: 160\n"),
            "bad.yaml:46:21: error: 'energy.pj_per_sram_byte' must be > 0, got 0\n"
            "  allowed: a positive number in pJ");
}

TEST(HwConfigError, HostSectionRejectsZeroNegativeAndUnknownKeys) {
  // kBase has 43 lines: "host:" is line 44, its first key line 45.
  EXPECT_EQ(error_of(kBase + "host:\n  bandwidth_gbps: 0\n  gops: 20\n"),
            "bad.yaml:45:19: error: 'host.bandwidth_gbps' must be > 0, got 0\n"
            "  allowed: a positive number in GB/s");
  EXPECT_EQ(error_of(kBase + "host:\n  gops: -5\n"),
            "bad.yaml:45:9: error: 'host.gops' must be > 0, got -5\n"
            "  allowed: a positive number in giga MAC/s");
  EXPECT_EQ(error_of(kBase + "host:\n  bandwith_gbps: 8\n"),
            "bad.yaml:45:3: error: unknown key 'bandwith_gbps' in section 'host'\n"
            "  did you mean 'bandwidth_gbps'? (allowed: bandwidth_gbps, gops)");
  EXPECT_EQ(error_of(kBase + "host:\n  gops: fast\n"),
            "bad.yaml:45:9: error: 'host.gops' must be a number (giga MAC/s), got 'fast'\n"
            "  write a plain number, e.g. 'gops: 1000' (the unit giga MAC/s is implied by the key)");
  EXPECT_EQ(error_of(kBase + "hots:\n  gops: 20\n"),
            "bad.yaml:44:1: error: unknown key 'hots' in the top-level map\n"
            "  did you mean 'host'? (allowed: npu, mac_array, sram, act_unit, ddr, dma, energy, host, accumulator, memory)");
}

}  // namespace
}  // namespace npu
