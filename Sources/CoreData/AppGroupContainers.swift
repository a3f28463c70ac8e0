public import Foundation

extension FileManager {
    /// Apple's `containerURL(forSecurityApplicationGroupIdentifier:)`: the folder an app
    /// shares with its extensions and widgets (its app group), where apps put the store
    /// both read (Skopelos' stack, a widget's timeline). Linux has no app groups and no
    /// entitlements: with `import CoreData` it is a folder of the user's,
    /// `$XDG_DATA_HOME/app-groups/<identifier>` (`~/.local/share/app-groups/<identifier>`
    /// when XDG_DATA_HOME is unset), made if missing, so the processes of one user that
    /// name the same group share it, as an app and its extension do. Nil, as for an app
    /// that lacks the entitlement, when the identifier is empty or names no single folder
    /// (`/`, `..`), or the folder cannot be made.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        guard !groupIdentifier.isEmpty, !groupIdentifier.contains("/"), groupIdentifier != ".", groupIdentifier != ".." else { return nil }
        let data: URL
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            data = homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        }
        let folder = data.appendingPathComponent("app-groups", isDirectory: true).appendingPathComponent(groupIdentifier, isDirectory: true)
        do {
            try createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return nil
        }
        return folder
    }
}
