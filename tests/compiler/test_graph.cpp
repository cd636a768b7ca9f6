// Graph IR helpers: element sizes, element counts, typed attribute access, producers and
// consumers.
#include <gtest/gtest.h>

#include "npu/compiler/ir/graph.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

TEST(GraphIr, ElementBytesFollowOnnxTypes) {
  EXPECT_EQ(elem_bytes(ElemType::Float32), 4);
  EXPECT_EQ(elem_bytes(ElemType::Float16), 2);
  EXPECT_EQ(elem_bytes(ElemType::Int64), 8);
  EXPECT_EQ(elem_bytes(ElemType::Int32), 4);
  EXPECT_EQ(elem_bytes(ElemType::Int8), 1);
  EXPECT_EQ(elem_bytes(ElemType::Uint8), 1);
  EXPECT_EQ(elem_bytes(ElemType::Bool), 1);
}

TEST(GraphIr, ElementsIsTheShapeProduct) {
  Tensor t;
  t.shape = {1, 64, 56, 56};
  EXPECT_EQ(t.elements(), 200704);  // 64 * 56 * 56
  EXPECT_TRUE(t.shape_known());
  t.shape = {};
  EXPECT_EQ(t.elements(), 1);  // a scalar
  t.shape = {-1, 3, 224, 224};
  EXPECT_EQ(t.elements(), -1);
  EXPECT_FALSE(t.shape_known());
}

TEST(GraphIr, AttributeGettersReturnValueOrFallback) {
  Node n;
  n.name = "conv";
  n.op_type = "Conv";
  n.attrs["group"] = std::int64_t{32};
  n.attrs["alpha"] = 0.25f;
  n.attrs["auto_pad"] = std::string("SAME_UPPER");
  n.attrs["strides"] = std::vector<std::int64_t>{2, 2};
  n.attrs["beta_int"] = std::int64_t{1};
  EXPECT_EQ(n.attr_int("group", 1), 32);
  EXPECT_EQ(n.attr_int("missing", 7), 7);
  EXPECT_FLOAT_EQ(n.attr_float("alpha", 1.0f), 0.25f);
  EXPECT_FLOAT_EQ(n.attr_float("beta_int", 0.0f), 1.0f);  // an int where a float is expected
  EXPECT_EQ(n.attr_string("auto_pad", "NOTSET"), "SAME_UPPER");
  EXPECT_EQ(n.attr_ints("strides"), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(n.attr_ints("group"), (std::vector<std::int64_t>{32}));  // one int = a list of one
  EXPECT_EQ(n.attr_ints("dilations", {1, 1}), (std::vector<std::int64_t>{1, 1}));
  EXPECT_TRUE(n.has_attr("alpha"));
  EXPECT_FALSE(n.has_attr("pads"));
}

TEST(GraphIr, AttributeOfTheWrongKindIsAConfigErrorNamingNodeAndKey) {
  Node n;
  n.name = "/layer1/conv";
  n.op_type = "Conv";
  n.attrs["group"] = std::string("one");
  try {
    n.attr_int("group", 1);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'/layer1/conv' (Conv)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'group' is a string, expected an int"), std::string::npos) << msg;
  }
}

TEST(GraphIr, ProducerAndConsumersFollowNodeOrder) {
  Graph g;
  g.name = "g";
  g.inputs = {"x"};
  auto node = [&](std::string name, std::string op, std::vector<std::string> in, std::string out) {
    Node n;
    n.name = std::move(name);
    n.op_type = std::move(op);
    n.inputs = std::move(in);
    n.outputs = {std::move(out)};
    g.nodes.push_back(n);
  };
  node("a", "Relu", {"x"}, "ya");
  node("b", "Sigmoid", {"ya"}, "yb");
  node("c", "Mul", {"ya", "ya"}, "yc");  // reads ya twice: one consumer
  node("d", "Add", {"yb", "x"}, "yd");
  for (const char* t : {"x", "ya", "yb", "yc", "yd"}) g.tensors[t].name = t;
  EXPECT_EQ(g.consumers("ya"), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(g.consumers("x"), (std::vector<std::size_t>{0, 3}));
  EXPECT_TRUE(g.consumers("yd").empty());
  EXPECT_EQ(g.producer("yc"), std::optional<std::size_t>{2});
  EXPECT_EQ(g.producer("x"), std::nullopt);  // a graph input
  EXPECT_EQ(g.producer(""), std::nullopt);   // an absent optional input
  EXPECT_THROW(g.tensor("nope"), std::out_of_range);
  EXPECT_EQ(g.tensor("yb").name, "yb");
}

}  // namespace
}  // namespace npu::compiler
