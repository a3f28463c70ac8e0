/// Where this module's sources are, so that the checker can tell its frames (a
/// `LockedValue` held around a runtime operation) from the user's.
package enum HelpersSource {
    package static let filePath = #filePath
}
