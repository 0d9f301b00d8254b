import Testing
@testable import ServerLock

@Suite struct PThreadCellTests {
    @Test func aCellHoldsItsInitialValueUntilFreed() {
        let cell = PThreadCell.allocate((first: 7, second: "seven"))
        #expect(cell.pointee.first == 7 && cell.pointee.second == "seven")
        cell.pointee.first = 8
        #expect(cell.pointee.first == 8)
        PThreadCell.free(cell)
    }
}
