// The host nodes of the torchvision detection exports under --dynamic-size 100 (issue 28 kind 8):
// maskrcnn_resnet50_fpn and retinanet_resnet50_fpn at 320 x 320, opset 13, exported by
// scripts/torchvision_export.py (about 160 MB each, not in the repository or ../shared). Set
// NPU_DETECTION_EXPORTS to the folder holding maskrcnn_resnet50_fpn-bn-op13.onnx and
// retinanet_resnet50_fpn-bn-op13.onnx; without it the test skips saying so. It prints the host
// nodes by op and checks that every Gather, GatherND and ScatterElements left the host (the
// indexed DMA forms); the counts themselves are printed, not asserted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "npu/compiler/driver/compiler.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {
namespace {

void host_nodes_of(const std::string& file) {
  const char* dir = std::getenv("NPU_DETECTION_EXPORTS");
  if (!dir) GTEST_SKIP() << "set NPU_DETECTION_EXPORTS to the folder of " << file
                         << " (scripts/torchvision_export.py, ~160 MB) to count its host nodes";
  const std::string path = std::string(dir) + "/" + file;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent (export it with scripts/torchvision_export.py)";
  LoadOptions o;
  o.dynamic_size = 100;
  const Graph g = load_model(path, o);
  const HwConfig hw = load_hw_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu-ddr4.yaml");
  const CompileResult c = compile(g, hw, builtin_strategy("none"));
  std::map<std::string, int> by_op;
  for (const HostNode& h : c.lowered.host_nodes) ++by_op[h.op_type];
  std::string line;
  for (const auto& [op, k] : by_op) line += " " + op + " " + std::to_string(k);
  std::printf("%s: %zu host nodes of %zu:%s\n", file.c_str(), c.lowered.host_nodes.size(), g.nodes.size(),
              line.c_str());
  for (const HostNode& h : c.lowered.host_nodes)
    EXPECT_TRUE(h.op_type != "Gather" && h.op_type != "GatherND" && h.op_type != "ScatterElements")
        << h.name << " (" << h.op_type << "): " << h.reason;
}

TEST(DetectionExportsHostNodes, MaskRcnnUnderDynamicSize100) { host_nodes_of("maskrcnn_resnet50_fpn-bn-op13.onnx"); }
TEST(DetectionExportsHostNodes, RetinaNetUnderDynamicSize100) { host_nodes_of("retinanet_resnet50_fpn-bn-op13.onnx"); }

}  // namespace
}  // namespace npu::compiler
