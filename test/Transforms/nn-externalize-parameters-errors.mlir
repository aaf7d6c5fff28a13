// RUN: transfuse-opt %s -split-input-file -nn-externalize-parameters -verify-diagnostics

// -nn-externalize-parameters gives a storing function its parameters as
// buffers and every call only the parameters, as tensors: what it cannot
// rewrite so is an error at the store or the call.

module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @step(%c: i1, %x: tensor<2xf32>) {
    scf.if %c {
      // expected-error @below {{'nn.param_store' op must be directly in the body of its function, whose buffer it updates}}
      nn.param_store %x to @w : tensor<2xf32>
    }
    return
  }
}

// -----

module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @step(%x: tensor<2xf32>, %y: tensor<2xf32>) {
    nn.param_store %x to @w : tensor<2xf32>
    // expected-error @below {{'nn.param_store' op stores 'w' a second time in one function}}
    nn.param_store %y to @w : tensor<2xf32>
    return
  }
}

// -----

module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @step(%x: tensor<2xf32>) {
    nn.param_store %x to @w : tensor<2xf32>
    return
  }
  func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
    // expected-error @below {{'func.call' op calls @step, which stores parameters or reads optimizer state or the decoding cache: only an entry point may}}
    call @step(%x) : (tensor<2xf32>) -> ()
    %w = nn.param_load @w : tensor<2xf32>
    return %w : tensor<2xf32>
  }
}

// -----

module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  nn.state @s : tensor<2xf32>
  func.func @moment() -> tensor<2xf32> {
    %s = nn.param_load @s : tensor<2xf32>
    return %s : tensor<2xf32>
  }
  func.func @forward() -> tensor<2xf32> {
    // expected-error @below {{'func.call' op calls @moment, which stores parameters or reads optimizer state or the decoding cache: only an entry point may}}
    %s = call @moment() : () -> tensor<2xf32>
    return %s : tensor<2xf32>
  }
}
