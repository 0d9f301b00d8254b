import Testing
@testable import ClientHTTP

@Suite struct TransportOptionsTests {
    @Test func timeoutsBecomePositiveMilliseconds() {
        #expect(TransportOptions.milliseconds(.milliseconds(1500)) == 1500)
        #expect(TransportOptions.milliseconds(.zero) == 1, "0 would mean no timeout at all to libcurl")
        #expect(TransportOptions.milliseconds(.seconds(-3)) == 1)
        #expect(TransportOptions.milliseconds(.microseconds(2500)) == 2)
        #expect(TransportOptions.milliseconds(.seconds(Int64.max)) == Int.max)
    }
}
