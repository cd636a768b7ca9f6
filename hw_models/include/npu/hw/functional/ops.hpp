// The arithmetic of the data path (docs/functional.md, "Data path"), one op family per
// source file under hw_models/src/functional/. Each function reads its operands from the
// SRAM store, computes in fp32 and writes its result back, exactly as the instruction's
// fields say (docs/isa.md). No timing here: the units count time, these compute values.
// Operand ranges were checked by isa::check_program; a range past the store's capacity
// still throws std::out_of_range (never a write outside the store).
#pragma once

#include <cstdint>
#include <vector>

#include "npu/hw/memory/backing_store.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::hw::functional {

/// LOAD (`load`: DDR -> SRAM) or STORE (SRAM -> DDR) of `d`: planes (extent[2], DDR stride
/// ddr_stride_bytes[1]) of rows (extent[1], stride ddr_stride_bytes[0]) of extent[0]*elem_bytes
/// contiguous bytes; the SRAM side packed from sram_addr. Bytes are copied as they are.
void dma(const isa::DmaDesc& d, bool load, BackingStore& ddr, BackingStore& sram);

/// One element of an element-wise activation (ActOp other than scale_shift/softmax/
/// layer_norm) with its alpha/beta (Clip min/max, LeakyRelu alpha, HardSigmoid alpha/beta,
/// Pow exponent), by the ONNX definitions of the op of that name. `none`/`identity`: x.
float activate(isa::ActOp op, float x, float alpha, float beta);

/// The CONV/GEMM epilogue on `out` (fp32, in place): + bias[c], * scale[c] + shift[c],
/// + residual[i], act -- in that order (isa::Epilogue). Channel of element i: i / per_channel
/// when channel_major (CONV: [c_out, h_out*w_out]), else i % channels (GEMM: [m, n]).
void epilogue(const isa::Epilogue& ep, std::uint64_t channels, std::uint64_t per_channel, bool channel_major,
              std::vector<float>& out, const BackingStore& sram);

/// CONV (conv.cpp): ONNX Conv on the tile [c_in, h_in, w_in] with weights
/// [c_out, c_in/group, kh, kw], zero padding, dilation, groups; in_scale on the input
/// channels; fp32 accumulation in (ci, ky, kx) order; then the epilogue.
void conv(const isa::ConvParams& p, BackingStore& sram);
/// GEMM (gemm.cpp): out[m, n] = sum_k a[m, k] (x in_scale[k]) x b[k, n], row-major; epilogue.
void gemm(const isa::GemmParams& p, BackingStore& sram);
/// ACT (act.cpp): element-wise ops, scale_shift per channel, row-wise softmax/layer_norm,
/// optional residual input added first.
void act(const isa::ActParams& p, BackingStore& sram);
/// ACT op=softmax_online (online_softmax.cpp): one key block of a FlashAttention-style softmax
/// over `channels` rows of elems/channels scores: x = alpha * in (+ res, the mask); with the
/// state s = param (fp32 m[rows], l[rows], corr[rows]; beta = 1: no state yet, m = -inf, l = 0)
/// m' = max(m, max_j x_j), out_j = e^(x_j - m'), corr = e^(m - m'), l' = l corr + sum_j out_j.
/// A row with every score -inf so far keeps m' = -inf and writes out_j = 0, corr = 1.
/// Throws what BackingStore throws for an address past the SRAM.
/// Dao et al. 2022 (FlashAttention) Algorithm 1; Milakov & Gimelshein 2018 (online softmax).
void softmax_online(const isa::ActParams& p, BackingStore& sram);
/// ELTWISE (eltwise.cpp): out[i] = a[i] op b[b_index(i)].
void eltwise(const isa::EltwiseParams& p, BackingStore& sram);
/// POOL (pool.cpp): max (padding never wins), avg (divides by the in-bounds taps, ONNX
/// count_include_pad=0), global_avg (mean of the h_in x w_in plane).
void pool(const isa::PoolParams& p, BackingStore& sram);
/// MOVE (move.cpp): out[out_addr + e sum i_d out_stride[d]] = in[in_addr + e sum i_d in_stride[d]]
/// for every index of the extents, e = elem_bytes (the program dtype's); bytes as they are
/// (fp32 and int8 alike). Bytes of the out span between the written elements are kept.
void move(const isa::MoveParams& p, int elem_bytes, BackingStore& sram);

}  // namespace npu::hw::functional
