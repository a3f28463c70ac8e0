import struct ScheduleControl.LogicalQueue
import struct ScheduleControl.ScheduleDoor

// The runtime's one hook into the schedule control (docs/architecture.md): a context
// belongs to the run its door names (`explorer`, set when it is made inside a controlled
// run), registers its queue there as a logical queue, and calls the door at its
// scheduling points. Nothing else of ScheduleControl is imported here or anywhere in
// ManagedContext (ModuleGraphTests checks it).
extension ManagedObjectContext {
    /// A scheduling point of a controlled run; nothing (one branch) otherwise.
    @inline(__always)
    func schedulingPoint(_ point: ScheduleDoor.Point) {
        if _slowPath(explorer != nil) { explorer!.reach(point, on: logicalQueue, describedAs: debugName) }
    }

    /// The context's queue as the run keys it: by the context's number, with its name now.
    var logicalQueue: LogicalQueue {
        LogicalQueue(key: Int(number), name: shortName, queue: queue, isMain: concurrencyType == .mainQueue)
    }
}
