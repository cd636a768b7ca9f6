// Reference kernels: Gemm and MatMul (ONNX opset 9-17 semantics).
//   Gemm:   Y = alpha * A' x B' + beta * C,  A' = transA ? A^T : A  [M, K],
//           B' = transB ? B^T : B  [K, N], C unidirectionally broadcast to [M, N].
//   MatMul: numpy.matmul: [..., M, K] x [..., K, N] -> [..., M, N] with broadcast batch
//           dims; a 1-D A is [1, K] and a 1-D B is [K, 1], the added dim removed after.
// Both run one core: Y[m, :] += A[m, k] * B[k, :] over k in order (an axpy on a contiguous
// row of B), columns split across threads; each output sums its k terms in order on one
// thread, so the result does not depend on the thread count.
#include <algorithm>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

/// Y[M, N] += A[M, K] x B[K, N], all row-major.
void gemm_acc(const float* a, const float* b, float* y, std::int64_t M, std::int64_t K, std::int64_t N, int threads) {
  constexpr std::int64_t kBlock = 64;  // columns per work item
  const std::int64_t blocks = (N + kBlock - 1) / kBlock;
  const int t = M * K * N < (1 << 16) ? 1 : threads;
  parallel_for(t, blocks, [&](std::int64_t b0, std::int64_t b1) {
    const std::int64_t n0 = b0 * kBlock, n1 = std::min(N, b1 * kBlock);
    for (std::int64_t m = 0; m < M; ++m) {
      float* __restrict yr = y + m * N;
      for (std::int64_t k = 0; k < K; ++k) {
        const float av = a[m * K + k];
        const float* __restrict br = b + k * N;
        for (std::int64_t n = n0; n < n1; ++n) yr[n] += av * br[n];
      }
    }
  });
}

/// Row-major transpose of a [R, C] matrix.
std::vector<float> transpose2(const float* src, std::int64_t R, std::int64_t C) {
  std::vector<float> t(static_cast<std::size_t>(R * C));
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t c = 0; c < C; ++c) t[static_cast<std::size_t>(c * R + r)] = src[r * C + c];
  return t;
}

void gemm(OpCall& call) {
  call.only_attrs({"alpha", "beta", "transA", "transB"});
  const RefTensor& a = call.fin(0);
  const RefTensor& b = call.fin(1);
  const RefTensor* c = call.opt(2);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    call.fail("Gemm needs 2-D A and B, got " + shape_str(a.shape) + " and " + shape_str(b.shape));
  const bool ta = call.node.attr_int("transA", 0) != 0, tb = call.node.attr_int("transB", 0) != 0;
  const float alpha = call.node.attr_float("alpha", 1.0f), beta = call.node.attr_float("beta", 1.0f);
  const std::int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  const std::int64_t Kb = tb ? b.shape[1] : b.shape[0], N = tb ? b.shape[0] : b.shape[1];
  if (K != Kb)
    call.fail("inner dimensions differ: A' is " + std::to_string(M) + "x" + std::to_string(K) + ", B' is " +
              std::to_string(Kb) + "x" + std::to_string(N));
  const std::vector<float> at = ta ? transpose2(a.f.data(), a.shape[0], a.shape[1]) : std::vector<float>();
  const std::vector<float> bt = tb ? transpose2(b.f.data(), b.shape[0], b.shape[1]) : std::vector<float>();
  RefTensor y = RefTensor::zeros({M, N});
  gemm_acc(ta ? at.data() : a.f.data(), tb ? bt.data() : b.f.data(), y.f.data(), M, K, N, call.threads);
  if (c && !c->is_float()) call.fail("C must be a float tensor");
  // C broadcast to [M, N]: its shape right-aligned against [M, N], each dim 1 or equal.
  std::int64_t cm = 1, cn = 1;
  if (c) {
    const auto& s = c->shape;
    if (s.size() > 2) call.fail("C has shape " + shape_str(s) + ", not broadcastable to " + std::to_string(M) + "x" + std::to_string(N));
    cn = s.empty() ? 1 : s.back();
    cm = s.size() == 2 ? s[0] : 1;
    if ((cm != 1 && cm != M) || (cn != 1 && cn != N))
      call.fail("C has shape " + shape_str(s) + ", not broadcastable to " + std::to_string(M) + "x" + std::to_string(N));
  }
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      float& v = y.f[static_cast<std::size_t>(m * N + n)];
      v *= alpha;
      if (c) v += beta * c->f[static_cast<std::size_t>((cm == 1 ? 0 : m) * cn + (cn == 1 ? 0 : n))];
    }
  call.out[0] = std::move(y);
}

void matmul(OpCall& call) {
  const RefTensor& a = call.fin(0);
  const RefTensor& b = call.fin(1);
  if (a.shape.empty() || b.shape.empty()) call.fail("MatMul operands must have rank >= 1 (numpy.matmul)");
  std::vector<std::int64_t> as = a.shape, bs = b.shape;
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const std::int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K)
    call.fail("inner dimensions differ: " + shape_str(a.shape) + " x " + shape_str(b.shape));
  // Broadcast batch dims (numpy rules).
  const std::size_t ra = as.size() - 2, rb = bs.size() - 2, r = std::max(ra, rb);
  std::vector<std::int64_t> batch(r);
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t da = d < r - ra ? 1 : as[d - (r - ra)], db = d < r - rb ? 1 : bs[d - (r - rb)];
    if (da != db && da != 1 && db != 1) call.fail("batch dims do not broadcast: " + shape_str(a.shape) + " x " + shape_str(b.shape));
    batch[d] = std::max(da, db);
  }
  std::vector<std::int64_t> out_shape = batch;
  if (!a1) out_shape.push_back(M);
  if (!b1) out_shape.push_back(N);
  RefTensor y = RefTensor::zeros(out_shape);
  const std::int64_t batches = span(batch, 0, r);
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    // Offsets of this batch in A and B (broadcast dims step 0).
    std::int64_t rem = bi, oa = 0, ob = 0, sa = M * K, sb = K * N;
    for (std::size_t d = r; d-- > 0;) {
      const std::int64_t idx = rem % batch[d];
      rem /= batch[d];
      if (d >= r - ra) {
        const std::int64_t dim = as[d - (r - ra)];
        oa += (dim == 1 ? 0 : idx) * sa;
        sa *= dim;
      }
      if (d >= r - rb) {
        const std::int64_t dim = bs[d - (r - rb)];
        ob += (dim == 1 ? 0 : idx) * sb;
        sb *= dim;
      }
    }
    gemm_acc(a.f.data() + oa, b.f.data() + ob, y.f.data() + bi * M * N, M, K, N, call.threads);
  }
  call.out[0] = std::move(y);
}

}  // namespace

void add_matmul_ops(std::map<std::string, OpKernel>& t) {
  t["Gemm"] = gemm;
  t["MatMul"] = matmul;
}

}  // namespace npu::compiler::reference
