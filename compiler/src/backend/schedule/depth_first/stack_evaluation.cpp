// One depth-first stack at one band height and overlap mode: its layers, operands and
// tensors, the rows every layer computes and reads per band (back-propagated from the last
// layer's band), which tensors reach DDR, the DDR inputs several layers share, then its SRAM
// layout (stack_sram_layout.cpp) and cost (stack_cost.cpp). Reference: docs/depth_first.md.
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "backend/schedule/depth_first/stack_planner.hpp"

namespace npu::compiler::depth_first {

namespace {

// Output shape (c, h, w) of a stackable layer; its data input's shape.
void out_shape(const ConvGeom& g, int& c, int& h, int& w) { c = g.c_out, h = g.h_out, w = g.w_out; }

}  // namespace

Evaluation Planner::evaluate(std::size_t s, std::size_t e, int band_rows, OverlapMode mode, bool weights_streamed) {
  Evaluation ev;
  evaluate(ev, skeleton(s, e), band_rows, mode, weights_streamed);
  return ev;
}

// What a stack's evaluations share whatever the band height and overlap mode: its layers,
// operands and tensors, and which tensors reach DDR. best_plan evaluates up to 4 x (distinct
// band heights) plans of one stack; building this once per stack was a fifth of a depth-first
// compile.
StackPlan Planner::skeleton(std::size_t s, std::size_t e) const {
  StackPlan p;
  p.summary.first = s;
  p.summary.last = e;
  add_layers(p, s, e);
  mark_stored(p, s, e);
  return p;
}

void Planner::evaluate(Evaluation& ev, const StackPlan& skeleton, int band_rows, OverlapMode mode,
                       bool weights_streamed) {
  ev.plan = skeleton;  // copy-assigned: the vectors and strings of ev's last plan keep their storage
  ev.need_bytes = 0;
  ev.fits = false;
  StackPlan& p = ev.plan;
  StackSummary& sum = p.summary;
  sum.overlap = mode;
  sum.weights_streamed = weights_streamed;
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
  gather_unaligned_reads(p, bands);
  // One band, streamed: each layer's weights in SRAM from two layers before their own where
  // that fits (their LOAD then overlaps two layers' compute: on the edge preset a sequential
  // 2.4 MB weight LOAD takes 193 us at the 12.8 GB/s one DDR4 bank group streams, longer than
  // most single layers' compute), else from the layer before.
  if (sum.bands == 1 && sum.weights_streamed) {
    layout_streamed_ahead(ev);
  } else {
    layout(p, ev);
  }
  // A plan that does not fit is never chosen; its callers read only need_bytes, fits and the
  // layout's weight_bytes (sram_refusal), so it is not costed.
  if (ev.fits) cost(p);
}

// The stack layers s..e of the lowered graph, each with its output tensor and operands (an
// operand the stack computes refers to its tensor; a Concat some of whose pieces it computes
// is gathered).
void Planner::add_layers(StackPlan& p, std::size_t s, std::size_t e) const {
  std::map<std::string, int> produced;
  // Sized once: the planner evaluates every candidate stack, and growing these vectors
  // (a StackLayer holds two operands with their names) was an eighth of a depth-first compile.
  p.layers.reserve(p.layers.size() + (e - s + 1));
  p.tensors.reserve(p.tensors.size() + (e - s + 1));
  p.summary.layers.reserve(p.summary.layers.size() + (e - s + 1));
  for (std::size_t k = s; k <= e; ++k) {
    const LayerSpec& L = lg_.layers[k];
    p.summary.layers.push_back(L.name);
    StackLayer sl;
    sl.index = k;
    sl.spec = &L;
    StackTensor t;
    t.name = L.output;
    t.producer = int(k - s);
    sl.geom = geom_.at(k);
    out_shape(sl.geom, t.c, t.h, t.w);
    sl.in = operand(L.inputs[0], sl.geom.c_in, sl.geom.h_in, sl.geom.w_in, produced);
    if (!L.residual.empty()) sl.res = operand(L.residual, t.c, t.h, t.w, produced);
    if (L.kind == LayerKind::Eltwise) sl.res = operand(L.inputs[1], t.c, t.h, t.w, produced);
    sl.out = int(p.tensors.size());
    produced[t.name] = sl.out;
    p.tensors.push_back(std::move(t));
    p.layers.push_back(std::move(sl));
  }
}

// Operand `name` of [c, h, w]; `produced`: tensor name -> StackTensor index of the layers so far.
Operand Planner::operand(const std::string& name, int c, int h, int w,
                         const std::map<std::string, int>& produced) const {
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
}

// Tensors that must reach DDR: the last layer's output, graph outputs and tensors read
// outside the stack (a Concat piece when the Concat is: readers are listed by DDR root).
void Planner::mark_stored(StackPlan& p, std::size_t s, std::size_t e) const {
  for (StackTensor& t : p.tensors) {
    t.stored = t.producer == int(p.layers.size()) - 1 || is_graph_output(t.name);
    auto it = readers_by_root_.find(root(t.name));
    if (it != readers_by_root_.end())
      for (const auto& [r, read] : it->second) t.stored = t.stored || ((r < s || r > e) && overlaps(read, t.name));
  }
}

// Each operand the stack computes is read in place when its rows are its producer's tile's in
// every band, else gathered by MOVE (a one-piece gather); checks that every gathered piece's
// rows are computed by its band. Throws std::logic_error if not (a planner bug).
void Planner::gather_unaligned_reads(StackPlan& p, int bands) {
  StackSummary& sum = p.summary;
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
}

// Rows per band of every tile, what each producer computes, and what each operand reads,
// back from the last layer's band. Cache: a layer computes only the rows of its tile that
// the previous band's tile does not hold (needs grow monotonically with the band), and reads
// only what those rows need.
void Planner::propagate(StackPlan& p, int bands, int band_rows, OverlapMode mode) {
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
  std::vector<RowRange> need;  // per band; one allocation for all bands
  for (int b = 0; b < bands; ++b) {
    need.assign(p.tensors.size(), RowRange{});
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
void Planner::share_inputs(StackPlan& p, int bands) {
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

}  // namespace npu::compiler::depth_first
