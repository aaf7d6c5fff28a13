//===- ShapeRules.cpp - Result shapes of nn ops ---------------------------===//
#include "transfuse/Dialect/NN/ShapeRules.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

using namespace mlir;

namespace transfuse::nn {

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return text;
}

static FailureOr<Shape> fail(std::string &why, const llvm::Twine &reason) {
  why = reason.str();
  return failure();
}

FailureOr<Shape> broadcastShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                std::string &why) {
  SmallVector<int64_t> result;
  if (!OpTrait::util::getBroadcastedShape(lhs, rhs, result))
    return fail(why, "shapes " + formatShape(lhs) + " and " + formatShape(rhs) +
                         " do not broadcast");
  return Shape(result.begin(), result.end());
}

bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  std::string ignored;
  FailureOr<Shape> joint = broadcastShape(from, to, ignored);
  return succeeded(joint) && ArrayRef<int64_t>(*joint) == to;
}

FailureOr<Shape> matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                             std::string &why) {
  if (lhs.size() < 2 || rhs.size() < 2)
    return fail(why, "matmul operands must have rank 2 or more, got " +
                         formatShape(lhs) + " and " + formatShape(rhs));
  if (lhs.back() != rhs[rhs.size() - 2])
    return fail(why, "matmul contraction sizes differ: " + formatShape(lhs) +
                         " x " + formatShape(rhs));
  FailureOr<Shape> batch =
      broadcastShape(lhs.drop_back(2), rhs.drop_back(2), why);
  if (failed(batch))
    return fail(why, "matmul batch dimensions of " + formatShape(lhs) +
                         " and " + formatShape(rhs) + " do not broadcast");
  Shape result = *batch;
  result.push_back(lhs[lhs.size() - 2]);
  result.push_back(rhs.back());
  return result;
}

FailureOr<Shape> transposeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> perm,
                                std::string &why) {
  if (perm.size() != input.size())
    return fail(why, "permutation of " + Twine(perm.size()) +
                         " entries for a tensor of rank " +
                         Twine(input.size()));
  SmallVector<bool> seen(input.size(), false);
  Shape result;
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(input.size()) || seen[axis])
      return fail(why, "permutation " + formatShape(perm) +
                           " is not a permutation of 0.." +
                           Twine(input.size() - 1));
    seen[axis] = true;
    result.push_back(input[axis]);
  }
  return result;
}

/// The number of elements of `shape`, or nothing when it exceeds int64.
static std::optional<int64_t> elementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    if (llvm::MulOverflow(count, dim, count))
      return std::nullopt;
  return count;
}

FailureOr<Shape> reshapeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> target,
                              std::string &why) {
  Shape result(target);
  int64_t known = 1;
  std::optional<size_t> inferred;
  for (auto [i, dim] : llvm::enumerate(target)) {
    if (dim == -1 && !inferred) {
      inferred = i;
      continue;
    }
    if (dim <= 0)
      return fail(why, "reshape target " + formatShape(target) +
                           " has a size that is neither positive nor one -1");
    if (llvm::MulOverflow(known, dim, known))
      return fail(why, "reshape target " + formatShape(target) +
                           " has more than 2^63 elements");
  }
  std::optional<int64_t> elements = elementCount(input);
  if (!elements)
    return fail(why, "cannot reshape " + formatShape(input) +
                         ": it has more than 2^63 elements");
  int64_t count = *elements;
  if (inferred) {
    if (count % known != 0)
      return fail(why, "cannot reshape " + formatShape(input) + " to " +
                           formatShape(target));
    result[*inferred] = count / known;
  } else if (known != count) {
    return fail(why, "cannot reshape " + formatShape(input) + " (" +
                         Twine(count) + " elements) to " + formatShape(target) +
                         " (" + Twine(known) + " elements)");
  }
  return result;
}

FailureOr<Shape> sliceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> offsets,
                            ArrayRef<int64_t> sizes, std::string &why) {
  if (offsets.size() != input.size() || sizes.size() != input.size())
    return fail(why, "slice of a rank-" + Twine(input.size()) +
                         " tensor needs that many offsets and sizes");
  for (size_t d = 0; d < input.size(); ++d)
    if (offsets[d] < 0 || sizes[d] <= 0 || offsets[d] + sizes[d] > input[d])
      return fail(why, "slice offsets " + formatShape(offsets) + " sizes " +
                           formatShape(sizes) + " leave the bounds of " +
                           formatShape(input));
  return Shape(sizes);
}

FailureOr<Shape> concatShape(ArrayRef<Shape> inputs, int64_t axis,
                             std::string &why) {
  if (inputs.empty())
    return fail(why, "concat needs at least one operand");
  Shape result = inputs.front();
  if (failed(checkAxis(result, axis, why)))
    return failure();
  for (const Shape &other : inputs.drop_front()) {
    bool compatible = other.size() == result.size();
    for (size_t d = 0; compatible && d < other.size(); ++d)
      compatible = d == static_cast<size_t>(axis) || other[d] == result[d];
    if (!compatible)
      return fail(why, "concat along axis " + Twine(axis) + " of " +
                           formatShape(inputs.front()) + " and " +
                           formatShape(other));
    result[axis] += other[axis];
  }
  return result;
}

LogicalResult checkAxis(ArrayRef<int64_t> input, int64_t axis,
                        std::string &why) {
  if (axis >= 0 && axis < static_cast<int64_t>(input.size()))
    return success();
  why = ("axis " + Twine(axis) + " is out of range for shape " +
         formatShape(input))
            .str();
  return failure();
}

FailureOr<Shape> reduceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> axes,
                             bool keepDims, std::string &why) {
  if (axes.empty())
    return fail(why, "reduction over no axes");
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (failed(checkAxis(input, axis, why)))
      return failure();
    if (i > 0 && axes[i - 1] >= axis)
      return fail(why, "reduction axes " + formatShape(axes) +
                           " are not sorted and distinct");
  }
  Shape result;
  for (auto [d, dim] : llvm::enumerate(input)) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(d));
    if (!reduced)
      result.push_back(dim);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

FailureOr<Shape> embeddingShape(ArrayRef<int64_t> table,
                                ArrayRef<int64_t> indices, std::string &why) {
  if (table.size() != 2)
    return fail(why, "embedding table must be [vocab, dim], got " +
                         formatShape(table));
  Shape result(indices);
  result.push_back(table[1]);
  return result;
}

FailureOr<Shape> attentionShape(ArrayRef<int64_t> q, ArrayRef<int64_t> k,
                                ArrayRef<int64_t> v,
                                std::optional<ArrayRef<int64_t>> mask,
                                std::string &why) {
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return fail(why, "attention operands must be [batch, heads, seq, dim], "
                     "got q " +
                         formatShape(q) + ", k " + formatShape(k) + ", v " +
                         formatShape(v));
  if (q[0] != k[0] || q[0] != v[0] || q[1] != k[1] || q[1] != v[1])
    return fail(why, "attention batch and heads differ: q " + formatShape(q) +
                         ", k " + formatShape(k) + ", v " + formatShape(v));
  if (q[3] != k[3])
    return fail(why, "query and key widths differ: q " + formatShape(q) +
                         ", k " + formatShape(k));
  if (k[2] != v[2])
    return fail(why, "key and value lengths differ: k " + formatShape(k) +
                         ", v " + formatShape(v));
  Shape scores = {q[0], q[1], q[2], k[2]};
  if (mask && !broadcastsTo(*mask, scores))
    return fail(why, "mask " + formatShape(*mask) +
                         " does not broadcast to the scores " +
                         formatShape(scores));
  return Shape{q[0], q[1], q[2], v[3]};
}

/// Fewer than two normalised elements leave N - 1 = 0 to divide by.
static LogicalResult checkUnbiasedCount(ArrayRef<int64_t> normalized,
                                        bool unbiased, std::string &why) {
  std::optional<int64_t> count = elementCount(normalized);
  if (!unbiased || !count || *count >= 2 ||
      llvm::any_of(normalized, [](int64_t dim) { return dim < 0; }))
    return success();
  why = "an unbiased variance needs at least 2 normalised elements, got " +
        std::to_string(*count);
  return failure();
}

FailureOr<Shape> layerNormShape(ArrayRef<int64_t> input,
                                ArrayRef<int64_t> gamma,
                                std::optional<ArrayRef<int64_t>> beta,
                                std::optional<ArrayRef<int64_t>> residual,
                                int64_t axis, bool unbiased, std::string &why) {
  if (failed(checkAxis(input, axis, why)))
    return failure();
  ArrayRef<int64_t> normalized = input.drop_front(axis);
  if (gamma != normalized)
    return fail(why, "layer norm of " + formatShape(input) + " from axis " +
                         Twine(axis) + " needs gamma " +
                         formatShape(normalized) + ", got " +
                         formatShape(gamma));
  if (beta && *beta != normalized)
    return fail(why, "layer norm of " + formatShape(input) + " from axis " +
                         Twine(axis) + " needs beta " +
                         formatShape(normalized) + ", got " +
                         formatShape(*beta));
  if (failed(checkUnbiasedCount(normalized, unbiased, why)))
    return failure();
  if (residual && *residual != input)
    return fail(why, "residual " + formatShape(*residual) +
                         " differs from the input " + formatShape(input));
  return Shape(input);
}

FailureOr<Shape> fusedMatmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                  std::optional<ArrayRef<int64_t>> bias,
                                  bool transposeRhs, std::string &why) {
  Shape rhsShape(rhs);
  if (transposeRhs && rhsShape.size() >= 2)
    std::swap(rhsShape[rhsShape.size() - 1], rhsShape[rhsShape.size() - 2]);
  FailureOr<Shape> product = matmulShape(lhs, rhsShape, why);
  if (failed(product))
    return failure();
  if (bias && !broadcastsTo(*bias, *product))
    return fail(why, "bias " + formatShape(*bias) +
                         " does not broadcast to the product " +
                         formatShape(*product));
  return product;
}

LogicalResult checkLayerNormGrad(ArrayRef<int64_t> grad,
                                 ArrayRef<int64_t> input,
                                 ArrayRef<int64_t> gamma, int64_t axis,
                                 bool unbiased, std::string &why) {
  if (failed(checkAxis(input, axis, why)))
    return failure();
  if (grad != input) {
    why = "gradient " + formatShape(grad) + " differs from the input " +
          formatShape(input);
    return failure();
  }
  ArrayRef<int64_t> normalized = input.drop_front(axis);
  if (gamma != normalized) {
    why = ("layer norm of " + formatShape(input) + " from axis " + Twine(axis) +
           " needs gamma " + formatShape(normalized) + ", got " +
           formatShape(gamma))
              .str();
    return failure();
  }
  return checkUnbiasedCount(normalized, unbiased, why);
}

FailureOr<Shape> embeddingGradShape(ArrayRef<int64_t> grad,
                                    ArrayRef<int64_t> indices, int64_t rows,
                                    std::string &why) {
  if (rows <= 0)
    return fail(why, "embedding gradient needs a positive num_rows, got " +
                         Twine(rows));
  if (grad.empty() || grad.drop_back() != indices)
    return fail(why, "embedding gradient " + formatShape(grad) +
                         " must be the indices " + formatShape(indices) +
                         " and one more dimension");
  return Shape{rows, grad.back()};
}

LogicalResult checkLabelSmoothing(double smoothing, std::string &why) {
  if (smoothing >= 0.0 && smoothing <= 1.0)
    return success();
  llvm::raw_string_ostream os(why);
  os << "label smoothing must be in [0, 1], got " << smoothing;
  return failure();
}

LogicalResult checkClassification(ArrayRef<int64_t> logits,
                                  ArrayRef<int64_t> labels, std::string &why) {
  if (logits.empty()) {
    why = "logits need a class dimension, got []";
    return failure();
  }
  if (logits.drop_back() != labels) {
    why = "logits " + formatShape(logits) + " need labels " +
          formatShape(logits.drop_back()) + ", got " + formatShape(labels);
    return failure();
  }
  return success();
}

} // namespace transfuse::nn
