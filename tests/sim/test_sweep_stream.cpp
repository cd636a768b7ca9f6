// Streamed sweep planning (sweep_configs.hpp, cell_plan.hpp PlanWriter): a 10^6-point sweep
// must not hold every point's YAML, and the plan it writes must be the one the in-memory
// planner wrote, byte for byte (plan.json of existing sweeps keeps its content).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "npu/base/config_error.hpp"
#include "npu/sim/experiment/cell_key.hpp"
#include "npu/sim/experiment/cell_plan.hpp"
#include "npu/sim/experiment/sweep_configs.hpp"
#include "npu/sim/experiment/sweep_spec.hpp"
#include "tool_runner.hpp"

namespace {

using nlohmann::ordered_json;

npu::sim::SweepSpec parse_stream(const std::string& text) { return npu::sim::parse_sweep_spec(text, "spec.yaml", NPU_SOURCE_DIR); }

// Two models x 3 strategies over 4 SRAM sizes (100 bytes: invalid, below a minimal tile) and two
// zipped array shapes; '1 MiB' names its cells 1MiB (spaces dropped).
const char* kSpec =
    "base: edge-npu-ddr4\nmodels: [tests/data/tiny_convnet.onnx, resnet18]\n"
    "strategies: [none, conv-bn, residual]\n"
    "axes: {sram.capacity: [100, 256KiB, '1 MiB', 2MiB]}\n"
    "zip: {mac_array.rows: [16, 32], mac_array.cols: [8, 32]}\n";

/// plan.json as write_plan wrote it before streaming: the whole plan as one ordered_json,
/// dump(1) (cell_plan.cpp at 96684f7).
std::string reference_plan_text(const npu::sim::Plan& plan) {
  ordered_json j;
  j["format"] = "npu-plan 1";
  j["kind"] = plan.kind;
  j["tool"] = plan.tool;
  j["axes"] = plan.axes;
  j["options"] = {{"trace", plan.traces}, {"input_shape", plan.input_shapes}, {"dynamic_size", plan.dynamic_size},
                  {"npu_only", plan.npu_only}};
  ordered_json cells = ordered_json::array();
  for (const auto& c : plan.cells) {
    ordered_json e;
    e["key"] = c.key, e["group"] = c.group, e["model"] = c.model, e["model_arg"] = c.model_arg;
    e["hw"] = c.hw, e["hw_arg"] = c.hw_arg, e["strategy"] = c.strategy, e["strategy_arg"] = c.strategy_arg;
    ordered_json axes = ordered_json::object();
    for (const auto& [p, v] : c.axes) axes[p] = v;
    e["axes"] = axes;
    e["run_dir"] = c.run_dir;
    if (!c.invalid.empty()) e["invalid"] = c.invalid;
    cells.push_back(e);
  }
  j["cells"] = cells;
  return j.dump(1) + "\n";
}

TEST(SweepStream, KeyFromItsConfigStateEqualsTheWholeKey) {
  const npu::sim::CellIdentity id{"npu:\n  name: \"-\"\n", "zoo:resnet18:0123", "none:", "traces=", "npu 0.1.0"};
  EXPECT_EQ(npu::sim::cell_key_from(npu::sim::cell_key_config_state(id.config_yaml), id), npu::sim::cell_key(id));
  npu::sim::CellIdentity g = id;
  g.strategy = "*";
  EXPECT_EQ(npu::sim::cell_key_from(npu::sim::cell_key_config_state(id.config_yaml), g), npu::sim::group_key(id));
}

TEST(SweepStream, PointsMatchTheConfigCells) {
  const auto spec = parse_stream(kSpec);
  const auto cells = npu::sim::plan_configs(spec);
  const auto points = npu::sim::plan_config_points(spec);
  ASSERT_EQ(points.size(), cells.size());
  ASSERT_EQ(points.size(), 8u);
  for (std::size_t k = 0; k < cells.size(); ++k) {
    EXPECT_EQ(points[k].hw_name, cells[k].hw_name);
    EXPECT_EQ(points[k].invalid, cells[k].invalid);
    EXPECT_EQ(points[k].key_state, npu::sim::cell_key_config_state(cells[k].identity_yaml));
  }
  EXPECT_FALSE(points[0].invalid.empty());  // 100 bytes: below a minimal tile
}

TEST(SweepStream, StreamedPlanIsTheInMemoryPlanByteForByte) {
  const auto spec = parse_stream(kSpec);
  const npu::sim::Plan plan = npu::sim::plan_sweep(spec);
  ASSERT_EQ(plan.cells.size(), 2u * 8u * 3u);
  const std::string dir = npu::test::fresh_dir("sweep-stream-plan");
  npu::sim::PlanWriter w(dir, npu::sim::plan_sweep_header(spec));
  std::vector<std::size_t> point_of;
  npu::sim::plan_sweep_cells(spec, npu::sim::plan_config_points(spec), [&](const npu::sim::PlannedCell& c, std::size_t k) {
    w.add(c);
    point_of.push_back(k);
  });
  w.commit();
  EXPECT_EQ(npu::test::read_file(dir + "/plan.json"), reference_plan_text(plan));
  // Model slowest, strategy fastest: cell 3 x 8 + 3 is model 1's config point 1, strategy 0.
  ASSERT_EQ(point_of.size(), plan.cells.size());
  EXPECT_EQ(point_of[3 * 8 + 3], 1u);
  // write_plan (the same writer) on an empty plan: "cells": [].
  npu::sim::Plan empty = npu::sim::plan_sweep_header(spec);
  npu::sim::write_plan(dir, empty);
  EXPECT_EQ(npu::test::read_file(dir + "/plan.json"), reference_plan_text(empty));
  EXPECT_EQ(npu::sim::read_plan(dir).cells.size(), 0u);
}

TEST(SweepStream, ADuplicateConfigIsStillFound) {
  const auto spec = parse_stream("base: edge-npu-ddr4\nmodels: [resnet18]\nstrategies: [none]\n"
                          "axes: {sram.capacity: [1MiB, 1048576]}\n");
  EXPECT_THROW(npu::sim::plan_config_points(spec), npu::ConfigError);
  try {
    npu::sim::plan_config_points(spec);
  } catch (const npu::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("config cells 'edge-npu-ddr4__capacity-1MiB' and "
                                         "'edge-npu-ddr4__capacity-1048576' are the same config"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
