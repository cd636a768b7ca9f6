// Shape inference against ONNX's own backend node tests (Debian package libonnx-testdata,
// /usr/share/libonnx-testdata/data/node/<test>/: model.onnx + test_data_set_0/output_N.pb
// computed by the ONNX reference implementation). For every single-node test of an op the
// front-end supports, the shapes we infer must equal the dims of the reference outputs.
// Skipped when the package is not installed (apt-get install libonnx-testdata).
//
// The node tests feed "parameter" inputs (Reshape shape, Split sizes, Resize scales/sizes,
// Clip bounds) as graph inputs with data in input_N.pb; the compiler needs them constant,
// so the test turns those into initializers from the .pb data before importing.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "npu/compiler/frontend/onnx/onnx_import.hpp"
#include "npu/compiler/transforms/canonicalize/shape_inference.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "test_onnx_util.hpp"

namespace npu::compiler {
namespace {

namespace fs = std::filesystem;
const fs::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

bool read_pb(const fs::path& p, google::protobuf::Message& m) {
  std::ifstream f(p, std::ios::binary);
  return f && m.ParseFromIstream(&f);
}

/// Inputs the compiler wants constant, by op: {op, input slot}.
bool is_parameter_slot(const std::string& op, int slot) {
  if (op == "Reshape" || op == "Split" || op == "Upsample") return slot == 1;
  if (op == "Resize") return slot >= 1;
  if (op == "Clip") return slot == 1 || slot == 2;
  return false;
}

/// Tests we decline on purpose, with the part of the message that says why.
const std::map<std::string, std::string>& expected_declines() {
  static const std::map<std::string, std::string> k = {
      {"test_resize_tf_crop_and_resize", "tf_crop_and_resize"},     // region of interest
      {"test_split_zero_size_splits", "zero-size dimension"},       // empty tensors
      {"test_reshape_allowzero_reordered", "zero-size dimension"},  // empty tensors
      {"test_identity_opt", "not a tensor"},                        // optional type
      {"test_identity_sequence", "not a tensor"},                   // sequence type
  };
  return k;
}

TEST(OnnxConformance, InferredShapesMatchTheOnnxBackendNodeTests) {
  if (!fs::is_directory(kNodeTests))
    GTEST_SKIP() << kNodeTests << " is absent: apt-get install libonnx-testdata to run this check";
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(kNodeTests)) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());  // deterministic order
  int checked = 0, declined = 0;
  std::set<std::string> ops_seen;
  for (const fs::path& dir : dirs) {
    const std::string test = dir.filename().string();
    onnx::ModelProto model;
    if (!read_pb(dir / "model.onnx", model)) continue;
    const auto& gp = model.graph();
    if (gp.node_size() != 1) continue;  // the *_expanded variants are multi-node functions
    const std::string op = gp.node(0).op_type();
    if (!(is_supported_op(op) || op == "Upsample") || !gp.node(0).domain().empty()) continue;
    // Parameter inputs -> initializers with the test's data.
    std::map<std::string, int> input_index;
    for (int i = 0; i < gp.input_size(); ++i) input_index[gp.input(i).name()] = i;
    std::set<std::string> folded;
    for (int slot = 0; slot < gp.node(0).input_size(); ++slot) {
      const std::string& name = gp.node(0).input(slot);
      if (name.empty() || !is_parameter_slot(op, slot) || !input_index.count(name)) continue;
      onnx::TensorProto t;
      const fs::path pb = dir / "test_data_set_0" / ("input_" + std::to_string(input_index[name]) + ".pb");
      ASSERT_TRUE(read_pb(pb, t)) << pb;
      t.set_name(name);
      *model.mutable_graph()->add_initializer() = t;
      folded.insert(name);
    }
    auto* inputs = model.mutable_graph()->mutable_input();
    for (int i = inputs->size() - 1; i >= 0; --i)
      if (folded.count(inputs->Get(i).name())) inputs->DeleteSubrange(i, 1);

    // GlobalAveragePool (version 1) and HardSigmoid (version 6) are unchanged up to opset
    // 17, so these files are equally valid at opset 9, the oldest the importer accepts.
    for (auto& o : *model.mutable_opset_import())
      if ((o.domain().empty() || o.domain() == "ai.onnx") && o.version() < kMinOnnxOpset &&
          (op == "GlobalAveragePool" || op == "HardSigmoid"))
        o.set_version(kMinOnnxOpset);
    SCOPED_TRACE(test);
    try {
      Graph g = import_onnx_bytes(model.SerializeAsString(), test);
      infer_shapes(g, test);
      EXPECT_EQ(expected_declines().count(test), 0u) << "expected a decline";
      for (int o = 0; o < gp.output_size(); ++o) {
        onnx::TensorProto ref;
        if (!read_pb(dir / "test_data_set_0" / ("output_" + std::to_string(o) + ".pb"), ref)) {
          ADD_FAILURE() << "cannot read reference output " << o;
          continue;
        }
        const std::vector<std::int64_t> dims(ref.dims().begin(), ref.dims().end());
        EXPECT_EQ(g.tensor(gp.output(o).name()).shape, dims) << "output " << o;
      }
      ++checked;
      ops_seen.insert(op);
    } catch (const ConfigError& e) {
      auto it = expected_declines().find(test);
      if (it == expected_declines().end()) {
        ADD_FAILURE() << "unexpected error: " << e.what();
        continue;
      }
      EXPECT_NE(std::string(e.what()).find(it->second), std::string::npos) << e.what();
      ++declined;
    }
  }
  std::printf("ONNX node tests: %d shape-checked over %zu op types, %d declined as expected\n",
              checked, ops_seen.size(), declined);
  // Debian's libonnx-testdata 1.12 has about 190 single-node tests of these ops; all 24
  // supported op types and Upsample are among them.
  EXPECT_GE(checked, 150);
  EXPECT_EQ(ops_seen.size(), 25u);
  EXPECT_EQ(declined, static_cast<int>(expected_declines().size()));
}

}  // namespace
}  // namespace npu::compiler
