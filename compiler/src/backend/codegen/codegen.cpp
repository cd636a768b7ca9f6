// Code generation (codegen.hpp): the walk over the lowered layers. Each layer's steps come from
// the generator of its kind (layer_codegen.hpp: conv.cpp, act.cpp, eltwise.cpp, pool.cpp,
// resize.cpp, layout.cpp, copy.cpp), depth-first stacks from schedule/depth_first, and the
// shared token generator (tokens.cpp) turns steps into instructions.
#include "npu/compiler/backend/codegen/codegen.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "backend/codegen/ddr_placement.hpp"
#include "backend/codegen/layer_codegen.hpp"
#include "backend/codegen/program_size.hpp"
#include "backend/schedule/depth_first/stack_plan.hpp"

namespace npu::compiler {

namespace {

using codegen::Step;
using codegen::TooBig;

class Generator {
 public:
  Generator(const LoweredGraph& lg, const HwConfig& hw, const TilingOptions& opt, const LayerHook& after_layer)
      : ctx(lg, hw, opt, base_), after_layer_(after_layer) {}

  CodegenResult run(const std::string& name, const std::string& strategy) {
    res_.program.name = name;
    res_.program.strategy = strategy;
    res_.program.dtype = ctx.hw.mac_array.dtype;
    base_ = codegen::place_ddr_tensors(ctx.lg, ctx.hw, res_.program);
    // Depth-first stacks (fuse-layers): emitted by depth_first/, each in place of its layers.
    const std::vector<depth_first::StackPlan> stacks = plan_stacks();
    check_size_bound(stacks);
    codegen::check_ddr_lower_bound(ctx.hw, res_.program);  // before any instruction exists
    std::size_t next_stack = 0;
    for (std::size_t li = 0; li < ctx.lg.layers.size(); ++li) {
      if (next_stack < stacks.size() && stacks[next_stack].summary.first == li) {
        li = emit_stack(stacks[next_stack++]);
        check_program_size(li);
        ask_hook(li);
        continue;
      }
      gen_layer(ctx.lg.layers[li]);
      check_program_size(li);
      ask_hook(li);
    }
    if (!too_big_.empty()) throw ConfigError(too_big_message());
    codegen::fit_ddr(ctx.hw, res_.program);
    return std::move(res_);
  }

 private:
  // One layer: its kind's generator, then the tokens; a layer too big for the SRAM is
  // recorded (the other layers are still sized, so the error can name the largest need).
  void gen_layer(const LayerSpec& L) {
    ctx.info = LayerCodegenInfo{};
    ctx.info.layer = L.name;
    if (L.kind == LayerKind::Host) {
      ctx.info.tile = "host";
      ctx.info.loop_order = "host";
      ctx.info.steps = 1;
      codegen::emit_host(ctx.hw, L, first_layer_, res_.program.instructions);
      res_.layers.push_back(ctx.info);
      return;
    }
    std::vector<Step> steps;
    try {
      steps = layer_steps(L);
    } catch (const TooBig& t) {
      too_big_.push_back(t);
      return;
    }
    if (!too_big_.empty()) return;  // no program will be returned: only sizes matter now
    ctx.info.steps = int(steps.size());
    codegen::emit_steps(L.name, steps, first_layer_, res_.program.instructions);
    res_.layers.push_back(ctx.info);
  }

  std::vector<Step> layer_steps(const LayerSpec& L) {
    switch (L.kind) {
      case LayerKind::Conv: return L.depth.on() ? codegen::gen_conv3d(ctx, L) : codegen::gen_conv(ctx, L);
      case LayerKind::Gemm: return codegen::gen_conv(ctx, L);
      case LayerKind::Act: return codegen::gen_act(ctx, L);
      case LayerKind::Eltwise: return codegen::gen_eltwise(ctx, L);
      case LayerKind::Pool: return codegen::gen_pool(ctx, L);
      case LayerKind::Resize: return L.layout.empty() ? codegen::gen_resize(ctx, L) : codegen::gen_moves(ctx, L);
      case LayerKind::Copy: return codegen::gen_copy(ctx, L);
      case LayerKind::Gather: return L.scatter ? codegen::gen_scatter(ctx, L) : codegen::gen_gather(ctx, L);
      case LayerKind::Attention: return codegen::gen_attention(ctx, L);
      case LayerKind::Layout:
        if (L.zero_insert) return codegen::gen_zero_insert(ctx, L);
        if (L.linear_resize())
          return L.linear_weights.empty() ? codegen::gen_resize_linear_int8(ctx, L) : codegen::gen_resize_linear(ctx, L);
        return L.layout.empty() ? codegen::gen_layout(ctx, L) : codegen::gen_moves(ctx, L);
      case LayerKind::Host: break;
    }
    return {};
  }

  // The caller's LayerHook, after layer `li` (not once a layer is too big: no program then).
  void ask_hook(std::size_t li) const {
    if (after_layer_ && too_big_.empty() && after_layer_(li, res_)) throw GenerationStopped(li + 1);
  }

  // ---- depth-first hook (depth_first/stack_plan.hpp) ----
  std::vector<depth_first::StackPlan> plan_stacks() {
    bool marked = false;
    for (const auto& L : ctx.lg.layers) marked = marked || L.depth_first;
    if (!marked) return {};
    TilingOptions o = ctx.opt;
    o.act_bytes = ctx.e;
    return depth_first::plan_stacks(depth_first::PlanInputs{ctx.lg, ctx.hw, o, ctx.cap}, &res_.declined_stacks);
  }
  // Emits a stack and returns the index of its last layer.
  std::size_t emit_stack(const depth_first::StackPlan& s) {
    depth_first::EmitContext ec;
    ec.addr = [this](const std::string& t) { return ctx.addr(t); };
    ec.root = [this](const std::string& t) { return ctx.root(t); };
    ec.act_bytes = ctx.e;
    ec.array = ctx.hw.mac_array;
    ec.lanes = ctx.hw.act_unit.lanes;
    ec.dtype = ctx.hw.mac_array.dtype;
    depth_first::emit_stack(s, ec, first_layer_, res_.program.instructions, res_.layers);
    res_.stacks.push_back(s.summary);
    first_layer_ = false;
    return s.summary.last;
  }

  // Memory bound before any instruction exists: refuses a program whose lower bound
  // (program_size.hpp, from each layer's tile plan) already passes the limit.
  void check_size_bound(const std::vector<depth_first::StackPlan>& stacks) {
    std::vector<bool> in_stack(ctx.lg.layers.size(), false);
    for (const auto& s : stacks)
      for (std::size_t i = s.summary.first; i <= s.summary.last && i < in_stack.size(); ++i) in_stack[i] = true;
    const codegen::ProgramSizeBound b = codegen::program_size_bound(ctx.lg, ctx.hw, ctx.opt, in_stack);
    res_.instruction_lower_bound = b.instructions;
    const std::uint64_t limit = ctx.opt.max_program_instructions;
    if (b.instructions <= limit) {
      // The bound sizes the program's first allocation: growing a vector of 10^4-10^6
      // instructions by doubling was ~9 % of a ResNet-50 compile (docs/performance.md).
      res_.program.instructions.reserve(std::size_t(b.instructions));
      return;
    }
    const codegen::LayerSizeBound& l = b.largest;
    const std::string per_image =
        l.images > 0   ? fmt::format(": {} image(s) x {} tile(s)", l.images, l.tiles_per_image)
        : l.steps > 0 ? fmt::format(": {} step(s) x {}", l.steps, l.step_text)
                      : std::string();
    throw ConfigError(fmt::format(
        "{}: error: the program would have at least {} instructions, about {:.3g} GB in memory (a lower bound from "
        "each layer's tile plan, estimated before code generation; layer '{}' alone at least {}{}); the limit is {} "
        "(--max-instructions; 2 x 10^6, about {:.2g} GB in memory, by default)\n  fix: compile a smaller input: a "
        "large --input-shape (batch or image size) multiplies the instructions (ResNet-50 at batch 1 needs about "
        "10^4); run a large batch as several runs, or raise --max-instructions",
        res_.program.name, b.instructions, codegen::program_memory_gb(b.instructions), l.layer, l.instructions,
        per_image, limit, codegen::program_memory_gb(kMaxProgramInstructions)));
  }

  // Memory bound: refuses a program past TilingOptions::max_program_instructions after layer `li`, with the
  // full size extrapolated from the layers generated so far.
  void check_program_size(std::size_t li) const {
    const std::size_t n = res_.program.instructions.size();
    const std::uint64_t limit = ctx.opt.max_program_instructions;
    if (n <= limit) return;
    const std::size_t layers = ctx.lg.layers.size();
    const double estimate = double(n) * double(layers) / double(li + 1);
    throw ConfigError(fmt::format(
        "{}: error: the program has {} instructions after layer '{}' ({} of {} layers), on course for about {:.3g} "
        "instructions; the limit is {} (--max-instructions; 2 x 10^6, about 0.6 GB in memory, by default)\n  fix: "
        "compile a smaller input: a large --input-shape (batch or image size) multiplies the instructions (ResNet-50 "
        "at batch 1 needs about 10^4); run a large batch as several runs, or raise --max-instructions",
        res_.program.name, n, ctx.lg.layers[li].name, li + 1, layers,
        estimate, limit));
  }

  // Names the first layer that does not fit and the capacity every layer needs (the largest
  // minimal need), so that one raise of sram.capacity is enough.
  std::string too_big_message() const {
    const TooBig& first = too_big_.front();
    const TooBig* largest = &first;
    for (const TooBig& t : too_big_)
      if (t.need > largest->need) largest = &t;
    std::string m = ctx.hw.source + ": error: layer '" + first.layer + "' (" + first.op +
                    ") cannot fit even one minimal tile in SRAM: needs " + std::to_string(first.need) + " bytes" +
                    (first.tile.empty() ? "" : " (" + first.tile + ", its input channels split)") +
                    (first.note.empty() ? "" : " (" + first.note + ")") +
                    ", sram.capacity is " + std::to_string(ctx.cap) + " bytes";
    if (too_big_.size() > 1)
      m += "; " + std::to_string(too_big_.size()) + " layers do not fit, the largest need is layer '" +
           largest->layer + "' (" + largest->op + "): " + std::to_string(largest->need) + " bytes";
    // A capacity the config accepts: whole banks of whole interleave granules (npu_hw_config's
    // load/cross_section_checks.cpp; contiguous banks only need the capacity to split into `banks`).
    const SramConfig& sr = ctx.hw.sram;
    const std::uint64_t banks = std::uint64_t(std::max(sr.banks, 1));
    const std::uint64_t g = sr.bank_interleave_bytes;
    const std::uint64_t unit = g == 0 || g >= sr.bank_bytes() ? banks : banks * g;
    // Advise the size at which no layer needs an input-channel split: the least size that
    // compiles with splits may cut ResNet-50 into past 2 x 10^6 instructions.
    const std::uint64_t need = std::max(largest->need, ctx.unsplit_need);
    const std::uint64_t fit = (need + unit - 1) / unit * unit;
    m += "; increase sram.capacity to at least " + std::to_string(fit) + " bytes" +
         (fit != need ? " (whole banks of " + std::to_string(unit / banks) + "-byte granules)" : "") +
         (need > largest->need ? ", with which no layer's input channels need splitting" : "");
    // An int8 config compiling an unquantised graph costs the program only; `npu verify`
    // quantises the model first, and that program also keeps requantisation tables in SRAM.
    if (ctx.hw.mac_array.dtype == DType::Int8 && !ctx.lg.int8_execution)
      m += " for this program; the quantised program npu verify builds also holds requantisation tables and may "
           "need a little more (its own error says how much)";
    return m;
  }

  std::map<std::string, std::uint64_t> base_;  // DDR base of each root tensor
  codegen::GenCtx ctx;
  std::vector<TooBig> too_big_;  // layers whose minimal tile does not fit (run() reports them)
  CodegenResult res_;
  bool first_layer_ = true;
  const LayerHook& after_layer_;
};

}  // namespace

CodegenResult generate(const LoweredGraph& lowered, const HwConfig& hw, const TilingOptions& options,
                       const std::string& program_name, const std::string& strategy, const LayerHook& after_layer) {
  return Generator(lowered, hw, options, after_layer).run(program_name, strategy);
}

}  // namespace npu::compiler
