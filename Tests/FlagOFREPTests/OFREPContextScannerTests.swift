import FlagKit
import HTTPServer
import Testing
@testable import FlagOFREP

/// The scanner must never disagree with `OFREPRequest.parse`: what it accepts gives the same context,
/// and everything else is left (nil) to the general parser, which refuses or accepts it as before.
@Suite struct OFREPContextScannerTests {
    func scanned(_ text: String) -> EvaluationContext? { OFREPContextScanner.context(in: Array(text.utf8)) }

    func general(_ bytes: [UInt8]) -> EvaluationContext? {
        if case .success(let request) = OFREPRequest.parse(bytes) { return request.context }
        return nil
    }

    @Test func readsTheProvidersBody() throws {
        let text = #"{"context":{"targetingKey":"9F1C2D7E-0000-4000-8000-000000000001","locale":"de-DE","appVersion":"2.4.0","#
            + #""channel":"appstore","platform":"ios","osVersion":"17.4","country":"DE","plan":"plus","age":41,"score":1.5,"#
            + #""beta":true,"note":null,"city":"Köln"}}"#
        let context = try #require(scanned(text))
        #expect(context == general(Array(text.utf8)))
        #expect(context.installId == "9F1C2D7E-0000-4000-8000-000000000001")
        #expect(context.appVersion == "2.4.0")
        #expect(context.custom == ["plan": "plus", "age": 41, "score": 1.5, "beta": true, "note": nil, "city": "Köln"])
    }

    @Test func acceptsWhitespaceEmptyContextsAndTheInstallIdSpellings() throws {
        #expect(try #require(scanned(" \n{ \"context\" :\t{ } }\r\n")) == EvaluationContext())
        #expect(scanned(#"{"context":{"installId":"a"}}"#)?.installId == "a")
        #expect(scanned(#"{"context":{"targetingKey":"a","installId":"a"}}"#)?.installId == "a")
        // An empty key identifies nobody, as in the general path.
        #expect(try #require(scanned(#"{"context":{"targetingKey":""}}"#)).installId == nil)
        #expect(scanned(#"{"context":{"n":-0,"m":1E2,"k":-9223372036854775808,"h":12345678901234567890}}"#)
            == general(Array(#"{"context":{"n":-0,"m":1E2,"k":-9223372036854775808,"h":12345678901234567890}}"#.utf8)))
    }

    /// Each of these is the general parser's to answer: refusals (with their exact messages) and the
    /// rarer shapes (escapes, nested values, non-ASCII names, other top-level members).
    @Test func leavesEverythingElseToTheGeneralParser() {
        let bodies = [
            "", " ", "{", "[]", "null", #"{"context":{}"#, #"{"context":{}}x"#, #"{"context":{},}"#, #"{"context":[]}"#,
            #"{"context":"x"}"#, #"{"context":null}"#, #"{}"#, #"{"other":1,"context":{}}"#, #"{"context":{},"other":1}"#,
            #"{"context":{},"context":{}}"#, #"{"con\u0074ext":{}}"#, #"{"context":{"a":1,"a":2}}"#,
            #"{"context":{"targetingKey":"a","targetingKey":"a"}}"#, #"{"context":{"targetingKey":"a","installId":"b"}}"#,
            #"{"context":{"targetingKey":1}}"#, #"{"context":{"appVersion":null}}"#, #"{"context":{"locale":["en"]}}"#,
            #"{"context":{"a":"x\ny"}}"#.replacingOccurrences(of: "\\n", with: "\n"), #"{"context":{"a":"x\"y"}}"#,
            #"{"context":{"a":"\u00e9"}}"#, #"{"context":{"\u00e9":1}}"#, #"{"context":{"é":1}}"#, #"{"context":{"a":{"b":1}}}"#,
            #"{"context":{"a":[1]}}"#, #"{"context":{"a":01}}"#, #"{"context":{"a":1.}}"#, #"{"context":{"a":.5}}"#,
            #"{"context":{"a":+1}}"#, #"{"context":{"a":1e}}"#, #"{"context":{"a":-}}"#, #"{"context":{"a":1e400}}"#,
            #"{"context":{"a":tru}}"#, #"{"context":{"a":truex}}"#, #"{"context":{"a":nul}}"#, #"{"context":{a:1}}"#,
            #"{"context":{"a" 1}}"#, #"{"context":{"a":1 "b":2}}"#, #"{"context":{"a":"unterminated}}"#,
        ]
        for text in bodies {
            #expect(scanned(text) == nil, "\(text)")
            #expect(OFREPContextScanner.request(in: Array(text.utf8)) == nil, "\(text)")
        }
        // Invalid UTF-8 and raw control characters inside strings.
        #expect(OFREPContextScanner.context(in: Array(#"{"context":{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8)) == nil)
        #expect(OFREPContextScanner.context(in: Array(#"{"context":{"a":""#.utf8) + [0x01] + Array(#""}}"#.utf8)) == nil)
        #expect(OFREPContextScanner.context(in: Array(#"{"context":{"plan":""#.utf8) + [0xFF] + Array(#""}}"#.utf8)) == nil)
    }

    /// Thousands of generated bodies, well-formed and corrupted: whenever the scanner answers, the
    /// general parser accepts the same body with an equal context.
    @Test func agreesWithTheGeneralParserOnGeneratedBodies() {
        var generator = SystemRandomNumberGenerator()
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = GeneratedBody.make(using: &generator)
            guard let context = OFREPContextScanner.context(in: bytes) else { continue }
            accepted += 1
            #expect(general(bytes) == context, "\(String(decoding: bytes, as: UTF8.self))")
            // The bulk endpoint's request: the same context member, so the same canonical bytes and ETag.
            let request = OFREPContextScanner.request(in: bytes)
            #expect(request == (try? OFREPRequest.parse(bytes).get()), "\(String(decoding: bytes, as: UTF8.self))")
            #expect(request?.canonicalContext == (try? OFREPRequest.parse(bytes).get())?.canonicalContext)
        }
        // The generator must exercise the fast path, not only the fallback.
        #expect(accepted > 2_000)
    }
}

/// Random OFREP bodies: mostly plausible contexts, some with escapes, nesting, duplicates, odd numbers,
/// wrong types, non-ASCII, and some corrupted by a dropped, inserted or replaced byte.
enum GeneratedBody {
    static let names = ["targetingKey", "installId", "appVersion", "osVersion", "platform", "locale", "country", "channel",
                        "plan", "age", "é", "a\\u0062", "beta", "context", "firstInstallDate"]
    static let values = [
        #""9F1C2D7E-0000-4000-8000-000000000001""#, #""install-7""#, #""""#, #""2.4.0""#, #""2.4""#, #""1.02.0""#,
        #""2.5.0-beta.1""#, #""en-GB""#, #""de-DE""#, #""testflight""#, #""appstore""#, #""ios""#, #""Köln""#, #""a\nb""#,
        #""\u00e9""#, #""\ud83d\ude00""#, "1", "-0", "0", "41", "1.5", "-2.5e3", "1E2", "1e400", "12345678901234567890",
        "-9223372036854775808", "true", "false", "null", "[1,2]", #"{"a":1}"#, "01", "1.", "tru", #""x"#,
        #""2026-11-20T08:15:00Z""#, #""2027-03-01T01:00:00.5+01:00""#, #""2026-11-20""#, #""2027-02-29T00:00:00Z""#,
    ]
    static let whitespace = ["", "", "", " ", "\n", "\t", "\r\n  "]

    static func make(using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        func pick(_ options: [String]) -> String { options.randomElement(using: &generator) ?? "" }
        var members: [String] = []
        for _ in 0..<Int.random(in: 0...7, using: &generator) {
            var name = pick(names)
            if name == "targetingKey" && Bool.random(using: &generator) { name = pick(["targetingKey", "installId"]) }
            var value = pick(values)
            // Mostly well-typed built-ins, so that the fast path is taken often enough.
            if ["targetingKey", "installId"].contains(name) && Int.random(in: 0..<4, using: &generator) > 0 {
                value = #""9F1C2D7E-0000-4000-8000-000000000001""#
            }
            members.append(pick(whitespace) + "\"\(name)\"" + pick(whitespace) + ":" + pick(whitespace) + value + pick(whitespace))
        }
        var text = "{" + pick(whitespace) + "\"context\"" + pick(whitespace) + ":" + pick(whitespace)
            + "{" + members.joined(separator: ",") + "}" + pick(whitespace)
        if Int.random(in: 0..<20, using: &generator) == 0 { text += #","other":1"# }
        text += "}" + pick(whitespace)
        var bytes = Array(text.utf8)
        if Int.random(in: 0..<6, using: &generator) == 0, !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            let junk = [UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "\\"), 0x01, 0xC3, 0xFF, 0x20]
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: bytes.remove(at: position)
            case 1: bytes.insert(junk.randomElement(using: &generator) ?? 0x20, at: position)
            default: bytes[position] = junk.randomElement(using: &generator) ?? 0x20
            }
        }
        return bytes
    }
}
