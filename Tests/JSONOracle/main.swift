import FlagKit
import Foundation

// FlagKit's JSON parser as an oracle for Tests/json/test_json_differential.py: one base64 line in (the bytes
// of a candidate document), one line out: `ok <canonical JSON>`, `dup <canonical JSON>` when a key repeats, or
// `err <line>:<column> <message>`. Each answer is written at once, so the Python side keeps one process for all
// its examples.
func answer(_ text: String) {
    FileHandle.standardOutput.write(Data((text.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
}
while let line = readLine(strippingNewline: true) {
    guard let bytes = Data(base64Encoded: line) else {
        answer("err 0:0 not base64")
        continue
    }
    do {
        let parsed = try JSONParser.parse([UInt8](bytes))
        answer((parsed.duplicateKeyPaths.isEmpty ? "ok " : "dup ") + parsed.value.canonicalString)
    } catch {
        answer("err \(error)")
    }
}
