/// Every case of the corpus, in the order of the README's table.
public let exploreCorpus: [CorpusCase] = [
    mergeAfterFetch,
    searchResultsBeforeMerge,
    observerInstalledAfterImport,
    automaticMergingEnabledLate,
    policyErrorSwallowed,
    policyErrorRetryRefreshesAwayEdit,
    policyObjectTrumpStaleForm,
    policyStoreTrumpFirstWins,
    policyOverwriteClobbers,
    policyRollbackDropsEdit,
    temporaryIDHandedOver,
    resetWhileHoldingObjects,
    resetDropsPendingBatch,
    childSavedIntoResetParent,
    findOrCreateDuplicates,
    childPushesStaleValue,
    counterIncrementedInTwoChildren,
    clearCompletedDeletesUnchecked,
    performAndWaitDeadlock,
    childSaveWaitsForBusyMainQueue,
    refreshDropsEdit,
    autosaveSavesCancelledEdit,
]

/// The case named `name`.
public func corpusCase(named name: String) -> CorpusCase? {
    exploreCorpus.first { $0.name == name }
}
