// Reference interpreter on the real models in ../shared/models (torchvision MobileNetV2 and
// ResNet-50, YOLOv5s; random weights, BatchNormalization kept): the interpreter's fp32 output
// for the stored input must match the PyTorch output stored beside it
// (<model>_data/test_data_set_0/{input_0,output_0}.pb) within 1e-4 relative
// (max |ours - torch| / max |torch|). Skipped with a message where the folder is absent.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/reference/reference_interpreter.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "shared_data.hpp"

namespace npu::compiler {
namespace {

const std::string kReferenceModels = npu::test::shared_path("models/");

// Under AddressSanitizer the kernels run ~50x slower (ResNet-50: 150 s instead of 3 s):
// there only MobileNetV2 runs, which goes through the same Conv/BN/Gemm kernels.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::size_t argmax(const std::vector<float>& v, std::size_t begin, std::size_t end) {
  std::size_t best = begin;
  for (std::size_t k = begin; k < end; ++k)
    if (v[k] > v[best]) best = k;
  return best;
}

void check_against_torch(const std::string& model, bool classifier) {
  const std::string path = kReferenceModels + model + ".onnx";
  const std::string data = kReferenceModels + model + "_data/test_data_set_0/";
  NPU_REQUIRE_SHARED_OR_SKIP(path);
  NPU_REQUIRE_SHARED_OR_SKIP(data + "input_0.pb");
  NPU_REQUIRE_SHARED_OR_SKIP(data + "output_0.pb");
  const Graph g = load_model(path);
  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_EQ(g.outputs.size(), 1u);
  const RefTensor input = read_tensor_pb(data + "input_0.pb");
  const RefTensor want = read_tensor_pb(data + "output_0.pb");
  const auto t0 = std::chrono::steady_clock::now();
  const RefTensorMap out = run_reference(g, {{g.inputs[0], input}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const RefTensor& got = out.at(g.outputs[0]);
  ASSERT_EQ(got.shape, want.shape);
  const TensorDiff d = compare_tensors(got, want);
  std::printf("%s: max abs error %.3g, max |torch| %.4g, relative %.3g (%.2f s)\n", model.c_str(), d.max_abs, d.max_ref,
              d.max_rel, seconds);
  EXPECT_LE(d.max_rel, 1e-4) << "max abs " << d.max_abs << " of max |torch| " << d.max_ref;
  if (classifier) {
    EXPECT_EQ(argmax(got.f, 0, got.f.size()), argmax(want.f, 0, want.f.size())) << "top-1 differs";
  }
}

TEST(ReferenceModels, MobileNetV2MatchesPyTorch) { check_against_torch("mobilenet_v2_bn", true); }

TEST(ReferenceModels, ResNet50MatchesPyTorch) {
  if (kSanitized) GTEST_SKIP() << "skipped under AddressSanitizer (about 150 s there); MobileNetV2 covers the kernels";
  check_against_torch("resnet50_bn", true);
}

TEST(ReferenceModels, YoloV5sMatchesPyTorch) {
  if (kSanitized) GTEST_SKIP() << "skipped under AddressSanitizer (minutes there); MobileNetV2 covers the kernels";
  check_against_torch("yolov5s_bn", false);
}

}  // namespace
}  // namespace npu::compiler
