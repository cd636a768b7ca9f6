// write_run_json streams the per-instruction records (run_json_writer.cpp); the reference is
// the text the whole-object path printed before: json_dump(to_json(r, with)) + "\n", for
// records whose strings need escaping (quote, backslash, control characters, non-ASCII UTF-8,
// invalid UTF-8), for no records, and without records.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "npu/base/json_text.hpp"
#include "npu/sim/run/run_stats.hpp"
#include "tool_runner.hpp"

namespace npu::sim {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

RunResult sample_result(int records) {
  RunResult r;
  r.program = "prog \"q\"";
  r.strategy = "transformer";
  r.hw = "hbm2-npu";
  r.total_cycles = 1234567;
  r.total_ns = 1234567.5;
  r.core_clock_mhz = 1000.0;
  LayerStats l;
  l.name = "/h.0/attn/MatMul";
  r.layers.push_back(l);
  const char* names[] = {"/wte/Gather", "a\"b\\c", "tab\there\nnl", "caf\xc3\xa9 \xe2\x82\xac", "bad \xff utf8",
                         "", "\x7f del", "ctrl \x01"};
  for (int k = 0; k < records; ++k) {
    InstructionStats i;
    i.index = std::size_t(k);
    i.source_line = 770 + k;
    i.op = k % 2 ? isa::Opcode::Store : isa::Opcode::Load;
    i.unit = k % 2 ? "dma_store" : "dma_load";
    i.layer = names[k % 8];
    i.tensor = names[(k + 3) % 8];
    i.start_cycle = 1000u * std::uint64_t(k);
    i.end_cycle = 1000u * std::uint64_t(k) + 999;
    i.ddr_bytes = 64u << (k % 20);
    i.sram_bytes = 18446744073709551615ull - std::uint64_t(k);  // the largest values print whole
    i.macs = std::uint64_t(k) * 7;
    i.token_wait_cycles = std::uint64_t(k % 3);
    i.host_cycles = std::uint64_t(k % 5);
    i.host_read_bytes = 1;
    i.host_write_bytes = 2;
    r.instructions.push_back(i);
  }
  r.instruction_count = r.instructions.size();
  return r;
}

void expect_same_as_whole_object(const RunResult& r, bool with_instructions) {
  // A folder of this test process's own: ctest runs each case as a process, two at a time, and a
  // shared file name let one case remove the other's file before it was read (ASan CI run).
  const auto path = npu::test::fresh_dir("run-json-writer") + "/run.json";
  write_run_json(r, path, with_instructions);
  const std::string expected = npu::json_dump(to_json(r, with_instructions)) + "\n";
  const std::string got = read_text(path);
  std::filesystem::remove(path);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST(RunJsonWriter, RecordsEqualTheWholeObjectDump) { expect_same_as_whole_object(sample_result(40), true); }

TEST(RunJsonWriter, ManyRecordsCrossTheWriteChunks) {
  // 20,000 records of about 450 bytes: several 1 MiB chunks.
  expect_same_as_whole_object(sample_result(20000), true);
}

TEST(RunJsonWriter, NoRecordsAndWithoutRecords) {
  expect_same_as_whole_object(sample_result(0), true);
  expect_same_as_whole_object(sample_result(5), false);
}

}  // namespace
}  // namespace npu::sim
