import Testing
@testable import FlagKit
@Test func placeholder() { #expect(Bool(true)) }
