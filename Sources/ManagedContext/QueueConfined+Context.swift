public import ConcurrencyDebug

extension QueueConfined {
    /// A value confined to `context`'s queue, as the context's own objects are: code
    /// inside the context's `perform` or `performAndWait` blocks may touch it (and, for
    /// a `.mainQueue` context, any main-queue code); any other code is reported.
    ///
    ///     let progress = QueueConfined(0, context: background, name: "import.progress")
    ///     background.perform { progress.value += 1 }      // fine
    ///     DispatchQueue.global().async { _ = progress.value } // a violation
    public convenience init(_ value: Value, context: ManagedObjectContext, name: String? = nil) {
        self.init(value, owner: context.queueIdentity, name: name)
    }
}
