/// A failure of a test's client, process or fixture, with what went wrong.
package struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    package let description: String

    /// A failure saying `description`.
    package init(_ description: String) { self.description = description }
}
