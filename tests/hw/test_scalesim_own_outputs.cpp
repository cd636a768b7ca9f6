// `npu scalesim` against SCALE-Sim's own outputs (../shared/anchors/scalesim/reports/
// resnet18_per_layer.csv: COMPUTE_REPORT figures of SCALE-Sim v2 @22f88b17 and v3 @fab89b77 run on
// conv_nets/Resnet18.csv with scale.cfg and google.cfg; README there), not a hand evaluation of
// the formula we share with it. Every row: Total Cycles exactly; mapping efficiency, compute and
// overall utilisation to the report's 4 decimals. Skipped when the shared data are absent.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "shared_data.hpp"
#include "tool_runner.hpp"

namespace {

const std::string kScaleSimAnchors = npu::test::shared_path("anchors/scalesim");

using ScaleSimRow = std::map<std::string, std::string>;

std::vector<ScaleSimRow> scalesim_report_rows(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = npu::test::split_csv(line);
  std::vector<ScaleSimRow> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = npu::test::split_csv(line);
    ScaleSimRow row;
    for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) row[header[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

TEST(ScaleSimOwnOutputs, Resnet18OnEveryAnchoredVersionAndConfigMatchesRowForRow) {
  const std::string report = kScaleSimAnchors + "/reports/resnet18_per_layer.csv";
  NPU_REQUIRE_SHARED_OR_SKIP(report);
  const std::vector<ScaleSimRow> theirs = scalesim_report_rows(report);
  ASSERT_EQ(theirs.size(), 84u);  // 21 layers x (v2, v3) x (scale.cfg, google.cfg)
  std::map<std::string, std::vector<ScaleSimRow>> ours;  // "v2/scale" -> our rows
  const std::string dir = npu::test::fresh_dir("scalesim-own-outputs");
  for (const char* v : {"v2", "v3"})
    for (const char* cfg : {"scale", "google"}) {
      const std::string out = dir + "/" + v + "-" + cfg;
      const auto r = npu::test::run_npu({"scalesim", kScaleSimAnchors + "/" + v + "/topologies/conv_nets/Resnet18.csv",
                                         "--config", kScaleSimAnchors + "/" + v + "/configs/" + cfg + ".cfg", "--out", out});
      ASSERT_EQ(r.status, 0) << r.output;
      ours[std::string(v) + "/" + cfg] = scalesim_report_rows(out + "/Resnet18__" + cfg + ".csv");
    }
  for (const ScaleSimRow& t : theirs) {
    const std::string run = t.at("scalesim_version") + "/" + t.at("config").substr(0, t.at("config").find(".cfg"));
    const std::vector<ScaleSimRow>& rows = ours.at(run);
    const std::size_t id = std::stoul(t.at("layer_id"));
    ASSERT_LT(id, rows.size()) << run;
    const ScaleSimRow& o = rows[id];
    const std::string where = run + " layer " + t.at("layer_name");
    EXPECT_EQ(o.at("layer"), t.at("layer_name")) << where;
    EXPECT_EQ(std::stoll(o.at("total_cycles")), std::stoll(t.at("total_cycles"))) << where;
    EXPECT_NEAR(std::stod(o.at("mapping_efficiency_pct")), std::stod(t.at("mapping_eff_pct")), 1e-4) << where;
    EXPECT_NEAR(std::stod(o.at("compute_util_pct")), std::stod(t.at("compute_util_pct")), 1e-4) << where;
    EXPECT_NEAR(std::stod(o.at("overall_util_pct")), std::stod(t.at("overall_util_pct")), 1e-4) << where;
  }
}

}  // namespace
