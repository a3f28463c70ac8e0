// The violation's value types (`Violation`, `ViolationKind`, `StackFrame`,
// `AccessDescription`, `ViolationReportFile`) live in ViolationModel, which needs
// only Foundation, so that reports read them without linking the runtime. Importing
// ConcurrencyDebug still gives them.
@_exported public import ViolationModel

extension Violation {
    /// This violation with `frames` filled in (unchanged when they already are).
    public func symbolicated() -> Violation {
        guard frames.isEmpty, !addresses.isEmpty else { return self }
        var copy = self
        copy.frames = Symbolicator.shared.frames(for: addresses)
        return copy
    }

    /// The full report: the headline, the facts, the fix, and the symbolicated stack.
    public var report: String { symbolicated().formattedReport() }
}
