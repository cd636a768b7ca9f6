// mac_array.weight_dtype narrows only a GEMM's own constant weights (docs/config.md
// "Precisions"); a compile says how many bytes it leaves in the array's dtype (the new-user test
// found a W4A16 ResNet-18 "saving" 1.3 % with no word of why). Hand derivation:
//   ResNet-18 CONV weights (torchvision): conv1 64x3x7x7 = 9,408; layer1 4 x 64x64x3x3 = 147,456;
//     layer2 128x64x9 + 3 x 128x128x9 + downsample 128x64 = 524,288; layer3 256x128x9 +
//     3 x 256x256x9 + 256x128 = 2,097,152; layer4 512x256x9 + 3 x 512x512x9 + 512x256 = 8,388,608
//     -> 11,166,912 weights in 20 CONVs, x 2 B (fp16) = 22,333,824 B.
//   Its fc 1000x512 in int4, group 128: 512,000 / 2 = 256,000 B + scales 4 x 1000 x 2 B = 264,000 B.
//   GPT-2's token embedding wte 50,257 x 768 is also the LM head (tied): 77,194,752 B in fp16.
// mac_array.kv_cache_dtype applies to a decode step's KV append only (which refuses another width
// than the array's): a prefill or a CNN compiled with it says the key has no effect.
#include <gtest/gtest.h>

#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/zoo/zoo.hpp"
#include "npu/compiler/transforms/strategy.hpp"

namespace npu {
namespace {

std::vector<std::string> warnings_of(const std::string& zoo, WeightDType w, DType dtype = DType::Fp16,
                                     KvCacheDType kv = KvCacheDType::Same) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  hw.mac_array.dtype = dtype;
  hw.mac_array.weight_dtype = w;
  hw.mac_array.kv_cache_dtype = kv;
  compiler::CompileOptions o;
  o.smaller_sram_plans = false;
  return compiler::compile(compiler::build_zoo_model(zoo), hw, compiler::builtin_strategy("none"), o).warnings;
}

std::string warning_about(const std::vector<std::string>& ws, const std::string& key) {
  for (const auto& w : ws)
    if (w.find(key) != std::string::npos) return w;
  return "";
}

std::string weight_dtype_warning(const std::vector<std::string>& ws) {
  return warning_about(ws, "mac_array.weight_dtype");
}

TEST(WeightDtypeWarning, ResNet18SaysItsConvWeightsStayFp16) {
  const std::string w = weight_dtype_warning(warnings_of("resnet18", WeightDType::Int4));
  EXPECT_NE(w.find("warning: mac_array.weight_dtype int4 applies to 264000 B of GEMM weights; 22333824 B of CONV "
                   "weights (20 layer(s)) stay in mac_array.dtype fp16"),
            std::string::npos)
      << w;
}

TEST(WeightDtypeWarning, Gpt2NamesItsTiedEmbeddingTable) {
  const std::string w = weight_dtype_warning(warnings_of("gpt2:decode=9", WeightDType::Int8));
  EXPECT_NE(w.find("77194752 B of GEMM weights another layer also reads (the largest 'wte.weight', 77194752 B"),
            std::string::npos)
      << w;
}

TEST(WeightDtypeWarning, NoneWhenTheWeightsKeepTheArraysWidth) {
  EXPECT_EQ(weight_dtype_warning(warnings_of("resnet18", WeightDType::Same)), "");
  EXPECT_EQ(weight_dtype_warning(warnings_of("resnet18", WeightDType::Int8, DType::Int8)), "");
}

TEST(KvCacheDtypeWarning, APrefillAndACnnSayTheKeyHasNoEffect) {
  for (const char* model : {"gpt2:prefill=8", "resnet18"}) {
    const std::string w = warning_about(warnings_of(model, WeightDType::Same, DType::Fp16, KvCacheDType::Int8),
                                        "mac_array.kv_cache_dtype");
    EXPECT_NE(w.find("warning: mac_array.kv_cache_dtype int8 has no effect on this program: it has no KV-cache "
                     "append"),
              std::string::npos)
        << model << ": " << w;
    EXPECT_NE(w.find("are in mac_array.dtype fp16"), std::string::npos) << w;
  }
  // The same width as the array's: nothing to say.
  EXPECT_EQ(warning_about(warnings_of("gpt2:prefill=8", WeightDType::Same, DType::Fp16, KvCacheDType::Fp16),
                          "mac_array.kv_cache_dtype"),
            "");
}

}  // namespace
}  // namespace npu
