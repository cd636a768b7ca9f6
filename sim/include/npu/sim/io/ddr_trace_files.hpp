// The `--trace ddr` outputs of one run (DIR/ddr.csv or, with compression, DIR/ddr.csv.gz;
// DIR/ddr.trace) and the estimate of their size printed before a large trace is written.
// Formats: traces/README.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "npu/hw/ddr/ddr_trace.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::sim {

/// Opens the DDR trace files in `dir`: ddr.csv (gzip-compressed as ddr.csv.gz when
/// `compress`; the bytes inside are those ddr.csv would hold) and ddr.trace (DRAMSim3 format,
/// always plain: DRAMSim3 and `npu ddr run` read it as text). Throws ConfigError when a file
/// cannot be created.
class DdrTraceFiles {
 public:
  DdrTraceFiles(const std::string& dir, bool compress);
  ~DdrTraceFiles();
  hw::DdrTraceSink* sink() { return &tee_; }
  /// Completes the gzip stream (call after the run; the destructor does it otherwise).
  void close();
  std::vector<std::string> paths() const { return paths_; }

 private:
  std::unique_ptr<std::ostream> gz_;
  std::unique_ptr<hw::CsvDdrTraceWriter> csv_;
  std::unique_ptr<hw::Dramsim3DdrTraceWriter> ds3_;
  hw::TeeDdrTraceSink tee_;
  std::vector<std::string> paths_;
};

/// Size of the DDR trace of `program` on `hw`, before running it.
struct DdrTraceEstimate {
  /// Rows = DRAM bursts: every LOAD/STORE row cut at multiples of min(dma.burst_bytes,
  /// ddr burst) (dma::BurstSplitter::count); exact when one burst size divides the other.
  std::uint64_t bursts = 0;
  /// ddr.csv bytes: per row the layer and tensor names (CSV-quoted as written), the
  /// descriptor's first burst's coordinates, address and command, and time stamps as wide as
  /// the run's lower bound (DDR bytes at peak bandwidth) makes them; within about 15 % of the
  /// real size (docs/experiment.md, "Traces").
  std::uint64_t csv_bytes = 0;
  /// ddr.trace bytes: per row `0xADDR READ|WRITE CYCLE\n`, estimated at 24 B.
  std::uint64_t trace_bytes = 0;
};
DdrTraceEstimate estimate_ddr_trace(const isa::Program& program, const HwConfig& hw);

/// Size above which a run warns before writing a DDR trace: 100 MB.
inline constexpr std::uint64_t kLargeTraceBytes = 100'000'000;

/// "" when est.csv_bytes + est.trace_bytes <= threshold_bytes; otherwise a warning giving
/// the estimated sizes and, when not `compressed`, suggesting --trace-compress.
std::string ddr_trace_size_warning(const DdrTraceEstimate& est, bool compressed,
                                   std::uint64_t threshold_bytes = kLargeTraceBytes);

/// Throws npu::ConfigError "--trace ddr: error: ..." when a run on `hw` has no DDR model to
/// trace: `memory.model: fixed` (docs/config.md "memory": DDR traces are not written), where
/// ddr.csv and ddr.trace came out empty with exit 0. (`npu run --ideal-memory` has its own.)
void require_ddr_model_for_trace(const HwConfig& hw);

}  // namespace npu::sim
