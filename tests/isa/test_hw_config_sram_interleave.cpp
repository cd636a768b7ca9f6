// sram.bank_interleave_bytes: default, explicit values, round trip (docs/config.md "sram").
// Bad values (0, a word, not dividing the bank, larger than a bank): bad_config_cases_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu {
namespace {

// The edge preset's text with its SRAM lines replaced by `sram_lines`.
std::string edge_with_sram(const std::string& sram_lines) {
  HwConfig c = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  std::string yaml = hw_config_to_yaml(c);
  const std::size_t from = yaml.find("sram:\n"), to = yaml.find("act_unit:\n");
  return yaml.replace(from, to - from, "sram:\n" + sram_lines);
}

TEST(SramInterleaveConfig, DefaultIs64BytesOnThePresets) {
  // No preset sets the key; every preset bank (128 KiB, 512 KiB, 64 KiB, 1.5 MiB) is a
  // multiple of 64 B, so the default 64 B applies.
  for (const char* name : {"edge-npu-ddr4.yaml", "hbm2-npu.yaml", "mobile-npu-lpddr4.yaml", "tpu-v1-like.yaml"}) {
    const HwConfig c = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/" + name);
    EXPECT_EQ(c.sram.bank_interleave_bytes, 64u) << name;
  }
}

TEST(SramInterleaveConfig, DefaultIsContiguousWhenABankIsNotAMultipleOf64) {
  // 65000 B / 8 banks = 8125 B per bank; 8125 mod 64 = 61, so the default is one whole bank.
  const HwConfig c =
      parse_hw_config(edge_with_sram("  capacity: 65000\n  banks: 8\n  bytes_per_cycle: 32\n"), "odd.yaml");
  EXPECT_EQ(c.sram.bank_bytes(), 8125u);
  EXPECT_EQ(c.sram.bank_interleave_bytes, 8125u);
}

TEST(SramInterleaveConfig, ExplicitValuesAreReadAsSizes) {
  // 1 MiB / 8 = 128 KiB per bank: 1 KiB (a divisor) and 128 KiB (contiguous banks) are valid.
  const HwConfig a = parse_hw_config(
      edge_with_sram("  capacity: 1 MiB\n  banks: 8\n  bytes_per_cycle: 32\n  bank_interleave_bytes: 1 KiB\n"), "a.yaml");
  EXPECT_EQ(a.sram.bank_interleave_bytes, 1024u);
  const HwConfig b = parse_hw_config(
      edge_with_sram("  capacity: 1 MiB\n  banks: 8\n  bytes_per_cycle: 32\n  bank_interleave_bytes: 131072\n"),
      "b.yaml");
  EXPECT_EQ(b.sram.bank_interleave_bytes, 131072u);
  // A non-power-of-two divisor is accepted too: 96 KiB / 8 = 12288 B = 96 x 128.
  const HwConfig c = parse_hw_config(
      edge_with_sram("  capacity: 96 KiB\n  banks: 8\n  bytes_per_cycle: 32\n  bank_interleave_bytes: 96\n"), "c.yaml");
  EXPECT_EQ(c.sram.bank_interleave_bytes, 96u);
}

TEST(SramInterleaveConfig, ResolvedYamlRoundTrips) {
  const HwConfig a = parse_hw_config(
      edge_with_sram("  capacity: 1 MiB\n  banks: 8\n  bytes_per_cycle: 32\n  bank_interleave_bytes: 4096\n"), "a.yaml");
  const std::string resolved = hw_config_to_yaml(a);
  EXPECT_NE(resolved.find("  bank_interleave_bytes: 4096\n"), std::string::npos) << resolved;
  EXPECT_EQ(parse_hw_config(resolved).sram.bank_interleave_bytes, 4096u);
}

TEST(SramInterleaveConfig, ErrorNamesTheFileLineAndTheBankSize) {
  // 512 KiB / 4 = 131072 B per bank; 3000 does not divide it. The error points at the key's
  // line (counted below in the text handed to the loader).
  const std::string yaml =
      edge_with_sram("  capacity: 512 KiB\n  banks: 4\n  bytes_per_cycle: 32\n  bank_interleave_bytes: 3000\n");
  int line = 1;
  for (std::size_t i = 0; i < yaml.find("bank_interleave_bytes"); ++i) line += yaml[i] == '\n';
  try {
    parse_hw_config(yaml, "bad.yaml");
    FAIL() << "accepted an interleave that does not divide the bank";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.yaml:" + std::to_string(line) + ":"), std::string::npos) << what;
    EXPECT_NE(what.find("'sram.bank_interleave_bytes' = 3000 bytes does not divide the bank size ('sram.capacity' "
                        "524288 / 'sram.banks' 4 = 131072 bytes)"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("use a divisor of 131072"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace npu
