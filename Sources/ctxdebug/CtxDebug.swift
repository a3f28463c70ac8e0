import ArgumentParser
import ConcurrencyDebug

struct CtxDebug: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctxdebug",
        abstract: "Concurrency debugging and diagnostics for managed object contexts on Linux.",
        discussion: """
            Checking is turned on in any program built on ManagedContext with environment \
            variables (docs/concurrency-debug.md):
            \(ConcurrencyDebug.Variable.helpText)

            Start with `ctxdebug replay`: it seeds a SurfJournal store on first run and shows \
            what a main-queue export costs the UI.
            """,
        subcommands: [JournalCommand.self, ReplayCommand.self, ExportCommand.self, SeedCommand.self, CheckCommand.self, ExploreCommand.self, LintCommand.self, PortCommand.self, BenchCommand.self]
    )
}
