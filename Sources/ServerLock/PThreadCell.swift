/// Heap cells for pthread objects: a mutex or condition variable must not move once initialized, and
/// class storage is not guaranteed to be addressable for a C call, so each lives in a cell of its own.
enum PThreadCell {
    /// A cell holding `initial`, for the pthread `init` call that follows.
    static func allocate<Object>(_ initial: Object) -> UnsafeMutablePointer<Object> {
        let cell = UnsafeMutablePointer<Object>.allocate(capacity: 1)
        cell.initialize(to: initial)
        return cell
    }

    /// Frees a cell after the pthread `destroy` call.
    static func free<Object>(_ cell: UnsafeMutablePointer<Object>) {
        cell.deinitialize(count: 1)
        cell.deallocate()
    }
}
