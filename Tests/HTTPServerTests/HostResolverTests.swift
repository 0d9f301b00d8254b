import Testing
@testable import HTTPServer

/// `getaddrinfo` as a client's library uses it: glibc's numeric forms are addresses, names resolve, a name that does
/// not exist fails with its code.
@Suite struct HostResolverTests {
    @Test func glibcsLenientIPv4FormsResolveToTheAddressTheyMean() throws {
        for form in ["127.0.0.1", "127.1", "0x7f.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "017700000001"] {
            #expect(try HostResolver().addresses(of: form) == [try #require(IPAddress("127.0.0.1"))], "\(form)")
        }
        #expect(try HostResolver().addresses(of: "::ffff:127.0.0.1") == [try #require(IPAddress("::ffff:127.0.0.1"))])
        #expect(try HostResolver().addresses(of: "169.254.43518") == [try #require(IPAddress("169.254.169.254"))])
    }

    @Test func aNameFromTheHostsFileResolvesAndAMissingNameFailsWithItsCode() throws {
        // /etc/hosts names localhost on every machine this runs on.
        let local = try HostResolver().addresses(of: "localhost")
        #expect(!local.isEmpty && local.allSatisfy { $0.specialUse?.name.contains("loopback") == true }, "\(local)")
        do {
            _ = try HostResolver().addresses(of: "no-such-host.invalid")
            Issue.record("a name under .invalid (RFC 6761 §6.4) resolved")
        } catch {
            #expect(error.host == "no-such-host.invalid" && error.code != 0 && !error.message.isEmpty)
            #expect(error.description.hasPrefix("cannot resolve no-such-host.invalid: "))
        }
    }
}
