// mac_array.weight_dtype on the shared Llama decode export (docs/config.md "Precisions"): the
// GEMM constant-weight LOADs and compulsory bytes move the weight type's bytes, fp16 scales
// included. Hand derivation (../shared/models/llm/README.md: 2 layers, d_model 256, 2 KV heads
// of 64 -> K/V width 128, SwiGLU ffn 768, vocabulary 2048, untied head):
//   per layer  q 256x256, k 256x128, v 256x128, o 256x256, gate 256x768, up 256x768, down 768x256
//              = 786,432 weights; output columns N = 256+128+128+256+768+768+256 = 2,560
//   model      2 x 786,432 + head 256 x 2048 = 2,097,152 weights, N = 2 x 2,560 + 2,048 = 7,168
//   fp16 (same on an fp16 array): 2 B each = 4,194,304 B
//   int8 (W8A16): 2,097,152 + 7,168 x 2 = 2,111,488 B   -> 2,082,816 B fewer
//   int4 (W4A16, group 128): 1,048,576 + scales ceil(K/128) x N x 2:
//              per layer q 2x256, k 2x128, v 2x128, o 2x256, gate 2x768, up 2x768, down 6x256
//              = 6,144 scales x 2 B = 12,288 B; head 2 x 2048 x 2 = 8,192 B
//              -> 1,048,576 + 2 x 12,288 + 8,192 = 1,081,344 B -> 3,112,960 B fewer
#include <gtest/gtest.h>

#include <string>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/transforms/strategy.hpp"
#include "npu/isa/instruction.hpp"
#include "shared_data.hpp"

namespace npu {
namespace {

compiler::LayerReport llama_decode_total(WeightDType w) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/hbm2-npu.yaml");
  hw.mac_array.dtype = DType::Fp16;
  hw.mac_array.weight_dtype = w;
  const std::string model = test::shared_path("models") + "/llm/llama_tiny-decode.onnx";
  return compiler::compile(compiler::load_model(model), hw, compiler::builtin_strategy("none")).report.total();
}

TEST(WeightDtypeDecode, WeightBytesFollowTheWeightTypeByHand) {
  NPU_REQUIRE_SHARED_OR_SKIP(test::shared_path("models") + "/llm");
  const compiler::LayerReport fp16 = llama_decode_total(WeightDType::Same);
  const compiler::LayerReport int8 = llama_decode_total(WeightDType::Int8);
  const compiler::LayerReport int4 = llama_decode_total(WeightDType::Int4);
  EXPECT_EQ(fp16.compulsory_read_bytes - int8.compulsory_read_bytes, 2082816u);
  EXPECT_EQ(fp16.compulsory_read_bytes - int4.compulsory_read_bytes, 3112960u);
  // The LOADs move the same saving (every weight is loaded once in a decode step).
  EXPECT_EQ(fp16.planned_read_bytes - int8.planned_read_bytes, 2082816u);
  EXPECT_EQ(fp16.planned_read_bytes - int4.planned_read_bytes, 3112960u);
}

// The program declares each GEMM weight tensor with its stored bytes, so the network's
// compulsory bytes (isa::compulsory_bytes: inputs, weights and outputs once, what `npu compile`
// and `npu run` print) save the same as the per-layer figures above, and the planned traffic
// never falls below them (before, the declarations kept the array's width: planned/compulsory
// 0.51 at W8A16 and 0.27 at W4A16 on gpt2).
std::uint64_t network_compulsory(const std::string& model, DType dtype, WeightDType w, std::uint64_t* planned) {
  HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/hbm2-npu.yaml");
  hw.mac_array.dtype = dtype;
  hw.mac_array.weight_dtype = w;
  const compiler::CompileResult r =
      compiler::compile(compiler::load_model(model), hw, compiler::builtin_strategy("none"));
  *planned = r.report.total().planned_bytes();
  return isa::compulsory_bytes(r.program);
}

TEST(WeightDtypeDecode, NetworkCompulsoryBytesCountTheWeightsAsStored) {
  NPU_REQUIRE_SHARED_OR_SKIP(test::shared_path("models") + "/llm");
  const std::string llama = test::shared_path("models") + "/llm/llama_tiny-decode.onnx";
  std::uint64_t p16 = 0, p8 = 0, p4 = 0;
  const std::uint64_t c16 = network_compulsory(llama, DType::Fp16, WeightDType::Same, &p16);
  const std::uint64_t c8 = network_compulsory(llama, DType::Fp16, WeightDType::Int8, &p8);
  const std::uint64_t c4 = network_compulsory(llama, DType::Fp16, WeightDType::Int4, &p4);
  EXPECT_EQ(c16 - c8, 2082816u);  // the hand derivation at the top of this file
  EXPECT_EQ(c16 - c4, 3112960u);
  EXPECT_GE(p8, c8);
  EXPECT_GE(p4, c4);
}

TEST(WeightDtypeDecode, ATiedEmbeddingTableStaysInTheArraysType) {
  // gpt2 ties its token embedding and LM head: the Gather reads rows of the same table, so the
  // table is stored once in fp16 and the head reads it so. What W8A16 saves is the other GEMM
  // weights: 12 layers x (768 x 2304 qkv + 768 x 768 proj + 768 x 3072 fc + 3072 x 768 proj)
  // = 84,934,656 weights over 12 x (2304 + 768 + 3072 + 768) = 82,944 output columns:
  // fp16 2 x 84,934,656 = 169,869,312 B; int8 84,934,656 + 2 x 82,944 = 85,100,544 B.
  std::uint64_t p16 = 0, p8 = 0, p4 = 0;
  const std::uint64_t c16 = network_compulsory("gpt2:decode=5", DType::Fp16, WeightDType::Same, &p16);
  const std::uint64_t c8 = network_compulsory("gpt2:decode=5", DType::Fp16, WeightDType::Int8, &p8);
  const std::uint64_t c4 = network_compulsory("gpt2:decode=5", DType::Fp16, WeightDType::Int4, &p4);
  EXPECT_EQ(c16 - c8, 169869312u - 85100544u);
  EXPECT_GE(p8, c8);
  EXPECT_GE(p4, c4);
  EXPECT_LT(c4, c8);
}

}  // namespace
}  // namespace npu
