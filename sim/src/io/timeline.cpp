#include "npu/sim/io/timeline.hpp"
#include "npu/sim/io/output_files.hpp"
#include "npu/base/user_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <string_view>

#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

namespace {
std::string json_escape(const std::string& s_in) {
  const std::string s = npu::utf8_escaped(s_in);  // JSON is UTF-8: other bytes as \xNN text
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", int(c));
        else out += c;
    }
  }
  return out;
}
int track_of(const std::string_view unit) {
  if (unit == "dma_load") return 1;
  if (unit == "dma_store") return 2;
  if (unit == "mac_array") return 3;
  if (unit == "act_unit") return 4;
  if (unit == "host") return 5;
  return 0;
}
}  // namespace

std::string timeline_json(const RunResult& r) {
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  out += fmt::format("{{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {{\"name\": \"{}\"}}}}",
                     json_escape("npu " + r.hw + " : " + r.program));
  static const char* tracks[] = {"", "DMA load", "DMA store", "MAC array", "activation unit", "host"};
  // The host track exists only when the program has HOST instructions, so every other
  // timeline is unchanged (traces/tiny_convnet/timeline.json is a byte-exact golden sample).
  int n_tracks = 4;
  for (const InstructionStats& in : r.instructions)
    if (track_of(in.unit) == 5) n_tracks = 5;
  for (int t = 1; t <= n_tracks; ++t) {
    out += fmt::format(",\n{{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": {}, \"args\": {{\"name\": \"{}\"}}}}", t,
                       tracks[t]);
    out += fmt::format(",\n{{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": {}, \"args\": {{\"sort_index\": {}}}}}",
                       t, t);
  }
  for (const InstructionStats& in : r.instructions) {
    const int tid = track_of(in.unit);
    if (tid == 0) continue;  // SYNC: no unit
    // ts and dur from the start and the end each rounded to the ns: rounding the duration on its
    // own let a slice end 1 ns after the next one on its track began (a DDR-clocked end between
    // two ns), which trace viewers draw as a bad nesting. Rounding is monotonic, so slices that
    // do not overlap in the run do not overlap here.
    const long long ts_ns = std::llround(in.start_ns), end_ns = std::llround(in.end_ns);
    out += fmt::format(
        ",\n{{\"name\": \"{}\", \"cat\": \"{}\", \"ph\": \"X\", \"pid\": 1, \"tid\": {}, \"ts\": {:.3f}, \"dur\": {:.3f}, "
        "\"args\": {{\"index\": {}, \"opcode\": \"{}\", \"tensor\": \"{}\", \"ddr_bytes\": {}, \"sram_bytes\": {}, "
        "\"macs\": {}, \"start_cycle\": {}, \"end_cycle\": {}{}}}}}",
        json_escape(in.layer.empty() ? std::string(isa::to_string(in.op)) : in.layer), isa::to_string(in.op), tid,
        double(ts_ns) / 1000.0, double(end_ns - ts_ns) / 1000.0, in.index, isa::to_string(in.op),
        json_escape(in.tensor), in.ddr_bytes, in.sram_bytes, in.macs, in.start_cycle, in.end_cycle,
        tid == 5 ? fmt::format(", \"host_cycles\": {}, \"host_ddr_read_bytes\": {}, \"host_ddr_write_bytes\": {}",
                               in.host_cycles, in.host_read_bytes, in.host_write_bytes)
                 : std::string());
  }
  out += "\n]}\n";
  return out;
}

void write_timeline(const RunResult& r, const std::string& path) {
  write_file_atomic(path, timeline_json(r));
}

}  // namespace npu::sim
