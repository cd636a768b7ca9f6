// Output-channel groups of a layer's streamed weights (stack_plan.hpp, weight_group_channels).
#include <algorithm>

#include "backend/schedule/depth_first/stack_plan.hpp"

namespace npu::compiler::depth_first {

int weight_group_channels(const LayerSpec& L, std::uint64_t weight_bytes, std::uint64_t group_bytes,
                          const MacArrayConfig& array) {
  const int c_out = L.geom.c_out;
  if (L.kind != LayerKind::Conv || L.geom.group != 1 || group_bytes == 0 || weight_bytes <= group_bytes || c_out <= 1) return c_out;
  const std::uint64_t groups =
      std::min<std::uint64_t>(kMaxWeightGroups, (weight_bytes + group_bytes - 1) / group_bytes);
  const int block = std::max({array.rows, array.cols, 1});
  int per = int((std::uint64_t(c_out) + groups - 1) / groups);
  per = (per + block - 1) / block * block;
  return std::min(per, c_out);
}

}  // namespace npu::compiler::depth_first
