// `npu verify` of an LLM export as a newcomer gives it files: token ids as integer .npy (int64
// and int32 accepted, floats refused), int8 calibration ids outside the vocabulary (refused
// naming the file, the input and the range), and --expected FILE on a model with several outputs (the
// output a TensorProto names, else an error listing the outputs and the NAME=FILE syntax).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "fp32_config.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

using npu::compiler::RefTensor;

const std::string kVerifyLlm = npu::test::shared_path("models/llm/");
const std::string kPrefill = kVerifyLlm + "gpt2_tiny-prefill.onnx";
const std::string kVerifyData = kVerifyLlm + "gpt2_tiny-prefill_data/test_data_set_0/";

// A .npy v1.0 file of int32 values '<i4' (numpy.save(path, a.astype('<i4'))), header padded to 64.
void write_npy_int32(const std::string& path, const RefTensor& t) {
  std::string shape = "(";
  for (std::size_t d = 0; d < t.shape.size(); ++d) shape += std::to_string(t.shape[d]) + ", ";
  std::string h = "{'descr': '<i4', 'fortran_order': False, 'shape': " + shape + "), }";
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  f.put(char(h.size() & 0xff)).put(char(h.size() >> 8)) << h;
  for (std::int64_t v : t.i) {
    const std::int32_t w = std::int32_t(v);
    f.write(reinterpret_cast<const char*>(&w), 4);
  }
}

// npu verify of the tiny GPT-2 prefill (none) on fp32 hbm2 with token ids from `ids`, compared
// with torch's logits (output_0.pb).
npu::test::ToolResult verify_with_ids(const std::string& out, const std::string& ids) {
  return npu::test::run_npu({"verify", kPrefill, "--hw", npu::test::fp32_config(out, "hbm2-npu"), "--strategies",
                             "none", "--out", out + "/v", "--input", "input_ids=" + ids, "--expected",
                             "logits=" + kVerifyData + "output_0.pb"});
}

void expect_logits_match_torch(const std::string& out) {
  const auto v = nlohmann::json::parse(npu::test::read_file(out + "/v/verify.json"));
  ASSERT_EQ(v.at("rows").size(), 1u);
  const auto& row = v.at("rows").at(0);
  EXPECT_TRUE(row.at("pass").get<bool>()) << row.dump();
  ASSERT_EQ(row.at("sim_vs_expected").size(), 1u) << row.dump();
  EXPECT_LE(row.at("sim_vs_expected").at(0).at("rel_error").get<double>(), 1e-4) << row.dump();
}

TEST(LlmVerifyInputs, IntegerNpyTokenIdsAreAcceptedAsInt64AndInt32) {
  NPU_REQUIRE_SHARED_OR_SKIP(kPrefill);
  const std::string out = npu::test::fresh_dir("llm_npy_ids");
  const RefTensor ids = npu::compiler::read_tensor_file(kVerifyData + "input_0.pb");  // torch's int64 ids, [1, 128]
  ASSERT_EQ(ids.type, npu::compiler::ElemType::Int64);
  npu::compiler::write_npy(out + "/ids64.npy", ids);
  write_npy_int32(out + "/ids32.npy", ids);
  const RefTensor back = npu::compiler::read_tensor_file(out + "/ids32.npy");
  EXPECT_EQ(back.type, npu::compiler::ElemType::Int32);
  EXPECT_EQ(back.shape, ids.shape);
  EXPECT_EQ(back.i, ids.i);
  for (const char* f : {"/ids64.npy", "/ids32.npy"}) {
    const std::string dir = npu::test::fresh_dir(std::string("llm_npy_ids") + (f[4] == '6' ? "64" : "32"));
    const auto r = verify_with_ids(dir, out + f);
    ASSERT_EQ(r.status, 0) << f << "\n" << r.output;
    expect_logits_match_torch(dir);
  }
}

TEST(LlmVerifyInputs, FloatNpyForTokenIdsIsRefusedNamingInputAndFix) {
  NPU_REQUIRE_SHARED_OR_SKIP(kPrefill);
  const std::string out = npu::test::fresh_dir("llm_npy_float_ids");
  const RefTensor ids = npu::compiler::read_tensor_file(kVerifyData + "input_0.pb");
  RefTensor f;
  f.shape = ids.shape;
  for (auto v : ids.i) f.f.push_back(float(v));
  npu::compiler::write_npy(out + "/idsf.npy", f);
  const auto r = verify_with_ids(out, out + "/idsf.npy");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(out + "/idsf.npy: error: graph input 'input_ids' holds integers (int64/int32); the file "
                                "holds floats: write it as .npy '<i8'/'<i4'"),
            std::string::npos)
      << r.output;
}

TEST(LlmVerifyInputs, Int8CalibrationIdsOutsideTheVocabularyNameTheFileTheInputAndTheRange) {
  // hbm2-npu is int8: PTQ calibrates on --calib DIR, whose token ids must index the embedding
  // table (2048 rows). The reference pair's ids with element 5 set to 2048 are refused before
  // any run, naming the file, the input, the value and the valid range [0, 2048).
  NPU_REQUIRE_SHARED_OR_SKIP(kPrefill);
  const std::string out = npu::test::fresh_dir("llm_int8_bad_calib");
  RefTensor ids = npu::compiler::read_tensor_file(kVerifyData + "input_0.pb");
  ASSERT_GT(ids.i.size(), 5u);
  ids.i[5] = 2048;
  std::filesystem::create_directories(out + "/calib/s0");
  npu::compiler::write_tensor_pb(out + "/calib/s0/input_0.pb", ids, "input_ids");
  const auto r = npu::test::run_npu({"verify", kPrefill, "--hw", "configs/hbm2-npu.yaml", "--strategies", "none",
                                     "--calib", out + "/calib", "--out", out + "/v"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(out + "/calib/s0/input_0.pb: error: graph input 'input_ids': value 2048 at element 5 is "
                                "outside [0, 2048), the rows of table 'm.wte.weight' that Gather '/wte/Gather' reads"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("fix: write ids in [0, 2048)"), std::string::npos) << r.output;
}

TEST(LlmVerifyInputs, ExpectedFileOnAModelWithSeveralOutputs) {
  // The prefill has five outputs (logits, present.{0,1}.{key,value}); torch's output_0.pb has
  // no name, so it cannot say which it is: the error lists them and the NAME=FILE syntax.
  NPU_REQUIRE_SHARED_OR_SKIP(kPrefill);
  const std::string out = npu::test::fresh_dir("llm_expected_unnamed");
  const std::string hw = npu::test::fp32_config(out, "hbm2-npu");
  const std::string file = kVerifyData + "output_0.pb";
  const auto r = npu::test::run_npu({"verify", kPrefill, "--hw", hw, "--strategies", "none", "--out", out + "/v",
                                     "--input", "input_ids=" + kVerifyData + "input_0.pb", "--expected", file});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--expected '" + file + "': error: the model has 5 outputs (logits, present.0.key, "
                          "present.0.value, present.1.key, present.1.value)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("e.g. --expected logits=" + file), std::string::npos) << r.output;
  // A TensorProto named after an output says which it is: accepted without NAME=.
  npu::compiler::write_tensor_pb(out + "/logits.pb", npu::compiler::read_tensor_file(file), "logits");
  const auto ok = npu::test::run_npu({"verify", kPrefill, "--hw", hw, "--strategies", "none", "--out", out + "/v2",
                                      "--input", "input_ids=" + kVerifyData + "input_0.pb", "--expected",
                                      out + "/logits.pb"});
  ASSERT_EQ(ok.status, 0) << ok.output;
  const auto v = nlohmann::json::parse(npu::test::read_file(out + "/v2/verify.json"));
  EXPECT_LE(v.at("rows").at(0).at("sim_vs_expected").at(0).at("rel_error").get<double>(), 1e-4) << v.dump();
}

}  // namespace
