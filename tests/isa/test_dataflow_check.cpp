// isa::check_dataflow on hand-written programs: a LOAD of stored data must follow the STOREs
// of those bytes (program order without tokens; queue order + tokens with them), and every
// output byte must be written. Byte offsets in the expectations are worked out by hand from
// each program's extents and strides.
#include <gtest/gtest.h>

#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/check/dataflow_check.hpp"

namespace npu::isa {
namespace {

const std::string kHeader =
    ".npuasm 1\n"
    ".program name=df strategy=none dtype=int8\n"
    ".tensor x kind=input ddr=0x0 bytes=256\n"
    ".tensor t kind=intermediate ddr=0x1000 bytes=256\n"
    ".tensor y kind=output ddr=0x2000 bytes=256\n";

std::vector<CheckIssue> check(const std::string& body) { return check_dataflow(read_program(kHeader + body, "df.npuasm")); }

/// check() with other .tensor lines than kHeader's.
std::vector<CheckIssue> check_with(const std::string& tensors, const std::string& body) {
  const std::string head = ".npuasm 1\n.program name=df strategy=none dtype=int8\n";
  return check_dataflow(read_program(head + tensors + body, "df.npuasm"));
}

// Layer a: x -> relu -> t; layer b: t -> relu -> y. Strict program order (no tokens).
const std::string kSerial =
    "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
    "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
    "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256\n"
    "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=256\n"
    "ACT   layer=b op=relu in=0x0 out=0x100 elems=256\n"
    "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=256\n";

TEST(DataflowCheck, SerialProgramThatStoresBeforeItLoadsIsClean) { EXPECT_TRUE(check(kSerial).empty()); }

TEST(DataflowCheck, LoadBeforeTheStoreIsReported) {
  // Swap lines 3 and 4: the LOAD of t (instruction #2) now precedes its STORE.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=256\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256\n"
      "ACT   layer=b op=relu in=0x0 out=0x100 elems=256\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  const auto issues = check(body);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CheckKind::Dataflow);
  EXPECT_EQ(issues[0].index, 2u);
  EXPECT_EQ(issues[0].source_line, 8);  // 5 header lines, then the third instruction
  EXPECT_EQ(issues[0].message,
            "instruction #2 LOAD (layer b): reads intermediate tensor 't' (bytes at offset 0 to 256) but no STORE "
            "that happens before it wrote offset 0; a STORE of those bytes must come first in the store queue and be "
            "ordered before this LOAD by tokens (or the program order of a program without tokens)");
}

TEST(DataflowCheck, PartlyWrittenRowsAreReportedAtTheFirstGap) {
  // The STORE writes 2 rows of 64 bytes 128 apart: offsets [0,64) and [128,192). The LOAD
  // reads [0,192): offset 64 was never written. The output y gets only 200 of 256 bytes.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=64,2 stride=128\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=192\n"
      "ACT   layer=b op=relu in=0x0 out=0x100 elems=192\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=200\n";
  const auto issues = check(body);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_NE(issues[0].message.find("reads intermediate tensor 't' (bytes at offset 0 to 192) but no STORE that "
                                   "happens before it wrote offset 64"),
            std::string::npos)
      << issues[0].message;
  EXPECT_EQ(issues[1].message,
            "output tensor 'y' (256 bytes): offset 200 is never written by a STORE; every byte of a program output "
            "must be stored (a fusion that drops a graph output is illegal)");
  EXPECT_EQ(issues[1].index, 2u);       // the third tensor
  EXPECT_EQ(issues[1].source_line, 5);  // its .tensor line
}

TEST(DataflowCheck, TokensDecideTheOrderNotTheTextOfTheProgram) {
  // With tokens the load queue runs ahead: the LOAD of t waits on nothing from the store
  // queue, so it may run before the STORE of t although it comes later in the text.
  const std::string racy =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256 wait=cp2st\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x200 extent=256 push=ld2cp\n"
      "ACT   layer=b op=relu in=0x200 out=0x300 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x300 extent=256 wait=cp2st\n";
  const auto issues = check(racy);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].index, 3u);
  // st2ld orders it: the STORE of t pushes, the LOAD of t waits.
  const std::string ordered =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256 wait=cp2st push=st2ld\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x200 extent=256 wait=st2ld push=ld2cp\n"
      "ACT   layer=b op=relu in=0x200 out=0x300 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x300 extent=256 wait=cp2st\n";
  EXPECT_TRUE(check(ordered).empty());
  // Ordering through the compute queue works too: STORE t -> st2cp -> ACT -> cp2ld -> LOAD t.
  const std::string via_compute =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256 push=ld2cp\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=a tensor=t ddr=0x1000 sram=0x100 extent=256 wait=cp2st push=st2cp\n"
      "SYNC  layer=b queue=cp wait=st2cp push=cp2ld\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x200 extent=256 wait=cp2ld push=ld2cp\n"
      "ACT   layer=b op=relu in=0x200 out=0x300 elems=256 wait=ld2cp push=cp2st\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x300 extent=256 wait=cp2st\n";
  EXPECT_TRUE(check(via_compute).empty());
}

TEST(DataflowCheck, InputsAndWeightsNeedNoStore) {
  // Only the output is stored; x (input) is read without any STORE.
  const std::string body =
      "LOAD  layer=a tensor=x ddr=0x0 sram=0x0 extent=256\n"
      "ACT   layer=a op=relu in=0x0 out=0x100 elems=256\n"
      "STORE layer=a tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  EXPECT_TRUE(check(body).empty());
}

TEST(DataflowCheck, MoreRowsThanTheOldLimitAreCheckedRowByRow) {
  // The check used to stop at 2^22 = 4194304 rows (extent[1] x extent[2] summed) with an
  // issue; llama-2-7b decode at context 2048 has 35.7 million. Here 4096 x 1025 = 4198400
  // one-byte rows, above that old limit.
  // Stride 0,0: every row is byte 0 of t, which the STORE wrote: clean.
  const std::string same_byte =
      "STORE layer=a tensor=t ddr=0x1000 sram=0x0 extent=256\n"
      "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=1,4096,1025 stride=0,0\n"
      "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=256\n";
  EXPECT_TRUE(check(same_byte).empty());
  // Stride 0,1 over a t of 2048 bytes of which the STORE wrote the first 256: row (j, k) is
  // byte k, k < 1025, so the LOAD reads offsets 0 to 1025 and offset 256 is the first gap
  // (the hull [0, 1025) is not all written, so the check visits the rows).
  const auto issues = check_with(".tensor t kind=intermediate ddr=0x1000 bytes=2048\n"
                                 ".tensor y kind=output ddr=0x2000 bytes=256\n",
                                 "STORE layer=a tensor=t ddr=0x1000 sram=0x0 extent=256\n"
                                 "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=1,4096,1025 stride=0,1\n"
                                 "STORE layer=b tensor=y ddr=0x2000 sram=0x100 extent=256\n");
  ASSERT_EQ(issues.size(), 1u);
  const std::string& m = issues[0].message;
  EXPECT_EQ(m.rfind("instruction #1 LOAD (layer b): reads intermediate tensor 't' (bytes at offset 0 to 1025) but no "
                    "STORE that happens before it wrote offset 256;",
                    0),
            0u)
      << m;
}

TEST(DataflowCheck, ASevenGigabyteTensorReadInStridedRowsAfterOneStore) {
  // A 7 GiB intermediate (7 x 2^30 = 7516192768 bytes at 0x1000) written by one STORE of
  // 2^20 rows of 7168 contiguous bytes (7168 x 2^20 = 7 GiB), then read as 8-byte columns:
  // rows of 8 bytes at stride 7168, 2^20 rows per column, 64 columns at stride 8 (2^26 rows).
  // Every byte read was written: clean. Without the STORE, the first column alone (2^20
  // rows, visited one by one as its hull is not written) has its first gap at offset 0.
  const std::string t = ".tensor t kind=intermediate ddr=0x1000 bytes=7516192768\n";
  const std::string store = "STORE layer=a tensor=t ddr=0x1000 sram=0x0 extent=7168,1048576 stride=7168\n";
  const std::string load = "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=8,1048576,64 stride=7168,8\n";
  EXPECT_TRUE(check_with(t, store + load).empty());
  const auto issues = check_with(t, "LOAD  layer=b tensor=t ddr=0x1000 sram=0x0 extent=8,1048576 stride=7168\n");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message.find("(bytes at offset 0 to 7516185608) but no STORE that happens before it wrote offset 0;"),
            std::string::npos)
      << issues[0].message;
}

TEST(DataflowCheck, DdrRowsVisitorMatchesTheRowList) {
  // for_each_ddr_row gives ddr_rows' ranges: 3 contiguous rows of 4 bytes at 0x100 make one
  // range [0x100, 0x10c) per k; k strides 12 (follows on: one range [0x100, 0x124)) or 16.
  DmaDesc d;
  d.ddr_addr = 0x100;
  d.elem_bytes = 1;
  d.extent = {4, 3, 3};
  d.ddr_stride_bytes = {4, 12};
  using R = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  EXPECT_EQ(ddr_rows(d), (R{{0x100, 0x124}}));
  d.ddr_stride_bytes = {4, 16};
  EXPECT_EQ(ddr_rows(d), (R{{0x100, 0x10c}, {0x110, 0x11c}, {0x120, 0x12c}}));
  d.ddr_stride_bytes = {8, 16};  // gaps inside each k: one range per row
  EXPECT_EQ(ddr_rows(d), (R{{0x100, 0x104}, {0x108, 0x10c}, {0x110, 0x114}, {0x110, 0x114}, {0x118, 0x11c},
                            {0x120, 0x124}, {0x120, 0x124}, {0x128, 0x12c}, {0x130, 0x134}}));
  EXPECT_EQ(ddr_burst_bytes(d, 64), 9u * 64u);  // 9 ranges, each inside one 64-byte burst
  // A K^T column: 2048 rows of 8 bytes at stride 128, from byte 60 of a 64-byte burst: each
  // row [60, 68) mod 64 spans two bursts: 2048 x 2 x 64 bytes; from byte 0, one burst each.
  DmaDesc col;
  col.ddr_addr = 0x1000 + 60;
  col.elem_bytes = 1;
  col.extent = {8, 2048, 1};
  col.ddr_stride_bytes = {128, 0};
  EXPECT_EQ(ddr_burst_bytes(col, 64), 2048u * 2u * 64u);
  col.ddr_addr = 0x1000;
  EXPECT_EQ(ddr_burst_bytes(col, 64), 2048u * 64u);
}

}  // namespace
}  // namespace npu::isa
