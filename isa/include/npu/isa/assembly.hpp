// Text assembly (.npuasm) reader and writer. Format reference: docs/isa.md.
// write_program(read_program(text)) is canonical, and read_program(write_program(p)) == p.
#pragma once

#include <string>

#include "npu/isa/instruction.hpp"

namespace npu::isa {

/// Parse .npuasm text. `source` names the file in messages. Throws npu::ConfigError with
/// "SOURCE:LINE:COL: error: REASON" (and a hint) for any malformed line.
Program read_program(const std::string& text, const std::string& source = "<string>");

/// Read a .npuasm file; throws ConfigError if it cannot be opened or is malformed.
Program read_program_file(const std::string& path);

/// `name` as one .npuasm word, as write_program accepts it: each whitespace or control byte,
/// DEL or '#' replaced by '_'; `fallback` for an empty name. E.g. a converter's graph name
/// "Model from Converter." -> "Model_from_Converter.".
std::string asm_word(const std::string& name, const std::string& fallback);

/// Canonical text form of a program (one instruction per line, fixed key order).
/// Throws std::invalid_argument for what the text cannot express: a name that is empty or
/// holds whitespace or '#', a tensor on a compute instruction, params of another opcode,
/// a token from a queue to itself, ACT op=none, an epilogue act=scale_shift.
std::string write_program(const Program& program);

}  // namespace npu::isa
