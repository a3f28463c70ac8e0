import ConcurrencyDebug

extension ManagedObject {
    /// `storedValue(forAttributeNamed:)` for code that resolved the attribute's index
    /// once (`EntityDescription.attribute(named:)?.index`), such as an export that
    /// reads the same fields of a million objects: the same checked read, fault
    /// firing and missing-merge look, without a name lookup per field.
    package final func storedValue(atAttributeIndex index: Int) -> StoredValue {
        ConcurrencyDebug.check(self, owner: queueOwner, accessEvent(isFaultFlag ? .fireFault : .get, attribute: index))
        if _slowPath(isFaultFlag || isRecordingPrototype) {
            if isRecordingPrototype {
                recordedProperty = .attribute(index)
                return values.indices.contains(index) ? values[index] : .null
            }
            fireFaultIfNeeded()
        }
        if _slowPath(Diagnostics.saveCount != checkedSaveCount) { readAfterSave(index) }
        return values[index]
    }
}
