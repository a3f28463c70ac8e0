import CConcurrencyDebug
import CtxdebugHelpers
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ConcurrencyDebug {
    /// Kinds of violation beyond queue confinement that a library built on the checker
    /// reports (ManagedContext's diagnostics), registered with `register(_:)` before its
    /// first use. They are part of the one configuration: the checker reads their
    /// variables from the environment when it reads its own, prints their warnings with
    /// its own (when checking is on), and runs their exit work from its one exit hook,
    /// before its own exit report.
    @_spi(Runtime) public struct DiagnosticKinds: Sendable {
        /// The variable that chooses the kinds (`CTXDEBUG_DIAGNOSTICS`): a comma-separated
        /// list of kind names, `default`, `all` or `none`, where `-name` removes one.
        public var variable: String
        /// Every kind, in the order warnings list them.
        public var all: [ViolationKind]
        /// The kinds on when the variable is unset.
        public var defaults: Set<ViolationKind>
        /// Variables that each take a non-negative number (thresholds).
        public var thresholds: [String]
        /// Takes what was read from the environment (once per process).
        public var apply: @Sendable (DiagnosticChoice) -> Void
        /// Runs at exit, before the checker's own exit report (which may end the process).
        public var atExit: @Sendable () -> Void

        public init(
            variable: String, all: [ViolationKind], defaults: Set<ViolationKind>, thresholds: [String],
            apply: @escaping @Sendable (DiagnosticChoice) -> Void, atExit: @escaping @Sendable () -> Void
        ) {
            self.variable = variable
            self.all = all
            self.defaults = defaults
            self.thresholds = thresholds
            self.apply = apply
            self.atExit = atExit
        }

        /// The choice in `environment`. Never fails: each value it cannot read gives one
        /// line in `warnings` (without the `ctxdebug: warning: ` the checker puts before
        /// it), and is left out.
        public func read(environment: [String: String]) -> (DiagnosticChoice, warnings: [String]) {
            var choice = DiagnosticChoice(enabled: defaults, thresholds: [:])
            var warnings: [String] = []
            if let list = environment[variable] {
                choice.enabled = enabledKinds(list, warnings: &warnings)
            }
            for name in thresholds {
                guard let raw = environment[name] else { continue }
                if let value = EnvironmentValue.number(raw, atLeast: 0) {
                    choice.thresholds[name] = value
                } else {
                    warnings.append("\(name)=\"\(raw)\" is not a non-negative number; using the default")
                }
            }
            return (choice, warnings)
        }

        private func enabledKinds(_ list: String, warnings: inout [String]) -> Set<ViolationKind> {
            var enabled = Set<ViolationKind>()
            let known = Set(all.map(\.rawValue))
            for raw in EnvironmentValue.list(list) {
                let remove = raw.hasPrefix("-")
                let name = remove ? String(raw.dropFirst()) : String(raw)
                let kinds: Set<ViolationKind>
                switch name {
                case "all": kinds = Set(all)
                case "default": kinds = defaults
                case "none":
                    kinds = []
                    if !remove { enabled = [] }
                default:
                    guard known.contains(name) else {
                        warnings.append(
                            "\(variable): unknown diagnostic '\(name)' ignored; known: \(all.map(\.rawValue).joined(separator: ", ")), all, default, none")
                        continue
                    }
                    kinds = [ViolationKind(name)]
                }
                if remove { enabled.subtract(kinds) } else { enabled.formUnion(kinds) }
            }
            return enabled
        }
    }

    /// What the environment chose for registered `DiagnosticKinds`.
    @_spi(Runtime) public struct DiagnosticChoice: Sendable, Equatable {
        public var enabled: Set<ViolationKind>
        /// The thresholds that were set to a valid value, by variable; the others keep
        /// the library's defaults.
        public var thresholds: [String: Double]
    }

    /// Adds `kinds` to the one configuration. When the checker has read its
    /// configuration already, their variables are read now, and their warnings printed.
    @_spi(Runtime) public static func register(_ kinds: DiagnosticKinds) {
        RegisteredDiagnostics.shared.add(kinds)
        guard AccessMode.current != .unconfigured else { return }
        let warnings = RegisteredDiagnostics.shared.readUnread()
        if Checker.shared.level > 0 && !warnings.isEmpty { writeToStandardError(warnings.joined(separator: "\n") + "\n") }
    }
}

/// The registered `DiagnosticKinds` of this process, each read from the environment
/// once and run at exit once.
final class RegisteredDiagnostics: Sendable {
    static let shared = RegisteredDiagnostics()

    private struct Entry {
        var kinds: ConcurrencyDebug.DiagnosticKinds
        var read = false
    }

    private let entries = LockedValue<[Entry]>([])
    private let exited = Atomic<Bool>(false)

    func add(_ kinds: ConcurrencyDebug.DiagnosticKinds) {
        entries.withLock { $0.append(Entry(kinds: kinds)) }
    }

    /// Reads every registration not read yet from this process's environment and hands
    /// each its choice; returns their warnings, as printed lines.
    func readUnread() -> [String] {
        let unread = entries.withLock { entries in
            let indices = entries.indices.filter { !entries[$0].read }
            for i in indices { entries[i].read = true }
            return indices.map { entries[$0].kinds }
        }
        var warnings: [String] = []
        let environment = ConcurrencyDebug.Variable.current()
        for kinds in unread {
            let (choice, lines) = kinds.read(environment: environment)
            kinds.apply(choice)
            warnings += lines.map { "ctxdebug: warning: " + $0 }
        }
        return warnings
    }

    /// Each registration's exit work, once, in the order registered.
    func runAtExit() {
        guard !exited.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for kinds in entries.withLock({ $0.map(\.kinds) }) { kinds.atExit() }
    }
}
