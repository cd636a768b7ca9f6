// The `mac_array` keys of a Gemmini-style weight-stationary array: how a dense convolution maps
// (conv_mapping) and how weights enter the PEs (weight_preload). docs/config.md "mac_array",
// formulas in docs/timing.md "Gemmini's mechanisms".
#include "load/loader.hpp"

namespace npu::config_loader {

// Allowed values, in enum order (hw_config.hpp).
const std::vector<std::string> kConvMappings = {"im2col", "channels_on_rows"};
const std::vector<std::string> kWeightPreloads = {"none", "double_buffered"};

namespace {

// Both mechanisms describe weights held in the PEs: they have no meaning for OS or IS.
void require_weight_stationary(Loader& in, const Section& s, const MacArrayConfig& mac, const char* key) {
  if (mac.dataflow == Dataflow::WeightStationary) return;
  in.fail(in.vmark(s, key),
          fmt::format("'mac_array.{}' is set but 'mac_array.dataflow' is {}", key, to_string(mac.dataflow)),
          "  it describes the weights a weight-stationary array holds in its PEs (docs/timing.md \"Gemmini's "
          "mechanisms\"); use 'dataflow: weight_stationary' or remove the key");
}

}  // namespace

void load_gemmini_mac_array_keys(Loader& in, const Section& s, MacArrayConfig& mac) {
  if (s.has("conv_mapping")) {
    mac.conv_mapping = static_cast<ConvMapping>(in.get_enum(s, "conv_mapping", kConvMappings, "conv_mapping"));
    require_weight_stationary(in, s, mac, "conv_mapping");
  }
  if (s.has("weight_preload")) {
    mac.weight_preload =
        static_cast<WeightPreload>(in.get_enum(s, "weight_preload", kWeightPreloads, "weight_preload"));
    require_weight_stationary(in, s, mac, "weight_preload");
  }
}

}  // namespace npu::config_loader
