/// Darwin's time constants (`<dispatch/time.h>`), which code for Apple platforms gets
/// with Foundation and computes `DispatchTime` offsets from
/// (`DispatchTime.now() + Double(Int64(2 * NSEC_PER_SEC)) / Double(NSEC_PER_SEC)`, as
/// AERecord's tests do); Linux's Glibc and Dispatch do not export them. With
/// `import CoreData` they have Darwin's type (`UInt64`) and values.
public let NSEC_PER_SEC: UInt64 = 1_000_000_000
public let NSEC_PER_MSEC: UInt64 = 1_000_000
public let NSEC_PER_USEC: UInt64 = 1_000
public let USEC_PER_SEC: UInt64 = 1_000_000
