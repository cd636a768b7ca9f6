// Converter-style exports (../shared/models/cases/converter/, README there): what paddle2onnx
// or tf2onnx write for the same layers torch writes otherwise.
#include <gtest/gtest.h>

#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/isa/assembly.hpp"
#include "shared_data.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

const std::string kConverter = npu::test::shared_path("models/cases/converter/");

TEST(ConverterCases, AGraphNameWithSpacesCompilesToAProgramNamedWithUnderscores) {
  // The graph is named "Model from Converter.": every command stopped with an internal error
  // while writing the program. A .npuasm name is one word, so the two spaces become '_'.
  const std::string path = kConverter + "graph_name_with_spaces.onnx";
  NPU_REQUIRE_SHARED_OR_SKIP(path);
  const Graph g = load_model(path);
  ASSERT_EQ(g.name, "Model from Converter.");
  const CompileResult r = compile(g, testing::edge_like_hw(), builtin_strategy("conv-bn-act"));
  EXPECT_EQ(r.program.name, "Model_from_Converter.");
  bool said = false;
  for (const std::string& w : r.warnings) said = said || w.find("the program is named 'Model_from_Converter.'") != std::string::npos;
  EXPECT_TRUE(said) << "the renaming is not said";
  const isa::Program back = isa::read_program(isa::write_program(r.program), "round-trip");
  EXPECT_EQ(back.name, "Model_from_Converter.");
  EXPECT_EQ(back.instructions.size(), r.program.instructions.size());
}

}  // namespace
}  // namespace npu::compiler
