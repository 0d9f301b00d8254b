import Testing
@testable import FlagKit

/// The fixed-width field reader under the date parsers.
@Suite struct DigitReaderTests {
    @Test func readsFieldsAndSeparators() {
        var reader = DigitReader("2027-03")
        let year = reader.digits(4)
        let wrongSeparator = reader.skip("T")
        let separator = reader.skip("-")
        let next = reader.peek
        let month = reader.digits(2)
        #expect(year == 2027 && !wrongSeparator && separator)
        #expect(next == UInt8(ascii: "0") && month == 3)
        #expect(reader.isAtEnd && reader.peek == nil)
    }

    @Test func aShortOrNonDigitFieldConsumesNothing() {
        var reader = DigitReader("12a4")
        let tooMany = reader.digits(4)
        let beyondTheEnd = reader.digits(5)
        #expect(tooMany == nil && beyondTheEnd == nil && reader.index == 0)
        let first = reader.digits(2)
        let letter = reader.digits(1)
        let skipped = reader.skip("a")
        let last = reader.digits(1)
        #expect(first == 12 && letter == nil && skipped && last == 4 && reader.isAtEnd)
    }
}
