// libFuzzer target: the YAML hardware-config loader (npu::parse_hw_config, hw_config/hw_config.hpp).
// Property checked on every accepted input: hw_config_to_yaml() output loads again and
// resolves to the same config (its YAML text is a fixed point), as the header promises.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::run_one([&] {
    const npu::HwConfig cfg = npu::parse_hw_config(npu::fuzz::as_text(data, size), "fuzz.yaml");
    const std::string yaml = npu::hw_config_to_yaml(cfg);
    npu::HwConfig again;
    try {
      again = npu::parse_hw_config(yaml, "round-trip.yaml");
    } catch (const npu::ConfigError& e) {
      npu::fuzz::fuzz_fail("hw_config_to_yaml output does not load again", std::string(e.what()) + "\n" + yaml);
    }
    if (npu::hw_config_to_yaml(again) != yaml)
      npu::fuzz::fuzz_fail("hw_config_to_yaml is not a fixed point", yaml + "\n---\n" + npu::hw_config_to_yaml(again));
  });
}
