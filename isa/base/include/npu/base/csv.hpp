// The one CSV field quoting every CSV this project writes uses (RFC 4180): a field holding a
// comma, a double quote, CR or LF is enclosed in double quotes with inner quotes doubled;
// any other field is written as is. Names from user models (ONNX node names such as "bn,1")
// go through it, so every row keeps its column count. Bytes that are not UTF-8 become the
// text \xNN (npu::utf8_escaped), as in the JSON outputs.
#pragma once

#include <string>
#include <string_view>

namespace npu {

/// `v` as one RFC 4180 CSV field.
std::string csv_field(std::string_view v);

}  // namespace npu
