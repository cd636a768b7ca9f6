// Parsing of zoo LLM model names (llm_name.hpp).
#include "npu/compiler/frontend/zoo/llm/llm_name.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "npu/base/closest_name.hpp"
#include "npu/base/user_text.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

namespace {

constexpr const char* kSyntax =
    "expected NAME[:prefill=P|:decode=T][:batch=B], e.g. llama-2-7b:decode=2048:batch=8";

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

[[noreturn]] void unknown_llm(const std::string& text, const std::string& name) {
  const auto near = closest_name(name, llm_model_names());
  throw ConfigError(echo(text) + ": error: unknown LLM '" + echo(name) + "'" +
                    (near ? "; did you mean '" + *near + "'?" : std::string()) + " (zoo LLMs: " +
                    list(llm_model_names()) + ")");
}

/// Value of key=value: decimal digits, at most 10 of them.
std::int64_t number(const std::string& text, const std::string& part, const std::string& value) {
  bool digits = !value.empty() && value.size() <= 10;
  for (char c : value) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits)
    throw ConfigError(echo(text) + ": error: '" + echo(part) + "': the value is not a whole number of at most 10 "
                      "digits; " + kSyntax);
  return std::stoll(value);
}

void check_range(const std::string& text, const LlmRequest& r) {
  const LlmSpec& s = *r.spec;
  const bool decode = r.shape.phase == LlmPhase::Decode;
  const std::string key = decode ? "decode" : "prefill";
  const std::int64_t low = decode ? 2 : 1;
  if (r.shape.tokens < low || r.shape.tokens > s.max_context)
    throw ConfigError(echo(text) + ": error: " + key + "=" + std::to_string(r.shape.tokens) + " is outside " +
                      s.name + "'s range " + std::to_string(low) + ".." + std::to_string(s.max_context) +
                      " (context of " + std::to_string(s.max_context) + " tokens" +
                      (decode ? "; decode=T is the step at context T, T >= 2: at T = 1 the cache is empty, "
                                "use prefill=1" : std::string()) + "); give a value in that range");
  if (r.shape.batch < 1 || r.shape.batch > kMaxLlmBatch)
    throw ConfigError(echo(text) + ": error: batch=" + std::to_string(r.shape.batch) + " is outside 1.." +
                      std::to_string(kMaxLlmBatch) + "; give batch=1 or more");
}

}  // namespace

std::optional<LlmRequest> parse_llm_model_name(const std::string& text) {
  const std::vector<std::string> parts = split(text, ':');
  LlmRequest r;
  r.spec = find_llm_spec(parts[0]);
  if (!r.spec) {
    if (parts.size() == 1) return std::nullopt;
    unknown_llm(text, parts[0]);
  }
  std::optional<std::int64_t> tokens;
  bool has_batch = false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const std::size_t eq = part.find('=');
    const std::string key = part.substr(0, eq);
    const bool phase_key = key == "prefill" || key == "decode";
    if (eq == std::string::npos || (!phase_key && key != "batch")) {
      const auto near = closest_name(key, {"prefill", "decode", "batch"});
      throw ConfigError(echo(text) + ": error: '" + echo(part) + "' is not prefill=P, decode=T or batch=B" +
                        (near && eq != std::string::npos ? " (did you mean '" + *near + "'?)" : std::string()) +
                        "; " + kSyntax);
    }
    if ((phase_key && tokens) || (!phase_key && has_batch))
      throw ConfigError(echo(text) + ": error: '" + echo(part) + "': " +
                        (phase_key ? "the phase is given twice (prefill and decode exclude each other)"
                                   : "batch is given twice") + "; " + kSyntax);
    const std::int64_t v = number(text, part, part.substr(eq + 1));
    if (phase_key) {
      r.shape.phase = key == "decode" ? LlmPhase::Decode : LlmPhase::Prefill;
      tokens = v;
    } else {
      r.shape.batch = v;
      has_batch = true;
    }
  }
  r.shape.tokens = tokens.value_or(std::min(kDefaultPrefillTokens, r.spec->max_context));
  check_range(text, r);
  return r;
}

std::string llm_model_name(const LlmRequest& r) {
  return r.spec->name + (r.shape.phase == LlmPhase::Decode ? ":decode=" : ":prefill=") +
         std::to_string(r.shape.tokens) + ":batch=" + std::to_string(r.shape.batch);
}

}  // namespace npu::compiler
