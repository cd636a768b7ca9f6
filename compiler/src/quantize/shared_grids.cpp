// Grid sharing for post-training quantisation (shared_grids.hpp): union-find over tensor names.
#include "npu/compiler/quantize/shared_grids.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace npu::compiler {

namespace {

bool moves_values(const std::string& op) {
  // GlobalAveragePool and ReduceMean are not here: their int8 rule requantises onto an output
  // grid of their own (TFLite's MEAN, global_avg_table), so the output keeps its calibrated range.
  // The layout ops (computed by MOVE, a byte copy) keep their input's grid on every output, as
  // do a Gather at constant indices (a MOVE view) and a Pad (its pad value is written as its
  // code on that grid: the real 0 as the zero point). Expand (GQA's repeat of K/V heads) copies
  // values.
  static const std::set<std::string> kOps = {"MaxPool",   "GlobalMaxPool", "AveragePool", "Reshape",  "Flatten",
                                             "Squeeze",   "Unsqueeze",     "Identity",    "Dropout",  "Transpose",
                                             "Split",     "Slice",         "Resize",      "Upsample", "Gather",
                                             "Pad",       "Expand"};
  return kOps.count(op) > 0;
}

class Groups {
 public:
  std::string find(const std::string& x) {
    auto it = parent_.find(x);
    if (it == parent_.end()) {
      parent_[x] = x;
      return x;
    }
    if (it->second == x) return x;
    const std::string root = find(it->second);
    parent_[x] = root;
    return root;
  }
  void join(const std::string& a, const std::string& b) {
    const std::string ra = find(a), rb = find(b);
    if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);  // deterministic root
  }
  std::map<std::string, std::vector<std::string>> members() {
    std::map<std::string, std::vector<std::string>> m;
    std::vector<std::string> names;
    for (const auto& [x, p] : parent_) names.push_back(x);
    for (const std::string& x : names) m[find(x)].push_back(x);
    return m;
  }

 private:
  std::map<std::string, std::string> parent_;
};

}  // namespace

int share_grids(const Graph& graph, std::map<std::string, TensorRange>& ranges) {
  Groups groups;
  for (const Node& n : graph.nodes) {
    if (n.outputs.empty() || n.outputs[0].empty() || n.inputs.empty()) continue;
    const std::string& out = n.outputs[0];
    if (!ranges.count(out)) continue;
    if (n.op_type == "Concat") {
      for (const std::string& in : n.inputs)
        if (!in.empty() && ranges.count(in)) groups.join(out, in);
    } else if (moves_values(n.op_type) && ranges.count(n.inputs[0])) {
      for (const std::string& o : n.outputs)  // every output (Split has several)
        if (!o.empty() && ranges.count(o)) groups.join(o, n.inputs[0]);
    }
  }
  int merged = 0;
  for (const auto& [root, names] : groups.members()) {
    if (names.size() < 2) continue;
    TensorRange u = ranges.at(names[0]);
    for (const std::string& x : names) {
      u.lo = std::min(u.lo, ranges.at(x).lo);
      u.hi = std::max(u.hi, ranges.at(x).hi);
    }
    for (const std::string& x : names) ranges[x] = u;
    ++merged;
  }
  return merged;
}

}  // namespace npu::compiler
