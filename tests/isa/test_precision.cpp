// LLM precisions (isa/cost/precision.hpp, docs/config.md "Precisions"): weight bytes of a small
// GEMM in each weight type, derived by hand beside each assertion; KV element bytes; the
// refusal of runs with data.
#include <gtest/gtest.h>

#include "npu/isa/cost/precision.hpp"

namespace npu {
namespace {

MacArrayConfig array(DType dtype, WeightDType w, int group = 128) {
  MacArrayConfig a;
  a.rows = a.cols = 32;
  a.dtype = dtype;
  a.weight_dtype = w;
  a.weight_group = group;
  return a;
}

// A K = 256 by N = 64 weight matrix (16,384 weights).
constexpr std::uint64_t K = 256, N = 64;

TEST(Precision, WeightBytesInEachWeightType) {
  // int8 array, same: 16,384 x 1 B, no scales.
  EXPECT_EQ(isa::weight_matrix_bytes(K, N, array(DType::Int8, WeightDType::Same)), 16384u);
  // fp16 array, same: 16,384 x 2 B.
  EXPECT_EQ(isa::weight_matrix_bytes(K, N, array(DType::Fp16, WeightDType::Same)), 32768u);
  // fp16 array, int8 weights (W8A16): 16,384 + one fp16 scale per column 64 x 2 = 16,512.
  EXPECT_EQ(isa::weight_matrix_bytes(K, N, array(DType::Fp16, WeightDType::Int8)), 16512u);
  // W4A16, group 128: 16,384 / 2 = 8,192 + (256/128) x 64 x 2 = 256 -> 8,448.
  EXPECT_EQ(isa::weight_matrix_bytes(K, N, array(DType::Fp16, WeightDType::Int4)), 8448u);
  // W4A16, group 64: 8,192 + 4 x 64 x 2 = 512 -> 8,704.
  EXPECT_EQ(isa::weight_matrix_bytes(K, N, array(DType::Fp16, WeightDType::Int4, 64)), 8704u);
  // A K not divisible by the group: K = 200 -> ceil(200/128) = 2 groups: 200*64/2 = 6,400 + 256.
  EXPECT_EQ(isa::weight_matrix_bytes(200, N, array(DType::Fp16, WeightDType::Int4)), 6656u);
  // fp32 array, fp16 weights: 16,384 x 2, no scales (fp16 widens to fp32 exactly).
  EXPECT_EQ(isa::weight_matrix_bytes(K, N, array(DType::Fp32, WeightDType::Fp16)), 32768u);
}

TEST(Precision, KvCacheElementBytes) {
  MacArrayConfig a = array(DType::Fp16, WeightDType::Same);
  EXPECT_EQ(isa::kv_cache_elem_bytes(a), 2);  // same as the fp16 array
  a.kv_cache_dtype = KvCacheDType::Int8;
  EXPECT_EQ(isa::kv_cache_elem_bytes(a), 1);
  a = array(DType::Int8, WeightDType::Same);
  a.kv_cache_dtype = KvCacheDType::Fp16;
  EXPECT_EQ(isa::kv_cache_elem_bytes(a), 2);
}

TEST(Precision, RunsWithDataRefuseATypeOtherThanTheArrays) {
  EXPECT_EQ(isa::data_run_refusal(array(DType::Int8, WeightDType::Same)), "");
  EXPECT_EQ(isa::data_run_refusal(array(DType::Int8, WeightDType::Int8)), "");  // int8 is the array's own
  const std::string w4 = isa::data_run_refusal(array(DType::Fp16, WeightDType::Int4));
  EXPECT_NE(w4.find("mac_array.weight_dtype is int4 but mac_array.dtype is fp16"), std::string::npos) << w4;
  EXPECT_NE(w4.find("timing-only"), std::string::npos) << w4;
  MacArrayConfig kv = array(DType::Fp32, WeightDType::Same);
  kv.kv_cache_dtype = KvCacheDType::Int8;
  EXPECT_NE(isa::data_run_refusal(kv).find("mac_array.kv_cache_dtype is int8"), std::string::npos);
}

}  // namespace
}  // namespace npu
