// The limits of a row gather / scatter on the NPU (lowering_table.hpp row_limits): a table of at
// most 2^32 - 1 rows (the gather LOAD's table_rows field, isa::DmaDesc::gather_rows, a uint32)
// whose rows are at most 2^31 - 1 elements (LayerSpec::channels, an int). Beyond, the node runs on
// the host and the reason states the limit and why. Before, the check let rows of 2^31 .. 2^32 - 1
// elements through, and int(row) wrapped negative (a one-element row in the program).
// Shapes only: no data is needed to lower.
#include <gtest/gtest.h>

#include "backend/lowering/lowering_table.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "test_compile_graphs.hpp"

namespace npu::compiler {
namespace {

using testing::GraphBuilder;

// Gather(table [rows, row], ids [2] from a graph input).
std::string gather_problem(std::int64_t rows, std::int64_t row) {
  GraphBuilder b;
  b.with_data = false;
  b.input("ids", {2});
  b.g.tensors.at("ids").type = ElemType::Int64;
  b.add_tensor("table", {rows, row}, true);
  b.add_tensor("y", {2, row});
  b.node("gather", "Gather", {"table", "ids"}, {"y"}).attrs["axis"] = std::int64_t(0);
  b.output("y");
  return npu_lowering_problem(b.g, b.g.nodes.back());
}

const std::int64_t k2p31 = std::int64_t(1) << 31, k2p32 = std::int64_t(1) << 32;

TEST(GatherRowLimits, RowsUpTo2To32Minus1AndRowsOfUpTo2To31Minus1ElementsLower) {
  EXPECT_EQ(gather_problem(k2p32 - 1, 1), "");
  EXPECT_EQ(gather_problem(2, k2p31 - 1), "");
  EXPECT_EQ(lowering::row_limits("ScatterElements data", k2p32 - 1, k2p31 - 1), "");
}

TEST(GatherRowLimits, BeyondTheFieldsTheReasonStatesTheLimitAndTheField) {
  EXPECT_EQ(gather_problem(k2p32, 1),
            "Gather table of 4294967296 rows: at most 2^32 - 1 = 4294967295 (the gather LOAD's table_rows field is "
            "32-bit)");
  EXPECT_EQ(gather_problem(2, k2p31),
            "Gather table rows of 2147483648 elements: at most 2^31 - 1 = 2147483647 (a layer's row length is a "
            "32-bit signed count)");
  // A row scatter checks its data the same way (scatter_ops.cpp); beyond, the layout family's
  // costed copy takes the node instead of a scatter with a wrapped row length.
  EXPECT_EQ(lowering::row_limits("ScatterElements data", 2, k2p31),
            "ScatterElements data rows of 2147483648 elements: at most 2^31 - 1 = 2147483647 (a layer's row length "
            "is a 32-bit signed count)");
}

}  // namespace
}  // namespace npu::compiler
