// Per-burst records of DDR traffic and the writers that store them (formats documented
// in docs/ddr.md, "Trace formats").
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "npu/base/atomic_file.hpp"
#include "npu/hw/ddr/ddr_types.hpp"

namespace npu::hw {

/// One burst (one request) as the DDR model served it. Emitted when its column command
/// issues, so records come in issue order per channel.
struct DdrBurstRecord {
  Tick cycle = 0;        ///< tCK of the column command (RD/WR)
  double time_ns = 0;    ///< cycle x tCK
  int channel = 0, rank = 0, bankgroup = 0, bank = 0;
  std::int64_t row = 0, column = 0;
  std::uint64_t addr = 0;  ///< byte address of the burst (burst-aligned)
  bool is_write = false;
  int bytes = 0;          ///< bytes moved (one burst)
  std::string_view layer;   ///< from the TrafficTag, "" if none
  std::string_view tensor;  ///< from the TrafficTag, "" if none
  Tick arrival_ck = 0;   ///< tick the front end accepted the request
  Tick done_ck = 0;      ///< tick the last data beat left the bus
};

/// Receives every burst the model serves (DdrModule::set_trace_sink, DdrSystem).
class DdrTraceSink {
 public:
  virtual ~DdrTraceSink() = default;
  virtual void on_burst(const DdrBurstRecord& rec) = 0;
  /// Flush buffered output; called once at the end (idempotent).
  virtual void finish() {}
};

/// CSV with header `cycle,time_ns,channel,rank,bankgroup,bank,row,column,addr,cmd,bytes,
/// layer,tensor`: addr in hex (0x...), cmd READ|WRITE, time_ns with 3 decimals, layer
/// and tensor quoted when they contain a comma or a quote. One row per burst, in issue
/// order per channel.
class CsvDdrTraceWriter : public DdrTraceSink {
 public:
  explicit CsvDdrTraceWriter(std::ostream& out);
  /// Writes `path` via a temporary file renamed into place by finish(); throws ConfigError
  /// naming the path when it cannot be written.
  explicit CsvDdrTraceWriter(const std::string& path);
  void on_burst(const DdrBurstRecord& rec) override;
  void finish() override;

 private:
  std::unique_ptr<AtomicOutputFile> file_;
  std::ostream* out_;
  std::string line_;
};

/// DRAMSim3 trace format, one request a line: `0xADDR READ|WRITE CYCLE`, CYCLE = the tick
/// the request was offered, lines sorted by that tick (stable), so the file replays the
/// same offered stream in DRAMSim3 or in `npu ddr run`. Buffers 24 bytes per burst until
/// finish().
class Dramsim3DdrTraceWriter : public DdrTraceSink {
 public:
  explicit Dramsim3DdrTraceWriter(std::ostream& out);
  explicit Dramsim3DdrTraceWriter(const std::string& path);
  ~Dramsim3DdrTraceWriter() override;
  void on_burst(const DdrBurstRecord& rec) override;
  void finish() override;

 private:
  struct Entry {
    Tick arrival;
    std::uint64_t addr;
    bool is_write;
  };
  std::unique_ptr<AtomicOutputFile> file_;
  std::ostream* out_;
  std::vector<Entry> entries_;
  bool finished_ = false;
};

/// Forwards every record to several sinks.
class TeeDdrTraceSink : public DdrTraceSink {
 public:
  void add(DdrTraceSink* sink) { sinks_.push_back(sink); }
  void on_burst(const DdrBurstRecord& rec) override {
    for (auto* s : sinks_) s->on_burst(rec);
  }
  void finish() override {
    for (auto* s : sinks_) s->finish();
  }

 private:
  std::vector<DdrTraceSink*> sinks_;
};

}  // namespace npu::hw
