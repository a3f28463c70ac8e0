import ArgumentParser

// `ctxdebug bench …` is the benchmarks' own executable (BenchCommand.swift): every
// argument after `bench`, `--help` included, is its own.
if CommandLine.arguments.dropFirst().first == "bench" {
    do {
        try BenchForwarder.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
    } catch {
        CtxDebug.exit(withError: error)
    }
}
CtxDebug.main()
