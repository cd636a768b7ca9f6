// A timeline slice's ts and dur were each rounded to the ns on their own, so a DMA store could
// end 1 ns after the next store on its track began (546.808 + 2.598 = 549.406 against a next
// ts of 549.405 in ResNet-18 conv-bn-act on the edge preset: 6 such pairs; new-user finding).
// Trace viewers draw that as a bad nesting. Now ts + dur is the end rounded to the ns, and
// instructions of one unit run one after another, so no two slices of a track overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tool_runner.hpp"

namespace {

TEST(TimelineSlices, NoTwoSlicesOfATrackOverlap) {
  const std::string out = npu::test::fresh_dir("timeline-slices");
  auto r = npu::test::run_npu({"simulate", "--model", "resnet18", "--hw", "configs/edge-npu-ddr4.yaml", "--strategy",
                               "conv-bn-act", "--out", out, "--trace", "timeline", "-q"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::map<int, std::vector<std::pair<long long, long long>>> tracks;  // tid -> (start, end) in ns
  const auto timeline = npu::test::read_json(out + "/timeline.json");
  for (const auto& e : timeline.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    const long long ts = std::llround(e.at("ts").get<double>() * 1000), dur = std::llround(e.at("dur").get<double>() * 1000);
    tracks[e.at("tid").get<int>()].emplace_back(ts, ts + dur);
  }
  ASSERT_GE(tracks.size(), 4u);  // DMA load and store, MAC array, activation unit
  for (auto& [tid, slices] : tracks) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t k = 1; k < slices.size(); ++k)
      EXPECT_GE(slices[k].first, slices[k - 1].second) << "track " << tid << ", slices " << k - 1 << " and " << k;
  }
}

}  // namespace
