// One-node graphs for the reference interpreter's tests: inputs with data, attributes, and
// a run that returns the outputs. No shape inference (the interpreter computes shapes).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "npu/compiler/ir/graph.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"

namespace npu::compiler::testing {

struct OneOp {
  Graph g;
  RefTensorMap inputs;

  explicit OneOp(const std::string& op, std::size_t outputs = 1) {
    g.name = "one_" + op;
    Node n;
    n.name = op + "_0";
    n.op_type = op;
    for (std::size_t k = 0; k < outputs; ++k) n.outputs.push_back("y" + std::to_string(k));
    g.nodes.push_back(n);
    g.outputs = g.nodes[0].outputs;
  }
  Node& node() { return g.nodes[0]; }

  /// A float graph input named `name` with data.
  OneOp& in(const std::string& name, std::vector<std::int64_t> shape, std::vector<float> data) {
    declare(name, shape, ElemType::Float32);
    RefTensor t;
    t.shape = std::move(shape);
    t.f = std::move(data);
    inputs[name] = t;
    return *this;
  }
  /// An int64 graph input (shapes, axes, indices).
  OneOp& ints(const std::string& name, std::vector<std::int64_t> shape, std::vector<std::int64_t> data) {
    declare(name, shape, ElemType::Int64);
    RefTensor t;
    t.shape = std::move(shape);
    t.type = ElemType::Int64;
    t.i = std::move(data);
    inputs[name] = t;
    return *this;
  }
  /// An absent optional input (ONNX: empty name).
  OneOp& none() {
    node().inputs.push_back("");
    return *this;
  }
  OneOp& attr(const std::string& key, AttrValue v) {
    node().attrs[key] = std::move(v);
    return *this;
  }
  RefTensorMap run(int threads = 1) {
    ReferenceOptions o;
    o.threads = threads;
    return run_reference(g, inputs, o);
  }
  RefTensorMap run_reference_with(const ReferenceOptions& o) { return run_reference(g, inputs, o); }
  /// Output 0.
  RefTensor y(int threads = 1) { return run(threads).at("y0"); }

 private:
  void declare(const std::string& name, const std::vector<std::int64_t>& shape, ElemType type) {
    Tensor t;
    t.name = name;
    t.shape = shape;
    t.type = type;
    g.tensors[name] = t;
    g.inputs.push_back(name);
    node().inputs.push_back(name);
  }
};

/// Element-wise comparison with a tolerance of a few float ulps of the expected values.
inline void expect_floats(const RefTensor& t, const std::vector<std::int64_t>& shape, const std::vector<float>& want,
                          float tol = 1e-6f) {
  ASSERT_TRUE(t.is_float());
  ASSERT_EQ(t.shape, shape);
  ASSERT_EQ(t.f.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(t.f[k], want[k], tol) << "element " << k;
}

}  // namespace npu::compiler::testing
