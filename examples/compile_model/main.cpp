// npu-sim's compiler as a library: build a small network in code (as a front-end would),
// compile it for a hardware config with the conv-bn-act strategy and print the report.
//
//   compile_model CONFIG.yaml
//
// The network: input [1,3,32,32] -> Conv 3->8 3x3 pad 1 -> BatchNormalization -> Relu.
// conv-bn-act folds the BN into the Conv and fuses the Relu: one NPU layer. Shapes only
// (constants carry no values), as the built-in zoo does: traffic and cycles are exact.
#include <cstdio>
#include <exception>
#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace c = npu::compiler;

static void add_tensor(c::Graph& g, const std::string& name, std::vector<std::int64_t> shape, bool constant) {
  c::Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.is_constant = constant;
  g.tensors[name] = t;
}

int main(int argc, char* argv[]) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: compile_model CONFIG.yaml\n");
    return 1;
  }
  try {
    c::Graph g;
    g.name = "conv_bn_relu";
    add_tensor(g, "x", {1, 3, 32, 32}, false);
    g.inputs = {"x"};
    add_tensor(g, "w", {8, 3, 3, 3}, true);
    for (const char* p : {"gamma", "beta", "mean", "var"}) add_tensor(g, p, {8}, true);
    for (const char* t : {"conv_out", "bn_out", "y"}) add_tensor(g, t, {1, 8, 32, 32}, false);
    c::Node conv;
    conv.name = "conv";
    conv.op_type = "Conv";
    conv.inputs = {"x", "w"};
    conv.outputs = {"conv_out"};
    conv.attrs["kernel_shape"] = std::vector<std::int64_t>{3, 3};
    conv.attrs["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
    c::Node bn;
    bn.name = "bn";
    bn.op_type = "BatchNormalization";
    bn.inputs = {"conv_out", "gamma", "beta", "mean", "var"};
    bn.outputs = {"bn_out"};
    c::Node relu;
    relu.name = "relu";
    relu.op_type = "Relu";
    relu.inputs = {"bn_out"};
    relu.outputs = {"y"};
    g.nodes = {conv, bn, relu};
    g.outputs = {"y"};

    const npu::HwConfig hw = npu::load_hw_config(argv[1]);
    const c::CompileResult r = c::compile(g, hw, c::builtin_strategy("conv-bn-act"));
    const c::LayerReport total = r.report.total();
    std::printf("%s on %s, strategy %s: %zu NPU layer(s), %zu instructions\n", g.name.c_str(), hw.npu.name.c_str(),
                r.report.strategy.c_str(), r.report.layers.size(), r.program.instructions.size());
    std::printf("MACs %llu\n", static_cast<unsigned long long>(total.macs));
    std::printf("compulsory DDR read %llu B, write %llu B\n",
                static_cast<unsigned long long>(total.compulsory_read_bytes),
                static_cast<unsigned long long>(total.compulsory_write_bytes));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
