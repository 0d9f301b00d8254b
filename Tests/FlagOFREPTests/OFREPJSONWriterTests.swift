import FlagKit
import Testing
@testable import FlagOFREP

@Suite struct OFREPJSONWriterTests {
    @Test func writesMembersInOrderWithCommas() {
        var writer = OFREPJSONWriter()
        writer.beginObject()
        writer.string("a", "x")
        writer.integer("b", -3)
        writer.beginArray("c")
        writer.beginObject()
        writer.endObject()
        writer.beginObject()
        writer.value("v", [1, 1.5, "s"])
        writer.endObject()
        writer.endArray()
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":"x","b":-3,"c":[{},{"v":[1,1.5,"s"]}]}"#)
    }

    @Test func escapesStrings() {
        var out: [UInt8] = []
        OFREPJSONWriter.appendString("q\"b\\n\n\u{1}ü", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""q\"b\\n\n\u0001ü""#)
    }

    @Test func floatFlagsKeepADecimalPoint() {
        var writer = OFREPJSONWriter()
        writer.beginObject()
        writer.value("f", .integer(2), asFloat: true)
        writer.value("g", .number(0.25), asFloat: true)
        writer.value("i", .integer(2))
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"f":2.0,"g":0.25,"i":2}"#)
    }

    @Test func writesMetadata() throws {
        var writer = OFREPJSONWriter()
        writer.beginObject()
        writer.metadata(try Fixtures.allTypes())
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"metadata":{"environment":"test","version":12}}"#)
    }
}
