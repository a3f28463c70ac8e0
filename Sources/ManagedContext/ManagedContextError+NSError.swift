public import Foundation

/// A runtime error as Core Data reports it: an `NSError` in `NSCocoaErrorDomain` with
/// Core Data's code, so `error as NSError`, `error.code == 133020` and
/// `userInfo[NSValidationKeyErrorKey]` work as on Apple platforms.
extension ManagedContextError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    /// Core Data's code for this error (CoreDataErrors.h).
    public var errorCode: Int {
        switch code {
        case .mergeConflict: 133020  // NSManagedObjectMergeError
        case .constraintConflict: 133021  // NSManagedObjectConstraintMergeError
        case .schemaMismatch: 134100  // NSPersistentStoreIncompatibleVersionHashError
        case .migrationFailed: 134110  // NSMigrationError
        case .migrationConstraintViolation: 134111  // NSMigrationConstraintViolationError
        case .validationFailed:
            validation?.kind == .missingMandatoryProperty ? 1570 : 1550  // NSValidationMissingMandatoryPropertyError, NSManagedObjectValidationError
        case .notAStore, .corruptStore: 259  // NSFileReadCorruptFileError
        case .directoryMissing: 4  // NSFileNoSuchFileError
        case .directoryUnwritable: 513  // NSFileWriteNoPermissionError
        case .storeOpenFailed: 134080  // NSPersistentStoreOpenError
        case .historyTokenExpired: 134301  // NSPersistentHistoryTokenExpiredError
        case .readOnlyStore, .saveFailed: 134030  // NSPersistentStoreSaveError
        case .objectNotFound: 133000  // NSManagedObjectReferentialIntegrityError
        case .invalidObjectID: 133000
        default: 134060  // NSCoreDataError
        }
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let path { info[NSFilePathErrorKey] = path }
        if let cause { info[NSUnderlyingErrorKey] = cause as NSError }
        if !conflicts.isEmpty { info["conflictList"] = conflicts }
        if !constraintConflicts.isEmpty { info["conflictList"] = constraintConflicts }
        if let validation {
            if let key = validation.key { info["NSValidationErrorKey"] = key }
            info["NSValidationErrorObjectID"] = validation.objectID
        }
        return info
    }
}
