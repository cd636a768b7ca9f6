// Typed hardware configuration: the target description shared by the compiler
// (tiling needs SRAM size and array shape) and the hardware model (timing).
//
// It is its own library (npu_hw_config, isa/hw_config/) below the ISA: both the compiler
// and the hardware models take it, and neither may depend on the other. A YAML file is
// parsed and validated in exactly one place (src/load/: one reader per section, then the
// rules across sections in src/load/cross_section_checks.cpp); everything downstream takes
// these structs. Field reference: docs/config.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/base/config_error.hpp"

namespace npu {

enum class Dataflow { WeightStationary, OutputStationary, InputStationary };
enum class DType { Int8, Fp16, Fp32 };
enum class PagePolicy { Open, Closed };
/// How a depthwise convolution (group > 1, one input channel per group) maps onto the MAC
/// array (npu/isa/cost/systolic_fold.hpp, docs/timing.md). Other convolutions are unaffected.
enum class DepthwiseMapping {
  ScaleSim,               ///< groups one after another, each a GEMM with N = c_out/group (SCALE-Sim's "DP")
  ChannelsAcrossColumns,  ///< all channels of the tile in one GEMM: N = c_out, K = kh*kw
};

/// How a GEMM with few rows (M <= mac_array.gemv_max_m: decode's GEMV, M = batch) runs
/// (npu/isa/cost/gemv_mapping.hpp, docs/config.md "mac_array", docs/timing.md).
enum class GemvMapping {
  Dataflow,          ///< the array's own dataflow, like any GEMM (the default: SCALE-Sim)
  WeightStationary,  ///< the array, weight-stationary folds (rows <- K, cols <- N, M streamed)
  OutputStationary,  ///< the array, output-stationary folds (rows <- M, cols <- N, K streamed)
  VectorUnit,        ///< the activation unit's lanes as MACs, weights streamed from SRAM
  Auto,              ///< the cheapest of the three by the cost formula
};
/// How a dense convolution maps onto a weight-stationary array (mac_array.conv_mapping,
/// npu/isa/cost/ws_preload.hpp, docs/timing.md "Gemmini's mechanisms").
enum class ConvMapping {
  Im2col,          ///< K = c_in x kh x kw on the rows, output pixels streamed (SCALE-Sim; the default)
  ChannelsOnRows,  ///< c_in on the rows, the kh x kw taps walked in time, one weight block per tap (Gemmini)
};
/// How weights enter a weight-stationary array (mac_array.weight_preload, docs/timing.md).
enum class WeightPreload {
  None,            ///< every fold loads its weights, streams, drains: 2R + C + T - 2 (SCALE-Sim; the default)
  DoubleBuffered,  ///< the next block's weights shift in while the current one computes (Gemmini's PEs)
};
/// Which memory answers the DMA (memory.model, docs/config.md "memory").
enum class MemoryModel {
  Ddr,    ///< the DDR model of the `ddr` section (the default)
  Fixed,  ///< a fixed latency and a fixed bandwidth (FireSim's default model, ONNXim's magic memory)
};

/// Element type of the weights in DDR and SRAM (mac_array.weight_dtype).
enum class WeightDType {
  Same,  ///< mac_array.dtype (the default)
  Int8,
  Fp16,
  Int4,  ///< weight-only int4 with one fp16 scale per weight_group weights along K (W4A16)
};
/// Element type of the KV cache (mac_array.kv_cache_dtype).
enum class KvCacheDType { Same, Int8, Fp16 };

/// Bytes per element of a data type (int8 1, fp16 2, fp32 4).
int dtype_bytes(DType t);
const char* to_string(Dataflow d);  ///< "weight_stationary" | "output_stationary" | "input_stationary"
const char* to_string(DType t);     ///< "int8" | "fp16" | "fp32"
const char* to_string(PagePolicy p);  ///< "open" | "closed"
const char* to_string(DepthwiseMapping m);  ///< "scalesim" | "channels_across_columns"
/// "dataflow" | "weight_stationary" | "output_stationary" | "vector_unit" | "auto"
const char* to_string(GemvMapping m);
const char* to_string(WeightDType t);   ///< "same" | "int8" | "fp16" | "int4"
const char* to_string(ConvMapping m);   ///< "im2col" | "channels_on_rows"
const char* to_string(WeightPreload w);  ///< "none" | "double_buffered"
const char* to_string(MemoryModel m);   ///< "ddr" | "fixed"
const char* to_string(KvCacheDType t);  ///< "same" | "int8" | "fp16"

struct NpuSection {
  std::string name;
  double clock_mhz = 0;  ///< core clock of MAC array, SRAM, act unit, DMA front end (MHz)
};

struct MacArrayConfig {
  int rows = 0;  ///< PE rows (R); in weight-stationary, the reduction dimension maps here
  int cols = 0;  ///< PE columns (C)
  Dataflow dataflow = Dataflow::WeightStationary;
  DType dtype = DType::Int8;
  int macs_per_pe_per_cycle = 1;
  /// Depthwise mapping; the default reproduces SCALE-Sim (docs/config.md).
  DepthwiseMapping depthwise_mapping = DepthwiseMapping::ScaleSim;
  /// Mapping of a GEMM instruction with m <= gemv_max_m; the default is the array's dataflow.
  GemvMapping gemv_mapping = GemvMapping::Dataflow;
  int gemv_max_m = 1;  ///< largest M that gemv_mapping applies to (decode: M = batch)
  WeightDType weight_dtype = WeightDType::Same;  ///< weights' element type (precision.hpp)
  int weight_group = 128;  ///< int4: weights along K per fp16 scale
  KvCacheDType kv_cache_dtype = KvCacheDType::Same;  ///< KV cache element type (precision.hpp)
  ConvMapping conv_mapping = ConvMapping::Im2col;  ///< dense convolutions (weight-stationary only)
  WeightPreload weight_preload = WeightPreload::None;  ///< weight-stationary only
};

/// Optional `accumulator` section: an on-chip SRAM for the int32 (fp32) partial sums, apart
/// from `sram` (Gemmini's accumulator). Absent: partial sums stay in the array and `sram`
/// holds the outputs, as before. Present: a tile's partial sums must fit capacity_bytes.
struct AccumulatorConfig {
  bool present = false;
  std::uint64_t capacity_bytes = 0;  ///< > 0 (the loader rejects 0)
  int bytes_per_element = 4;         ///< int32 partial sums (fp32 for fp16/fp32 arrays)
};

/// Optional `memory` section: which memory model answers the DMA. Fixed: every request
/// takes latency_ns after its bytes have crossed one bus of bandwidth_gbps (IdealMemory).
struct MemoryConfig {
  MemoryModel model = MemoryModel::Ddr;
  bool present = false;
  double latency_ns = 0;      ///< fixed: per request
  double bandwidth_gbps = 0;  ///< fixed: 1e9 B/s of the one shared bus
};

struct SramConfig {
  std::uint64_t capacity_bytes = 0;  ///< enforced: an access past it is an error
  int banks = 1;
  int bytes_per_cycle = 0;  ///< per bank, per port, in core cycles
  int latency_cycles = 1;   ///< access latency in core cycles
  /// Low-order bank interleaving: byte `a` is in bank (a / bank_interleave_bytes) mod banks,
  /// so consecutive granules of this many bytes go to consecutive banks. Must divide the bank
  /// size capacity_bytes / banks; equal to it gives contiguous banks (one address range each).
  /// The YAML loader's default is kDefaultSramInterleaveBytes (docs/config.md "sram").
  std::uint64_t bank_interleave_bytes = 64;

  /// Bytes per bank (capacity_bytes / banks; the loader requires it to divide evenly).
  std::uint64_t bank_bytes() const { return banks > 0 ? capacity_bytes / std::uint64_t(banks) : 0; }
};

/// Default sram.bank_interleave_bytes: 64 B (one DMA burst of the presets and a cache line,
/// so an aligned burst stays in one bank); contiguous banks when the bank size is not a
/// multiple of 64 B.
inline constexpr std::uint64_t kDefaultSramInterleaveBytes = 64;

struct ActUnitConfig {
  int lanes = 0;  ///< elements per core cycle
  /// Pipeline latency per op in core cycles; keys are ActOp names (relu, sigmoid, ...).
  std::map<std::string, int> op_latency_cycles;
  int default_latency_cycles = 4;  ///< for ops not listed in op_latency_cycles
};

struct DmaConfig {
  int burst_bytes = 64;  ///< bytes per DDR request the DMA issues
  /// Requests in flight per DMA engine and per DDR channel. 0 (key absent): sized by
  /// Little's law from the DDR and SRAM sections (npu::hw::dma_sizing, docs/timing.md "DMA").
  int max_outstanding = 0;
  /// Requests the DMA front end issues per core cycle. 0 (key absent): ddr.channels, one
  /// request port per DDR channel (npu::hw::dma_sizing).
  int requests_per_cycle = 0;
};

/// DDR timing parameters, in DRAM clock cycles (tCK), JEDEC names.
struct DdrTimingCk {
  int cl = 0, cwl = 0, t_rcd = 0, t_rp = 0, t_ras = 0, t_rc = 0;
  int t_ccd_s = 0, t_ccd_l = 0, t_rrd_s = 0, t_rrd_l = 0, t_faw = 0;
  int t_wr = 0, t_wtr_s = 0, t_wtr_l = 0, t_rtp = 0, t_rfc = 0, t_refi = 0;
  int t_rtrs = 2;  ///< rank-to-rank data-bus turnaround (tCK); optional key, default 2
};

/// Largest ddr.queue_depth (entries per read or write queue of a channel): the FR-FCFS
/// scheduler scans the whole queue for every command; real controllers hold 32 to 128.
constexpr int kMaxDdrQueueDepth = 4096;

struct DdrConfig {
  std::string standard;  ///< "DDR4", "LPDDR4", "DDR3", "HBM2", ...
  int data_rate_mtps = 0;  ///< mega-transfers per second (DDR4-3200 -> 3200)
  int channels = 1, ranks = 1, bank_groups = 1, banks_per_group = 1;
  std::int64_t rows = 0;     ///< rows per bank
  std::int64_t columns = 0;  ///< columns per row (device columns)
  int device_width = 8;      ///< bits per device (x4/x8/x16)
  int bus_width_bits = 64;   ///< data bus width per channel
  int burst_length = 8;      ///< BL in beats
  std::string address_mapping = "rochrababgco";  ///< fields MSB->LSB: ro ch ra ba bg co
  PagePolicy page_policy = PagePolicy::Open;
  int queue_depth = 32;       ///< per-channel request queue entries (reads and writes each)
  int write_high_watermark = 0;  ///< start draining writes at this many queued (0: 3/4 of depth)
  int write_low_watermark = 0;   ///< stop draining at this many (0: 1/4 of depth)
  DdrTimingCk timing;

  /// DRAM clock period in ns: two transfers per clock, tCK = 2000 / data_rate_mtps.
  double tck_ns() const { return 2000.0 / data_rate_mtps; }
  /// Bytes moved by one burst on one channel: bus_width_bits / 8 * burst_length.
  int burst_bytes() const { return bus_width_bits / 8 * burst_length; }
  /// Peak bandwidth over all channels in GB/s (1e9 B/s): data rate x bus width.
  double peak_gbps() const { return data_rate_mtps * 1e6 * (bus_width_bits / 8.0) * channels / 1e9; }
  /// Total capacity in bytes: channels x ranks x banks x rows x columns x bus bytes.
  std::uint64_t capacity_bytes() const {
    return std::uint64_t(channels) * ranks * bank_groups * banks_per_group * std::uint64_t(rows) *
           std::uint64_t(columns) * (bus_width_bits / 8);
  }
};

/// Optional energy figures (pJ). `present` is false when the config has no `energy` section.
struct EnergyConfig {
  bool present = false;
  double pj_per_mac = 0;
  double pj_per_sram_byte = 0;
  double pj_per_ddr_byte = 0;
};

/// The host CPU that runs the network partitions the NPU cannot (HOST instructions). Optional
/// `host` section; the defaults are one Arm Cortex-A76-class application core (docs/config.md,
/// "host"): 2 x 128-bit NEON FMA pipes x 4 fp32 lanes x 2.4 GHz = 19.2 GMAC/s peak, and an
/// estimated 8 GB/s of memory bandwidth one core achieves.
struct HostConfig {
  double bandwidth_gbps = 8.0;  ///< effective memory bandwidth of the host (GB/s, 1e9 B/s)
  double gops = 19.2;           ///< host op rate: giga multiply-accumulates (or elementary ops) per second
  bool present = false;         ///< the config file has a `host` section (else the defaults above)
};

struct HwConfig {
  std::string source;  ///< file the config came from (for messages), "<string>" otherwise
  NpuSection npu;
  MacArrayConfig mac_array;
  SramConfig sram;
  ActUnitConfig act_unit;
  DmaConfig dma;
  DdrConfig ddr;
  EnergyConfig energy;
  HostConfig host;
  AccumulatorConfig accumulator;
  MemoryConfig memory;

  /// Peak MAC/s: rows x cols x macs_per_pe_per_cycle x clock.
  double peak_macs_per_s() const {
    return double(mac_array.rows) * mac_array.cols * mac_array.macs_per_pe_per_cycle * npu.clock_mhz * 1e6;
  }
  /// Machine balance (roofline ridge point): peak MAC/s divided by peak DDR bytes/s.
  /// Peak bandwidth of the memory the DMA uses (GB/s): memory.bandwidth_gbps when
  /// memory.model is fixed, else the DDR peak (ddr.peak_gbps()).
  double memory_peak_gbps() const {
    return memory.model == MemoryModel::Fixed ? memory.bandwidth_gbps : ddr.peak_gbps();
  }
  double machine_balance_macs_per_byte() const { return peak_macs_per_s() / (memory_peak_gbps() * 1e9); }
  /// Core clock period in ns.
  double core_period_ns() const { return 1000.0 / npu.clock_mhz; }
  /// Smallest SRAM (bytes) that holds one array tile (docs/config.md, "Minimal tile"):
  /// 2 x rows x cols operand elements (a double-buffered stationary fold) + rows input
  /// elements + cols accumulators of 4 B (int32 for int8, fp32 for fp16/fp32).
  /// Loading rejects an sram.capacity below this.
  std::uint64_t min_sram_tile_bytes() const;
};

/// NPU core cycles the host (HwConfig::host) takes for a partition of `macs` multiply-
/// accumulates (or elementary ops) moving `bytes` bytes to or from memory, as a roofline:
///   ceil(max(bytes / (bandwidth_gbps x 1e9), macs / (gops x 1e9)) x clock_mhz x 1e6)
/// i.e. ceil(max(bytes x clock_mhz / (bandwidth_gbps x 1e3), macs x clock_mhz / (gops x 1e3))).
/// 0 when both are 0. The compiler uses it for HOST instructions' `cycles` (docs/config.md).
std::uint64_t host_cycles(const HwConfig& hw, std::uint64_t macs, std::uint64_t bytes);

/// One map of the config file: its dotted path ("" for the top level, "ddr.timing") and the
/// keys it requires and allows. A key that is itself a section has an entry of its own.
struct HwConfigSection {
  std::string path;
  std::vector<std::string> required;
  std::vector<std::string> optional;
};

/// The config file's schema, in the order of docs/config.md: every map and its keys. The
/// loader checks keys against it (unknown, missing); `npu sweep` checks axis paths with it.
const std::vector<HwConfigSection>& hw_config_schema();

/// The name every report and summary labels a run's hardware with: the config file's stem,
/// what the user passed (`configs/edge-npu-ddr4.yaml` -> `edge-npu-ddr4`; characters other
/// than letters, digits, '-', '_', '.' become '_', as npu experiment's run ids), when `source`
/// is a .yaml/.yml path; npu.name otherwise (a config parsed from text). npu.name is still
/// reported as `npu_name` in run.json (docs/experiment.md, "Run labels").
std::string config_label(const HwConfig& hw);

/// Load and validate a YAML hardware config. Throws ConfigError naming file:line:col,
/// the key, and what is allowed, for any malformed, unknown, missing or impossible value.
HwConfig load_hw_config(const std::string& path);

/// Same as load_hw_config on YAML text; `source` is used in messages.
HwConfig parse_hw_config(const std::string& yaml_text, const std::string& source = "<string>");

/// The resolved config (defaults filled in) as YAML that load_hw_config accepts again and
/// that resolves to the same config; keys in the order of docs/config.md.
std::string hw_config_to_yaml(const HwConfig& cfg);

/// Parse a size such as "1MiB", "24 MiB", "512KiB", "64", "2 GB" into bytes.
/// Binary (KiB/MiB/GiB) and decimal (kB/KB/MB/GB) suffixes; returns nullopt when malformed.
std::optional<std::uint64_t> parse_size_bytes(const std::string& text);

}  // namespace npu
