// The seeded generator lives in the helpers module (CtxdebugHelpers); the tests and the
// sibling packages (Fuzz/, Benchmarks/) reach it through TestSupport.
@_exported import struct CtxdebugHelpers.SplitMix
