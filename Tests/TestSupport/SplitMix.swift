// The seeded generator lives in the helpers module (CtxdebugHelpers); the tests and the
// fuzz targets and benchmarks reach it through TestSupport.
@_exported import struct CtxdebugHelpers.SplitMix
