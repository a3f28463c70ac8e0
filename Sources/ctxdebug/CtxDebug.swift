import ArgumentParser

struct CtxDebug: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctxdebug",
        abstract: "Concurrency debugging and diagnostics for managed object contexts on Linux.",
        discussion: """
            Checking is turned on in any program built on ManagedContext with environment \
            variables (docs/concurrency-debug.md):
              CTXDEBUG_CONCURRENCY=0..3     off, check, +perform queues, +journal
              CTXDEBUG_ON_VIOLATION=MODE    trap (default), report, log
              CTXDEBUG_REPORT=FILE          JSON report; report mode exits 66
              CTXDEBUG_EXITCODE=N           exit status in report mode
              CTXDEBUG_SUPPRESSIONS=FILE    frame patterns to ignore
              CTXDEBUG_JOURNAL=FILE         access journal
              CTXDEBUG_DIAGNOSTICS=LIST     bug kinds beyond queues; opt-in ones by name, or all (docs/diagnostics.md)

            Start with `ctxdebug replay`: it seeds a SurfJournal store on first run and shows \
            what a main-queue export costs the UI.
            """,
        subcommands: [JournalCommand.self, ReplayCommand.self, ExportCommand.self, SeedCommand.self, CheckCommand.self, LintCommand.self, BenchCommand.self, StressWriterCommand.self]
    )
}
