// Depth-first stack planning, the search: which consecutive layers form a stack (the longest
// run that may share one, split by dynamic programming on the time/traffic estimates), and
// each stack's band height and overlap mode (the best evaluation, stack_evaluation.cpp).
// The Planner's other concerns live beside it (stack_planner.hpp). Reference: docs/depth_first.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "backend/schedule/depth_first/stack_planner.hpp"

namespace npu::compiler {

const char* to_string(OverlapMode m) { return m == OverlapMode::Cache ? "cache" : "recompute"; }

namespace depth_first {

std::vector<StackPlan> Planner::run(std::vector<StackSummary>* declined) {
  std::vector<StackPlan> out;
  const std::size_t n = lg_.layers.size();
  std::size_t i = 0;
  while (i < n) {
    if (!may_start(i)) {
      flush_left_out(i, "", declined);
      ++i;
      continue;
    }
    std::string reason;
    const std::size_t j = longest_run(i, reason);
    const Segmentation seg = segment(i, j);
    std::optional<StackPlan> chosen;
    std::size_t first_single_run = i;  // layers before the first stack stay layer by layer
    for (std::size_t k = 0; k < j - i + 1; k = seg.end[k] - i + 1)
      if (seg.end[k] != i + k) {
        chosen = *plan_for(i + k, seg.end[k]);
        first_single_run = i + k;
        break;
      }
    if (chosen && first_single_run > i) {
      // Layers i .. first-1 run one by one; plan again from the stack's first layer (its run
      // may differ from the one seen from i). Said in --explain once the planning after them
      // has decided (flush_left_out): they could have been stacked.
      if (left_out_ == SIZE_MAX) {
        left_out_ = i;
        left_out_run_ = lg_.layers[i].name + " .. " + lg_.layers[j].name;
        left_out_ns_ = seg.ns[0];
      }
      i = first_single_run;
      continue;
    }
    if (!chosen) {
      flush_left_out(i, "", declined);
      report_declined(i, j, reason, declined);
      ++i;
      continue;
    }
    explain_end(chosen->summary, j, reason);
    chosen->summary.id = int(out.size());
    flush_left_out(i, "stack " + std::to_string(out.size()) + ": " + chosen->summary.layers.front() + " .. " +
                          chosen->summary.layers.back(),
                   declined);
    i = chosen->summary.last + 1;
    out.push_back(std::move(*chosen));
  }
  flush_left_out(n, "", declined);
  if (declined) keep_only_unstacked(out, *declined);
  return out;
}

// Layer k may be the first of a stack (stackable, and not element-wise).
bool Planner::may_start(std::size_t k) const {
  std::string why;
  return stackable(lg_.layers[k], why) && lg_.layers[k].kind != LayerKind::Eltwise;
}

// Last layer of the longest run from layer i that may share a stack and fit (at 1-row bands or
// as one band); `reason`: why the layer after it cannot join.
std::size_t Planner::longest_run(std::size_t i, std::string& reason) {
  std::size_t j = i;
  for (;;) {
    const std::size_t nxt = j + 1;
    reason = refusal(i, j, nxt);
    if (!reason.empty()) return j;
    j = nxt;
  }
}

// Segment [i, j] into stacks and single layers by dynamic programming on the estimates,
// each stack no slower and no heavier on DDR than its layers one by one, minimising
// estimated ns + traffic_weight x DDR bytes / DDR bandwidth: the time the layers take
// plus (weighted) the time their DDR traffic keeps the DDR busy. Weight 0: the fastest
// estimate; 1 (default): a byte saved is worth its transfer time. Equal costs: fewer
// bytes. The first stack of the best segmentation is taken and planning resumes after
// it (a later run may reach past j).
Planner::Segmentation Planner::segment(std::size_t i, std::size_t j) {
  // The time a byte keeps the DDR data bus busy: at the peak, not at one stream's rate (the
  // bus time a byte takes from other traffic; the stream rate is in the time estimates).
  const double per_byte =
      in_.opt.ddr_bytes_per_ns > 0 ? std::max(in_.opt.traffic_weight, 0.0) / in_.opt.ddr_bytes_per_ns : 0.0;
  auto cost = [&](double t, std::uint64_t by) { return t + per_byte * double(by); };
  const std::size_t m = j - i + 1;
  Segmentation seg;
  std::vector<double>& ns = seg.ns;
  std::vector<std::uint64_t>& bytes = seg.bytes;
  std::vector<std::size_t>& end = seg.end;  // last layer of the segment starting at i + k
  ns.assign(m + 1, 0.0);
  bytes.assign(m + 1, 0);
  end.assign(m, 0);
  for (std::size_t k = m; k-- > 0;) {
    const std::size_t at = i + k;
    const auto& [b1, t1] = alone(at);
    ns[k] = t1 + ns[k + 1];
    bytes[k] = b1 + bytes[k + 1];
    end[k] = at;
    if (!may_start(at)) continue;
    for (std::size_t e = at + 1; e <= j; ++e) {
      const StackPlan* p = plan_for(at, e);
      if (!p || !pays_off(p->summary)) continue;
      const double t = p->summary.estimated_ns + ns[e - i + 1];
      const std::uint64_t by = p->summary.ddr_bytes + bytes[e - i + 1];
      const double c = cost(t, by), best = cost(ns[k], bytes[k]);
      if (c < best || (c == best && by < bytes[k])) {
        ns[k] = t;
        bytes[k] = by;
        end[k] = e;
      }
    }
  }
  return seg;
}

// Why the chosen stack s ends where it does, given the run from its first layer ends at layer
// j because of `reason`.
void Planner::explain_end(StackSummary& s, std::size_t j, const std::string& reason) const {
  const std::size_t e = s.last;
  if (e + 1 == j)
    s.end_reason = "time/traffic estimate: ending before " + lg_.layers[j].name +
                   " is cheaper than taking it in (the stack could go no further: " + reason + ")";
  else if (e != j)
    s.end_reason = "time/traffic estimate: ending before " + lg_.layers[e + 1].name + " is cheaper than going on to " +
                   lg_.layers[j].name + " (where it would end: " + reason + ")";
  else
    s.end_reason = reason;
}

// No stack pays off: these layers keep the per-layer (residual) plans. One report per
// run (its longest prefix with a plan): runs starting at a later layer inside an already
// reported one are not repeated.
void Planner::report_declined(std::size_t i, std::size_t j, const std::string& reason,
                              std::vector<StackSummary>* declined) {
  std::optional<StackSummary> longest;
  for (std::size_t e = j; e > i && !longest; --e)
    if (const StackPlan* p = plan_for(i, e)) longest = p->summary;
  if (longest && declined && (declined->empty() || declined->back().last < i)) {
    StackSummary d = *longest;
    d.id = int(declined->size());
    d.end_reason = reason;
    d.run = d.layers.front() + " .. " + d.layers.back();
    declined->push_back(std::move(d));
  }
}

// A declined line names the layers its decision kept layer by layer; planning resumes inside
// a declined run, so a later stack may take some of them: those are dropped from the line
// (and a layer two lines name stays with the first), lines left empty go.
void Planner::keep_only_unstacked(const std::vector<StackPlan>& stacks, std::vector<StackSummary>& declined) {
  std::set<std::string> taken;
  for (const StackPlan& p : stacks)
    for (const std::string& l : p.summary.layers) taken.insert(l);
  std::vector<StackSummary> kept;
  for (StackSummary& d : declined) {
    std::vector<std::string> layers;
    for (const std::string& l : d.layers)
      if (taken.insert(l).second) layers.push_back(l);
    if (layers.empty()) continue;
    d.layers = std::move(layers);
    d.id = int(kept.size());
    kept.push_back(std::move(d));
  }
  declined = std::move(kept);
}

// Reports layers left_out_ .. upto-1, which the dynamic programme left out of its stacks,
// as one declined line naming the stack taken right after them (`next`, "" if none is).
void Planner::flush_left_out(std::size_t upto, const std::string& next, std::vector<StackSummary>* declined) {
  if (left_out_ == SIZE_MAX) return;
  if (declined && upto > left_out_) {
    StackSummary d;
    d.first = left_out_;
    d.last = upto - 1;
    for (std::size_t k = left_out_; k < upto; ++k) d.layers.push_back(lg_.layers[k].name);
    d.id = int(declined->size());
    d.run = left_out_run_;
    d.kept_reason = "kept layer by layer (residual plans): the best split of the run " + left_out_run_ +
                    " as planned from its first layer (estimated " +
                    std::to_string(std::llround(left_out_ns_ / 1000.0)) + " us) leaves " +
                    (d.layers.size() == 1 ? "this layer" : "these layers") + " out of its stacks" +
                    (next.empty() ? std::string() : "; planned again after them: " + next);
    declined->push_back(std::move(d));
  }
  left_out_ = SIZE_MAX;
}

// A stack is kept only when it is estimated no slower and moves no more DDR bytes than
// its layers one by one.
bool Planner::pays_off(const StackSummary& s) {
  return s.ddr_bytes <= s.layer_by_layer_bytes && s.estimated_ns <= s.layer_by_layer_ns * kTimeSlack;
}

// best_plan(s, e) for a valid end, memoised (nullptr: not a valid end, or nothing fits).
const StackPlan* Planner::plan_for(std::size_t s, std::size_t e) {
  auto it = plans_.find({s, e});
  if (it == plans_.end()) {
    std::optional<StackPlan> p;
    if (valid_end(s, e)) p = best_plan(s, e);
    it = plans_.emplace(std::make_pair(s, e), std::move(p)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<StackPlan> Planner::best_plan(std::size_t s, std::size_t e) {
  const int h = geom_.at(e).h_out;
  std::set<int> heights;
  for (int n = 1; n <= h; ++n) heights.insert(int(ceil_div(h, n)));
  std::vector<OverlapMode> modes;
  if (in_.opt.overlap != OverlapPolicy::Cache) modes.push_back(OverlapMode::Recompute);
  if (in_.opt.overlap != OverlapPolicy::Recompute) modes.push_back(OverlapMode::Cache);
  std::optional<StackPlan> best;
  const StackPlan shared = skeleton(s, e);
  Evaluation ev;
  for (int r : heights)
    for (OverlapMode mode : modes)
      for (bool streamed : {false, true}) {
    evaluate(ev, shared, r, mode, streamed);
    if (!ev.fits) continue;
    const StackSummary& a = ev.plan.summary;
    if (!best) {
      best.emplace();
      std::swap(*best, ev.plan);  // ev.plan takes the old storage for the next evaluation
      continue;
    }
    const StackSummary& b = best->summary;
    const bool faster = a.estimated_ns < b.estimated_ns * (1 - kTie);
    const bool tie = !faster && a.estimated_ns <= b.estimated_ns * (1 + kTie);
    if (faster || (tie && (a.ddr_bytes < b.ddr_bytes || (a.ddr_bytes == b.ddr_bytes && a.band_rows > b.band_rows))))
      std::swap(*best, ev.plan);
  }
  return best;
}

std::vector<StackPlan> plan_stacks(const PlanInputs& in, std::vector<StackSummary>* declined) {
  std::vector<StackPlan> plans = Planner(in).run(declined);
  // The chosen stacks' grouped layers, for --explain (not in cost(): it runs for every candidate).
  for (StackPlan& p : plans)
    for (const StackLayer& sl : p.layers)
      if (weight_groups(sl) > 1)
        p.summary.weight_groups.push_back(sl.spec->name + " (" + std::to_string(weight_groups(sl)) + " groups of " +
                                          std::to_string(sl.group_channels) + " channels)");
  return plans;
}

}  // namespace depth_first
}  // namespace npu::compiler
