// Inputs found by the libFuzzer targets (tests/fuzz, docs/validation.md "Fuzzing"), each
// reduced to the part that mattered, with the exact error the reader now gives.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "npu/isa/assembly.hpp"
#include "npu/isa/hw_config.hpp"

namespace npu {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// fuzz_npuasm: a layer name holding byte 0x15 was read, but write_program refuses such a
// name, so the program could not be written back. Column: "ACT     layer=" is 14 bytes, the
// name starts at 15, 'f', '4', then 0x15 at column 17.
TEST(FuzzRegression, NpuasmControlCharacterInName) {
  const std::string text = ".npuasm 1\nACT     layer=f4\x15 op=relu in=0x0 out=0x100 elems=16\n";
  EXPECT_EQ(error_of([&] { isa::read_program(text, "fuzz.npuasm"); }),
            "fuzz.npuasm:2:17: error: layer holds the control character 0x15\n"
            "  names are printable words: delete the character (editors often show it as ^X or not at all)");
}

}  // namespace
}  // namespace npu
