// npu::closest_name, the "did you mean" of every name a user types (keys, strategies, trace
// kinds, ops). Expected values by hand from the distance's definition.
#include <gtest/gtest.h>

#include "npu/base/closest_name.hpp"

namespace npu {
namespace {

TEST(ClosestName, AnAdjacentSwapIsOneEdit) {
  // "vdc": one swap from "vcd"; two substitutions from "ddr" (v->d, c->r). Plain Levenshtein
  // put both at 2 and the first listed, "ddr", won (new-user test: --trace ddr,vdc).
  EXPECT_EQ(closest_name("vdc", {"ddr", "timeline", "vcd"}), "vcd");
  EXPECT_EQ(closest_name("timelnie", {"ddr", "timeline", "vcd"}), "timeline");
  EXPECT_EQ(closest_name("Reisdual", {"none", "residual"}), "residual");  // case-insensitive too
}

TEST(ClosestName, FarWordsGetNoSuggestionAndTiesGoToTheFirst) {
  // "xyz" is 3 edits from "ddr" and "vcd" (limit max(2, 3 / 3) = 2) and no prefix: nothing.
  EXPECT_EQ(closest_name("xyz", {"ddr", "vcd"}), std::nullopt);
  // "ddc": 1 from "ddr" (substitute c->r) and 2 from "vcd": the nearest wins, though listed second.
  EXPECT_EQ(closest_name("ddc", {"vcd", "ddr"}), "ddr");
  // A tie at distance 1 ("ab" -> "aa" or "bb" by one substitution each): the first listed.
  EXPECT_EQ(closest_name("ab", {"bb", "aa"}), "bb");
}

}  // namespace
}  // namespace npu
