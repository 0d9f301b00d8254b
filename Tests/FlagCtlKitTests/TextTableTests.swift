import Testing
@testable import FlagCtlKit

@Suite struct TextTableTests {
    @Test func padsEveryColumnButTheLastAndKeepsOneLinePerRow() {
        let table = TextTable.render(header: ["ID", "WHO", "MESSAGE"], rows: [["1", "alice", "a long\nmessage"], ["12", "bo", "x"]])
        #expect(table == """
            ID  WHO    MESSAGE
            1   alice  a long message
            12  bo     x

            """)
        #expect(TextTable.render(header: ["ONLY"], rows: [["one"]]) == "ONLY\none\n")
    }
}
