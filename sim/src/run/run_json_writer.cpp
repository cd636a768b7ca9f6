// run.json written as a stream (run_stats.hpp, write_run_json): the summary keys through
// nlohmann::ordered_json as before, the per-instruction records (a 7B decode step has 157,557,
// 68 MB of text) formatted directly, byte for byte what json_dump(to_json(r, true)) prints
// (2-space indent, nlohmann's string escaping, integers in decimal), without building a JSON
// object of 15 keys per record and the whole text in memory twice (docs/performance.md).
#include <fmt/format.h>

#include <string>

#include "npu/base/atomic_file.hpp"
#include "npu/base/json_text.hpp"
#include "npu/sim/run/run_stats.hpp"

namespace npu::sim {

namespace {

// A string as json_dump prints it: quoted and escaped by nlohmann, or UTF-8-sanitised first
// when it is not valid UTF-8 (json_dump's fallback, applied string by string there too).
void append_json_string(std::string& out, const std::string& s) {
  bool plain = true;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {  // printable ASCII without quote or backslash: nlohmann prints it as is
    out += '"';
    out += s;
    out += '"';
    return;
  }
  out += npu::json_dump(nlohmann::ordered_json(s), -1);
}

// One record at nlohmann's indent 2 inside the array at depth 1 (instruction_json's keys).
void append_record(std::string& out, const InstructionStats& i) {
  out += "    {\n";
  fmt::format_to(std::back_inserter(out), "      \"index\": {},\n      \"line\": {},\n      \"opcode\": ", i.index,
                 i.source_line);
  append_json_string(out, isa::to_string(i.op));
  out += ",\n      \"unit\": ";
  append_json_string(out, i.unit);
  out += ",\n      \"layer\": ";
  append_json_string(out, i.layer);
  out += ",\n      \"tensor\": ";
  append_json_string(out, i.tensor);
  fmt::format_to(std::back_inserter(out),
                 ",\n      \"start_cycle\": {},\n      \"end_cycle\": {},\n      \"ddr_bytes\": {},\n"
                 "      \"sram_bytes\": {},\n      \"macs\": {},\n      \"token_wait_cycles\": {},\n"
                 "      \"host_cycles\": {},\n      \"host_ddr_read_bytes\": {},\n      \"host_ddr_write_bytes\": {}\n"
                 "    }}",
                 i.start_cycle, i.end_cycle, i.ddr_bytes, i.sram_bytes, i.macs, i.token_wait_cycles, i.host_cycles,
                 i.host_read_bytes, i.host_write_bytes);
}

}  // namespace

void write_run_json(const RunResult& r, const std::string& path, bool with_instructions) {
  std::string head = npu::json_dump(to_json(r, /*with_instructions=*/false));
  AtomicOutputFile f(path, "file");
  if (!with_instructions) {
    f.stream() << head << "\n";
    f.commit();
    return;
  }
  // head ends with "\n}" (an object with keys): the records are its last key.
  head.resize(head.size() - 2);
  f.stream() << head << ",\n  \"instruction_records\": ";
  if (r.instructions.empty()) {
    f.stream() << "[]\n}\n";
    f.commit();
    return;
  }
  f.stream() << "[\n";
  std::string chunk;
  chunk.reserve(1 << 20);
  for (std::size_t k = 0; k < r.instructions.size(); ++k) {
    if (k > 0) chunk += ",\n";
    append_record(chunk, r.instructions[k]);
    if (chunk.size() >= (1u << 20) - 4096) {
      f.stream() << chunk;
      chunk.clear();
    }
  }
  f.stream() << chunk << "\n  ]\n}\n";
  f.commit();
}

}  // namespace npu::sim
