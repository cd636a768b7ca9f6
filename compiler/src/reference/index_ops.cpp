// Reference kernels of the indexed ops detection heads use (ONNX Operators.md):
//   GatherND (opset 11-13; batch_dims from 12): data [d0, ...], indices [i0, ..., i_{m-1}, q]
//     integer; with batch_dims b the first b dims of data and indices are shared batch dims.
//     out shape = indices.shape[:-1] + data.shape[b + q:]; out[batch, i...] =
//     data[batch, indices[batch, i..., 0], ..., indices[batch, i..., q-1], :]. A negative
//     index counts from the end of its dim (+ d); one outside [-d, d) is an error naming it.
//   ScatterElements (opset 11; reduction from 16: none, add, mul, max, min): out = data, then
//     for every element e of indices (same shape as updates) out[e with its `axis` coordinate
//     replaced by indices[e]] = updates[e] (reduction none; add/mul/max/min combine with the
//     value there), elements in row-major order. Negative indices count from the end; one
//     outside [-d, d) is an error naming it.
// Float and integer data alike.
#include <algorithm>

#include "reference/ref_ops.hpp"

namespace npu::compiler::reference {
namespace {

const RefTensor& need(const OpCall& call, std::size_t k) {
  const RefTensor* t = call.opt(k);
  if (!t) call.fail("input " + std::to_string(k) + " is required but absent");
  return *t;
}

// Index v into a dim of size d (negative: + d), or a failure naming it.
std::int64_t wrap(const OpCall& call, std::int64_t v, std::int64_t d, const std::string& where) {
  if (v < -d || v >= d)
    call.fail("index " + std::to_string(v) + " (" + where + ") is outside [-" + std::to_string(d) + ", " +
              std::to_string(d) + ")");
  return v < 0 ? v + d : v;
}

void gather_nd(OpCall& call) {
  call.only_attrs({"batch_dims"});
  const RefTensor& x = need(call, 0);
  const RefTensor& idx = need(call, 1);
  if (idx.is_float()) call.fail("indices must be an integer tensor");
  const std::int64_t b = call.node.attr_int("batch_dims", 0);
  if (idx.shape.empty()) call.fail("indices must have rank >= 1");
  const std::int64_t q = idx.shape.back();
  if (b < 0 || b >= std::int64_t(idx.shape.size()) || b + q > std::int64_t(x.shape.size()))
    call.fail("batch_dims " + std::to_string(b) + " and index tuples of " + std::to_string(q) + " do not fit data " +
              shape_str(x.shape) + " and indices " + shape_str(idx.shape));
  for (std::int64_t d = 0; d < b; ++d)
    if (x.shape[std::size_t(d)] != idx.shape[std::size_t(d)]) call.fail("the batch dims of data and indices differ");
  const std::int64_t batches = span(x.shape, 0, std::size_t(b));
  const std::int64_t tuples = span(idx.shape, std::size_t(b), idx.shape.size() - 1);  // per batch
  const std::int64_t slice = span(x.shape, std::size_t(b + q), x.shape.size());
  const std::int64_t per_batch = span(x.shape, std::size_t(b), x.shape.size());
  const std::vector<std::int64_t> st = strides_of(x.shape);
  RefTensor y;
  y.type = x.type;
  y.shape.assign(idx.shape.begin(), idx.shape.end() - 1);
  y.shape.insert(y.shape.end(), x.shape.begin() + std::ptrdiff_t(b + q), x.shape.end());
  for (std::int64_t n = 0; n < batches; ++n)
    for (std::int64_t t = 0; t < tuples; ++t) {
      std::int64_t off = n * per_batch;
      for (std::int64_t j = 0; j < q; ++j) {
        const std::size_t at = std::size_t((n * tuples + t) * q + j);
        off += wrap(call, idx.i[at], x.shape[std::size_t(b + j)], "tuple " + std::to_string(n * tuples + t)) *
               st[std::size_t(b + j)];
      }
      if (x.is_float()) y.f.insert(y.f.end(), x.f.begin() + off, x.f.begin() + off + slice);
      else y.i.insert(y.i.end(), x.i.begin() + off, x.i.begin() + off + slice);
    }
  call.out[0] = std::move(y);
}

template <class T>
void combine(T& at, T v, const std::string& how) {
  if (how == "add") at = at + v;
  else if (how == "mul") at = at * v;
  else if (how == "max") at = std::max(at, v);
  else if (how == "min") at = std::min(at, v);
  else at = v;
}

void scatter_elements(OpCall& call) {
  call.only_attrs({"axis", "reduction"});
  const RefTensor& x = need(call, 0);
  const RefTensor& idx = need(call, 1);
  const RefTensor& u = need(call, 2);
  if (idx.is_float()) call.fail("indices must be an integer tensor");
  if (idx.shape != u.shape) call.fail("indices " + shape_str(idx.shape) + " and updates " + shape_str(u.shape) + " differ");
  if (u.is_float() != x.is_float()) call.fail("updates and data have different element types");
  if (idx.shape.size() != x.shape.size()) call.fail("indices and data have different ranks");
  const std::string how = call.node.attr_string("reduction", "none");
  if (how != "none" && how != "add" && how != "mul" && how != "max" && how != "min")
    call.fail("reduction '" + how + "' is not none, add, mul, max or min");
  const std::size_t axis = norm_axis(call, call.node.attr_int("axis", 0), x.shape.size());
  const std::vector<std::int64_t> xs = strides_of(x.shape), is = strides_of(idx.shape);
  RefTensor y = x;
  for (std::int64_t e = 0; e < idx.elements(); ++e) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < x.shape.size(); ++d) {
      std::int64_t c = (e / is[d]) % idx.shape[d];
      if (d == axis) c = wrap(call, idx.i[std::size_t(e)], x.shape[d], "element " + std::to_string(e));
      else if (c >= x.shape[d]) call.fail("indices " + shape_str(idx.shape) + " exceed data " + shape_str(x.shape));
      off += c * xs[d];
    }
    if (y.is_float()) combine(y.f[std::size_t(off)], u.f[std::size_t(e)], how);
    else combine(y.i[std::size_t(off)], u.i[std::size_t(e)], how);
  }
  call.out[0] = std::move(y);
}

}  // namespace

void add_index_ops(std::map<std::string, OpKernel>& t) {
  t["GatherND"] = gather_nd;
  t["ScatterElements"] = scatter_elements;
}

}  // namespace npu::compiler::reference
