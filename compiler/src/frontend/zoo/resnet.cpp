// ResNet-18 and ResNet-50 as defined by torchvision 0.14 (torchvision/models/resnet.py:
// BasicBlock, Bottleneck with the stride on the 3x3 conv ("ResNet v1.5"), layers
// [2,2,2,2] and [3,4,6,3]), 1000 classes, node names of the torch.onnx export.
// Published totals (torchvision model tables): ResNet-18 11,689,512 params, 1.81 GFLOPS
// (= G MACs); ResNet-50 25,557,032 params, 4.09 GFLOPS.
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "frontend/zoo/zoo_builder.hpp"

namespace npu::compiler {

namespace {

using zoo_detail::scope_of;
using zoo_detail::ZooBuilder;

constexpr float kBnEpsilon = 1e-5f;   // nn.BatchNorm2d default
constexpr float kBnMomentum = 0.9f;   // ONNX momentum = 1 - torch momentum (0.1)

std::string conv_bn(ZooBuilder& b, const std::string& prefix, const std::string& conv,
                    const std::string& bn, const std::string& x, std::int64_t cout,
                    std::int64_t k, std::int64_t stride, std::int64_t pad) {
  const std::string c = b.conv(prefix + conv, x, cout, k, stride, pad);
  return b.batchnorm(prefix + bn, c, kBnEpsilon, kBnMomentum);
}

std::string relu(ZooBuilder& b, const std::string& scope, const std::string& x) {
  return b.add1("Relu", scope + "/Relu", {x});
}

/// One residual block; `block` is e.g. "layer2.0". Returns its output.
std::string block(ZooBuilder& b, const std::string& blk, const std::string& x,
                  std::int64_t planes, std::int64_t stride, bool bottleneck) {
  const std::string p = blk + ".";
  const std::string s = scope_of(blk);
  const std::int64_t expansion = bottleneck ? 4 : 1;
  std::string out;
  if (bottleneck) {
    out = relu(b, s + "/relu", conv_bn(b, p, "conv1", "bn1", x, planes, 1, 1, 0));
    out = relu(b, s + "/relu_1", conv_bn(b, p, "conv2", "bn2", out, planes, 3, stride, 1));
    out = conv_bn(b, p, "conv3", "bn3", out, planes * expansion, 1, 1, 0);
  } else {
    out = relu(b, s + "/relu", conv_bn(b, p, "conv1", "bn1", x, planes, 3, stride, 1));
    out = conv_bn(b, p, "conv2", "bn2", out, planes, 3, 1, 1);
  }
  std::string identity = x;
  if (stride != 1 || b.channels(x) != planes * expansion)
    identity = conv_bn(b, p, "downsample.0", "downsample.1", x, planes * expansion, 1, stride, 0);
  out = b.add1("Add", s + "/Add", {out, identity});
  return relu(b, s + (bottleneck ? "/relu_2" : "/relu_1"), out);
}

Graph resnet(const std::string& name, const std::vector<int>& layers, bool bottleneck,
             const ZooOptions& o) {
  ZooBuilder b(name);
  const std::int64_t h = o.height ? o.height : 224, w = o.width ? o.width : 224;
  std::string x = b.input("input", {o.batch, 3, h, w});
  x = conv_bn(b, "", "conv1", "bn1", x, 64, 7, 2, 3);
  x = relu(b, "/relu", x);
  x = b.add1("MaxPool", "/maxpool/MaxPool", {x},
             {{"ceil_mode", std::int64_t{0}},
              {"kernel_shape", std::vector<std::int64_t>{3, 3}},
              {"pads", std::vector<std::int64_t>{1, 1, 1, 1}},
              {"strides", std::vector<std::int64_t>{2, 2}}});
  const std::int64_t planes[] = {64, 128, 256, 512};
  for (std::size_t l = 0; l < layers.size(); ++l) {
    for (int i = 0; i < layers[l]; ++i) {
      const std::string blk = "layer" + std::to_string(l + 1) + "." + std::to_string(i);
      x = block(b, blk, x, planes[l], (i == 0 && l > 0) ? 2 : 1, bottleneck);
    }
  }
  x = b.add1("GlobalAveragePool", "/avgpool/GlobalAveragePool", {x});
  x = b.add1("Flatten", "/Flatten", {x}, {{"axis", std::int64_t{1}}});
  const std::int64_t features = b.channels(x);
  x = b.add1("Gemm", "/fc/Gemm",
             {x, b.weight("fc.weight", {1000, features}), b.weight("fc.bias", {1000})},
             {{"alpha", 1.0f}, {"beta", 1.0f}, {"transB", std::int64_t{1}}});
  b.rename_output(x, "output");
  return b.finish({"output"});
}

}  // namespace

Graph zoo_resnet18(const ZooOptions& options) {
  return resnet("resnet18", {2, 2, 2, 2}, false, options);
}

Graph zoo_resnet50(const ZooOptions& options) {
  return resnet("resnet50", {3, 4, 6, 3}, true, options);
}

}  // namespace npu::compiler
