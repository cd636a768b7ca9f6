#include "npu/compiler/transforms/pass_registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace npu::compiler {

const char* to_string(PassKind kind) {
  switch (kind) {
    case PassKind::Import: return "import";
    case PassKind::Graph: return "graph";
    case PassKind::Program: return "program";
  }
  return "?";
}

const PassRegistry& PassRegistry::instance() {
  static const PassRegistry registry = [] {
    PassRegistry r;
    register_all_passes(r);
    std::stable_sort(r.infos_.begin(), r.infos_.end(), [](const PassInfo& a, const PassInfo& b) {
      return std::tie(a.kind, a.order) < std::tie(b.kind, b.order);
    });
    for (std::size_t i = 1; i < r.infos_.size(); ++i)
      if (r.infos_[i].kind == r.infos_[i - 1].kind && r.infos_[i].order == r.infos_[i - 1].order)
        throw std::logic_error("passes '" + r.infos_[i - 1].name + "' and '" + r.infos_[i].name +
                               "' are registered at the same position " + std::to_string(r.infos_[i].order));
    return r;
  }();
  return registry;
}

void PassRegistry::add_info(PassInfo info) {
  if (find(info.name)) throw std::logic_error("pass '" + info.name + "' is registered twice");
  infos_.push_back(std::move(info));
}

const PassInfo* PassRegistry::find(const std::string& name) const {
  for (const PassInfo& p : infos_)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> PassRegistry::names(PassKind kind) const {
  std::vector<std::string> out;
  for (const PassInfo& p : infos_)
    if (p.kind == kind) out.push_back(p.name);
  return out;
}

std::vector<std::string> pass_names() { return PassRegistry::instance().names(PassKind::Graph); }

std::unique_ptr<GraphPass> make_pass(const std::string& name) {
  const PassInfo* info = PassRegistry::instance().find(name);
  if (!info || info->kind != PassKind::Graph) return nullptr;
  return std::unique_ptr<GraphPass>(static_cast<GraphPass*>(info->make().release()));
}

}  // namespace npu::compiler
