//===- OnnxNode.h - Converting one ONNX node to nn ops ----------*- C++ -*-===//
//
// Private to the ONNX importer. A NodeImporter gives a converter what it
// needs for one node: its inputs (as nn values, or as host tensors when
// they are known at compile time), its attributes, a builder, and a place
// for its outputs. Converters fold a node whose inputs are all known on the
// host, and otherwise build nn ops.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_LIB_IMPORT_ONNX_ONNXNODE_H
#define TRANSFUSE_LIB_IMPORT_ONNX_ONNXNODE_H

#include "HostTensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <memory>
#include <optional>

namespace transfuse::onnx_import {

using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::Value;

/// What the importer knows of one ONNX value: an nn value computed at run
/// time, or a tensor known at compile time (materialised as a constant or,
/// for a float initializer, a parameter, when a run-time op reads it).
struct OnnxValue {
  Value value;
  std::shared_ptr<const HostTensor> constant;
  /// A float initializer: trainable, never folded.
  bool isParameter = false;
};

/// Materialises known tensors as nn values; owned by the importer.
class ValueMaterializer {
public:
  virtual ~ValueMaterializer() = default;
  /// The nn value of `name`, declaring its parameter or constant first.
  virtual FailureOr<Value> materialize(llvm::StringRef name,
                                       OnnxValue &known) = 0;
};

class NodeImporter {
public:
  NodeImporter(const onnx::NodeProto &node, int64_t opset, mlir::OpBuilder &b,
               mlir::Location loc, llvm::StringMap<OnnxValue> &values,
               const llvm::StringSet<> &readNames,
               ValueMaterializer &materializer)
      : node(node), opset(opset), b(b), loc(loc), values(values),
        readNames(readNames), materializer(materializer) {}

  const onnx::NodeProto &getNode() const { return node; }
  int64_t getOpset() const { return opset; }
  mlir::OpBuilder &builder() { return b; }
  mlir::Location getLoc() const { return loc; }
  mlir::MLIRContext *getContext() { return b.getContext(); }

  /// An error at the node; the importer prefixes its name and op type.
  mlir::InFlightDiagnostic error() { return mlir::emitError(loc); }

  /// Whether input `i` is given (optional inputs may be absent or "").
  bool hasInput(int i) const {
    return i < node.input_size() && !node.input(i).empty();
  }
  /// Input `i` as an nn value.
  FailureOr<Value> input(int i);
  /// Input `i` when known at compile time and not a parameter, else null.
  const HostTensor *constantInput(int i) const;
  /// Input `i`, which must be known at compile time (`what` says what it
  /// is, for the error).
  FailureOr<const HostTensor *> requireConstant(int i, llvm::StringRef what);
  /// Whether every given input is known at compile time, no parameter
  /// among them.
  bool allInputsConstant() const;
  /// The ONNX element type of input `i` (known or from its nn type).
  int32_t inputType(int i) const;
  /// The static shape of input `i`.
  llvm::SmallVector<int64_t, 4> inputShape(int i) const;

  /// The integers of a known 1-D input (a shape, axes, starts, ...).
  FailureOr<llvm::SmallVector<int64_t>> intsInput(int i, llvm::StringRef what);
  /// The axes of Unsqueeze, Squeeze and the reductions: an attribute before
  /// opset `inputSince`, the optional input 1 from it on; none if absent.
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes(int64_t inputSince);

  const onnx::AttributeProto *attribute(llvm::StringRef name) const;
  int64_t intAttr(llvm::StringRef name, int64_t fallback) const;
  float floatAttr(llvm::StringRef name, float fallback) const;
  std::optional<llvm::SmallVector<int64_t>>
  intsAttr(llvm::StringRef name) const;

  /// An axis in [-rank, rank) made non-negative; fails with an error
  /// naming `what` when out of range.
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                   llvm::StringRef what);
  /// The `axis` attribute (`fallback` when absent), an axis of input 0.
  FailureOr<int64_t> axisOfInput(int64_t fallback) {
    return normalizeAxis(intAttr("axis", fallback), inputShape(0).size(),
                         "axis");
  }

  void setOutput(int i, Value value);
  /// Sets output 0 to `result` when the op could be built.
  LogicalResult setResult(FailureOr<Value> result);
  /// Output `i` is input `input`, whatever it is (Identity); a parameter
  /// becomes a parameter of the output's name.
  void forwardInput(int i, int input);
  void setOutput(int i, HostTensor tensor);
  /// Fails, naming the output, if output `i` (beyond those the converter
  /// sets) is read by the graph.
  LogicalResult refuseOutputsFrom(int i);

  /// Creates `OpTy` after its own type inference accepted the operands; on
  /// failure the inference's error is reported at the node.
  template <typename OpTy, typename... Args>
  FailureOr<Value> create(Args &&...args) {
    mlir::OperationState state(loc, OpTy::getOperationName());
    OpTy::build(b, state, mlir::NoneType::get(getContext()),
                std::forward<Args>(args)...);
    llvm::SmallVector<mlir::Type> types;
    if (mlir::failed(OpTy::inferReturnTypes(
            getContext(), loc, state.operands,
            state.attributes.getDictionary(getContext()),
            state.getRawProperties(), state.regions, types)))
      return mlir::failure();
    state.types.assign(types.begin(), types.end());
    return b.create(state)->getResult(0);
  }

  /// A rank-0 constant of `elementType`.
  Value scalar(double value, mlir::Type elementType);

private:
  const onnx::NodeProto &node;
  int64_t opset;
  mlir::OpBuilder &b;
  mlir::Location loc;
  llvm::StringMap<OnnxValue> &values;
  /// The names some node or the graph's outputs read.
  const llvm::StringSet<> &readNames;
  ValueMaterializer &materializer;
};

/// Converts a node; the outputs are set on success.
using Converter = LogicalResult (*)(NodeImporter &);

/// A converter and how many inputs its op takes (the importer checks the
/// count, and that the first `minInputs` are given, before it runs).
struct ConverterEntry {
  Converter convert;
  int minInputs;
  /// -1: any number, every one required (Concat).
  int maxInputs;
};

/// The converter of each supported op type of the default domain.
const llvm::StringMap<ConverterEntry> &converters();

/// Converters by family, merged by converters().
void addElementwiseConverters(llvm::StringMap<ConverterEntry> &table);
void addShapeConverters(llvm::StringMap<ConverterEntry> &table);
void addLayerConverters(llvm::StringMap<ConverterEntry> &table);

} // namespace transfuse::onnx_import

#endif // TRANSFUSE_LIB_IMPORT_ONNX_ONNXNODE_H
