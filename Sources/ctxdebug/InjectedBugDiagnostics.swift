import ConcurrencyDebug
import Foundation
import ManagedContext
import Replay

extension InjectedBug {
    /// The opt-in diagnostic this bug is caught as (docs/diagnostics.md), which
    /// `--inject-bug` turns on; nil when the default set catches it.
    var optInDiagnostic: ViolationKind? {
        switch self {
        case .cancelledEntry: .abandonedInsert
        case .missingMerge: .missingMerge
        default: nil
        }
    }
}

enum InjectedBugDiagnostics {
    static let variable = ConcurrencyDebug.Variable.diagnostics

    /// Before the first context: when `bug` is caught by an opt-in diagnostic, turns it
    /// on (`CTXDEBUG_DIAGNOSTICS=default,KIND`) if the variable is unset, and says so on
    /// stderr; warns when the variable is set and leaves the kind out.
    static func enable(for bug: InjectedBug, environment: [String: String]) {
        guard let kind = bug.optInDiagnostic else { return }
        if let list = variable.value(in: environment) {
            let (settings, _) = Diagnostics.Settings.read(environment: [variable.name: list])
            if !settings.enabled.contains(kind) {
                say("ctxdebug: warning: \(variable)=\(list) leaves out \(kind), so the injected bug \(bug.rawValue) will not be caught; add ,\(kind) to it.")
            }
            return
        }
        variable.set("default,\(kind)")
        say("ctxdebug: --inject-bug \(bug.rawValue): turning on the opt-in diagnostic \(kind) (\(variable)=default,\(kind)) so the checker catches it.")
    }
}
