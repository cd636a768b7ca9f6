// Hardware-config loading: the presets, their derived figures (derived by hand beside each
// assertion), size units, defaults of optional keys, and the resolved-YAML round trip.
// Malformed configs: test_hw_config_errors.cpp. The `npu config check` tool:
// test_hw_config_tool.cpp.
#include <gtest/gtest.h>

#include <string>

#include "npu/hw_config/hw_config.hpp"

namespace npu {
namespace {

std::string preset(const char* name) { return std::string(NPU_SOURCE_DIR) + "/configs/" + name; }

// A complete config with only the required keys: every optional key takes its default.
const char* kMinimal = R"(npu:
  name: minimal
  clock_mhz: 500
mac_array:
  rows: 8
  cols: 8
  dataflow: input_stationary
  dtype: fp16
sram:
  capacity: 64 KiB
  bytes_per_cycle: 16
act_unit:
  lanes: 8
ddr:
  standard: DDR4
  data_rate_mtps: 2400
  channels: 1
  ranks: 1
  bank_groups: 4
  banks_per_group: 4
  rows: 32768
  columns: 1024
  device_width: 16
  bus_width_bits: 64
  burst_length: 8
  timing: {CL: 16, CWL: 12, tRCD: 16, tRP: 16, tRAS: 39, tRC: 55, tCCD_S: 4, tCCD_L: 6,
           tRRD_S: 7, tRRD_L: 8, tFAW: 36, tWR: 18, tWTR_S: 3, tWTR_L: 9, tRTP: 9,
           tRFC: 420, tREFI: 9360}
)";

TEST(HwConfigPreset, EdgeNpuDdr4LoadsWithItsDatasheetValues) {
  const HwConfig c = load_hw_config(preset("edge-npu-ddr4.yaml"));
  EXPECT_EQ(c.npu.name, "edge-npu-ddr4");
  EXPECT_EQ(c.mac_array.rows, 32);
  EXPECT_EQ(c.mac_array.cols, 32);
  EXPECT_EQ(c.mac_array.dataflow, Dataflow::WeightStationary);
  EXPECT_EQ(c.mac_array.dtype, DType::Int8);
  EXPECT_EQ(c.sram.capacity_bytes, 1u << 20);  // "1 MiB" = 2^20 B
  EXPECT_EQ(c.ddr.standard, "DDR4");
  EXPECT_EQ(c.ddr.bank_groups * c.ddr.banks_per_group, 16);  // MT40A1G8: 4 BG x 4 banks
  EXPECT_EQ(c.ddr.address_mapping, "rochrababgco");
  EXPECT_EQ(c.ddr.page_policy, PagePolicy::Open);
  // JESD79-4 DDR4-3200AA at tCK 0.625 ns (the issue's list): CL22 tRCD22 tRP22 tRAS52 tRC74
  // tFAW34 tRRD_S/L 4/8 tCCD_S/L 4/8 tWTR_S/L 4/12 tWR24 tRTP12 tRFC560 tREFI12480.
  const DdrTimingCk& t = c.ddr.timing;
  EXPECT_EQ(t.cl, 22);
  EXPECT_EQ(t.t_rcd, 22);
  EXPECT_EQ(t.t_rp, 22);
  EXPECT_EQ(t.t_ras, 52);
  EXPECT_EQ(t.t_rc, 74);
  EXPECT_EQ(t.t_faw, 34);
  EXPECT_EQ(t.t_rrd_s, 4);
  EXPECT_EQ(t.t_rrd_l, 8);
  EXPECT_EQ(t.t_ccd_s, 4);
  EXPECT_EQ(t.t_ccd_l, 8);
  EXPECT_EQ(t.t_wtr_s, 4);
  EXPECT_EQ(t.t_wtr_l, 12);
  EXPECT_EQ(t.t_wr, 24);
  EXPECT_EQ(t.t_rtp, 12);
  EXPECT_EQ(t.t_rfc, 560);    // 350 ns / 0.625 ns
  EXPECT_EQ(t.t_refi, 12480);  // 7.8 us / 0.625 ns
  EXPECT_TRUE(c.energy.present);
}

TEST(HwConfigPreset, EdgeNpuDdr4DerivedFigures) {
  const HwConfig c = load_hw_config(preset("edge-npu-ddr4.yaml"));
  // 32 x 32 PEs x 1 MAC/cycle x 1e9 cycles/s = 1.024e12 MAC/s.
  EXPECT_DOUBLE_EQ(c.peak_macs_per_s(), 1.024e12);
  // DDR4-3200 x 64 bit: 3200e6 transfers/s x 8 B = 25.6e9 B/s = 25.6 GB/s.
  EXPECT_DOUBLE_EQ(c.ddr.peak_gbps(), 25.6);
  // tCK = 1 / (3200e6 / 2) s = 0.625 ns.
  EXPECT_DOUBLE_EQ(c.ddr.tck_ns(), 0.625);
  // Machine balance = 1.024e12 MAC/s / 25.6e9 B/s = 40 MAC per DDR byte.
  EXPECT_DOUBLE_EQ(c.machine_balance_macs_per_byte(), 40.0);
  // 2 ranks x 16 banks x 65536 rows x 1024 columns x 8 B (64-bit bus) = 2^1 x 2^4 x 2^16 x 2^10
  // x 2^3 = 2^34 B = 16 GiB (= 2 ranks x 8 devices x 8 Gb).
  EXPECT_EQ(c.ddr.capacity_bytes(), 16ull << 30);
  // One burst: 64 bit / 8 x BL8 = 64 B.
  EXPECT_EQ(c.ddr.burst_bytes(), 64);
  // Minimal tile, int8: 2 x 32 x 32 x 1 + 32 x 1 + 32 x 4 = 2048 + 32 + 128 = 2208 B.
  EXPECT_EQ(c.min_sram_tile_bytes(), 2208u);
}

TEST(HwConfigPreset, MobileNpuLpddr4DerivedFigures) {
  const HwConfig c = load_hw_config(preset("mobile-npu-lpddr4.yaml"));
  EXPECT_EQ(c.mac_array.dataflow, Dataflow::OutputStationary);
  EXPECT_EQ(c.sram.capacity_bytes, 512u * 1024);  // "512 KiB"
  EXPECT_EQ(c.ddr.standard, "LPDDR4");
  EXPECT_EQ(c.ddr.burst_length, 16);  // JESD209-4 BL16
  EXPECT_EQ(c.ddr.bank_groups, 1);    // LPDDR4 has no bank groups
  EXPECT_EQ(c.ddr.banks_per_group, 8);
  // 16 x 16 x 1 x 800e6 = 204.8e9 MAC/s.
  EXPECT_DOUBLE_EQ(c.peak_macs_per_s(), 204.8e9);
  // LPDDR4-3200 on a 32-bit bus (2 channels x 16 bit): 3200e6 x 4 B = 12.8 GB/s.
  EXPECT_DOUBLE_EQ(c.ddr.peak_gbps(), 12.8);
  EXPECT_EQ(c.ddr.channels * c.ddr.bus_width_bits, 32);
  // Per-channel burst: 16 bit / 8 x BL16 = 32 B.
  EXPECT_EQ(c.ddr.burst_bytes(), 32);
  // 204.8e9 / 12.8e9 = 16 MAC/B.
  EXPECT_DOUBLE_EQ(c.machine_balance_macs_per_byte(), 16.0);
  EXPECT_DOUBLE_EQ(c.ddr.tck_ns(), 0.625);
  // JESD209-4 at tCK 0.625 ns: tRCD 18 ns -> 29, tRAS 42 ns -> 68, tFAW 40 ns -> 64,
  // tRFCab 180 ns (4 Gb per channel) -> 288, tREFI 3.904 us -> 6246.
  EXPECT_EQ(c.ddr.timing.t_rcd, 29);
  EXPECT_EQ(c.ddr.timing.t_ras, 68);
  EXPECT_EQ(c.ddr.timing.t_faw, 64);
  EXPECT_EQ(c.ddr.timing.t_rfc, 288);
  EXPECT_EQ(c.ddr.timing.t_refi, 6246);
  // 2 channels x 8 banks x 32768 rows x 1024 columns x 2 B = 2^1 x 2^3 x 2^15 x 2^10 x 2^1
  // = 2^30 B = 1 GiB (one 8 Gb die).
  EXPECT_EQ(c.ddr.capacity_bytes(), 1ull << 30);
}

TEST(HwConfigPreset, TpuV1LikeDerivedFigures) {
  const HwConfig c = load_hw_config(preset("tpu-v1-like.yaml"));
  EXPECT_EQ(c.mac_array.rows, 256);
  EXPECT_EQ(c.mac_array.cols, 256);
  EXPECT_EQ(c.sram.capacity_bytes, 24u << 20);  // 24 MiB Unified Buffer (ISCA 2017)
  EXPECT_EQ(c.ddr.standard, "DDR3");
  // 256 x 256 x 700e6 = 65536 x 700e6 = 45.8752e12 MAC/s (the paper's 92 TOPS = 2 ops per MAC).
  EXPECT_DOUBLE_EQ(c.peak_macs_per_s(), 45.8752e12);
  // DDR3-2133, 2 channels x 64 bit: 2133e6 x 8 B x 2 = 34.128e9 B/s ("34 GB/s" in the paper).
  EXPECT_DOUBLE_EQ(c.ddr.peak_gbps(), 34.128);
  // 45.8752e12 / 34.128e9 = 1344.21 MAC/B (the paper's roofline ridge point is ~1350 at 34 GB/s).
  EXPECT_NEAR(c.machine_balance_macs_per_byte(), 1344.21, 0.005);
  // tCK = 2000 / 2133 ns = 0.93765 ns.
  EXPECT_NEAR(c.ddr.tck_ns(), 0.93765, 1e-5);
  // 2 channels x 8 banks x 65536 x 1024 x 8 B = 2^1 x 2^3 x 2^16 x 2^10 x 2^3 = 2^33 B = 8 GiB,
  // the paper's 8 GiB Weight Memory.
  EXPECT_EQ(c.ddr.capacity_bytes(), 8ull << 30);
  // JESD79-3F DDR3-2133N: tRAS 33 ns / 0.938 -> 36, tRC 46.09 ns -> 50 = tRAS + tRP (36 + 14).
  EXPECT_EQ(c.ddr.timing.t_ras, 36);
  EXPECT_EQ(c.ddr.timing.t_rc, 50);
  // Minimal tile: 2 x 256 x 256 + 256 + 256 x 4 = 131072 + 256 + 1024 = 132352 B.
  EXPECT_EQ(c.min_sram_tile_bytes(), 132352u);
}

TEST(HwConfigPreset, EveryPresetHasSourcedEnergy) {
  for (const char* name : {"edge-npu-ddr4.yaml", "mobile-npu-lpddr4.yaml", "tpu-v1-like.yaml"}) {
    const HwConfig c = load_hw_config(preset(name));
    ASSERT_TRUE(c.energy.present) << name;
    // Horowitz ISSCC 2014: 8-bit multiply 0.2 pJ + 32-bit add 0.1 pJ = 0.3 pJ per int8 MAC.
    EXPECT_DOUBLE_EQ(c.energy.pj_per_mac, 0.3) << name;
    // Off-chip bytes cost far more than on-chip ones (DRAM 20-40 pJ/bit vs SRAM ~1-12 pJ/B).
    EXPECT_GT(c.energy.pj_per_ddr_byte, 3 * c.energy.pj_per_sram_byte) << name;
  }
}

TEST(HwConfigDefaults, OptionalKeysTakeTheirDocumentedDefaults) {
  const HwConfig c = parse_hw_config(kMinimal, "minimal.yaml");
  EXPECT_EQ(c.source, "minimal.yaml");
  EXPECT_EQ(c.mac_array.macs_per_pe_per_cycle, 1);
  EXPECT_EQ(c.mac_array.depthwise_mapping, DepthwiseMapping::ScaleSim);
  EXPECT_EQ(c.sram.banks, 1);
  EXPECT_EQ(c.sram.latency_cycles, 1);
  EXPECT_EQ(c.act_unit.default_latency_cycles, 4);
  EXPECT_TRUE(c.act_unit.op_latency_cycles.empty());
  EXPECT_EQ(c.dma.burst_bytes, 64);
  EXPECT_EQ(c.dma.max_outstanding, 0);     // derived by Little's law (npu::hw::dma_sizing)
  EXPECT_EQ(c.dma.requests_per_cycle, 0);  // derived: ddr.channels
  EXPECT_EQ(c.ddr.address_mapping, "rochrababgco");
  EXPECT_EQ(c.ddr.page_policy, PagePolicy::Open);
  EXPECT_EQ(c.ddr.queue_depth, 32);
  EXPECT_EQ(c.ddr.write_high_watermark, 24);  // 3/4 of 32
  EXPECT_EQ(c.ddr.write_low_watermark, 8);    // 1/4 of 32
  EXPECT_EQ(c.ddr.timing.t_rtrs, 2);
  EXPECT_FALSE(c.energy.present);
  // fp16 minimal tile: 2 x 8 x 8 x 2 + 8 x 2 + 8 x 4 = 256 + 16 + 32 = 304 B.
  EXPECT_EQ(c.min_sram_tile_bytes(), 304u);
}

TEST(HwConfigDefaults, DepthwiseMappingIsReadAndRoundTrips) {
  // kMinimal is input-stationary, which channels_across_columns excludes: switch to OS.
  std::string yaml = kMinimal;
  const std::string from = "  dtype: fp16\n";
  yaml.replace(yaml.find(from), from.size(), from + "  depthwise_mapping: channels_across_columns\n");
  yaml.replace(yaml.find("input_stationary"), std::string("input_stationary").size(), "output_stationary");
  const HwConfig c = parse_hw_config(yaml, "dw.yaml");
  EXPECT_EQ(c.mac_array.depthwise_mapping, DepthwiseMapping::ChannelsAcrossColumns);
  const std::string resolved = hw_config_to_yaml(c);
  EXPECT_NE(resolved.find("  depthwise_mapping: channels_across_columns\n"), std::string::npos) << resolved;
  EXPECT_EQ(parse_hw_config(resolved).mac_array.depthwise_mapping, DepthwiseMapping::ChannelsAcrossColumns);
  // The default is printed too, so a resolved config says which mapping it ran with.
  EXPECT_NE(hw_config_to_yaml(parse_hw_config(kMinimal)).find("  depthwise_mapping: scalesim\n"), std::string::npos);
}

TEST(HwConfigDefaults, LlmKeysAreReadAndRoundTrip) {
  // kMinimal is fp16, which W4A16 needs.
  std::string yaml = kMinimal;
  const std::string from = "  dtype: fp16\n";
  yaml.replace(yaml.find(from), from.size(),
               from + "  gemv_mapping: auto\n  gemv_max_m: 8\n  weight_dtype: int4\n  weight_group: 64\n"
                      "  kv_cache_dtype: int8\n");
  const HwConfig c = parse_hw_config(yaml, "llm.yaml");
  EXPECT_EQ(c.mac_array.gemv_mapping, GemvMapping::Auto);
  EXPECT_EQ(c.mac_array.gemv_max_m, 8);
  EXPECT_EQ(c.mac_array.weight_dtype, WeightDType::Int4);
  EXPECT_EQ(c.mac_array.weight_group, 64);
  EXPECT_EQ(c.mac_array.kv_cache_dtype, KvCacheDType::Int8);
  const HwConfig back = parse_hw_config(hw_config_to_yaml(c));
  EXPECT_EQ(back.mac_array.gemv_mapping, GemvMapping::Auto);
  EXPECT_EQ(back.mac_array.weight_group, 64);
  EXPECT_EQ(back.mac_array.kv_cache_dtype, KvCacheDType::Int8);
  // Left out, none is written: a config without them resolves to the text it always had.
  const std::string plain = hw_config_to_yaml(parse_hw_config(kMinimal));
  for (const char* key : {"gemv_mapping", "gemv_max_m", "weight_dtype", "weight_group", "kv_cache_dtype"})
    EXPECT_EQ(plain.find(key), std::string::npos) << key;
  const HwConfig d = parse_hw_config(kMinimal);
  EXPECT_EQ(d.mac_array.gemv_mapping, GemvMapping::Dataflow);
  EXPECT_EQ(d.mac_array.weight_dtype, WeightDType::Same);
}

TEST(HwConfigPreset, PresetsKeepTheScaleSimDepthwiseMapping) {
  for (const char* name : {"edge-npu-ddr4.yaml", "mobile-npu-lpddr4.yaml", "tpu-v1-like.yaml"})
    EXPECT_EQ(load_hw_config(preset(name)).mac_array.depthwise_mapping, DepthwiseMapping::ScaleSim) << name;
}

TEST(HwConfigHost, AbsentSectionGivesTheDefaultCortexA76ClassCore) {
  const HwConfig c = parse_hw_config(kMinimal, "minimal.yaml");
  EXPECT_FALSE(c.host.present);
  // docs/config.md: one Cortex-A76 at 2.4 GHz, 2 FMLA pipes x 4 fp32 lanes = 19.2 GMAC/s;
  // 8 GB/s estimated single-core bandwidth.
  EXPECT_DOUBLE_EQ(c.host.gops, 2 * 4 * 2.4);
  EXPECT_DOUBLE_EQ(c.host.bandwidth_gbps, 8.0);
}

TEST(HwConfigHost, SectionKeysAreReadAndEachIsOptional) {
  const HwConfig both = parse_hw_config(std::string(kMinimal) + "host:\n  bandwidth_gbps: 12.5\n  gops: 36.8\n");
  EXPECT_TRUE(both.host.present);
  EXPECT_DOUBLE_EQ(both.host.bandwidth_gbps, 12.5);
  EXPECT_DOUBLE_EQ(both.host.gops, 36.8);
  const HwConfig one = parse_hw_config(std::string(kMinimal) + "host:\n  gops: 50\n");
  EXPECT_DOUBLE_EQ(one.host.bandwidth_gbps, 8.0);  // the default
  EXPECT_DOUBLE_EQ(one.host.gops, 50.0);
  // The resolved YAML carries the section and reloads to the same values.
  const HwConfig back = parse_hw_config(hw_config_to_yaml(both));
  EXPECT_DOUBLE_EQ(back.host.bandwidth_gbps, 12.5);
  EXPECT_DOUBLE_EQ(back.host.gops, 36.8);
}

TEST(HwConfigHost, EveryPresetHasAnExplicitHost) {
  // Values and sources in each file's comments (docs/config.md, "host").
  const std::pair<const char*, std::pair<double, double>> expected[] = {
      {"edge-npu-ddr4.yaml", {8.0, 19.2}},     // A76 at 2.4 GHz: 8 MACs/cycle x 2.4
      {"mobile-npu-lpddr4.yaml", {6.4, 20.8}}, // A76 at 2.6 GHz: 8 x 2.6; half of 12.8 GB/s
      {"tpu-v1-like.yaml", {10.0, 36.8}},      // Haswell core: 16 MACs/cycle x 2.3 GHz
      {"hbm2-npu.yaml", {10.0, 36.8}},
  };
  for (const auto& [name, bw_gops] : expected) {
    const HwConfig c = load_hw_config(preset(name));
    EXPECT_TRUE(c.host.present) << name;
    EXPECT_DOUBLE_EQ(c.host.bandwidth_gbps, bw_gops.first) << name;
    EXPECT_DOUBLE_EQ(c.host.gops, bw_gops.second) << name;
  }
}

TEST(HwConfigHost, HostCyclesIsTheHostRoofline) {
  HwConfig hw;
  hw.npu.clock_mhz = 1000;
  hw.host.bandwidth_gbps = 8;
  hw.host.gops = 20;
  // Memory-bound: 8e6 B / 8e9 B/s = 1 ms = 1e6 cycles at 1 GHz; 1e6 MACs / 20e9 = 50 us.
  EXPECT_EQ(host_cycles(hw, 1000000, 8000000), 1000000u);
  // Compute-bound: 1e9 MACs / 20e9 = 50 ms = 5e7 cycles; 1 KB / 8e9 = 125 ns.
  EXPECT_EQ(host_cycles(hw, 1000000000, 1000), 50000000u);
  // Rounded up: 1 byte / 8e9 = 0.125 ns = 0.125 cycles -> 1; 21 MACs / 20e9 = 1.05 ns -> 2.
  EXPECT_EQ(host_cycles(hw, 0, 1), 1u);
  EXPECT_EQ(host_cycles(hw, 21, 0), 2u);
  EXPECT_EQ(host_cycles(hw, 0, 0), 0u);
  // At 700 MHz (TPU preset clock): 7e6 B / 8e9 = 875 us x 700e6 = 612500 cycles exactly.
  hw.npu.clock_mhz = 700;
  EXPECT_EQ(host_cycles(hw, 0, 7000000), 612500u);
}

TEST(HwConfigDefaults, OptionalKeysOverrideDefaults) {
  std::string text = kMinimal;
  text += "dma:\n  burst_bytes: 128\n  max_outstanding: 8\n";
  text.replace(text.find("  timing:"), 0,
               "  address_mapping: RoBaRaCoCh\n  page_policy: closed\n  queue_depth: 16\n"
               "  write_high_watermark: 12\n  write_low_watermark: 2\n");
  // RoBaRaCoCh lacks bg: not a valid mapping here, so use a full one in mixed case.
  text.replace(text.find("RoBaRaCoCh"), 10, "RoBgBaRaChCo");
  const HwConfig c = parse_hw_config(text);
  EXPECT_EQ(c.dma.burst_bytes, 128);
  EXPECT_EQ(c.dma.max_outstanding, 8);
  EXPECT_EQ(c.ddr.address_mapping, "robgbarachco");  // case is normalised to lower
  EXPECT_EQ(c.ddr.page_policy, PagePolicy::Closed);
  EXPECT_EQ(c.ddr.queue_depth, 16);
  EXPECT_EQ(c.ddr.write_high_watermark, 12);
  EXPECT_EQ(c.ddr.write_low_watermark, 2);
}

TEST(HwConfigSize, IntegersAndUnitStrings) {
  EXPECT_EQ(parse_size_bytes("64"), 64u);
  EXPECT_EQ(parse_size_bytes("64 B"), 64u);
  EXPECT_EQ(parse_size_bytes("1MiB"), 1048576u);           // 2^20
  EXPECT_EQ(parse_size_bytes("24 MiB"), 24u * 1048576u);   // 25165824
  EXPECT_EQ(parse_size_bytes("512KiB"), 524288u);          // 512 x 1024
  EXPECT_EQ(parse_size_bytes("512 KiB"), 524288u);
  EXPECT_EQ(parse_size_bytes("2 GiB"), 2147483648u);       // 2 x 2^30
  EXPECT_EQ(parse_size_bytes("1 TiB"), 1099511627776u);    // 2^40
  EXPECT_EQ(parse_size_bytes("2 GB"), 2000000000u);        // decimal
  EXPECT_EQ(parse_size_bytes("1kB"), 1000u);
  EXPECT_EQ(parse_size_bytes("1KB"), 1000u);
  EXPECT_EQ(parse_size_bytes("3 MB"), 3000000u);
  EXPECT_EQ(parse_size_bytes("1.5 KiB"), 1536u);           // exact fractions are fine
  EXPECT_EQ(parse_size_bytes("  8 KiB  "), 8192u);         // surrounding blanks ignored
}

TEST(HwConfigSize, MalformedSizesAreRejected) {
  for (const char* bad : {"", "MiB", "1 MIB", "1 mib", "1M", "1 Kb", "-1 KiB", "1.3 B", "1. KiB", "0x10",
                          "1 MiB extra", "99999999999999999999", "20000000 TiB"})
    EXPECT_FALSE(parse_size_bytes(bad).has_value()) << "'" << bad << "'";
}

TEST(HwConfigYaml, ResolvedYamlReloadsToTheSameConfig) {
  for (const char* name : {"edge-npu-ddr4.yaml", "mobile-npu-lpddr4.yaml", "tpu-v1-like.yaml"}) {
    const HwConfig a = load_hw_config(preset(name));
    const std::string yaml_a = hw_config_to_yaml(a);
    const HwConfig b = parse_hw_config(yaml_a, "resolved");
    EXPECT_EQ(hw_config_to_yaml(b), yaml_a) << name;
    EXPECT_EQ(b.sram.capacity_bytes, a.sram.capacity_bytes) << name;
    EXPECT_EQ(b.act_unit.op_latency_cycles, a.act_unit.op_latency_cycles) << name;
    EXPECT_DOUBLE_EQ(b.energy.pj_per_sram_byte, a.energy.pj_per_sram_byte) << name;
  }
  // The minimal config gains its defaults in the resolved text and keeps them on reload.
  const HwConfig m = parse_hw_config(kMinimal);
  const std::string resolved = hw_config_to_yaml(m);
  EXPECT_NE(resolved.find("  write_high_watermark: 24\n"), std::string::npos);
  EXPECT_NE(resolved.find("    tRTRS: 2\n"), std::string::npos);
  EXPECT_EQ(resolved.find("energy:"), std::string::npos);
  EXPECT_EQ(hw_config_to_yaml(parse_hw_config(resolved)), resolved);
  // A queue of 2 derives high = max(1, 2 x 3 / 4) = 1 and low = 2 / 4 = 0; still reloads.
  std::string small = kMinimal;
  small.replace(small.find("  timing:"), 0, "  queue_depth: 2\n");
  const HwConfig q = parse_hw_config(small);
  EXPECT_EQ(q.ddr.write_high_watermark, 1);
  EXPECT_EQ(q.ddr.write_low_watermark, 0);
  const HwConfig q2 = parse_hw_config(hw_config_to_yaml(q));
  EXPECT_EQ(q2.ddr.write_low_watermark, 0);
  EXPECT_EQ(hw_config_to_yaml(q2), hw_config_to_yaml(q));
}

}  // namespace
}  // namespace npu
