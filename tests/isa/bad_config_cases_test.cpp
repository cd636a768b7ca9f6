// Bad hardware configs, one row each: the edge preset (configs/edge-npu-ddr4.yaml) with
// text replaced, checked with `npu config check`. Fragments are the documented messages
// (docs/config.md, "Errors" and "Limits"); numbers in them are worked out in the comments.
#include <string>
#include <vector>

#include "bad_input_cases.hpp"

namespace {

using npu::test::BadCase;

/// The edge preset with each "FROM=>TO" of `spec` (separated by "||") replaced once.
std::string config_text(const std::string& spec) {
  return npu::test::edited(npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml"), spec, "");
}

const std::vector<BadCase> kConfigCases = {
    // Issue 27's probe: yaml-cpp says "illegal map value" for a tab; the tab's line is named.
    BadCase{"tab indentation", "  name: edge-npu-ddr4=>\tname: edge-npu-ddr4",
            ":20: error: malformed YAML: line 20 is indented with a tab character (illegal map value at 20:6)\n"
            "  YAML indents with spaces only"},
    // Numbers that are not what the key takes.
    BadCase{"hex integer", "  rows: 32 =>  rows: 0x20 ",
            "'mac_array.rows' must be a decimal integer, got '0x20'\n  hexadecimal is not accepted here; write the "
            "value in decimal ('rows: 32')"},
    BadCase{"23-digit integer", "  rows: 32 =>  rows: 99999999999999999999999 ",
            "'mac_array.rows' = 99999999999999999999999 is out of range: at most 65536"},
    BadCase{"rows 2^31 - 1", "  rows: 32 =>  rows: 2147483647 ", "'mac_array.rows' = 2147483647 is out of range: at most 65536"},
    BadCase{"cols 2^30", "  cols: 32=>  cols: 1073741824", "'mac_array.cols' = 1073741824 is out of range: at most 65536"},
    BadCase{"fraction", "  rows: 32 =>  rows: 1.5 ", "'mac_array.rows' must be an integer, got the fraction '1.5'"},
    BadCase{"zero rows", "  rows: 32 =>  rows: 0 ", "'mac_array.rows' must be >= 1, got 0"},
    BadCase{"negative rows", "  rows: 32 =>  rows: -4 ", "'mac_array.rows' must be >= 1, got -4"},
    BadCase{"word for a number", "  rows: 32 =>  rows: abc ", "'mac_array.rows' must be an integer, got 'abc'"},
    BadCase{"size too large", "  capacity: 1 MiB =>  capacity: 99999999 TiB",
            "'sram.capacity' = '99999999 TiB' is too large: more than 2^64 - 1 bytes\n  allowed: at most 4 GiB"},
    // 8 GiB = 8589934592 B > 2^32: SRAM addresses are 32-bit.
    BadCase{"SRAM over 4 GiB", "  capacity: 1 MiB =>  capacity: 8 GiB",
            "'sram.capacity' = 8589934592 bytes is too large: at most 4 GiB (4294967296 bytes)"},
    BadCase{"unknown size unit", "  capacity: 1 MiB =>  capacity: 1 XiB", "'sram.capacity' is not a size: '1 XiB'"},
    BadCase{"zero size", "  capacity: 1 MiB =>  capacity: 0", "'sram.capacity' must be > 0, got '0'"},
    // Newcomer probe round 3 (issue 27): sizes that are numbers, but not whole bytes or not in digits.
    BadCase{"fraction of a byte", "  capacity: 1 MiB =>  capacity: 0.3 B",
            "'sram.capacity' is not a size: '0.3 B'; 0.3 B is 0.3 bytes, not a whole number of bytes"},
    BadCase{"size with an exponent", "  capacity: 1 MiB =>  capacity: 1e6",
            "'sram.capacity' is not a size: '1e6'; exponents are not accepted: write 1000000 (bytes)"},
    BadCase{"1 kHz clock", "  clock_mhz: 1000 =>  clock_mhz: 0.001 ",
            "'npu.clock_mhz' = 0.001 MHz is out of range: at least 1 (1 MHz)"},
    BadCase{"20 GHz clock", "  clock_mhz: 1000 =>  clock_mhz: 20000 ",
            "'npu.clock_mhz' = 20000 MHz is out of range: at most 10000 (10 GHz)"},
    BadCase{"clock as a word", "  clock_mhz: 1000 =>  clock_mhz: fast ", "'npu.clock_mhz' must be a number (MHz), got 'fast'"},
    BadCase{"SRAM latency 2e9", "  latency_cycles: 2 =>  latency_cycles: 2000000000 ",
            "'sram.latency_cycles' = 2000000000 is out of range: at most 1000"},
    BadCase{"queue depth 1e9", "  queue_depth: 32 =>  queue_depth: 1000000000 ",
            "'ddr.queue_depth' = 1000000000 is out of range: at most 4096"},
    BadCase{"queue depth 715827882", "  queue_depth: 32 =>  queue_depth: 715827882 ",
            "'ddr.queue_depth' = 715827882 is out of range: at most 4096"},
    BadCase{"queue depth 0", "  queue_depth: 32 =>  queue_depth: 0 ", "'ddr.queue_depth' must be >= 1, got 0"},
    BadCase{"max_outstanding", "  max_outstanding: 32=>  max_outstanding: 100000",
            "'dma.max_outstanding' = 100000 is out of range: at most 4096"},
    BadCase{"max_outstanding 0", "  max_outstanding: 32=>  max_outstanding: 0",
            "'dma.max_outstanding' must be >= 1, got 0"},
    BadCase{"requests_per_cycle 0", "  max_outstanding: 32=>  max_outstanding: 32\n  requests_per_cycle: 0",
            "'dma.requests_per_cycle' must be >= 1, got 0"},
    BadCase{"requests_per_cycle 1000", "  max_outstanding: 32=>  max_outstanding: 32\n  requests_per_cycle: 1000",
            "'dma.requests_per_cycle' = 1000 is out of range: at most 64"},
    BadCase{"requests_per_cycle word", "  max_outstanding: 32=>  max_outstanding: 32\n  requests_per_cycle: many",
            "'dma.requests_per_cycle' must be an integer"},
    BadCase{"lanes", "  lanes: 32 =>  lanes: 100000 ", "'act_unit.lanes' = 100000 is out of range: at most 65536"},
    BadCase{"op latency", "    relu: 1 =>    relu: 5000 ",
            "'act_unit.latency_cycles.relu' = 5000 is out of range: at most 1000"},
    BadCase{"SRAM banks", "  banks: 8 =>  banks: 3000 ", "'sram.banks' = 3000 is out of range: at most 1024"},
    BadCase{"MACs per PE", "  macs_per_pe_per_cycle: 1 =>  macs_per_pe_per_cycle: 65 ",
            "'mac_array.macs_per_pe_per_cycle' = 65 is out of range: at most 64"},
    BadCase{"data rate", "  data_rate_mtps: 3200 =>  data_rate_mtps: 30000 ",
            "'ddr.data_rate_mtps' = 30000 MT/s is out of range: at most 20000"},
    BadCase{"timing of 2e6 tCK", "    tFAW: 34 =>    tFAW: 2000000 ", "'ddr.timing.tFAW' = 2000000 is out of range: at most 1000000"},
    BadCase{"channels not a power of two", "  channels: 1 =>  channels: 3 ", "'ddr.channels' = 3 is not a power of two"},
    // JEDEC rules (docs/config.md, "Standard rules").
    BadCase{"DDR3 with bank groups", "  standard: DDR4=>  standard: DDR3",
            "'ddr.bank_groups' = 4 but DDR3 has no bank groups"},
    BadCase{"LPDDR4 with bank groups", "  standard: DDR4=>  standard: LPDDR4",
            "'ddr.bank_groups' = 4 but LPDDR4 has no bank groups"},
    // 4 x tRRD_S = 4 x 4 = 16 tCK.
    BadCase{"tFAW below 4 x tRRD_S", "    tFAW: 34 =>    tFAW: 15 ",
            "tFAW = 15 tCK is below 4 x tRRD_S = 4 x 4 = 16 tCK: the four-activate window could never bind"},
    // x16 DDR4-3200: tFAW_2K = max(28 nCK, 30 ns); 30 / 0.625 = 48 -> truncate((48000 + 974) / 1000) = 48.
    BadCase{"x16 DDR4 with tFAW 20", "  device_width: 8 =>  device_width: 16 ||    tFAW: 34 =>    tFAW: 20 ",
            "tFAW = 20 tCK is below the DDR4 minimum for a 2 KB (x16) page at 3200 MT/s: max(28 nCK, 30 ns) = 48 tCK"},
    BadCase{"x16 DDR4 with the x8 tFAW", "  device_width: 8 =>  device_width: 16 ",
            "tFAW = 34 tCK is below the DDR4 minimum for a 2 KB (x16) page at 3200 MT/s: max(28 nCK, 30 ns) = 48 tCK"},
    // x8 DDR4-3200: tFAW_1K = max(20 nCK, 21 ns); 21 / 0.625 = 33.6 -> truncate(34.574) = 34.
    BadCase{"x8 DDR4 tFAW 33", "    tFAW: 34 =>    tFAW: 33 ",
            "tFAW = 33 tCK is below the DDR4 minimum for a 1 KB (x8) page at 3200 MT/s: max(20 nCK, 21 ns) = 34 tCK"},
    // 16 ranks x 8 groups x 4 banks x 2^20 rows x 2^16 columns x 8 B = 2^48 B = 256 TiB per channel;
    // one die: 8 x 4 x 2^20 x 2^16 x 8 bits = 2^44 bits = 16384 Gb. At most 16 x 8 x 16 Gb = 256 GiB.
    BadCase{"256 TiB DDR4 channel",
            "  ranks: 2 =>  ranks: 16 ||  bank_groups: 4 =>  bank_groups: 8 ||  rows: 65536 =>  rows: 1048576 "
            "||  columns: 1024 =>  columns: 65536 ",
            "a DDR4 die of bank_groups x banks_per_group x rows x columns x device_width = 8 x 4 x 1048576 x 65536 x "
            "8 bits = 16384 Gb is larger than the largest DDR4 die, 16 Gb\n  JESD79-4 defines dies up to 16 Gb, so a "
            "channel holds at most ranks x devices x 16 Gb = 16 x 8 x 16 Gb = 256 GiB"},
    // 4 x 4 x 2^18 x 1024 x 8 = 2^35 bits = 32 Gb (2^17 rows is the real 16 Gb x8 die).
    BadCase{"32 Gb DDR4 die", "  rows: 65536 =>  rows: 262144 ",
            "a DDR4 die of bank_groups x banks_per_group x rows x columns x device_width = 4 x 4 x 262144 x 1024 x 8 "
            "bits = 32 Gb is larger than the largest DDR4 die, 16 Gb"},
    // Derived sizes: 2 x 65536^2 x 4 + 65536 x 4 + 65536 x 4 = 34359738368 + 524288 = 34360262656 B.
    BadCase{"array too large for the SRAM",
            "  rows: 32 =>  rows: 65536 ||  cols: 32=>  cols: 65536||  dtype: int8=>  dtype: fp32",
            "'sram.capacity' = 1048576 bytes is smaller than one minimal tile of 34360262656 bytes"},
    BadCase{"SRAM below one tile", "  capacity: 1 MiB =>  capacity: 1 KiB",
            "'sram.capacity' = 1024 bytes is smaller than one minimal tile of 2208 bytes"},
    BadCase{"banks do not divide", "  banks: 8 =>  banks: 3 ",
            "'sram.capacity' = 1048576 bytes does not split evenly into 'sram.banks' = 3"},
    // Edge preset bank: 1048576 / 8 = 131072 B; 131072 mod 100 = 72, 256 KiB = 262144 > 131072.
    BadCase{"SRAM interleave 0", "  banks: 8 =>  bank_interleave_bytes: 0\n  banks: 8 ",
            "'sram.bank_interleave_bytes' must be > 0, got '0'"},
    BadCase{"SRAM interleave a word", "  banks: 8 =>  bank_interleave_bytes: fine\n  banks: 8 ",
            "'sram.bank_interleave_bytes' is not a size: 'fine'"},
    BadCase{"SRAM interleave not dividing the bank", "  banks: 8 =>  bank_interleave_bytes: 100\n  banks: 8 ",
            "'sram.bank_interleave_bytes' = 100 bytes does not divide the bank size ('sram.capacity' 1048576 / "
            "'sram.banks' 8 = 131072 bytes)"},
    BadCase{"SRAM interleave above a bank", "  banks: 8 =>  bank_interleave_bytes: 256 KiB\n  banks: 8 ",
            "'sram.bank_interleave_bytes' = 262144 bytes is larger than one bank ('sram.capacity' 1048576 / "
            "'sram.banks' 8 = 131072 bytes)"},
    BadCase{"DMA burst", "  burst_bytes: 64 =>  burst_bytes: 48 ",
            "'dma.burst_bytes' = 48 is not a multiple of the DDR burst of 64 bytes"},
    // A DMA burst is one bus transaction: at most 4096 B (AXI4, ARM IHI 0022E A3.4.1) on the
    // edge preset, whose DDR4 burst is 64 bit / 8 x BL8 = 64 B (issue 27: 1 GiB was accepted).
    BadCase{"DMA burst of 1 GiB", "  burst_bytes: 64 =>  burst_bytes: 1 GiB ",
            "'dma.burst_bytes' = 1073741824 is larger than one bus transaction: at most 4096 bytes (AXI4"},
    BadCase{"DMA burst of 8 KiB", "  burst_bytes: 64 =>  burst_bytes: 8 KiB ",
            "'dma.burst_bytes' = 8192 is larger than one bus transaction: at most 4096 bytes"},
    BadCase{"tRC too short", "    tRC: 74 =>    tRC: 50 ", "timing cannot hold: tRC = 50 < tRAS + tRP = 52 + 22 = 74 tCK"},
    // Speed bins and burst lengths per standard (issue 27; ddr_speed_bins.cpp names the source).
    BadCase{"DDR4 at 6400 MT/s", "  data_rate_mtps: 3200 =>  data_rate_mtps: 6400 ",
            "'ddr.data_rate_mtps' = 6400 MT/s is outside the DDR4 speed bins: 1600 to 3200 MT/s\n  source: JESD79-4B"},
    BadCase{"DDR4 at 20000 MT/s", "  data_rate_mtps: 3200 =>  data_rate_mtps: 20000 ",
            "'ddr.data_rate_mtps' = 20000 MT/s is outside the DDR4 speed bins: 1600 to 3200 MT/s"},
    BadCase{"DDR4 at 1333 MT/s", "  data_rate_mtps: 3200 =>  data_rate_mtps: 1333 ",
            "'ddr.data_rate_mtps' = 1333 MT/s is outside the DDR4 speed bins"},
    // BL4: tCCD_S 4 x 2 >= 4 holds, so the burst-length rule is the one that fires.
    // BL16 with the preset's tCCD_S 4 breaks tCCD_S >= BL/2 too; the standard's burst length is
    // named first (its fix alone said "set tCCD_S >= 8", which then met this error).
    BadCase{"DDR4 with BL16", "  burst_length: 8 =>  burst_length: 16 ",
            "'ddr.burst_length' = 16 is not a DDR4 burst length: DDR4 defines BL8"},
    BadCase{"DDR4 with BL4", "  burst_length: 8 =>  burst_length: 4 ",
            "'ddr.burst_length' = 4 is not a DDR4 burst length: DDR4 defines BL8 (BC4 is a chopped BL8)\n  source: "
            "JESD79-4B"},
    BadCase{"DDR5 with BL8", "  standard: DDR4=>  standard: DDR5",
            "'ddr.burst_length' = 8 is not a DDR5 burst length: DDR5 defines BL16 (BL32 on x4 parts)\n  source: "
            "JESD79-5C"},
    BadCase{"DDR5 at 2400 MT/s", "  standard: DDR4=>  standard: DDR5||  data_rate_mtps: 3200 =>  data_rate_mtps: 2400 ",
            "'ddr.data_rate_mtps' = 2400 MT/s is outside the DDR5 speed bins: 3200 to 8800 MT/s"},
    BadCase{"HBM2 with BL8", "  standard: DDR4=>  standard: HBM2||  data_rate_mtps: 3200 =>  data_rate_mtps: 2000 ",
            "'ddr.burst_length' = 8 is not a HBM2 burst length: HBM2 defines BL2 or BL4\n  source: JESD235"},
    BadCase{"HBM with BL8", "  standard: DDR4=>  standard: HBM||  data_rate_mtps: 3200 =>  data_rate_mtps: 1000 ",
            "'ddr.burst_length' = 8 is not a HBM burst length: HBM defines BL2 or BL4\n  source: JESD235"},
    // A refresh lasts at least one row cycle: tRFC >= tRC = 74 tCK on the edge preset.
    BadCase{"tRFC 1", "    tRFC: 560 =>    tRFC: 1 ",
            "timing cannot hold: tRFC = 1 < tRC = 74 tCK (a refresh is shorter than one row cycle)"},
    BadCase{"tRFC just below tRC", "    tRFC: 560 =>    tRFC: 73 ", "timing cannot hold: tRFC = 73 < tRC = 74 tCK"},
    // Invisible characters in numbers and sizes, named with their code point and position.
    BadCase{"no-break space in a size", "  capacity: 1 MiB =>  capacity: 1\xc2\xa0MiB",
            "'sram.capacity' is not a size: '1\xc2\xa0MiB': it contains U+00A0 (no-break space) at character 2, which "
            "no number or size has; retype the value"},
    BadCase{"zero width space in an integer", "  rows: 32 =>  rows: 3\xe2\x80\x8b" "2 ",
            "'mac_array.rows' must be an integer, got '3\xe2\x80\x8b" "2': it contains U+200B (zero width space) at "
            "character 2"},
    BadCase{"narrow no-break space in a size", "  capacity: 1 MiB =>  capacity: 1\xe2\x80\xafMiB",
            "it contains U+202F (narrow no-break space) at character 2"},
    // Nesting: 100000 flow levels over 200000 short lines (each below the line-length limit).
    BadCase{"YAML nested 100000 levels", "deep: [\n" + npu::test::repeated("[\n", 99999) + npu::test::repeated("]\n", 100000),
            "YAML nested more than 64 levels deep here (the limit of a "},
    BadCase{"YAML nested 70 block levels", "deep:\n" + npu::test::indented_keys(70),
            "YAML nested more than 64 levels deep here"},
    BadCase{"tREFI below tRFC", "    tREFI: 12480 =>    tREFI: 100 ",
            "timing cannot hold: tREFI = 100 <= tRFC = 560 tCK (the device would refresh forever)"},
    // Edge preset: tRCD 22 + max(tRC 74, CWL 16 + BL/2 4 + tWR 24 + tRP 22 = 66) + 2 ranks x 16 banks
    // = 128 tCK a request needs between refreshes; tREFI 561 leaves 561 - tRFC 560 = 1.
    BadCase{"tREFI one clock above tRFC", "    tREFI: 12480 =>    tREFI: 561 ",
            "timing cannot hold: tREFI = 561 tCK leaves 1 tCK between refreshes (tREFI - tRFC 560), less than one "
            "request needs: tRCD 22 + max(tRC 74, CWL + BL/2 + tWR + tRP = 66) + 32 refresh precharge slots = 128 "
            "tCK; queued requests would wait forever"},
    BadCase{"watermark above depth", "  queue_depth: 32 =>  queue_depth: 32\n  write_high_watermark: 40\n",
            "'ddr.write_high_watermark' = 40 exceeds 'ddr.queue_depth' = 32"},
    BadCase{"unknown dataflow", "  dataflow: weight_stationary=>  dataflow: row_stationary",
            "unknown dataflow 'row_stationary' for 'mac_array.dataflow'"},
    BadCase{"unknown dtype", "  dtype: int8=>  dtype: int4", "unknown dtype 'int4' for 'mac_array.dtype'"},
    BadCase{"mapping lacks a field", "  address_mapping: rochrababgco=>  address_mapping: rochrababg",
            "'ddr.address_mapping' = 'rochrababg' lacks the field 'co'"},
    BadCase{"unknown page policy", "  page_policy: open=>  page_policy: half", "unknown page_policy 'half' for 'ddr.page_policy'"},
    BadCase{"misspelt section", "mac_array:=>mac_aray:", "unknown key 'mac_aray' in the top-level map"},
    // Gemmini's options (docs/config.md "accumulator", "memory", "mac_array").
    BadCase{"accumulator of 0 bytes", "\naccumulator:\n  capacity: 0\n", "'accumulator.capacity' must be > 0, got '0'"},
    BadCase{"accumulator 3-byte sums", "\naccumulator:\n  capacity: 16 KiB\n  bytes_per_element: 3\n",
            "'accumulator.bytes_per_element' must be 2 or 4, got 3"},
    BadCase{"fixed memory without bandwidth", "\nmemory:\n  model: fixed\n  latency_ns: 100\n",
            "'memory.model' is fixed but 'memory.bandwidth_gbps' is missing"},
    BadCase{"fixed memory of 1e-30 GB/s", "\nmemory:\n  model: fixed\n  latency_ns: 100\n  bandwidth_gbps: 1e-30\n",
            "'memory.bandwidth_gbps' 1e-30 is outside 0.001 to 100000 GB/s"},
    BadCase{"fixed memory of 1e30 ns", "\nmemory:\n  model: fixed\n  latency_ns: 1e30\n  bandwidth_gbps: 16\n",
            "'memory.latency_ns' 1e+30 is above 1,000,000 ns (1 ms)"},
    BadCase{"ddr memory with a latency", "\nmemory:\n  model: ddr\n  latency_ns: 100\n",
            "'memory.latency_ns' is set but 'memory.model' is ddr"},
    BadCase{"unknown memory model", "\nmemory:\n  model: hbm\n", "unknown memory model 'hbm' for 'memory.model'"},
    BadCase{"conv_mapping on an OS array",
            "  dataflow: weight_stationary=>  dataflow: output_stationary\n  conv_mapping: channels_on_rows",
            "'mac_array.conv_mapping' is set but 'mac_array.dataflow' is output_stationary"},
    BadCase{"unknown weight_preload", "  dataflow: weight_stationary=>  dataflow: weight_stationary\n  weight_preload: triple",
            "unknown weight_preload 'triple' for 'mac_array.weight_preload'"},
    // Structure of the file.
    BadCase{"second YAML document", "---\nnpu:\n  name: other\n",
            ": error: file has 2 YAML documents; a config is one document"},
    BadCase{"1 MB line", "# " + std::string(1 << 20, 'x') + "\n",
            "is longer than the limit of 65536 bytes (1048578 bytes)"},
    BadCase{"binary key", "\xff\xfe: 1\n", "unknown key '\\xff\\xfe' in the top-level map"},
    // Newcomer probe round 3 (issue 27): a config saved as UTF-16 was named by its first NUL byte.
    BadCase{"UTF-16LE byte-order mark", "# edge-npu-ddr4: an edge=>\xff\xfe# edge-npu-ddr4: an edge",
            ":1:1: error: the file is encoded in UTF-16LE (byte-order mark FF FE), not UTF-8\n  fix: save the "
            "hardware config YAML as UTF-8"},
    BadCase{"1000-byte key", std::string(1000, 'k') + ": 1\n",
            "unknown key '" + std::string(80, 'k') + "...(1000 bytes)' in the top-level map"},
};

TEST(BadConfigCases, EachIsRejectedWithItsMessageAndExitStatus) {
  const std::string dir = npu::test::fresh_dir("bad-config");
  int i = 0;
  for (const BadCase& c : kConfigCases) {
    const std::string path = dir + "/case" + std::to_string(i++) + ".yaml";
    npu::test::write_bytes(path, config_text(c.input));
    npu::test::expect_case(c, npu::test::npu_tool() + " config check " + npu::test::shq(path));
  }
}

}  // namespace
