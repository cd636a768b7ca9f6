// Depth-first stack planning: which consecutive layers form a stack, the band height, the
// rows every layer computes per band (receptive fields back-propagated from the last layer's
// output band), which tensors go to DDR, and the SRAM layout. Reference: docs/depth_first.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "backend/schedule/depth_first/stack_plan.hpp"

namespace npu::compiler {

RowRange input_rows(const ConvGeom& g, RowRange out) {
  if (out.empty()) return {};
  const RowBand b = input_band(g, out.lo, out.rows());
  return {b.first_row, b.first_row + b.rows};
}

const char* to_string(OverlapMode m) { return m == OverlapMode::Cache ? "cache" : "recompute"; }

namespace depth_first {

namespace {

std::uint64_t bursts(std::uint64_t bytes, int burst) {
  const std::uint64_t b = std::uint64_t(std::max(burst, 1));
  return (bytes + b - 1) / b * b;
}

// DDR cost of moving rows [r.lo, r.hi) of all c channels of a [c, h, w] tensor: one run per
// channel, or one run when the band is whole planes (as tiling.cpp's runs_cost).
std::uint64_t band_cost(int c, int h, int w, RowRange r, int e, int burst) {
  const std::uint64_t run = std::uint64_t(r.rows()) * w * e;
  if (r.rows() == h) return bursts(run * std::uint64_t(c), burst);
  return std::uint64_t(c) * bursts(run, burst);
}

bool is_conv(const LayerSpec& L) { return L.kind == LayerKind::Conv; }

// Output shape (c, h, w) of a stackable layer; its data input's shape.
void out_shape(const ConvGeom& g, int& c, int& h, int& w) { c = g.c_out, h = g.h_out, w = g.w_out; }

struct Evaluation {
  StackPlan plan;
  std::uint64_t need_bytes = 0;  // SRAM the layout needs (also when it does not fit)
  bool fits = false;
};

class Planner {
 public:
  explicit Planner(const PlanInputs& in) : in_(in), lg_(in.lg), e_(in.opt.act_bytes) {
    for (std::size_t j = 0; j < lg_.layers.size(); ++j) {
      const LayerSpec& L = lg_.layers[j];
      std::vector<std::string> reads = L.inputs;
      for (const std::string* t : {&L.residual, &L.in_scale})
        if (!t->empty()) reads.push_back(*t);
      for (const auto& t : reads) {
        if (!lg_.place.count(t)) continue;
        readers_by_root_[root(t)].push_back({j, t});
      }
      if (!L.output.empty() && lg_.place.count(L.output)) {
        producer_[L.output] = j;
        written_by_root_[root(L.output)].push_back(L.output);
      }
    }
    for (const auto& t : lg_.ddr_tensors) kind_[t.name] = t.kind;
    for (std::size_t j = 0; j < lg_.layers.size(); ++j) {
      const LayerSpec& L = lg_.layers[j];
      if (L.kind == LayerKind::Conv || L.kind == LayerKind::Pool || is_upsample(L)) geom_[j] = L.geom;
    }
    // An element-wise layer of two same-shape tensors: the [C, H, W] of a Conv/Pool producing
    // one of its inputs (nothing else records H and W separately).
    for (std::size_t j = 0; j < lg_.layers.size(); ++j) {
      const LayerSpec& L = lg_.layers[j];
      if (L.kind != LayerKind::Eltwise || L.b_elems != 0 || L.inputs.size() != 2 || L.output.empty()) continue;
      for (const auto& t : L.inputs) {
        auto p = producer_.find(t);
        if (p == producer_.end() || !geom_.count(p->second)) continue;
        const ConvGeom& pg = geom_.at(p->second);
        const std::uint64_t n = std::uint64_t(pg.c_out) * pg.h_out * pg.w_out;
        bool same = n == L.elems;
        for (const auto& u : L.inputs) same = same && lg_.bytes.count(u) && lg_.bytes.at(u) == n * std::uint64_t(e_);
        if (!same) continue;
        ConvGeom g;
        g.c_in = g.c_out = g.group = pg.c_out;
        g.h_in = g.h_out = pg.h_out;
        g.w_in = g.w_out = pg.w_out;
        geom_[j] = g;
        break;
      }
    }
  }

  std::vector<StackPlan> run(std::vector<StackSummary>* declined) {
    std::vector<StackPlan> out;
    const std::size_t n = lg_.layers.size();
    std::size_t i = 0;
    while (i < n) {
      std::string why;
      if (!stackable(lg_.layers[i], why) || lg_.layers[i].kind == LayerKind::Eltwise) {
        flush_left_out(i, "", declined);
        ++i;
        continue;
      }
      // Longest run of layers that may share a stack and fit (at 1-row bands or as one band).
      std::size_t j = i;
      std::string reason;
      for (;;) {
        const std::size_t nxt = j + 1;
        reason = refusal(i, j, nxt);
        if (!reason.empty()) break;
        j = nxt;
      }
      // Segment [i, j] into stacks and single layers by dynamic programming on the estimates,
      // each stack no slower and no heavier on DDR than its layers one by one, minimising
      // estimated ns + traffic_weight x DDR bytes / DDR bandwidth: the time the layers take
      // plus (weighted) the time their DDR traffic keeps the DDR busy. Weight 0: the fastest
      // estimate; 1 (default): a byte saved is worth its transfer time. Equal costs: fewer
      // bytes. The first stack of the best segmentation is taken and planning resumes after
      // it (a later run may reach past j).
      const double per_byte =
          in_.opt.ddr_bytes_per_ns > 0 ? std::max(in_.opt.traffic_weight, 0.0) / in_.opt.ddr_bytes_per_ns : 0.0;
      auto cost = [&](double t, std::uint64_t by) { return t + per_byte * double(by); };
      const std::size_t m = j - i + 1;
      std::vector<double> ns(m + 1, 0.0);
      std::vector<std::uint64_t> bytes(m + 1, 0);
      std::vector<std::size_t> end(m, 0);  // last layer of the segment starting at i + k
      for (std::size_t k = m; k-- > 0;) {
        const std::size_t at = i + k;
        const auto& [b1, t1] = alone(at);
        ns[k] = t1 + ns[k + 1];
        bytes[k] = b1 + bytes[k + 1];
        end[k] = at;
        std::string w;
        if (!stackable(lg_.layers[at], w) || lg_.layers[at].kind == LayerKind::Eltwise) continue;
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
      std::optional<StackPlan> chosen;
      std::size_t first_single_run = i;  // layers before the first stack stay layer by layer
      for (std::size_t k = 0; k < m; k = end[k] - i + 1)
        if (end[k] != i + k) {
          chosen = *plan_for(i + k, end[k]);
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
          left_out_ns_ = ns[0];
        }
        i = first_single_run;
        continue;
      }
      if (chosen) {
        const std::size_t e = chosen->summary.last;
        if (e + 1 == j)
          chosen->summary.end_reason = "time/traffic estimate: ending before " + lg_.layers[j].name +
                                       " is cheaper than taking it in (the stack could go no further: " + reason + ")";
        else if (e != j)
          chosen->summary.end_reason = "time/traffic estimate: ending before " + lg_.layers[e + 1].name +
                                       " is cheaper than going on to " + lg_.layers[j].name + " (where it would end: " +
                                       reason + ")";
        else
          chosen->summary.end_reason = reason;
      }
      if (!chosen) {
        flush_left_out(i, "", declined);
        // No stack pays off: these layers keep the per-layer (residual) plans. One report per
        // run (its longest prefix with a plan): runs starting at a later layer inside an already
        // reported one are not repeated.
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
        ++i;
        continue;
      }
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

  // A declined line names the layers its decision kept layer by layer; planning resumes inside
  // a declined run, so a later stack may take some of them: those are dropped from the line
  // (and a layer two lines name stays with the first), lines left empty go.
  static void keep_only_unstacked(const std::vector<StackPlan>& stacks, std::vector<StackSummary>& declined) {
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
  void flush_left_out(std::size_t upto, const std::string& next, std::vector<StackSummary>* declined) {
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

  // ---- single-layer facts ----

  bool stackable(const LayerSpec& L, std::string& why) const {
    if (L.kind == LayerKind::Host) {
      why = "host op: " + L.name + " runs on the host";
      return false;
    }
    const bool conv = L.kind == LayerKind::Conv, pool = L.kind == LayerKind::Pool, up = is_upsample(L);
    if (L.kind == LayerKind::Eltwise && !geom_.count(index_of(L))) {
      why = "op not tileable: " + L.name + " is an element-wise " + L.op_type +
            " with broadcasting or of tensors whose shape no Conv/pool gives";
      return false;
    }
    if (!conv && !pool && !up && L.kind != LayerKind::Eltwise) {
      why = std::string("op not tileable: ") + L.name + " is " + to_string(L.kind) + " " + L.op_type;
      return false;
    }
    if (pool && L.pool == isa::PoolOp::GlobalAvg) {
      why = "op not tileable: " + L.name + " is a global pooling (needs every row)";
      return false;
    }
    if (conv && L.batch > 1) {
      why = "op not tileable: " + L.name + " has a batch above 1";
      return false;
    }
    if (conv && (!L.in_scale.empty() || L.weight.empty())) {
      why = "op not tileable: " + L.name + " scales its input channels (fuse-se-gate)";
      return false;
    }
    if (!L.depth_first) {
      why = "op not tileable: " + L.name + " was not marked by fuse-layers";
      return false;
    }
    return true;
  }

  // Bytes of a conv layer's weights (c_out x c_in/group x kh x kw elements).
  std::uint64_t weight_bytes(const LayerSpec& L) const {
    const ConvGeom& g = L.geom;
    return std::uint64_t(g.c_out) * g.cin_per_group() * g.kh * g.kw * std::uint64_t(e_);
  }

  std::string root(const std::string& t) const { return lg_.place.at(t).root; }
  std::size_t index_of(const LayerSpec& L) const { return std::size_t(&L - lg_.layers.data()); }

  // Tensors `a` and `b` (placed in DDR) share bytes: same root, intersecting ranges.
  bool overlaps(const std::string& a, const std::string& b) const {
    const DdrPlace &pa = lg_.place.at(a), &pb = lg_.place.at(b);
    if (!lg_.bytes.count(a) || !lg_.bytes.count(b)) return pa.root == pb.root;  // unknown extent: assume they do
    return pa.root == pb.root && pa.offset < pb.offset + lg_.bytes.at(b) && pb.offset < pa.offset + lg_.bytes.at(a);
  }

  bool produced_in(const std::string& t, std::size_t s, std::size_t e) const {
    auto it = producer_.find(t);
    return it != producer_.end() && it->second >= s && it->second <= e;
  }

  bool is_graph_output(const std::string& t) const {
    auto it = kind_.find(root(t));
    return it != kind_.end() && it->second == isa::TensorKind::Output;
  }

  // The channel blocks (Concat pieces) tensor `t` of H x W planes consists of, when no layer
  // writes `t` itself but layers write every part of its DDR range in whole planes (a Concat
  // along C placed as zero-copy slices, lowering.hpp); else none.
  std::vector<Piece> concat_pieces(const std::string& t, int h, int w) const {
    if (t.empty() || producer_.count(t) || !lg_.place.count(t) || !lg_.bytes.count(t)) return {};
    const DdrPlace& P = lg_.place.at(t);
    const std::uint64_t lo = P.offset, hi = lo + lg_.bytes.at(t);
    const std::uint64_t plane = std::uint64_t(h) * std::uint64_t(w) * std::uint64_t(e_);
    auto it = written_by_root_.find(P.root);
    if (it == written_by_root_.end() || plane == 0) return {};
    std::vector<std::pair<std::uint64_t, std::string>> parts;
    for (const std::string& u : it->second) {
      const std::uint64_t o = lg_.place.at(u).offset, b = lg_.bytes.at(u);
      if (o >= lo && o + b <= hi) parts.push_back({o, u});
    }
    std::sort(parts.begin(), parts.end());
    std::vector<Piece> out;
    std::uint64_t at = lo;
    for (const auto& [o, u] : parts) {
      const std::uint64_t b = lg_.bytes.at(u);
      if (o != at || b % plane != 0) return {};
      Piece pc;
      pc.tensor = u;
      pc.c_offset = int((o - lo) / plane);
      pc.c = int(b / plane);
      out.push_back(std::move(pc));
      at = o + b;
    }
    if (at != hi) return {};
    return out;
  }

  // [C, H, W] of operand `t` of layer `k` (its data input, or its residual / second input).
  bool operand_shape(std::size_t k, const std::string& t, int& c, int& h, int& w) const {
    auto g = geom_.find(k);
    if (g == geom_.end()) return false;
    const LayerSpec& L = lg_.layers[k];
    if (!L.inputs.empty() && t == L.inputs[0]) {
      c = g->second.c_in, h = g->second.h_in, w = g->second.w_in;
    } else {
      c = g->second.c_out, h = g->second.h_out, w = g->second.w_out;
    }
    return true;
  }

  // Layer k reads `t` as a Concat some of whose pieces the stack [s, e] computes.
  bool gathers_from(const LayerSpec& L, const std::string& t, std::size_t s, std::size_t e) const {
    int c = 0, h = 0, w = 0;
    if (!operand_shape(index_of(L), t, c, h, w)) return false;
    for (const Piece& p : concat_pieces(t, h, w))
      if (produced_in(p.tensor, s, e)) return true;
    return false;
  }

  // M reads tensor `t`: as an operand, or as a piece of a Concat operand.
  bool reads(const LayerSpec& M, const std::string& t) const {
    std::vector<const std::string*> ops;
    for (const auto& u : M.inputs) ops.push_back(&u);
    ops.push_back(&M.residual);
    for (const std::string* u : ops) {
      if (u->empty()) continue;
      if (*u == t) return true;
      int c = 0, h = 0, w = 0;
      if (!operand_shape(index_of(M), *u, c, h, w)) continue;
      for (const Piece& p : concat_pieces(*u, h, w))
        if (p.tensor == t) return true;
    }
    return false;
  }

  // Why layer `nxt` cannot join the stack [s, e] ("" if it can).
  std::string refusal(std::size_t s, std::size_t e, std::size_t nxt) {
    const LayerSpec& last = lg_.layers[e];
    if (nxt >= lg_.layers.size())
      return is_graph_output(last.output) ? "graph output: " + last.output + " (end of the network)"
                                          : "end of the network";
    const LayerSpec& N = lg_.layers[nxt];
    std::string why;
    if (N.kind == LayerKind::Host) {
      stackable(N, why);  // "host op: ..."
      return why;
    }
    bool connected = false;
    std::vector<const std::string*> reads;
    for (const auto& t : N.inputs) reads.push_back(&t);
    reads.push_back(&N.residual);
    for (const std::string* t : reads) {
      if (t->empty()) continue;
      if (produced_in(*t, s, e)) {
        connected = true;
        continue;
      }
      // A Concat of channel blocks some of which the stack computes: gathered on chip.
      if (gathers_from(N, *t, s, e)) {
        connected = true;
        continue;
      }
      // A tensor sharing a DDR region with one the stack writes (a Concat buffer) would be
      // read from DDR before the stack has written all of it.
      for (std::size_t k = s; k <= e; ++k)
        if (lg_.place.count(*t) && root(lg_.layers[k].output) == root(*t))
          return "output needed by a layer outside the stack: next layer " + N.name + " reads " + *t +
                 ", which shares DDR region " + root(*t) + " with " + lg_.layers[k].output +
                 " written by this stack (Concat); it is read after the stack";
    }
    // A branch that rejoins the stack at a Concat (a C3 block's second 1x1 conv reads the
    // block input, and its output is the Concat's other piece): it joins, and its rows are
    // those the Concat's reader needs. Until the join the stack has no valid end.
    if (!connected && lg_.place.count(N.output) && root(N.output) != N.output)
      for (std::size_t k = s; k <= e && !connected; ++k)
        connected = lg_.place.count(lg_.layers[k].output) && root(lg_.layers[k].output) == root(N.output);
    if (!connected) {
      if (is_graph_output(last.output))
        return "graph output: " + last.output + " (next layer " + N.name + " does not read the stack)";
      std::string reader;
      auto it = readers_by_root_.find(root(last.output));
      if (it != readers_by_root_.end())
        for (const auto& [r, read] : it->second)
          if (r > e && overlaps(read, last.output)) {
            reader = lg_.layers[r].name;
            break;
          }
      return "output needed by a layer outside the stack: " + last.output + " is read by " +
             (reader.empty() ? std::string("no later layer") : reader) + ", and the next layer " + N.name +
             " does not read the stack";
    }
    if (!stackable(N, why)) return why;
    // A layer on a branch that a later layer joins (a C3 block's second 1x1 conv, whose output
    // meets the first branch's at a Concat): the stack can only end after the join, so its
    // size is checked there (until then a branch's rows are not fed by the last layer's bands).
    if (!valid_end(s, nxt)) return "";
    const OverlapMode m1 = in_.opt.overlap == OverlapPolicy::Cache ? OverlapMode::Cache : OverlapMode::Recompute;
    Evaluation ev = evaluate(s, nxt, 1, m1, false);
    std::uint64_t streamed_need = 0;
    if (!ev.fits) {
      Evaluation streamed = evaluate(s, nxt, 1, m1, true);  // weights re-loaded per band
      if (streamed.fits) ev = std::move(streamed);
      else streamed_need = streamed.need_bytes;
    }
    std::uint64_t whole_need = 0;
    if (!ev.fits) {
      // One band of the whole height: no band buffer doubled, streamed weights placed by
      // lifetime (layout()); it can need less than 1-row bands.
      for (bool streamed : {false, true}) {
        Evaluation whole = evaluate(s, nxt, geom_.at(nxt).h_out, m1, streamed);
        if (whole.fits) {
          ev = std::move(whole);
          break;
        }
        whole_need = whole_need == 0 ? whole.need_bytes : std::min(whole_need, whole.need_bytes);
      }
    }
    if (!ev.fits)
      return "SRAM full: with " + N.name + " the stack needs " + std::to_string(ev.need_bytes) +
             " B at 1-row bands (weights " + std::to_string(ev.plan.summary.weight_bytes) + " B; " +
             std::to_string(streamed_need) + " B with its weights streamed per band; " + std::to_string(whole_need) +
             " B as one band), sram.capacity " + std::to_string(in_.sram_bytes) + " B";
    return "";
  }

  // Every layer but the last feeds a later layer of the stack.
  bool valid_end(std::size_t s, std::size_t e) const {
    for (std::size_t k = s; k < e; ++k) {
      bool fed = false;
      for (std::size_t m = k + 1; m <= e && !fed; ++m) {
        const LayerSpec& M = lg_.layers[m];
        fed = reads(M, lg_.layers[k].output);
      }
      if (!fed) return false;
    }
    return true;
  }

  // A stack is kept only when it is estimated no slower and moves no more DDR bytes than
  // its layers one by one.
  static bool pays_off(const StackSummary& s) {
    return s.ddr_bytes <= s.layer_by_layer_bytes && s.estimated_ns <= s.layer_by_layer_ns * kTimeSlack;
  }

  // best_plan(s, e) for a valid end, memoised (nullptr: not a valid end, or nothing fits).
  const StackPlan* plan_for(std::size_t s, std::size_t e) {
    auto it = plans_.find({s, e});
    if (it == plans_.end()) {
      std::optional<StackPlan> p;
      if (valid_end(s, e)) p = best_plan(s, e);
      it = plans_.emplace(std::make_pair(s, e), std::move(p)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  std::optional<StackPlan> best_plan(std::size_t s, std::size_t e) {
    const int h = geom_.at(e).h_out;
    std::set<int> heights;
    for (int n = 1; n <= h; ++n) heights.insert(int(ceil_div(h, n)));
    std::vector<OverlapMode> modes;
    if (in_.opt.overlap != OverlapPolicy::Cache) modes.push_back(OverlapMode::Recompute);
    if (in_.opt.overlap != OverlapPolicy::Recompute) modes.push_back(OverlapMode::Cache);
    std::optional<StackPlan> best;
    for (int r : heights)
      for (OverlapMode mode : modes)
        for (bool streamed : {false, true}) {
      Evaluation ev = evaluate(s, e, r, mode, streamed);
      if (!ev.fits) continue;
      const StackSummary& a = ev.plan.summary;
      if (!best) {
        best = std::move(ev.plan);
        continue;
      }
      const StackSummary& b = best->summary;
      const bool faster = a.estimated_ns < b.estimated_ns * (1 - kTie);
      const bool tie = !faster && a.estimated_ns <= b.estimated_ns * (1 + kTie);
      if (faster || (tie && (a.ddr_bytes < b.ddr_bytes || (a.ddr_bytes == b.ddr_bytes && a.band_rows > b.band_rows))))
        best = std::move(ev.plan);
    }
    return best;
  }

  // ---- one stack at one band height ----

  Evaluation evaluate(std::size_t s, std::size_t e, int band_rows, OverlapMode mode, bool weights_streamed) {
    Evaluation ev;
    StackPlan& p = ev.plan;
    StackSummary& sum = p.summary;
    sum.overlap = mode;
    sum.weights_streamed = weights_streamed;
    sum.first = s;
    sum.last = e;
    std::map<std::string, int> produced;
    for (std::size_t k = s; k <= e; ++k) {
      const LayerSpec& L = lg_.layers[k];
      sum.layers.push_back(L.name);
      StackLayer sl;
      sl.index = k;
      sl.spec = &L;
      StackTensor t;
      t.name = L.output;
      t.producer = int(k - s);
      sl.geom = geom_.at(k);
      out_shape(sl.geom, t.c, t.h, t.w);
      auto operand = [&](const std::string& name, int c, int h, int w) {
        Operand o;
        o.tensor = name;
        o.c = c, o.h = h, o.w = w;
        auto it = produced.find(name);
        o.produced = it == produced.end() ? -1 : it->second;
        if (o.produced < 0) {  // a Concat some of whose pieces the stack computes: gathered
          std::vector<Piece> pieces = concat_pieces(name, h, w);
          bool any = false;
          for (Piece& pc : pieces) {
            auto q = produced.find(pc.tensor);
            pc.produced = q == produced.end() ? -1 : q->second;
            any = any || pc.produced >= 0;
          }
          if (any) o.pieces = std::move(pieces);
        }
        return o;
      };
      sl.in = operand(L.inputs[0], sl.geom.c_in, sl.geom.h_in, sl.geom.w_in);
      if (!L.residual.empty()) sl.res = operand(L.residual, t.c, t.h, t.w);
      if (L.kind == LayerKind::Eltwise) sl.res = operand(L.inputs[1], t.c, t.h, t.w);
      sl.out = int(p.tensors.size());
      produced[t.name] = sl.out;
      p.tensors.push_back(std::move(t));
      p.layers.push_back(std::move(sl));
    }
    // Tensors that must reach DDR: the last layer's output, graph outputs and tensors read
    // outside the stack (a Concat piece when the Concat is: readers are listed by DDR root).
    for (StackTensor& t : p.tensors) {
      t.stored = t.producer == int(p.layers.size()) - 1 || is_graph_output(t.name);
      auto it = readers_by_root_.find(root(t.name));
      if (it != readers_by_root_.end())
        for (const auto& [r, read] : it->second) t.stored = t.stored || ((r < s || r > e) && overlaps(read, t.name));
    }
    const int h_last = p.tensors.back().h;
    const int bands = int(ceil_div(h_last, band_rows));
    sum.band_rows = band_rows;
    sum.bands = bands;
    // Back-propagate each band's rows. An operand whose rows differ from what its producer
    // computes in some band (a skip tensor computed with the next conv's halo rows) cannot
    // read the producer's packed [C, H, W] tile directly: a MOVE copies its rows into a
    // packed tile of their own (a one-piece gather), as the pieces of a Concat are.
    propagate(p, bands, band_rows, mode);
    share_inputs(p, bands);
    for (StackLayer& sl : p.layers)
      for (Operand* o : {&sl.in, &sl.res}) {
        if (o->tensor.empty() || o->input >= 0) continue;
        if (o->gathered() && o->pieces.front().input >= 0 && o->pieces.size() == 1) continue;  // rows of an input tile
        if (o->produced >= 0) {
          const StackTensor& t = p.tensors[std::size_t(o->produced)];
          bool same = true;
          for (int b = 0; b < bands; ++b) same = same && o->rows[std::size_t(b)] == t.rows[std::size_t(b)];
          o->on_chip = same;
          if (!same) {
            Piece pc;
            pc.tensor = t.name;
            pc.produced = o->produced;
            pc.c = o->c;
            o->pieces = {pc};
            sum.gathered.push_back("rows of " + t.name);
          }
        } else if (o->gathered()) {
          sum.gathered.push_back(o->tensor + " (Concat of " + std::to_string(o->pieces.size()) + " pieces)");
        }
        for (const Piece& pc : o->pieces) {
          if (pc.produced < 0) continue;
          const StackTensor& t = p.tensors[std::size_t(pc.produced)];
          for (int b = 0; b < bands; ++b) {
            const RowRange need = o->rows[std::size_t(b)], have = t.rows[std::size_t(b)];
            if (!need.empty() && (need.lo < have.lo || need.hi > have.hi))
              throw std::logic_error("depth-first: " + sl.spec->name + " reads rows of " + t.name +
                                     " its band does not compute");
          }
        }
      }
    // One band, streamed: each layer's weights in SRAM from two layers before their own where
    // that fits (their LOAD then overlaps two layers' compute: on the edge preset a sequential
    // 2.4 MB weight LOAD takes 193 us at the 12.8 GB/s one DDR4 bank group streams, longer than
    // most single layers' compute), else from the layer before.
    if (sum.bands == 1 && sum.weights_streamed) {
      Evaluation deeper = ev;
      deeper.plan.summary.weights_ahead = 2;
      layout(deeper.plan, deeper);
      if (deeper.fits) ev = std::move(deeper);
      else layout(p, ev);
    } else {
      layout(p, ev);
    }
    cost(p);
    return ev;
  }

  // Rows per band of every tile, what each producer computes, and what each operand reads,
  // back from the last layer's band. Cache: a layer computes only the rows of its tile that
  // the previous band's tile does not hold (needs grow monotonically with the band), and reads
  // only what those rows need.
  static void propagate(StackPlan& p, int bands, int band_rows, OverlapMode mode) {
    for (StackTensor& t : p.tensors) {
      t.rows.assign(std::size_t(bands), RowRange{});
      t.computed.assign(std::size_t(bands), RowRange{});
    }
    for (StackLayer& sl : p.layers) {
      sl.in.rows.assign(std::size_t(bands), RowRange{});
      sl.res.rows.assign(std::size_t(bands), RowRange{});
    }
    std::vector<int> stored_end(p.tensors.size(), 0);
    const int last = int(p.layers.size()) - 1;
    for (int b = 0; b < bands; ++b) {
      std::vector<RowRange> need(p.tensors.size());
      auto add = [&](int t, RowRange r) {
        if (t < 0 || r.empty()) return;
        RowRange& n = need[std::size_t(t)];
        n = n.empty() ? r : RowRange{std::min(n.lo, r.lo), std::max(n.hi, r.hi)};
      };
      const int h_last = p.tensors[std::size_t(last)].h;
      need[std::size_t(p.layers[std::size_t(last)].out)] = {b * band_rows, std::min(h_last, (b + 1) * band_rows)};
      for (int k = last; k >= 0; --k) {
        StackLayer& sl = p.layers[std::size_t(k)];
        StackTensor& t = p.tensors[std::size_t(sl.out)];
        RowRange r = need[std::size_t(sl.out)];
        if (t.stored) {
          // Stored rows must cover the tensor once: no gap after the previous band, and the
          // last band reaches the bottom.
          int& done = stored_end[std::size_t(sl.out)];
          r = r.empty() ? RowRange{done, done} : RowRange{std::min(r.lo, done), std::max(r.hi, done)};
          if (b == bands - 1) r.hi = t.h;
          done = std::max(done, r.hi);
        }
        t.rows[std::size_t(b)] = r;
        RowRange c = r;
        if (mode == OverlapMode::Cache && b > 0 && !r.empty()) {
          const RowRange prev = t.rows[std::size_t(b - 1)];
          if (!prev.empty() && prev.lo <= r.lo && prev.hi > r.lo) c = {std::min(prev.hi, r.hi), r.hi};
        }
        t.computed[std::size_t(b)] = c;
        if (c.empty()) continue;
        auto read = [&](const Operand& o, RowRange rows) {
          add(o.produced, rows);
          for (const Piece& pc : o.pieces) add(pc.produced, rows);
        };
        sl.in.rows[std::size_t(b)] = layer_input_rows(sl, c);
        read(sl.in, sl.in.rows[std::size_t(b)]);
        if (!sl.res.tensor.empty()) {  // residual / second element-wise input: the output's rows
          sl.res.rows[std::size_t(b)] = c;
          read(sl.res, c);
        }
      }
    }
  }

  // A DDR tensor (a whole operand, or a Concat piece the stack does not compute) that two or
  // more operands of the stack read becomes an input tile (InputTile): LOADed once per band
  // with the union of its readers' rows. A reader of exactly those rows in every band it
  // computes reads the tile in place; the others get their rows by MOVE (a one-piece gather,
  // as a skip tensor's rows are). Tiles are numbered in order of first reader.
  static void share_inputs(StackPlan& p, int bands) {
    struct Use {
      Operand* o;
      Piece* pc;  // nullptr: the whole operand
    };
    std::vector<std::string> order;
    std::map<std::string, std::vector<Use>> uses;
    for (StackLayer& sl : p.layers)
      for (Operand* o : {&sl.in, &sl.res}) {
        if (o->tensor.empty() || o->produced >= 0) continue;
        auto use = [&](const std::string& t, Piece* pc) {
          if (!uses.count(t)) order.push_back(t);
          uses[t].push_back({o, pc});
        };
        if (!o->gathered()) use(o->tensor, nullptr);
        for (Piece& pc : o->pieces)
          if (pc.produced < 0) use(pc.tensor, &pc);
      }
    for (const std::string& name : order) {
      const std::vector<Use>& us = uses[name];
      if (us.size() < 2) continue;
      InputTile it;
      it.tensor = name;
      it.c = us[0].pc ? us[0].pc->c : us[0].o->c;
      it.h = us[0].o->h;
      it.w = us[0].o->w;
      it.rows.assign(std::size_t(bands), RowRange{});
      bool same_shape = true;
      for (const Use& u : us) {
        same_shape = same_shape && (u.pc ? u.pc->c : u.o->c) == it.c && u.o->h == it.h && u.o->w == it.w;
        for (int b = 0; b < bands; ++b) {
          const RowRange r = u.o->rows[std::size_t(b)];
          RowRange& n = it.rows[std::size_t(b)];
          if (!r.empty()) n = n.empty() ? r : RowRange{std::min(n.lo, r.lo), std::max(n.hi, r.hi)};
        }
      }
      if (!same_shape) continue;  // one DDR tensor read with two shapes: left to separate LOADs
      const int idx = int(p.inputs.size());
      it.readers = int(us.size());
      for (const Use& u : us) {
        if (u.pc) {
          u.pc->input = idx;
          continue;
        }
        bool same = true;
        for (int b = 0; b < bands; ++b) {
          const RowRange r = u.o->rows[std::size_t(b)];
          same = same && (r.empty() || r == it.rows[std::size_t(b)]);
        }
        if (same) {
          u.o->on_chip = true;
          u.o->input = idx;
          continue;
        }
        Piece pc;
        pc.tensor = name;
        pc.input = idx;
        pc.c = u.o->c;
        u.o->pieces = {pc};
        p.summary.gathered.push_back("rows of " + name);
      }
      p.summary.shared_loads.push_back(name + " (" + std::to_string(it.readers) + " readers)");
      p.inputs.push_back(std::move(it));
    }
  }

  // A buffer placed by lifetime: stack layers that write / last read it within a band.
  struct Local {
    int buffer;
    int first, last;
  };

  // The SRAM layout in progress (layout()): a bump allocator (`cursor`, bytes) for what lives
  // the whole stack, and the buffers placed by lifetime after it.
  struct LayoutState {
    LayoutState(std::uint64_t align_bytes, int bands, int layers)
        : align(align_bytes), ping(bands > 1 ? 2 : 1), one_band(bands == 1), n_layers(layers) {}
    std::uint64_t align;
    // Double-buffered: DDR loads, stored tensors (the DMA of band b overlaps band b+1's compute);
    // one slot when the stack has one band (a second would never be used).
    int ping;
    // One band: a buffer is needed only while its layers run, so every buffer is placed by
    // lifetime (stack layers [first, last]): a LOADed operand or shared input from the
    // layer before its first reader (the LOAD overlaps that layer's compute) to its last
    // reader; a stored tensor from its producer to its last reader, and at least the next
    // layer (its STORE overlaps that compute). The hazard tokens make each LOAD or compute
    // wait for the earlier users of the bytes it reuses.
    bool one_band;
    int n_layers;
    std::uint64_t cursor = 0;
    std::vector<Local> locals;
    std::vector<int> fixed;  // buffers placed for the whole stack (DDR-facing or carried)
    std::vector<std::pair<int, std::size_t>> weight_locals;  // (buffer, stack layer)

    std::uint32_t place(std::uint64_t bytes) {
      const std::uint64_t at = align_up(cursor, align);
      cursor = at + bytes;
      return std::uint32_t(at);
    }
    void keep(int buffer, bool ddr, int first, int last) {
      if (ddr && !one_band) fixed.push_back(buffer);
      else locals.push_back({buffer, first, last});
    }
  };

  // Addresses of every buffer, weight, bias and table of `p`, and whether they fit the SRAM
  // (ev.need_bytes, ev.fits; p.summary.sram_bytes).
  void layout(StackPlan& p, Evaluation& ev) const {
    LayoutState s(in_.opt.align_bytes, p.summary.bands, int(p.layers.size()));
    place_weights(p, s);
    place_requant_tables(p, s);
    operand_buffers(p, s);
    input_tile_buffers(p, s);
    tensor_buffers(p, s);
    for (int i : s.fixed) {  // the whole stack's lifetime, in buffer order
      Buffer& b = p.buffers[std::size_t(i)];
      for (int k = 0; k < b.slots; ++k) b.addr[k] = s.place(b.bytes);
    }
    place_locals(p, s);
    for (const auto& [buffer, k] : s.weight_locals) {
      StackLayer& sl = p.layers[k];
      sl.w_addr = p.buffers[std::size_t(buffer)].addr[0];
      sl.bias_addr = std::uint32_t(sl.w_addr + align_up(weight_bytes(*sl.spec), s.align));
    }
    ev.need_bytes = s.cursor;
    ev.fits = s.cursor <= in_.sram_bytes && s.cursor <= 0xffffffffull;
    p.summary.sram_bytes = s.cursor;
  }

  // Weights and biases: resident for the whole stack, side by side, or (weights_streamed)
  // re-loaded by every band into two alternating slots, layer k of the stack in slot k % 2 of
  // the size of the largest layer's weights and bias (the hazard tokens order a slot's
  // reuse). Streamed in a one-band stack, each layer's weights load once, while the previous
  // layer computes (summary.weights_ahead 1; 2: the previous two), and are read by its one
  // compute: they need SRAM only from that layer's compute to their own, so they are placed
  // below with the on-chip tiles by that lifetime (`weight_locals`) instead of in two slots
  // of the largest. (cost() charges what those layers' compute cannot hide of each load.)
  void place_weights(StackPlan& p, LayoutState& s) const {
    if (p.summary.bands == 1 && p.summary.weights_streamed) {
      for (std::size_t k = 0; k < p.layers.size(); ++k) {
        const LayerSpec& L = *p.layers[k].spec;
        if (!is_conv(L)) continue;
        const std::uint64_t wb = weight_bytes(L), bb = L.bias.empty() ? 0 : std::uint64_t(L.geom.c_out) * isa::kParamElemBytes;
        Buffer b;
        b.bytes = align_up(wb, s.align) + bb;
        s.weight_locals.emplace_back(int(p.buffers.size()), k);
        p.buffers.push_back(b);
        p.summary.weight_bytes += wb + bb;
      }
    } else if (!p.summary.weights_streamed) {  // resident: side by side
      for (StackLayer& sl : p.layers) {
        const LayerSpec& L = *sl.spec;
        if (!is_conv(L)) continue;
        const std::uint64_t wb = weight_bytes(L);
        sl.w_addr = s.place(wb);
        p.summary.weight_bytes += wb;
        if (!L.bias.empty()) {
          sl.bias_addr = s.place(std::uint64_t(L.geom.c_out) * isa::kParamElemBytes);
          p.summary.weight_bytes += std::uint64_t(L.geom.c_out) * isa::kParamElemBytes;
        }
      }
    } else {
      weights_in_two_slots(p, s);
    }
  }

  // Streamed weights of a several-band stack: two slots of the largest layer's weights and bias.
  void weights_in_two_slots(StackPlan& p, LayoutState& s) const {
    std::uint64_t slot = 0;
    for (const StackLayer& sl : p.layers) {
      const LayerSpec& L = *sl.spec;
      if (!is_conv(L)) continue;
      const std::uint64_t wb = align_up(weight_bytes(L), s.align);
      slot = std::max(slot, wb + (L.bias.empty() ? 0 : std::uint64_t(L.geom.c_out) * isa::kParamElemBytes));
    }
    const std::uint32_t base[2] = {s.place(slot), s.place(slot)};
    int k = 0;
    for (StackLayer& sl : p.layers) {
      const LayerSpec& L = *sl.spec;
      if (!is_conv(L)) continue;
      sl.w_addr = base[k % 2];
      sl.bias_addr = std::uint32_t(sl.w_addr + align_up(weight_bytes(L), s.align));
      ++k;
    }
    p.summary.weight_bytes = 2 * slot;
  }

  // int8 requantisation tables (resident like the weights): CONV pairs, ELTWISE add words.
  void place_requant_tables(StackPlan& p, LayoutState& s) const {
    for (StackLayer& sl : p.layers) {
      const LayerSpec& L = *sl.spec;
      if (L.requant.empty()) continue;
      const std::uint64_t tb = lg_.bytes.at(L.requant);  // CONV pairs, the ELTWISE add words or mul pair
      sl.requant_bytes = tb;
      sl.requant_addr = s.place(tb);
      p.summary.weight_bytes += tb;
    }
  }

  // Bytes of the largest band tile of a [c, rows, w] tensor.
  std::uint64_t tile_bytes(int c, int w, const std::vector<RowRange>& rows) const {
    int m = 0;
    for (const RowRange& r : rows) m = std::max(m, r.rows());
    return std::uint64_t(c) * std::uint64_t(m) * std::uint64_t(w) * std::uint64_t(e_);
  }

  // First and last stack layer with an operand (or a piece of one) that `reads` ({n, -1}: none).
  // reads(operand, piece index or -1 for the whole operand) -> bool.
  template <class Reads>
  static std::pair<int, int> reader_span(const StackPlan& p, Reads reads) {
    const int n_layers = int(p.layers.size());
    std::pair<int, int> span{n_layers, -1};
    for (int k = 0; k < n_layers; ++k)
      for (const Operand* o : {&p.layers[std::size_t(k)].in, &p.layers[std::size_t(k)].res}) {
        bool r = reads(*o, -1);
        for (const Piece& pc : o->pieces) r = r || reads(*o, int(&pc - o->pieces.data()));
        if (r) span = {std::min(span.first, k), std::max(span.second, k)};
      }
    return span;
  }

  // A buffer for every operand not read in place: LOADed ones (double-buffered, from the
  // layer before) or gathered by MOVEs only (an on-chip tile of its reader).
  void operand_buffers(StackPlan& p, LayoutState& s) const {
    const int ahead = std::max(p.summary.weights_ahead, 1);
    for (const auto& [buffer, k] : s.weight_locals) s.locals.push_back({buffer, std::max(int(k) - ahead, 0), int(k)});
    for (std::size_t k = 0; k < p.layers.size(); ++k)
      for (Operand* o : {&p.layers[k].in, &p.layers[k].res}) {
        if (o->tensor.empty() || o->on_chip) continue;
        bool from_ddr = !o->gathered();
        for (const Piece& pc : o->pieces) from_ddr = from_ddr || (pc.produced < 0 && pc.input < 0);
        Buffer b;
        b.bytes = tile_bytes(o->c, o->w, o->rows);
        b.slots = from_ddr ? s.ping : 1;
        o->buffer = int(p.buffers.size());
        p.buffers.push_back(b);
        s.keep(o->buffer, from_ddr, from_ddr ? std::max(int(k) - 1, 0) : int(k), int(k));
      }
  }

  // Shared input tiles: LOADed per band, double-buffered, from the layer before the first reader.
  void input_tile_buffers(StackPlan& p, LayoutState& s) const {
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      InputTile& it = p.inputs[i];
      Buffer b;
      b.bytes = tile_bytes(it.c, it.w, it.rows);
      b.slots = s.ping;
      it.buffer = int(p.buffers.size());
      p.buffers.push_back(b);
      auto [first, last] = reader_span(p, [&](const Operand& o, int piece) {
        return (piece < 0 ? o.input : o.pieces[std::size_t(piece)].input) == int(i);
      });
      if (first > last) first = 0, last = s.n_layers - 1;  // (share_inputs gives every tile readers)
      s.keep(it.buffer, true, std::max(first - 1, 0), last);
    }
  }

  // The tiles of the tensors the stack computes, and their scratch tiles.
  void tensor_buffers(StackPlan& p, LayoutState& s) const {
    for (std::size_t ti = 0; ti < p.tensors.size(); ++ti) {
      StackTensor& t = p.tensors[ti];
      // Cache: a tile whose rows carry over to the next band keeps two slots (band b
      // assembles slot b % 2 from slot (b - 1) % 2); the computed rows land in a scratch
      // tile first (two slots when a STORE reads them).
      bool carries = false, scratch = false;
      for (int band = 0; band < int(t.rows.size()); ++band)
        if (t.cached_rows(band) > 0) {
          carries = true;
          scratch = scratch || !t.computed[std::size_t(band)].empty();
        }
      int last_read = std::max(t.producer, reader_span(p, [&](const Operand& o, int piece) {
                                             return piece < 0 ? o.on_chip && o.produced == int(ti)
                                                              : o.pieces[std::size_t(piece)].produced == int(ti);
                                           }).second);
      if (t.stored) last_read = std::max(last_read, std::min(t.producer + 1, s.n_layers - 1));
      Buffer b;
      b.bytes = tile_bytes(t.c, t.w, t.rows);
      b.slots = carries ? 2 : t.stored ? s.ping : 1;
      t.buffer = int(p.buffers.size());
      p.buffers.push_back(b);
      s.keep(t.buffer, t.stored || carries, t.producer, last_read);
      if (scratch) {
        Buffer sc;
        sc.bytes = tile_bytes(t.c, t.w, t.computed);
        sc.slots = t.stored ? s.ping : 1;
        t.scratch = int(p.buffers.size());
        p.buffers.push_back(sc);
        s.keep(t.scratch, t.stored, t.producer, t.producer);
      }
    }
  }

  // Single-slot on-chip tiles are only touched by the compute queue; tiles whose band
  // lifetimes do not overlap share SRAM (first fit, largest first). (One band: every buffer.)
  static void place_locals(StackPlan& p, LayoutState& s) {
    const std::uint64_t base = align_up(s.cursor, s.align);
    std::vector<Local>& locals = s.locals;
    std::sort(locals.begin(), locals.end(), [&](const Local& a, const Local& b) {
      const std::uint64_t x = p.buffers[std::size_t(a.buffer)].bytes, y = p.buffers[std::size_t(b.buffer)].bytes;
      return x != y ? x > y : a.buffer < b.buffer;
    });
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // placed [lo, hi) per locals index
    std::uint64_t end = base;
    for (std::size_t i = 0; i < locals.size(); ++i) {
      const std::uint64_t size = align_up(std::max<std::uint64_t>(p.buffers[std::size_t(locals[i].buffer)].bytes, 1), s.align);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
      for (std::size_t j = 0; j < i; ++j)
        if (locals[j].first <= locals[i].last && locals[i].first <= locals[j].last) busy.push_back(spans[j]);
      std::sort(busy.begin(), busy.end());
      std::uint64_t at = base;
      for (const auto& [lo, hi] : busy) {
        if (at + size <= lo) break;
        at = std::max(at, hi);
      }
      spans.emplace_back(at, at + size);
      end = std::max(end, at + size);
      Buffer& b = p.buffers[std::size_t(locals[i].buffer)];
      b.addr[0] = b.addr[1] = std::uint32_t(at);
    }
    s.cursor = std::max(s.cursor, end);
  }

  // MACs, array cycles, DDR bytes and the time estimate of the stack, and of the same layers
  // generated one by one (plan_conv per conv), for the choice.
  void cost(StackPlan& p) {
    StackSummary& s = p.summary;
    const int burst = in_.opt.burst_bytes;
    std::uint64_t bytes = 0, cycles = 0;
    // Streamed weights: per band and layer, its compute cycles and its weight bytes, for the
    // part of each weight load the previous layer's compute cannot hide (below).
    struct StreamedLoad {
      std::uint64_t cycles = 0, weight_bytes = 0;
      int groups = 1;  ///< output-channel groups (weight_group_channels)
    };
    std::vector<std::vector<StreamedLoad>> band_layer(
        s.weights_streamed ? std::size_t(std::max(s.bands, 0)) : 0);
    for (StackLayer& sl : p.layers) {
      const LayerSpec& L = *sl.spec;
      const StackTensor& t = p.tensors[std::size_t(sl.out)];
      std::uint64_t layer_macs = 0;
      sl.group_channels = s.weights_streamed && is_conv(L)
                              ? weight_group_channels(L, weight_bytes(L), in_.opt.weight_group_bytes, in_.opt.array)
                              : L.geom.c_out;

      if (is_conv(L)) {
        // Once, or (streamed) once per band the layer computes in.
        std::uint64_t loads = 1;
        if (s.weights_streamed) {
          loads = 0;
          for (const RowRange& r : t.computed) loads += r.empty() ? 0 : 1;
        }
        bytes += loads * bursts(weight_bytes(L), burst);
        if (!L.bias.empty()) bytes += loads * bursts(std::uint64_t(L.geom.c_out) * isa::kParamElemBytes, burst);
      }
      const std::uint64_t lanes = std::uint64_t(std::max(in_.hw.act_unit.lanes, 1));
      for (std::size_t b = 0; b < t.rows.size(); ++b) {
        const RowRange r = t.computed[b];
        if (const int ov = t.cached_rows(int(b)); ov > 0) {
          // Cache: the overlap rows and the computed rows MOVEd into the tile (vector unit).
          const std::uint64_t n = std::uint64_t(t.c) * std::uint64_t(ov + r.rows()) * std::uint64_t(t.w);
          cycles += (n + lanes - 1) / lanes;
          s.move_elems += n;
        }
        if (r.empty()) continue;
        layer_macs += band_macs(L, sl.geom, r.rows());
        const std::uint64_t c = band_cycles(L, sl.geom, r.rows(), sl.in.rows[b].rows(), in_.opt.array, in_.hw.act_unit.lanes);
        cycles += c;
        if (s.weights_streamed && b < band_layer.size())
          band_layer[b].push_back(
              {c, is_conv(L) ? bursts(weight_bytes(L), burst) : 0,
               weight_groups(sl)});
        for (const Operand* o : {&sl.in, &sl.res}) {
          if (o->tensor.empty() || o->on_chip) continue;
          const RowRange rr = o->rows[b];
          if (!o->gathered()) {
            bytes += band_cost(o->c, o->h, o->w, rr, e_, burst);
            continue;
          }
          for (const Piece& pc : o->pieces) {
            if (pc.produced < 0 && pc.input < 0) {
              bytes += band_cost(pc.c, o->h, o->w, rr, e_, burst);
              continue;
            }
            // One MOVE: a streaming pass of the vector unit (act_unit_timing.cpp).
            const std::uint64_t n = std::uint64_t(pc.c) * std::uint64_t(rr.rows()) * std::uint64_t(o->w);
            cycles += (n + lanes - 1) / lanes;
            s.move_elems += n;
          }
        }
        if (t.stored) bytes += band_cost(t.c, t.h, t.w, r, e_, burst);
      }
      // Rows no reader needs (a 1x1 stride-2 reader skips odd rows at a band's end) are not
      // computed; only rows computed more than once count as recomputed.
      s.macs += layer_macs;
      s.layer_macs += L.macs;
      s.recompute_macs += layer_macs - std::min(layer_macs, L.macs);
    }
    for (const InputTile& it : p.inputs)  // one LOAD per band for all readers
      for (const RowRange& r : it.rows) bytes += band_cost(it.c, it.h, it.w, r, e_, burst);
    s.ddr_bytes = bytes;
    const double compute_ns = double(cycles) * in_.opt.core_period_ns;
    const double memory_ns = in_.opt.ddr_bytes_per_ns > 0 ? double(bytes) / in_.opt.ddr_bytes_per_ns : 0;
    // As plan_conv's estimate, with the stack's steps: one CONV/POOL of one band is the unit
    // double buffering cannot overlap (the first band's loads, the last band's stores).
    const double steps = double(std::max(s.bands, 1)) * double(p.layers.size());
    s.estimated_ns = std::max(compute_ns, memory_ns) + (compute_ns + memory_ns) / steps;
    // Streamed weights sit on the critical path: with two slots, layer k's weights load while
    // layer k-1 computes (not earlier: the slot is layer k-2's until its compute ends), so the
    // part of each load longer than the previous compute in the band order is not hidden; in
    // one band with weights_ahead 2, longer than the previous two layers' compute. In G
    // output-channel groups the array computes group g while group g+1 loads, so the layer's
    // own compute hides all but its last group's: (G - 1) / G of it.
    // A weight LOAD is one sequential DMA stream: it arrives at the stream rate, which on a DDR
    // whose mapping keeps consecutive bursts in one bank group is half the peak (tCCD_L).
    const double stream_bw = in_.opt.stream_bytes_per_ns > 0 ? in_.opt.stream_bytes_per_ns : in_.opt.ddr_bytes_per_ns;
    if (s.weights_streamed && stream_bw > 0) {
      const std::size_t ahead = std::size_t(s.bands == 1 ? std::max(s.weights_ahead, 1) : 1);
      std::vector<double> prev;  // the last `ahead` computes, ns
      for (const auto& layers : band_layer)
        for (const StreamedLoad& l : layers) {
          const double own_ns = double(l.cycles) * in_.opt.core_period_ns;
          double hidden = own_ns * double(l.groups - 1) / double(l.groups);
          for (double ns : prev) hidden += ns;
          s.estimated_ns += std::max(0.0, double(l.weight_bytes) / stream_bw - hidden);
          prev.push_back(own_ns);
          if (prev.size() > ahead) prev.erase(prev.begin());
        }
    }
    s.layer_by_layer_bytes = 0;
    s.layer_by_layer_ns = 0;
    for (const StackLayer& sl : p.layers) {
      const auto& [b, ns] = alone(sl.index);
      s.layer_by_layer_bytes += b;
      s.layer_by_layer_ns += ns;
    }
    for (const StackTensor& t : p.tensors)
      if (t.stored) s.stored.push_back(t.name);
  }

 private:
  // DDR bytes and estimated ns of layer k generated on its own (codegen's plan).
  std::pair<std::uint64_t, double> alone(std::size_t k) {
    auto it = alone_.find(k);
    if (it != alone_.end()) return it->second;
    const LayerSpec& L = lg_.layers[k];
    std::pair<std::uint64_t, double> r{0, 0};
    const double bw = in_.opt.ddr_bytes_per_ns;
    if (is_conv(L)) {
      TilingOptions o = in_.opt;
      o.residual = !L.residual.empty();
      o.in_scale = !L.in_scale.empty();
      o.batch = std::max(L.batch, 1);
      const auto plan = plan_conv(L.geom, in_.sram_bytes, o);
      if (plan) {
        r.first = plan->burst_cost_bytes;
        if (!L.bias.empty()) r.first += bursts(std::uint64_t(L.geom.c_out) * isa::kParamElemBytes, in_.opt.burst_bytes);
        const double compute = double(plan->array_cycles) * in_.opt.core_period_ns;
        const double memory = bw > 0 ? double(r.first) / bw : 0;
        r.second = std::max(compute, memory) + (compute + memory) / std::max(plan->steps, 1);
      } else {
        r = {UINT64_MAX / 4, 1e30};  // cannot run alone: any stack is better
      }
    } else {
      const ConvGeom& g = geom_.at(k);
      const int inputs = L.kind == LayerKind::Eltwise ? 2 : 1;
      r.first = inputs * bursts(std::uint64_t(g.c_in) * g.h_in * g.w_in * e_, in_.opt.burst_bytes) +
                bursts(std::uint64_t(g.c_out) * g.h_out * g.w_out * e_, in_.opt.burst_bytes);
      const double compute =
          double(band_cycles(L, g, g.h_out, g.h_in, in_.opt.array, in_.hw.act_unit.lanes)) * in_.opt.core_period_ns;
      const double memory = bw > 0 ? double(r.first) / bw : 0;
      r.second = std::max(compute, memory) + (compute + memory) / 8;
    }
    alone_[k] = r;
    return r;
  }

  // A stack must be estimated no slower than its layers one by one. It was 1.05 (5 % slack)
  // until the timing changes of 2026-11-30; then MobileNetV2 depth-first on the mobile preset
  // simulated 10.038 ms against residual's 9.999 ms (docs/depth_first.md "Falling back").
  static constexpr double kTimeSlack = 1.0;
  static constexpr double kTie = 0.01;

  const PlanInputs& in_;
  const LoweredGraph& lg_;
  int e_;
  // DDR root -> (layer, tensor it reads there) for every layer reading a tensor in that root.
  std::map<std::string, std::vector<std::pair<std::size_t, std::string>>> readers_by_root_;
  std::map<std::string, std::size_t> producer_;
  std::map<std::string, std::vector<std::string>> written_by_root_;  // DDR root -> tensors layers write into it
  std::map<std::string, isa::TensorKind> kind_;
  std::map<std::size_t, std::pair<std::uint64_t, double>> alone_;
  std::map<std::pair<std::size_t, std::size_t>, std::optional<StackPlan>> plans_;
  std::map<std::size_t, ConvGeom> geom_;  // stackable layers' geometry
  // Layers the dynamic programme left out of its stacks, not yet reported (flush_left_out):
  // the first one (SIZE_MAX: none), the run it saw them in and its estimate.
  std::size_t left_out_ = SIZE_MAX;
  std::string left_out_run_;
  double left_out_ns_ = 0;
};

}  // namespace

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

bool is_upsample(const LayerSpec& L) {
  const ConvGeom& g = L.geom;
  return L.kind == LayerKind::Resize && !L.layout.empty() && L.resize_h >= 1 && L.resize_w >= 1 && g.c_in >= 1 &&
         g.c_in == g.c_out && g.h_out == g.h_in * L.resize_h && g.w_out == g.w_in * L.resize_w;
}

RowRange layer_input_rows(const StackLayer& sl, RowRange out) {
  if (out.empty()) return {};
  if (is_upsample(*sl.spec)) {
    const int f = sl.spec->resize_h;
    return {out.lo / f, (out.hi - 1) / f + 1};
  }
  return input_rows(sl.geom, out);
}

std::uint64_t band_macs(const LayerSpec& L, const ConvGeom& geom, int out_rows) {
  if (L.kind != LayerKind::Conv) return 0;
  ConvGeom g = geom;
  g.h_out = out_rows;
  return g.macs();
}

std::uint64_t band_cycles(const LayerSpec& L, const ConvGeom& geom, int out_rows, int in_rows,
                          const MacArrayConfig& array, int lanes) {
  if (L.kind == LayerKind::Conv) {
    ConvGeom g = geom;
    g.h_out = out_rows;
    return conv_array_cycles(g, g.c_out, out_rows, array);
  }
  const std::uint64_t n = std::uint64_t(std::max(lanes, 1));
  const std::uint64_t elems = std::uint64_t(geom.c_in) * std::max<std::uint64_t>(std::uint64_t(in_rows) * geom.w_in,
                                                                                 std::uint64_t(out_rows) * geom.w_out);
  return (elems + n - 1) / n;
}

}  // namespace depth_first
}  // namespace npu::compiler
