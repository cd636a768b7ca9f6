// DDR trace files of a run and their size estimate (ddr_trace_files.hpp).
#include "npu/sim/io/ddr_trace_files.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"
#include "npu/hw/ddr/address_mapper.hpp"
#include "npu/hw/dma/dma_timing.hpp"
#include "npu/sim/io/gzip_file.hpp"

namespace npu::sim {

namespace fs = std::filesystem;

DdrTraceFiles::DdrTraceFiles(const std::string& dir, bool compress) {
  const std::string csv = (fs::path(dir) / (compress ? "ddr.csv.gz" : "ddr.csv")).string();
  if (compress) {
    gz_ = std::make_unique<GzipOFStream>(csv);
    csv_ = std::make_unique<hw::CsvDdrTraceWriter>(*gz_);
  } else {
    csv_ = std::make_unique<hw::CsvDdrTraceWriter>(csv);
  }
  const std::string trace = (fs::path(dir) / "ddr.trace").string();
  ds3_ = std::make_unique<hw::Dramsim3DdrTraceWriter>(trace);
  tee_.add(csv_.get());
  tee_.add(ds3_.get());
  paths_ = {csv, trace};
}

DdrTraceFiles::~DdrTraceFiles() = default;  // GzipOFStream's destructor completes the stream

void DdrTraceFiles::close() {
  if (auto* gz = dynamic_cast<GzipOFStream*>(gz_.get())) gz->close();
}

namespace {

// Length of `s` as append_csv_field writes it: quoted, with quotes doubled, when it holds a
// comma, a quote or a newline.
std::uint64_t csv_field_bytes(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s.size();
  return s.size() + 2 + std::uint64_t(std::count(s.begin(), s.end(), '"'));
}

std::uint64_t digits(std::uint64_t v) {
  std::uint64_t n = 1;
  while (v >= 10) v /= 10, ++n;
  return n;
}

std::uint64_t hex_digits(std::uint64_t v) {
  std::uint64_t n = 1;
  while (v >= 16) v /= 16, ++n;
  return n;
}

}  // namespace

DdrTraceEstimate estimate_ddr_trace(const isa::Program& program, const HwConfig& hw) {
  DdrTraceEstimate e;
  const int dma_burst = hw.dma.burst_bytes > 0 ? hw.dma.burst_bytes : hw.ddr.burst_bytes();
  const std::uint32_t burst = std::uint32_t(std::max(1, std::min(dma_burst, hw.ddr.burst_bytes())));
  // Time stamps: the run lasts at least its DDR bytes at peak bandwidth; rows carry a DRAM
  // cycle and a time in ns with 3 decimals of about that size.
  std::uint64_t bytes = 0;
  for (const auto& inst : program.instructions)
    if (inst.op == isa::Opcode::Load || inst.op == isa::Opcode::Store)
      bytes += std::get<isa::DmaDesc>(inst.params).bytes();
  const double end_ns = hw.ddr.peak_gbps() > 0 ? double(bytes) / hw.ddr.peak_gbps() : 0.0;
  const double tck_ns = hw.ddr.tck_ns() > 0 ? hw.ddr.tck_ns() : 1.0;
  const std::uint64_t stamp = digits(std::uint64_t(end_ns / tck_ns)) + 1 + digits(std::uint64_t(end_ns)) + 4 + 1;
  const hw::AddressMapper map(hw.ddr, hw.source);
  for (const auto& inst : program.instructions) {
    if (inst.op != isa::Opcode::Load && inst.op != isa::Opcode::Store) continue;
    const auto& d = std::get<isa::DmaDesc>(inst.params);
    const std::uint64_t n = hw::BurstSplitter::count(d, burst);
    e.bursts += n;
    // The descriptor's first burst stands for all of them: coordinates, address, command.
    const hw::DramAddress a = map.decode(d.ddr_addr % std::max<std::uint64_t>(map.capacity_bytes(), 1));
    const std::uint64_t coords = digits(std::uint64_t(a.channel)) + digits(std::uint64_t(a.rank)) +
                                 digits(std::uint64_t(a.bankgroup)) + digits(std::uint64_t(a.bank)) +
                                 digits(std::uint64_t(a.row)) + digits(std::uint64_t(a.column)) + 6;
    const std::uint64_t fixed = stamp + coords + 2 + hex_digits(d.ddr_addr) + 1 +
                                (inst.op == isa::Opcode::Store ? 5 : 4) + 1 + digits(burst) + 1;
    e.csv_bytes += n * (fixed + csv_field_bytes(inst.layer) + 1 + csv_field_bytes(inst.tensor) + 1);
  }
  e.csv_bytes += 74;  // the header line
  e.trace_bytes = e.bursts * 24;
  return e;
}

void require_ddr_model_for_trace(const HwConfig& hw) {
  if (hw.memory.model != MemoryModel::Fixed) return;
  throw ConfigError("--trace ddr: error: " + hw.source +
                    " sets memory.model: fixed, a fixed latency and bandwidth with no DDR model, so there is no "
                    "DDR trace (its files would be empty)\n  fix: drop ddr from --trace, or use memory.model: ddr");
}

std::string ddr_trace_size_warning(const DdrTraceEstimate& est, bool compressed, std::uint64_t threshold_bytes) {
  if (est.csv_bytes + est.trace_bytes <= threshold_bytes) return "";
  return fmt::format("warning: --trace ddr will write about {:.0f} MB: {} DDR bursts, ddr.csv ~{:.0f} MB{}, ddr.trace "
                     "~{:.0f} MB{}",
                     double(est.csv_bytes + est.trace_bytes) / 1e6, est.bursts, double(est.csv_bytes) / 1e6,
                     compressed ? " before compression (written as ddr.csv.gz)" : "",
                     double(est.trace_bytes) / 1e6,
                     compressed ? "" : "; add --trace-compress to write ddr.csv.gz (gzip; pandas.read_csv reads it)");
}

}  // namespace npu::sim
