#include "npu/hw/ddr/ddr_trace.hpp"

#include "npu/base/csv.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "npu/base/atomic_file.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::hw {

namespace {

/// The trace goes to PATH.tmp.<pid> and is renamed to PATH by finish(): a failed run leaves
/// no truncated trace behind.
std::unique_ptr<AtomicOutputFile> open_output(const std::string& path) {
  return std::make_unique<AtomicOutputFile>(path, "trace file");
}

void append_csv_field(std::string& line, std::string_view v) {
  line += npu::csv_field(v);
}

}  // namespace

CsvDdrTraceWriter::CsvDdrTraceWriter(std::ostream& out) : out_(&out) {
  *out_ << "cycle,time_ns,channel,rank,bankgroup,bank,row,column,addr,cmd,bytes,layer,tensor\n";
}

CsvDdrTraceWriter::CsvDdrTraceWriter(const std::string& path) : file_(open_output(path)), out_(&file_->stream()) {
  *out_ << "cycle,time_ns,channel,rank,bankgroup,bank,row,column,addr,cmd,bytes,layer,tensor\n";
}

void CsvDdrTraceWriter::on_burst(const DdrBurstRecord& r) {
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "%" PRId64 ",%.3f,%d,%d,%d,%d,%" PRId64 ",%" PRId64 ",0x%" PRIx64 ",%s,%d,",
                        std::int64_t(r.cycle), r.time_ns, r.channel, r.rank, r.bankgroup, r.bank,
                        std::int64_t(r.row), std::int64_t(r.column), r.addr, r.is_write ? "WRITE" : "READ",
                        r.bytes);
  line_.assign(buf, std::size_t(n));
  append_csv_field(line_, r.layer);
  line_.push_back(',');
  append_csv_field(line_, r.tensor);
  line_.push_back('\n');
  out_->write(line_.data(), std::streamsize(line_.size()));
}

void CsvDdrTraceWriter::finish() {
  out_->flush();
  if (file_) file_->commit();
}

Dramsim3DdrTraceWriter::Dramsim3DdrTraceWriter(std::ostream& out) : out_(&out) {}

Dramsim3DdrTraceWriter::Dramsim3DdrTraceWriter(const std::string& path)
    : file_(open_output(path)), out_(&file_->stream()) {}

Dramsim3DdrTraceWriter::~Dramsim3DdrTraceWriter() {
  if (file_) return;  // a file never finish()ed belongs to a failed run: its temporary file is removed
  try {
    finish();
  } catch (...) {
  }
}

void Dramsim3DdrTraceWriter::on_burst(const DdrBurstRecord& r) {
  entries_.push_back(Entry{r.arrival_ck, r.addr, r.is_write});
}

void Dramsim3DdrTraceWriter::finish() {
  if (finished_) return;
  finished_ = true;
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.arrival < b.arrival; });
  char buf[64];
  for (const Entry& e : entries_) {
    int n = std::snprintf(buf, sizeof buf, "0x%" PRIx64 " %s %" PRId64 "\n", e.addr, e.is_write ? "WRITE" : "READ",
                          std::int64_t(e.arrival));
    out_->write(buf, n);
  }
  out_->flush();
  if (file_) file_->commit();
  entries_.clear();
  entries_.shrink_to_fit();
}

}  // namespace npu::hw
