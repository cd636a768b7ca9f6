// The `npu asm` commands end to end: the real binary on files, checking exit status,
// standard output and standard error. Malformed lines exit 1 with "FILE:LINE:COL: error:".
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

#include "npu/isa/assembly.hpp"

namespace npu::isa {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int status = -1;
  std::string out, err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A scratch folder per test (ctest may run tests in parallel).
fs::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  const fs::path dir = fs::path(NPU_BINARY_DIR) / "test-scratch" / "isa" / name;
  fs::create_directories(dir);
  return dir;
}

RunResult run_npu(const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd =
      std::string("'") + NPU_TOOL_PATH + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

fs::path write_file(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

const std::string kSample = std::string(NPU_SOURCE_DIR) + "/tests/isa/data/double_buffered_conv.npuasm";
const std::string kEdgeConfig = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml";

TEST(AsmTool, FmtPrintsTheCanonicalForm) {
  const fs::path dir = scratch_dir();
  const RunResult r = run_npu("asm fmt '" + kSample + "'", dir);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, write_program(read_program_file(kSample)));
  EXPECT_TRUE(r.err.empty()) << r.err;
  // Formatting the formatted text changes nothing; -o writes the same bytes to a file.
  const fs::path once = write_file(dir, "once.npuasm", r.out);
  const RunResult again = run_npu("asm fmt '" + once.string() + "' -o '" + (dir / "twice.npuasm").string() + "'", dir);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(dir / "twice.npuasm"), r.out);
}

TEST(AsmTool, CheckPrintsASummaryOfAValidProgram) {
  const RunResult r = run_npu("asm check '" + kSample + "' --hw '" + kEdgeConfig + "'", scratch_dir());
  EXPECT_EQ(r.status, 0) << r.err;
  // Derived in docs/isa.md ("Worked example"): 6 loads, 4 convs, 4 stores; MACs 32*32*32*16*9;
  // DDR read 4608 + 128 + 2*288*16 + 2*320*16 = 24192 B; written 4 * 32*8*32 = 32768 B; the
  // highest SRAM byte is the end of out1, 0x8000 + 8192 = 0xa000; the edge preset has 1 MiB.
  EXPECT_EQ(r.out,
            "ok: 14 instructions (6 LOAD, 4 STORE, 4 CONV), 4 tensors, 4718592 MACs, DDR 24192 B read / 32768 B "
            "written, SRAM [0x0, 0xa000) used of 1048576 B\n");
}

TEST(AsmTool, CheckListsEveryIssueAndExits1) {
  // Two independent faults: tile 1's CONV output moved past the 1 MiB SRAM of the edge preset
  // (0xfffff000 + 8192 bytes), and the last STORE reading outside its tensor.
  const fs::path dir = scratch_dir();
  std::string text = slurp(kSample);
  const std::string conv1 = "in=0x4000 w=0x0 out=0x8000 cin=16 hin=10";
  text.replace(text.find(conv1), conv1.size(), "in=0x4000 w=0x0 out=0xfffff000 cin=16 hin=10");
  const std::string store3 = "ddr=0x20300";
  text.replace(text.find(store3), store3.size(), "ddr=0x20400");
  const fs::path prog = write_file(dir, "bad.npuasm", text);
  const RunResult r = run_npu("asm check '" + prog.string() + "' --hw '" + kEdgeConfig + "'", dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  const std::string p = prog.string();
  // Line numbers are those of the instructions in the sample file (CONV tile 1 on line 26,
  // the last STORE on line 32).
  EXPECT_NE(r.err.find(p + ":26: error: instruction #7 CONV (layer conv1): operand 'out' [0xfffff000, "
                           "0x100001000) (8192 bytes) ends past the SRAM capacity of 1048576 bytes"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(p + ":32: error: instruction #13 STORE (layer conv1): DDR range [0x20400, 0x28100) leaves "
                           "tensor 'conv1.out' [0x20000, 0x28000)"),
            std::string::npos)
      << r.err;
  // The moved STORE no longer writes conv1.out's rows 24..31: in each 1024-byte channel plane
  // the bytes from 0x300 = 768 on (the original ddr=0x20300 - 0x20000), so the data-flow check
  // names offset 768 as never written (line 15 declares conv1.out).
  EXPECT_NE(r.err.find(p + ":15: error: output tensor 'conv1.out' (32768 bytes): offset 768 is never written by a "
                           "STORE"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(": 3 issues against "), std::string::npos) << r.err;
}

TEST(AsmTool, CheckReportsAnSramRaceWhereATokenWaitIsMissing) {
  // Drop tile 2's st2cp wait (line 29): its CONV (#10) then writes SRAM 0x6000.. (cout 32 x
  // hout 8 x wout 32 = 8192 bytes: 24576..32767) while tile 0's STORE (#5, line 24) may still
  // be reading those bytes. The last CONV's st2cp wait now pairs with tile 0's push instead of
  // tile 1's, so CONV #12 (line 31) races with STORE #8 (line 27) on 0x8000.. as well; and
  // st2cp has 2 pushes for 1 wait (a token issue): 3 issues.
  const fs::path dir = scratch_dir();
  std::string text = slurp(kSample);
  const std::string conv2 = "pad=0,1,0,1 bias=0x1200 act=relu wait=ld2cp,st2cp push=cp2st";
  ASSERT_NE(text.find(conv2), std::string::npos);
  text.replace(text.find(conv2), conv2.size(), "pad=0,1,0,1 bias=0x1200 act=relu wait=ld2cp push=cp2st");
  const fs::path prog = write_file(dir, "race.npuasm", text);
  const RunResult r = run_npu("asm check '" + prog.string() + "' --hw '" + kEdgeConfig + "'", dir);
  EXPECT_EQ(r.status, 1);
  const std::string p = prog.string();
  EXPECT_NE(r.err.find(p + ":29: error: SRAM race: instruction #5 STORE (line 24) of layer conv1 reads SRAM bytes "
                           "24576..32767 ('sram') and instruction #10 CONV (line 29) of layer conv1 writes them "
                           "('out'), with no token ordering the two, so the result depends on which finishes first; "
                           "to run them in program order, push a token st2cp after #5 STORE (line 24) of layer conv1 "
                           "and wait on it at #10"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(p + ":31: error: SRAM race: instruction #8 STORE (line 27) of layer conv1 reads SRAM bytes "
                           "32768..40959 ('sram') and instruction #12 CONV (line 31)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(": 3 issues against "), std::string::npos) << r.err;
}

TEST(AsmTool, MissingConfigOrProgramExits1) {
  const fs::path dir = scratch_dir();
  RunResult r = run_npu("asm check '" + kSample + "' --hw /nonexistent.yaml", dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent.yaml"), std::string::npos) << r.err;
  r = run_npu("asm fmt /nonexistent.npuasm", dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent.npuasm: error: cannot open the program"), std::string::npos) << r.err;
  r = run_npu("asm check '" + kSample + "'", dir);  // --hw is required
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--hw is required"), std::string::npos) << r.err;
}

// One malformed line per case, run through `npu asm fmt` and `npu asm check`: exit status
// 1 and the exact "FILE:LINE:COL: error: REASON" first line on standard error.
struct BadLine {
  const char* name;
  const char* line;  // line 3 of the program
  int col;           // counted by hand in `line` (1-based)
  const char* reason;
};

// gtest prints a parameter in test listings; show the case name instead of raw bytes.
void PrintTo(const BadLine& c, std::ostream* os) { *os << c.name; }

class AsmToolBadLine : public ::testing::TestWithParam<BadLine> {};

TEST_P(AsmToolBadLine, ExitsWith1AndNamesLineColumnAndReason) {
  const BadLine& c = GetParam();
  const fs::path dir = scratch_dir();
  const fs::path prog = write_file(dir, std::string(c.name) + ".npuasm",
                                   std::string(".npuasm 1\n.tensor t kind=input ddr=0x0 bytes=4096\n") + c.line + "\n");
  const std::string expected = prog.string() + ":3:" + std::to_string(c.col) + ": error: " + c.reason + "\n";
  for (const std::string& cmd : {"asm fmt '" + prog.string() + "'",
                                "asm check '" + prog.string() + "' --hw '" + kEdgeConfig + "'"}) {
    const RunResult r = run_npu(cmd, dir);
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), expected) << cmd;
    EXPECT_NE(r.err.find("\n  "), std::string::npos) << "no hint line: " << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, AsmToolBadLine,
    ::testing::Values(
        // "CONVV" starts the line.
        BadLine{"unknown_mnemonic", "CONVV in=0x0", 1, "unknown mnemonic 'CONVV'"},
        // "LOAD tensor=t ddr=0 sram=0 extent=4 " is 36 characters; 'act' at 37.
        BadLine{"unknown_key", "LOAD tensor=t ddr=0 sram=0 extent=4 act=relu", 37, "unknown key 'act' for LOAD"},
        BadLine{"missing_key", "LOAD tensor=t ddr=0 extent=4", 1, "missing required key 'sram' for LOAD"},
        // "LOAD tensor=t " is 14 characters (first ddr at 15), "LOAD tensor=t ddr=0 sram=0 " 27.
        BadLine{"duplicate_key", "LOAD tensor=t ddr=0 sram=0 ddr=4 extent=4", 28,
                "duplicate key 'ddr' (first given at column 15)"},
        // "LOAD tensor=t ddr=0 sram=" is 25 characters: the value of sram starts at 26.
        BadLine{"malformed_number", "LOAD tensor=t ddr=0 sram=x10 extent=4", 26, "malformed number 'x10' for 'sram'"},
        // "LOAD tensor=t ddr=0 sram=0 extent=" is 34 characters; the 0 at 35.
        BadLine{"zero_extent", "LOAD tensor=t ddr=0 sram=0 extent=0", 35,
                "value 0 of 'extent' is out of range: it must be >= 1"},
        BadLine{"sram_above_32_bits", "LOAD tensor=t ddr=0 sram=0x100000000 extent=4", 26,
                "value 0x100000000 of 'sram' is out of range: it must fit in 32 bits (<= 0xffffffff)"},
        // "LOAD tensor=t ddr=0 sram=0 extent=4 push=" is 41 characters.
        BadLine{"unknown_token", "LOAD tensor=t ddr=0 sram=0 extent=4 push=ld2xx", 42, "unknown token 'ld2xx'"},
        BadLine{"token_wrong_queue", "LOAD tensor=t ddr=0 sram=0 extent=4 push=st2cp", 42,
                "LOAD runs on the ld queue and cannot push token 'st2cp' (it is pushed by the st queue)"},
        // "POOL op=" is 8 characters.
        BadLine{"unknown_pool_op", "POOL op=min in=0 out=64 c=1 hin=4 win=4", 9, "unknown POOL op 'min'"},
        // "ELTWISE op=" is 11 characters.
        BadLine{"unknown_eltwise_op", "ELTWISE op=subtract a=0 b=0 out=0 elems=4", 12,
                "unknown ELTWISE op 'subtract'"},
        // "GEMM a=0 b=0 out=0 m=1 n=1 k=1 act=" is 35 characters.
        BadLine{"unknown_act", "GEMM a=0 b=0 out=0 m=1 n=1 k=1 act=mish", 36, "unknown act 'mish'"},
        // "ELTWISE op=add a=0 b=0 out=0 elems=4 b_elems=2 b_inner=" is 55 characters.
        BadLine{"zero_b_inner", "ELTWISE op=add a=0 b=0 out=0 elems=4 b_elems=2 b_inner=0", 56,
                "value 0 of 'b_inner' is out of range: it must be >= 1"},
        // A missing key points at the mnemonic.
        BadLine{"host_missing_key", "HOST layer=nms cycles=10 macs=0 rd=0 nodes=1", 1,
                "missing required key 'wr' for HOST"},
        // "LOAD tensor=" is 12 characters.
        BadLine{"undeclared_tensor", "LOAD tensor=u ddr=0 sram=0 extent=4", 13,
                "LOAD names tensor 'u', which is not declared"},
        // "GEMM a=0 b=0 out=0 m=1 n=1 k=1" is 30 characters: the 'x' of "1x7" is at 31.
        BadLine{"garbage_after_value", "GEMM a=0 b=0 out=0 m=1 n=1 k=1x7", 31,
                "unexpected 'x7' after the number '1' in 'k'"},
        // ... and with a space, "relu" starts at 32.
        BadLine{"stray_word", "GEMM a=0 b=0 out=0 m=1 n=1 k=1 relu", 32, "unexpected 'relu' after the value of 'k'"},
        // "GEMM a=0 b=0 out=0 m=1 n=1 k=1 act=relu " is 40 characters.
        BadLine{"alpha_not_used", "GEMM a=0 b=0 out=0 m=1 n=1 k=1 act=relu alpha=1", 41,
                "'alpha' is not used by act=relu"}),
    [](const ::testing::TestParamInfo<BadLine>& info) { return std::string(info.param.name); });

TEST(AsmTool, MissingVersionHeaderExits1) {
  const fs::path dir = scratch_dir();
  const fs::path prog = write_file(dir, "noheader.npuasm", "# hand-written\nSYNC queue=cp\n");
  const RunResult r = run_npu("asm fmt '" + prog.string() + "'", dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            prog.string() + ":2:1: error: missing '.npuasm 1' version header before 'SYNC'");
}

}  // namespace
}  // namespace npu::isa
