//===- NNAttrs.cpp - Attributes and enums of the nn dialect ---------------===//
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace transfuse::nn;

#include "transfuse/Dialect/NN/NNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "transfuse/Dialect/NN/NNAttrs.cpp.inc"

void NNDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "transfuse/Dialect/NN/NNAttrs.cpp.inc"
      >();
}

/// How many numbers follow each kind in `#nn.init<kind(a, b)>`.
static unsigned initArity(InitKind kind) {
  switch (kind) {
  case InitKind::zeros:
  case InitKind::ones:
  case InitKind::external:
    return 0;
  case InitKind::constant:
    return 1;
  case InitKind::uniform:
  case InitKind::normal:
    return 2;
  }
  llvm_unreachable("unknown init kind");
}

Attribute InitAttr::parse(AsmParser &parser, Type) {
  StringRef keyword;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<InitKind> kind = symbolizeInitKind(keyword);
  if (!kind) {
    parser.emitError(kindLoc, "unknown init kind '") << keyword << "'";
    return {};
  }
  double values[2] = {0.0, 0.0};
  unsigned arity = initArity(*kind);
  if (arity > 0) {
    if (parser.parseLParen())
      return {};
    for (unsigned i = 0; i < arity; ++i)
      if ((i > 0 && parser.parseComma()) || parser.parseFloat(values[i]))
        return {};
    if (parser.parseRParen())
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<InitAttr>(parser.getContext(), *kind,
                                     APFloat(values[0]), APFloat(values[1]));
}

void InitAttr::print(AsmPrinter &printer) const {
  printer << '<' << stringifyInitKind(getKind());
  unsigned arity = initArity(getKind());
  if (arity > 0) {
    printer << '(';
    printer.printFloat(getA());
    if (arity > 1) {
      printer << ", ";
      printer.printFloat(getB());
    }
    printer << ')';
  }
  printer << '>';
}

LogicalResult InitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               InitKind kind, APFloat low, APFloat high) {
  double a = low.convertToDouble(), b = high.convertToDouble();
  // Unused numbers must be zero: they are not printed, so anything else
  // would not survive a round trip through text.
  unsigned arity = initArity(kind);
  if ((arity < 1 && a != 0.0) || (arity < 2 && b != 0.0))
    return emitError() << stringifyInitKind(kind) << " init takes " << arity
                       << " numbers";
  if (kind == InitKind::uniform && !(a <= b))
    return emitError() << "uniform init needs low <= high, got (" << a << ", "
                       << b << ")";
  if (kind == InitKind::normal && !(b >= 0.0))
    return emitError() << "normal init needs std >= 0, got " << b;
  return success();
}
