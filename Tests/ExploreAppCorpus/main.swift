// The app-style corpus of `ctxdebug explore` (issue 37, Tests/ExploreAppCorpus/README.md):
// ordering bugs written as apps and their tests write them (dispatchMain() with UI hops,
// DispatchGroup, semaphores, asyncAfter, Task, expectations), each with its fixed twin.
// No case knows it is explored: run it under `ctxdebug explore -- PROGRAM CASE`.
// Usage: ctxdebug-explore-app-corpus CASE | list
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first else {
    FileHandle.standardError.write(Data("usage: ctxdebug-explore-app-corpus CASE | list\n".utf8))
    exit(64)
}
if name == "list" {
    for entry in AppCase.all { print("\(entry.name)\t\(entry.summary)") }
    exit(0)
}
guard let entry = AppCase.all.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("ctxdebug-explore-app-corpus: no case \(name); `list` names them\n".utf8))
    exit(64)
}
entry.run()
