// The `mac_array` section: shape, dataflow, data type, depthwise mapping (docs/config.md "mac_array").
#include "load/loader.hpp"

namespace npu::config_loader {

// Allowed values of the enumerations, in the order docs/config.md lists them.
const std::vector<std::string> kDataflows = {"weight_stationary", "output_stationary", "input_stationary"};
const std::vector<std::string> kDtypes = {"int8", "fp16", "fp32"};
const std::vector<std::string> kDepthwiseMappings = {"scalesim", "channels_across_columns"};

void load_mac_array_section(Loader& in, const Section& top, MacArrayConfig& mac) {
  Section s = in.open(top, "mac_array");
  mac.rows = in.get_int(s, "rows", 1);
  mac.cols = in.get_int(s, "cols", 1);
  mac.dataflow = static_cast<Dataflow>(in.get_enum(s, "dataflow", kDataflows, "dataflow"));
  mac.dtype = static_cast<DType>(in.get_enum(s, "dtype", kDtypes, "dtype"));
  if (s.has("macs_per_pe_per_cycle")) mac.macs_per_pe_per_cycle = in.get_int(s, "macs_per_pe_per_cycle", 1);
  if (s.has("depthwise_mapping")) {
    mac.depthwise_mapping = static_cast<DepthwiseMapping>(
        in.get_enum(s, "depthwise_mapping", kDepthwiseMappings, "depthwise_mapping"));
    if (mac.depthwise_mapping == DepthwiseMapping::ChannelsAcrossColumns &&
        mac.dataflow == Dataflow::InputStationary)
      in.fail(in.vmark(s, "depthwise_mapping"),
              "'mac_array.depthwise_mapping' = channels_across_columns needs a weight- or output-stationary array, "
              "but 'mac_array.dataflow' is input_stationary",
              "  an input-stationary PE holds one input element of one channel, which no other channel's output "
              "uses, so the channels cannot share the array's columns (docs/timing.md); use 'depthwise_mapping: "
              "scalesim' or another dataflow");
  }
  load_mac_array_llm_keys(in, s, mac);
  load_gemmini_mac_array_keys(in, s, mac);
}

}  // namespace npu::config_loader
