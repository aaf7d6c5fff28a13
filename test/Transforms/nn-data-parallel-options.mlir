// RUN: not transfuse-opt %s -nn-data-parallel="bucket-bytes=0" 2>&1 | FileCheck %s
// CHECK: error: nn-data-parallel: bucket-bytes must be positive, got 0
module {
}
