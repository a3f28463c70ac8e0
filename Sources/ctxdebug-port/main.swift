// The CoreDataPort build plugin's tool: `ctxdebug port` without the rest of the CLI, so
// a user's build compiles only the rewriter (swift-syntax), not the runtime. The same
// options as `ctxdebug port` (see its --help), plus what the plugin needs:
//   --relative-to DIR      name outputs by their path under DIR (the package root)
//   --no-model-copy        do not copy the models into the output folder
//   --no-generated         do not write the models' generated entity classes
//   --combine-generated    write a model's generated classes as one Model+CoreDataGenerated.swift
//   --index SOURCE         a source (or folder) only read, for the constants the ported ones name
// Exit status: 0 ported; 1 a construct cannot be ported (file:line:col: error: …);
// 64 usage; 65 an input cannot be read; 73 an output cannot be written.
import CoreDataPorter
import Foundation

func fail(_ message: String, _ status: Int32) -> Never {
    FileHandle.standardError.write(Data("ctxdebug-port: error: \(message)\n".utf8))
    exit(status)
}

let usage = """
    USAGE: ctxdebug-port SOURCE... [--model M.xcdatamodeld ...] --output DIR [--check]
                         [--relative-to DIR] [--no-model-copy] [--no-generated] [--combine-generated]
                         [--index SOURCE ...]

    The CoreDataPort build plugin's tool: `ctxdebug port` (its --help says what is
    rewritten) without the rest of the CLI. You rarely run it yourself: the plugin
    does, for every eight files of the target's coredata-port.json.

    OPTIONS:
      --model M              a model whose entities the sources use (repeatable)
      --output DIR           where the ported copies (NAME.ported.swift) go
      --check                report what cannot be ported; write nothing
      --relative-to DIR      name outputs by their path under DIR (the package root)
      --no-model-copy        do not copy the models into DIR
      --no-generated         do not write the models' generated entity classes
      --combine-generated    write a model's generated classes as one Model+CoreDataGenerated.swift
      --index SOURCE         a Swift file or folder only read, for the constants the ported
                             files name (a model's extension, a #selector kept in a let);
                             the plugin gives every command all the configuration's sources

    EXIT STATUS: 0 ported; 1 a construct cannot be ported (file:line:col: error: …);
    64 usage; 65 an input cannot be read; 73 an output cannot be written.
    """

var sources: [String] = []
var models: [String] = []
var output: String?
var relativeTo = FileManager.default.currentDirectoryPath
var check = false
var copiesModels = true
var generates = true
var combines = false
var indexSources: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let v = arguments.popFirst() else { fail("\(argument) needs a value", 64) }
        return v
    }
    switch argument {
    case "--model": models.append(value())
    case "--output": output = value()
    case "--relative-to": relativeTo = value()
    case "--check": check = true
    case "--no-model-copy": copiesModels = false
    case "--no-generated": generates = false
    case "--combine-generated": combines = true
    case "--index": indexSources.append(value())
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        if argument.hasPrefix("--") { fail("unknown option \(argument) (see --help)", 64) }
        sources.append(argument)
    }
}
guard let output else { fail("--output DIR is required", 64) }
var job = PortJob(sources: sources, models: models, output: output, relativeTo: relativeTo)
job.checkOnly = check
job.copiesModels = copiesModels
job.generatesClasses = generates
job.combinesGenerated = combines
job.indexSources = indexSources
do {
    let report = try Porter.run(job)
    for d in report.diagnostics { FileHandle.standardError.write(Data("\(d)\n".utf8)) }
    if !report.diagnostics.isEmpty { exit(1) }
} catch {
    fail("\(error)", error.code == .unwritable ? 73 : 65)
}
