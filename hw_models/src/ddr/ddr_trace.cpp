#include "npu/hw/ddr/ddr_trace.hpp"

#include "npu/isa/csv.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "npu/isa/hw_config.hpp"

namespace npu::hw {

namespace {

std::unique_ptr<std::ofstream> open_output(const std::string& path) {
  auto f = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::trunc);
  if (!*f) {
    throw ConfigError(path + ": error: cannot open the trace file for writing\n"
                      "  fix: check that the folder exists and is writable");
  }
  return f;
}

void append_csv_field(std::string& line, std::string_view v) {
  line += npu::csv_field(v);
}

}  // namespace

CsvDdrTraceWriter::CsvDdrTraceWriter(std::ostream& out) : out_(&out) {
  *out_ << "cycle,time_ns,channel,rank,bankgroup,bank,row,column,addr,cmd,bytes,layer,tensor\n";
}

CsvDdrTraceWriter::CsvDdrTraceWriter(const std::string& path) : file_(open_output(path)), out_(file_.get()) {
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

void CsvDdrTraceWriter::finish() { out_->flush(); }

Dramsim3DdrTraceWriter::Dramsim3DdrTraceWriter(std::ostream& out) : out_(&out) {}

Dramsim3DdrTraceWriter::Dramsim3DdrTraceWriter(const std::string& path)
    : file_(open_output(path)), out_(file_.get()) {}

Dramsim3DdrTraceWriter::~Dramsim3DdrTraceWriter() {
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
  entries_.clear();
  entries_.shrink_to_fit();
}

}  // namespace npu::hw
