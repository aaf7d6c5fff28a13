//===- Registration.h - Dialects and passes of Transfuse ------------------===//
#ifndef TRANSFUSE_REGISTRATION_H
#define TRANSFUSE_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace transfuse {

/// The dialects a Transfuse module may contain.
void registerDialects(mlir::DialectRegistry &registry);

/// Transfuse's passes and the upstream ones its pipeline uses, so that
/// transfuse-opt and `--mlir-print-ir-*` know them by name.
void registerPasses();

} // namespace transfuse

#endif // TRANSFUSE_REGISTRATION_H
