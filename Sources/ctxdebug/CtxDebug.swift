import ArgumentParser

struct CtxDebug: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctxdebug",
        abstract: "Concurrency debugging and diagnostics for managed object contexts on Linux.",
        subcommands: [JournalCommand.self, ReplayCommand.self, ExportCommand.self, SeedCommand.self, CheckCommand.self, BenchCommand.self, StressWriterCommand.self]
    )
}
