// npu llm's --out folder: refused when it holds an experiment or a sweep (llm_out_folder.cpp).
#pragma once

#include <string>

namespace npu::sim {

/// Throws ConfigError ("--out DIR: error: the folder holds an experiment ...; give npu llm a
/// folder of its own") when `out_dir`/plan.json is a sweep's plan, or an experiment's plan with a
/// cell that is not an LLM run (run folder not ending in __prefill<P> or __decode<T>): npu llm
/// would replace that folder's summary.{csv,json,md} with its own runs' (new-user finding). A
/// missing or unreadable plan.json, or one of npu llm's own runs (an earlier or interrupted
/// `npu llm` into the folder), is left alone.
void refuse_other_tools_folder(const std::string& out_dir);

/// Throws ConfigError ("--out DIR: error: the folder holds an npu llm run (DIR/llm.json) ...") when
/// `out_dir` holds llm.json: `tool` (npu experiment, npu sweep) would replace its summary.* and
/// plan.json, after which npu llm refused its own folder (new-user finding).
void refuse_llm_folder(const std::string& out_dir, const std::string& tool);

}  // namespace npu::sim
