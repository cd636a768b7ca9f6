// MobileNetV2 as defined by torchvision 0.14 (torchvision/models/mobilenetv2.py; Sandler
// et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks", CVPR 2018, Table 2),
// width 1.0, 1000 classes, node names of the torch.onnx export. ReLU6 is Clip(min 0,
// max 6); the classifier's Dropout is absent in inference. Published totals (torchvision
// model table): 3,504,872 params, 0.30 GFLOPS (= G MACs).
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "frontend/zoo/zoo_builder.hpp"

namespace npu::compiler {

namespace {

using zoo_detail::scope_of;
using zoo_detail::ZooBuilder;

/// Conv2dNormActivation: module.0 Conv (no bias), module.1 BN, module.2 ReLU6.
std::string conv_bn_relu6(ZooBuilder& b, const std::string& module, const std::string& x,
                          std::int64_t cout, std::int64_t k, std::int64_t stride,
                          std::int64_t group) {
  std::string y = b.conv(module + ".0", x, cout, k, stride, (k - 1) / 2, group);
  y = b.batchnorm(module + ".1", y, 1e-5f, 0.9f);
  return b.add1("Clip", scope_of(module + ".2") + "/Clip", {y}, {{"min", 0.0f}, {"max", 6.0f}});
}

std::string inverted_residual(ZooBuilder& b, const std::string& module, const std::string& x,
                              std::int64_t oup, std::int64_t stride, std::int64_t expand) {
  const std::int64_t inp = b.channels(x);
  const std::int64_t hidden = inp * expand;  // int(round(inp * t)), t integral
  std::string y = x;
  int i = 0;
  const std::string c = module + ".conv.";
  if (expand != 1) y = conv_bn_relu6(b, c + std::to_string(i++), y, hidden, 1, 1, 1);
  y = conv_bn_relu6(b, c + std::to_string(i++), y, hidden, 3, stride, hidden);
  y = b.conv(c + std::to_string(i++), y, oup, 1, 1, 0);
  y = b.batchnorm(c + std::to_string(i++), y, 1e-5f, 0.9f);
  if (stride == 1 && inp == oup) y = b.add1("Add", scope_of(module) + "/Add", {x, y});
  return y;
}

}  // namespace

Graph zoo_mobilenet_v2(const ZooOptions& o) {
  ZooBuilder b("mobilenet_v2");
  const std::int64_t h = o.height ? o.height : 224, w = o.width ? o.width : 224;
  std::string x = b.input("input", {o.batch, 3, h, w});
  x = conv_bn_relu6(b, "features.0", x, 32, 3, 2, 1);
  // (expansion t, output channels c, repeats n, first stride s), torchvision / paper Table 2.
  const std::int64_t settings[7][4] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                       {6, 96, 3, 1},  {6, 160, 3, 2}, {6, 320, 1, 1}};
  int index = 1;
  for (const auto& s : settings)
    for (std::int64_t i = 0; i < s[2]; ++i, ++index)
      x = inverted_residual(b, "features." + std::to_string(index), x, s[1], i == 0 ? s[3] : 1, s[0]);
  x = conv_bn_relu6(b, "features.18", x, 1280, 1, 1, 1);
  x = b.add1("GlobalAveragePool", "/GlobalAveragePool", {x});
  x = b.add1("Flatten", "/Flatten", {x}, {{"axis", std::int64_t{1}}});
  x = b.add1("Gemm", "/classifier/classifier.1/Gemm",
             {x, b.weight("classifier.1.weight", {1000, 1280}), b.weight("classifier.1.bias", {1000})},
             {{"alpha", 1.0f}, {"beta", 1.0f}, {"transB", std::int64_t{1}}});
  b.rename_output(x, "output");
  return b.finish({"output"});
}

}  // namespace npu::compiler
