// Core Data's error codes and userInfo keys (CoreDataErrors.h), with Core Data's values,
// and the `CocoaError.Code` members of its Swift overlay. The runtime's errors carry
// these codes as `NSError`s in `NSCocoaErrorDomain` (`ManagedContextError.errorCode`).

/// Core Data's error codes, in `NSCocoaErrorDomain`.
public var NSManagedObjectValidationError: Int { 1550 }
public var NSManagedObjectConstraintValidationError: Int { 1551 }
public var NSValidationMultipleErrorsError: Int { 1560 }
public var NSValidationMissingMandatoryPropertyError: Int { 1570 }
public var NSValidationRelationshipLacksMinimumCountError: Int { 1580 }
public var NSValidationRelationshipExceedsMaximumCountError: Int { 1590 }
public var NSValidationRelationshipDeniedDeleteError: Int { 1600 }
public var NSValidationNumberTooLargeError: Int { 1610 }
public var NSValidationNumberTooSmallError: Int { 1620 }
public var NSValidationDateTooLateError: Int { 1630 }
public var NSValidationDateTooSoonError: Int { 1640 }
public var NSValidationInvalidDateError: Int { 1650 }
public var NSValidationStringTooLongError: Int { 1660 }
public var NSValidationStringTooShortError: Int { 1670 }
public var NSValidationStringPatternMatchingError: Int { 1680 }
public var NSValidationInvalidURIError: Int { 1690 }
public var NSManagedObjectContextLockingError: Int { 132000 }
public var NSPersistentStoreCoordinatorLockingError: Int { 132010 }
public var NSManagedObjectReferentialIntegrityError: Int { 133000 }
public var NSManagedObjectExternalRelationshipError: Int { 133010 }
public var NSManagedObjectMergeError: Int { 133020 }
public var NSManagedObjectConstraintMergeError: Int { 133021 }
public var NSPersistentStoreInvalidTypeError: Int { 134000 }
public var NSPersistentStoreTypeMismatchError: Int { 134010 }
public var NSPersistentStoreIncompatibleSchemaError: Int { 134020 }
public var NSPersistentStoreSaveError: Int { 134030 }
public var NSPersistentStoreIncompleteSaveError: Int { 134040 }
public var NSPersistentStoreSaveConflictsError: Int { 134050 }
public var NSCoreDataError: Int { 134060 }
public var NSPersistentStoreOperationError: Int { 134070 }
public var NSPersistentStoreOpenError: Int { 134080 }
public var NSPersistentStoreTimeoutError: Int { 134090 }
public var NSPersistentStoreUnsupportedRequestTypeError: Int { 134091 }
public var NSPersistentStoreIncompatibleVersionHashError: Int { 134100 }
public var NSMigrationError: Int { 134110 }
public var NSMigrationConstraintViolationError: Int { 134111 }
public var NSMigrationCancelledError: Int { 134120 }
public var NSMigrationMissingSourceModelError: Int { 134130 }
public var NSMigrationMissingMappingModelError: Int { 134140 }
public var NSMigrationManagerSourceStoreError: Int { 134150 }
public var NSMigrationManagerDestinationStoreError: Int { 134160 }
public var NSEntityMigrationPolicyError: Int { 134170 }
public var NSSQLiteError: Int { 134180 }
public var NSInferredMappingModelError: Int { 134190 }
public var NSExternalRecordImportError: Int { 134200 }
public var NSPersistentHistoryTokenExpiredError: Int { 134301 }
public var NSManagedObjectModelReferenceNotFoundError: Int { 134504 }
public var NSStagedMigrationFrameworkVersionMismatchError: Int { 134505 }
public var NSStagedMigrationBackwardMigrationError: Int { 134506 }

/// Core Data's userInfo keys for the errors it makes.
public let NSDetailedErrorsKey = "NSDetailedErrors"
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
public let NSValidationValueErrorKey = "NSValidationErrorValue"
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
public let NSPersistentStoreSaveConflictsErrorKey = "NSPersistentStoreSaveConflictsErrorKey"
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"

/// Core Data's members of `CocoaError.Code`, under both of the overlay's spellings (the
/// current one and the older one ending in `Error`), as Apple's Swift overlay declares them.
extension CocoaError.Code {
    public static var coreData: CocoaError.Code { .init(rawValue: NSCoreDataError) }
    public static var coreDataError: CocoaError.Code { .init(rawValue: NSCoreDataError) }
    public static var entityMigrationPolicy: CocoaError.Code { .init(rawValue: NSEntityMigrationPolicyError) }
    public static var entityMigrationPolicyError: CocoaError.Code { .init(rawValue: NSEntityMigrationPolicyError) }
    public static var externalRecordImport: CocoaError.Code { .init(rawValue: NSExternalRecordImportError) }
    public static var externalRecordImportError: CocoaError.Code { .init(rawValue: NSExternalRecordImportError) }
    public static var inferredMappingModel: CocoaError.Code { .init(rawValue: NSInferredMappingModelError) }
    public static var inferredMappingModelError: CocoaError.Code { .init(rawValue: NSInferredMappingModelError) }
    public static var managedObjectConstraintMerge: CocoaError.Code { .init(rawValue: NSManagedObjectConstraintMergeError) }
    public static var managedObjectConstraintMergeError: CocoaError.Code { .init(rawValue: NSManagedObjectConstraintMergeError) }
    public static var managedObjectContextLocking: CocoaError.Code { .init(rawValue: NSManagedObjectContextLockingError) }
    public static var managedObjectContextLockingError: CocoaError.Code { .init(rawValue: NSManagedObjectContextLockingError) }
    public static var managedObjectExternalRelationship: CocoaError.Code { .init(rawValue: NSManagedObjectExternalRelationshipError) }
    public static var managedObjectExternalRelationshipError: CocoaError.Code { .init(rawValue: NSManagedObjectExternalRelationshipError) }
    public static var managedObjectMerge: CocoaError.Code { .init(rawValue: NSManagedObjectMergeError) }
    public static var managedObjectMergeError: CocoaError.Code { .init(rawValue: NSManagedObjectMergeError) }
    public static var managedObjectReferentialIntegrity: CocoaError.Code { .init(rawValue: NSManagedObjectReferentialIntegrityError) }
    public static var managedObjectReferentialIntegrityError: CocoaError.Code { .init(rawValue: NSManagedObjectReferentialIntegrityError) }
    public static var managedObjectValidation: CocoaError.Code { .init(rawValue: NSManagedObjectValidationError) }
    public static var managedObjectValidationError: CocoaError.Code { .init(rawValue: NSManagedObjectValidationError) }
    public static var migration: CocoaError.Code { .init(rawValue: NSMigrationError) }
    public static var migrationCancelled: CocoaError.Code { .init(rawValue: NSMigrationCancelledError) }
    public static var migrationCancelledError: CocoaError.Code { .init(rawValue: NSMigrationCancelledError) }
    public static var migrationError: CocoaError.Code { .init(rawValue: NSMigrationError) }
    public static var migrationManagerDestinationStore: CocoaError.Code { .init(rawValue: NSMigrationManagerDestinationStoreError) }
    public static var migrationManagerDestinationStoreError: CocoaError.Code { .init(rawValue: NSMigrationManagerDestinationStoreError) }
    public static var migrationManagerSourceStore: CocoaError.Code { .init(rawValue: NSMigrationManagerSourceStoreError) }
    public static var migrationManagerSourceStoreError: CocoaError.Code { .init(rawValue: NSMigrationManagerSourceStoreError) }
    public static var migrationMissingMappingModel: CocoaError.Code { .init(rawValue: NSMigrationMissingMappingModelError) }
    public static var migrationMissingMappingModelError: CocoaError.Code { .init(rawValue: NSMigrationMissingMappingModelError) }
    public static var migrationMissingSourceModel: CocoaError.Code { .init(rawValue: NSMigrationMissingSourceModelError) }
    public static var migrationMissingSourceModelError: CocoaError.Code { .init(rawValue: NSMigrationMissingSourceModelError) }
    public static var persistentStoreCoordinatorLocking: CocoaError.Code { .init(rawValue: NSPersistentStoreCoordinatorLockingError) }
    public static var persistentStoreCoordinatorLockingError: CocoaError.Code { .init(rawValue: NSPersistentStoreCoordinatorLockingError) }
    public static var persistentStoreIncompatibleSchema: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleSchemaError) }
    public static var persistentStoreIncompatibleSchemaError: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleSchemaError) }
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleVersionHashError) }
    public static var persistentStoreIncompatibleVersionHashError: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleVersionHashError) }
    public static var persistentStoreIncompleteSave: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompleteSaveError) }
    public static var persistentStoreIncompleteSaveError: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompleteSaveError) }
    public static var persistentStoreInvalidType: CocoaError.Code { .init(rawValue: NSPersistentStoreInvalidTypeError) }
    public static var persistentStoreInvalidTypeError: CocoaError.Code { .init(rawValue: NSPersistentStoreInvalidTypeError) }
    public static var persistentStoreOpen: CocoaError.Code { .init(rawValue: NSPersistentStoreOpenError) }
    public static var persistentStoreOpenError: CocoaError.Code { .init(rawValue: NSPersistentStoreOpenError) }
    public static var persistentStoreOperation: CocoaError.Code { .init(rawValue: NSPersistentStoreOperationError) }
    public static var persistentStoreOperationError: CocoaError.Code { .init(rawValue: NSPersistentStoreOperationError) }
    public static var persistentStoreSave: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveError) }
    public static var persistentStoreSaveConflicts: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveConflictsError) }
    public static var persistentStoreSaveConflictsError: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveConflictsError) }
    public static var persistentStoreSaveError: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveError) }
    public static var persistentStoreTimeout: CocoaError.Code { .init(rawValue: NSPersistentStoreTimeoutError) }
    public static var persistentStoreTimeoutError: CocoaError.Code { .init(rawValue: NSPersistentStoreTimeoutError) }
    public static var persistentStoreTypeMismatch: CocoaError.Code { .init(rawValue: NSPersistentStoreTypeMismatchError) }
    public static var persistentStoreTypeMismatchError: CocoaError.Code { .init(rawValue: NSPersistentStoreTypeMismatchError) }
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code { .init(rawValue: NSPersistentStoreUnsupportedRequestTypeError) }
    public static var persistentStoreUnsupportedRequestTypeError: CocoaError.Code { .init(rawValue: NSPersistentStoreUnsupportedRequestTypeError) }
    public static var sqlite: CocoaError.Code { .init(rawValue: NSSQLiteError) }
    public static var sqliteError: CocoaError.Code { .init(rawValue: NSSQLiteError) }
    public static var validationDateTooLate: CocoaError.Code { .init(rawValue: NSValidationDateTooLateError) }
    public static var validationDateTooLateError: CocoaError.Code { .init(rawValue: NSValidationDateTooLateError) }
    public static var validationDateTooSoon: CocoaError.Code { .init(rawValue: NSValidationDateTooSoonError) }
    public static var validationDateTooSoonError: CocoaError.Code { .init(rawValue: NSValidationDateTooSoonError) }
    public static var validationInvalidDate: CocoaError.Code { .init(rawValue: NSValidationInvalidDateError) }
    public static var validationInvalidDateError: CocoaError.Code { .init(rawValue: NSValidationInvalidDateError) }
    public static var validationMissingMandatoryProperty: CocoaError.Code { .init(rawValue: NSValidationMissingMandatoryPropertyError) }
    public static var validationMissingMandatoryPropertyError: CocoaError.Code { .init(rawValue: NSValidationMissingMandatoryPropertyError) }
    public static var validationMultipleErrors: CocoaError.Code { .init(rawValue: NSValidationMultipleErrorsError) }
    public static var validationMultipleErrorsError: CocoaError.Code { .init(rawValue: NSValidationMultipleErrorsError) }
    public static var validationNumberTooLarge: CocoaError.Code { .init(rawValue: NSValidationNumberTooLargeError) }
    public static var validationNumberTooLargeError: CocoaError.Code { .init(rawValue: NSValidationNumberTooLargeError) }
    public static var validationNumberTooSmall: CocoaError.Code { .init(rawValue: NSValidationNumberTooSmallError) }
    public static var validationNumberTooSmallError: CocoaError.Code { .init(rawValue: NSValidationNumberTooSmallError) }
    public static var validationRelationshipDeniedDelete: CocoaError.Code { .init(rawValue: NSValidationRelationshipDeniedDeleteError) }
    public static var validationRelationshipDeniedDeleteError: CocoaError.Code { .init(rawValue: NSValidationRelationshipDeniedDeleteError) }
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { .init(rawValue: NSValidationRelationshipExceedsMaximumCountError) }
    public static var validationRelationshipExceedsMaximumCountError: CocoaError.Code { .init(rawValue: NSValidationRelationshipExceedsMaximumCountError) }
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code { .init(rawValue: NSValidationRelationshipLacksMinimumCountError) }
    public static var validationRelationshipLacksMinimumCountError: CocoaError.Code { .init(rawValue: NSValidationRelationshipLacksMinimumCountError) }
    public static var validationStringPatternMatching: CocoaError.Code { .init(rawValue: NSValidationStringPatternMatchingError) }
    public static var validationStringPatternMatchingError: CocoaError.Code { .init(rawValue: NSValidationStringPatternMatchingError) }
    public static var validationStringTooLong: CocoaError.Code { .init(rawValue: NSValidationStringTooLongError) }
    public static var validationStringTooLongError: CocoaError.Code { .init(rawValue: NSValidationStringTooLongError) }
    public static var validationStringTooShort: CocoaError.Code { .init(rawValue: NSValidationStringTooShortError) }
    public static var validationStringTooShortError: CocoaError.Code { .init(rawValue: NSValidationStringTooShortError) }
}

/// The same codes on `CocoaError` itself (`catch CocoaError.managedObjectMerge`).
extension CocoaError {
    public static var coreData: CocoaError.Code { .init(rawValue: NSCoreDataError) }
    public static var coreDataError: CocoaError.Code { .init(rawValue: NSCoreDataError) }
    public static var entityMigrationPolicy: CocoaError.Code { .init(rawValue: NSEntityMigrationPolicyError) }
    public static var entityMigrationPolicyError: CocoaError.Code { .init(rawValue: NSEntityMigrationPolicyError) }
    public static var externalRecordImport: CocoaError.Code { .init(rawValue: NSExternalRecordImportError) }
    public static var externalRecordImportError: CocoaError.Code { .init(rawValue: NSExternalRecordImportError) }
    public static var inferredMappingModel: CocoaError.Code { .init(rawValue: NSInferredMappingModelError) }
    public static var inferredMappingModelError: CocoaError.Code { .init(rawValue: NSInferredMappingModelError) }
    public static var managedObjectConstraintMerge: CocoaError.Code { .init(rawValue: NSManagedObjectConstraintMergeError) }
    public static var managedObjectConstraintMergeError: CocoaError.Code { .init(rawValue: NSManagedObjectConstraintMergeError) }
    public static var managedObjectContextLocking: CocoaError.Code { .init(rawValue: NSManagedObjectContextLockingError) }
    public static var managedObjectContextLockingError: CocoaError.Code { .init(rawValue: NSManagedObjectContextLockingError) }
    public static var managedObjectExternalRelationship: CocoaError.Code { .init(rawValue: NSManagedObjectExternalRelationshipError) }
    public static var managedObjectExternalRelationshipError: CocoaError.Code { .init(rawValue: NSManagedObjectExternalRelationshipError) }
    public static var managedObjectMerge: CocoaError.Code { .init(rawValue: NSManagedObjectMergeError) }
    public static var managedObjectMergeError: CocoaError.Code { .init(rawValue: NSManagedObjectMergeError) }
    public static var managedObjectReferentialIntegrity: CocoaError.Code { .init(rawValue: NSManagedObjectReferentialIntegrityError) }
    public static var managedObjectReferentialIntegrityError: CocoaError.Code { .init(rawValue: NSManagedObjectReferentialIntegrityError) }
    public static var managedObjectValidation: CocoaError.Code { .init(rawValue: NSManagedObjectValidationError) }
    public static var managedObjectValidationError: CocoaError.Code { .init(rawValue: NSManagedObjectValidationError) }
    public static var migration: CocoaError.Code { .init(rawValue: NSMigrationError) }
    public static var migrationCancelled: CocoaError.Code { .init(rawValue: NSMigrationCancelledError) }
    public static var migrationCancelledError: CocoaError.Code { .init(rawValue: NSMigrationCancelledError) }
    public static var migrationError: CocoaError.Code { .init(rawValue: NSMigrationError) }
    public static var migrationManagerDestinationStore: CocoaError.Code { .init(rawValue: NSMigrationManagerDestinationStoreError) }
    public static var migrationManagerDestinationStoreError: CocoaError.Code { .init(rawValue: NSMigrationManagerDestinationStoreError) }
    public static var migrationManagerSourceStore: CocoaError.Code { .init(rawValue: NSMigrationManagerSourceStoreError) }
    public static var migrationManagerSourceStoreError: CocoaError.Code { .init(rawValue: NSMigrationManagerSourceStoreError) }
    public static var migrationMissingMappingModel: CocoaError.Code { .init(rawValue: NSMigrationMissingMappingModelError) }
    public static var migrationMissingMappingModelError: CocoaError.Code { .init(rawValue: NSMigrationMissingMappingModelError) }
    public static var migrationMissingSourceModel: CocoaError.Code { .init(rawValue: NSMigrationMissingSourceModelError) }
    public static var migrationMissingSourceModelError: CocoaError.Code { .init(rawValue: NSMigrationMissingSourceModelError) }
    public static var persistentStoreCoordinatorLocking: CocoaError.Code { .init(rawValue: NSPersistentStoreCoordinatorLockingError) }
    public static var persistentStoreCoordinatorLockingError: CocoaError.Code { .init(rawValue: NSPersistentStoreCoordinatorLockingError) }
    public static var persistentStoreIncompatibleSchema: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleSchemaError) }
    public static var persistentStoreIncompatibleSchemaError: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleSchemaError) }
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleVersionHashError) }
    public static var persistentStoreIncompatibleVersionHashError: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompatibleVersionHashError) }
    public static var persistentStoreIncompleteSave: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompleteSaveError) }
    public static var persistentStoreIncompleteSaveError: CocoaError.Code { .init(rawValue: NSPersistentStoreIncompleteSaveError) }
    public static var persistentStoreInvalidType: CocoaError.Code { .init(rawValue: NSPersistentStoreInvalidTypeError) }
    public static var persistentStoreInvalidTypeError: CocoaError.Code { .init(rawValue: NSPersistentStoreInvalidTypeError) }
    public static var persistentStoreOpen: CocoaError.Code { .init(rawValue: NSPersistentStoreOpenError) }
    public static var persistentStoreOpenError: CocoaError.Code { .init(rawValue: NSPersistentStoreOpenError) }
    public static var persistentStoreOperation: CocoaError.Code { .init(rawValue: NSPersistentStoreOperationError) }
    public static var persistentStoreOperationError: CocoaError.Code { .init(rawValue: NSPersistentStoreOperationError) }
    public static var persistentStoreSave: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveError) }
    public static var persistentStoreSaveConflicts: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveConflictsError) }
    public static var persistentStoreSaveConflictsError: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveConflictsError) }
    public static var persistentStoreSaveError: CocoaError.Code { .init(rawValue: NSPersistentStoreSaveError) }
    public static var persistentStoreTimeout: CocoaError.Code { .init(rawValue: NSPersistentStoreTimeoutError) }
    public static var persistentStoreTimeoutError: CocoaError.Code { .init(rawValue: NSPersistentStoreTimeoutError) }
    public static var persistentStoreTypeMismatch: CocoaError.Code { .init(rawValue: NSPersistentStoreTypeMismatchError) }
    public static var persistentStoreTypeMismatchError: CocoaError.Code { .init(rawValue: NSPersistentStoreTypeMismatchError) }
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code { .init(rawValue: NSPersistentStoreUnsupportedRequestTypeError) }
    public static var persistentStoreUnsupportedRequestTypeError: CocoaError.Code { .init(rawValue: NSPersistentStoreUnsupportedRequestTypeError) }
    public static var sqlite: CocoaError.Code { .init(rawValue: NSSQLiteError) }
    public static var sqliteError: CocoaError.Code { .init(rawValue: NSSQLiteError) }
    public static var validationDateTooLate: CocoaError.Code { .init(rawValue: NSValidationDateTooLateError) }
    public static var validationDateTooLateError: CocoaError.Code { .init(rawValue: NSValidationDateTooLateError) }
    public static var validationDateTooSoon: CocoaError.Code { .init(rawValue: NSValidationDateTooSoonError) }
    public static var validationDateTooSoonError: CocoaError.Code { .init(rawValue: NSValidationDateTooSoonError) }
    public static var validationInvalidDate: CocoaError.Code { .init(rawValue: NSValidationInvalidDateError) }
    public static var validationInvalidDateError: CocoaError.Code { .init(rawValue: NSValidationInvalidDateError) }
    public static var validationMissingMandatoryProperty: CocoaError.Code { .init(rawValue: NSValidationMissingMandatoryPropertyError) }
    public static var validationMissingMandatoryPropertyError: CocoaError.Code { .init(rawValue: NSValidationMissingMandatoryPropertyError) }
    public static var validationMultipleErrors: CocoaError.Code { .init(rawValue: NSValidationMultipleErrorsError) }
    public static var validationMultipleErrorsError: CocoaError.Code { .init(rawValue: NSValidationMultipleErrorsError) }
    public static var validationNumberTooLarge: CocoaError.Code { .init(rawValue: NSValidationNumberTooLargeError) }
    public static var validationNumberTooLargeError: CocoaError.Code { .init(rawValue: NSValidationNumberTooLargeError) }
    public static var validationNumberTooSmall: CocoaError.Code { .init(rawValue: NSValidationNumberTooSmallError) }
    public static var validationNumberTooSmallError: CocoaError.Code { .init(rawValue: NSValidationNumberTooSmallError) }
    public static var validationRelationshipDeniedDelete: CocoaError.Code { .init(rawValue: NSValidationRelationshipDeniedDeleteError) }
    public static var validationRelationshipDeniedDeleteError: CocoaError.Code { .init(rawValue: NSValidationRelationshipDeniedDeleteError) }
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { .init(rawValue: NSValidationRelationshipExceedsMaximumCountError) }
    public static var validationRelationshipExceedsMaximumCountError: CocoaError.Code { .init(rawValue: NSValidationRelationshipExceedsMaximumCountError) }
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code { .init(rawValue: NSValidationRelationshipLacksMinimumCountError) }
    public static var validationRelationshipLacksMinimumCountError: CocoaError.Code { .init(rawValue: NSValidationRelationshipLacksMinimumCountError) }
    public static var validationStringPatternMatching: CocoaError.Code { .init(rawValue: NSValidationStringPatternMatchingError) }
    public static var validationStringPatternMatchingError: CocoaError.Code { .init(rawValue: NSValidationStringPatternMatchingError) }
    public static var validationStringTooLong: CocoaError.Code { .init(rawValue: NSValidationStringTooLongError) }
    public static var validationStringTooLongError: CocoaError.Code { .init(rawValue: NSValidationStringTooLongError) }
    public static var validationStringTooShort: CocoaError.Code { .init(rawValue: NSValidationStringTooShortError) }
    public static var validationStringTooShortError: CocoaError.Code { .init(rawValue: NSValidationStringTooShortError) }
}

/// What a Core Data error's `userInfo` holds, read as the overlay reads it.
extension CocoaError {
    /// The object that failed to validate (`NSValidationObjectErrorKey`).
    public var validationObject: Any? { userInfo[NSValidationObjectErrorKey] }
    /// The key that failed to validate (`NSValidationKeyErrorKey`).
    public var validationKey: String? { userInfo[NSValidationKeyErrorKey] as? String }
    /// The value that failed to validate (`NSValidationValueErrorKey`).
    public var validationValue: Any? { userInfo[NSValidationValueErrorKey] }
    /// The predicate that failed (`NSValidationPredicateErrorKey`).
    public var validationPredicate: NSPredicate? { userInfo[NSValidationPredicateErrorKey] as? NSPredicate }
    /// The stores involved (`NSAffectedStoresErrorKey`).
    public var affectedStores: [AnyObject]? { userInfo[NSAffectedStoresErrorKey] as? [AnyObject] }
    /// The objects involved (`NSAffectedObjectsErrorKey`).
    public var affectedObjects: [AnyObject]? { userInfo[NSAffectedObjectsErrorKey] as? [AnyObject] }
    /// The merge conflicts of a save (`NSPersistentStoreSaveConflictsErrorKey`).
    public var persistentStoreSaveConflicts: [NSMergeConflict] { userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? [] }
}
