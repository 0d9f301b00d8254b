import Dispatch
import FlagServiceTestSupport
import HTTPServer
import Synchronization
import Testing
@testable import FlagService

/// Which webhook URLs may be sent to: literal addresses and glibc's lenient forms, names through a resolver, every
/// address checked, the allow list, and the host as written in the URL.
@Suite struct WebhookDestinationPolicyTests {
    /// A resolver that answers from `table` (a name missing there does not exist), counting its lookups.
    final class Resolver: Sendable {
        let table: [String: [String]]
        let lookups = Mutex<[String]>([])

        init(_ table: [String: [String]]) { self.table = table }

        func policy(allowing networks: [String] = []) throws -> WebhookDestinationPolicy {
            WebhookDestinationPolicy(allowedNetworks: try networks.map { try IPNetwork($0) }) { [self] host throws(HostResolverError) in
                lookups.withLock { $0.append(host) }
                guard let answer = table[host] else { throw HostResolverError(host: host, code: -2, errno: nil, message: "Name or service not known") }
                return answer.compactMap { IPAddress($0) }
            }
        }
    }

    static func refusal(_ decision: WebhookDestinationPolicy.Decision) -> String? {
        if case .refused(let reason) = decision { return reason }
        return nil
    }

    @Test(arguments: [
        "http://127.0.0.1/", "http://127.0.0.1:5432/", "http://2130706433/", "http://0x7f.1/", "http://0177.0.0.1/", "http://127.1/",
        "http://0x7f000001/", "http://017700000001/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]:8080/x", "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]/", "http://localhost/", "http://localhost./", "http://LOCALHOST:9/", "http://api.localhost/",
        "http://169.254.169.254/latest/meta-data/", "http://[fe80::1%25eth0]/", "http://10.0.0.1/", "http://172.16.0.1/",
        "http://192.168.1.1/", "http://100.64.0.1/", "http://[fc00::1]/", "http://[fd12:3456::1]/", "http://0.0.0.0/", "http://0/",
        "http://[::]/", "http://224.0.0.1/", "http://[ff02::1]/", "http://255.255.255.255/", "http://[64:ff9b::7f00:1]/",
        "http://[::127.0.0.1]/", "http://user@127.0.0.1/", "https://127.0.0.1:443/hook?x=1#y", "http://127.0.0.%31/",
    ])
    func addressesInsideAndTheirDisguisesAreRefusedWithTheReason(_ url: String) throws {
        // The real resolver: glibc's getaddrinfo reads the numeric forms; no name here needs DNS.
        let reason = try #require(Self.refusal(WebhookDestinationPolicy().decide(url)), "\(url) was not refused")
        #expect(!reason.isEmpty && (reason.contains("webhooks are not sent to addresses inside") || reason.contains("percent-encoded")), "\(reason)")
    }

    @Test func theReasonNamesTheHostTheAddressAndTheBlock() throws {
        let policy = WebhookDestinationPolicy()
        #expect(Self.refusal(policy.decide("http://0x7f.1/")) == "0x7f.1 resolves to 127.0.0.1 in 127.0.0.0/8, loopback (RFC 1122): webhooks are "
            + "not sent to addresses inside (flagserver --webhook-allow-network allows a network on purpose)")
        #expect(Self.refusal(policy.decide("http://[::ffff:169.254.169.254]/"))?.hasPrefix(
            "[::ffff:169.254.169.254] is ::ffff:169.254.169.254, which carries 169.254.169.254, in 169.254.0.0/16, link-local") == true)
        #expect(Self.refusal(policy.decide("http://localhost./"))?.hasPrefix("localhost. is a loopback name (RFC 6761), that is 127.0.0.1 in") == true)
        #expect(Self.refusal(policy.decide("http://10.1.2.3:8443/")) ?? "" == "10.1.2.3 is 10.1.2.3 in 10.0.0.0/8, private (RFC 1918): webhooks are "
            + "not sent to addresses inside (flagserver --webhook-allow-network allows a network on purpose)")
    }

    @Test func publicAddressesAreAllowedAndConnectedToAsChecked() throws {
        let policy = WebhookDestinationPolicy()
        for (url, address) in [("https://8.8.8.8/", "8.8.8.8"), ("http://172.15.255.255/", "172.15.255.255"), ("http://100.63.255.255/", "100.63.255.255"),
                               ("http://172.32.0.0/", "172.32.0.0"), ("http://[2606:4700:4700::1111]:8443/", "2606:4700:4700::1111"),
                               ("http://[::ffff:8.8.8.8]/", "::ffff:8.8.8.8")] {
            #expect(policy.decide(url) == .connect([try #require(IPAddress(address))]), "\(url)")
        }
    }

    @Test func everyAddressOfANameIsCheckedAndOneInsideRefusesIt() throws {
        let resolver = Resolver(["hooks.example": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
                                 "mixed.example": ["93.184.215.14", "10.0.0.7"], "mapped.example": ["::ffff:127.0.0.1"]])
        let policy = try resolver.policy()
        #expect(policy.decide("https://hooks.example/symi") == .connect(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"].compactMap { IPAddress($0) }))
        #expect(Self.refusal(policy.decide("https://Mixed.Example./x")) == nil, "looked up as written, case and dot included: unknown here")
        #expect(Self.refusal(policy.decide("https://mixed.example/x"))?.hasPrefix("mixed.example resolves to 10.0.0.7 in 10.0.0.0/8") == true)
        #expect(Self.refusal(policy.decide("https://mapped.example/x"))?.contains("which carries 127.0.0.1, in 127.0.0.0/8") == true)
        if case .unresolved(let reason) = policy.decide("https://missing.example/") {
            #expect(reason.hasPrefix("cannot resolve missing.example: Name or service not known"))
        } else {
            Issue.record("a missing name was not unresolved")
        }
        // Literals and localhost names never reach the resolver.
        _ = policy.decide("http://127.0.0.1/")
        _ = policy.decide("http://localhost./")
        #expect(resolver.lookups.withLock { $0 } == ["hooks.example", "Mixed.Example.", "mixed.example", "mapped.example", "missing.example"])
    }

    @Test func anAllowedNetworkPassesItsAddressesAndNothingElse() throws {
        let resolver = Resolver(["receiver.internal": ["10.20.0.5"], "both.internal": ["10.20.0.5", "192.168.0.9"]])
        let policy = try resolver.policy(allowing: ["10.20.0.0/16", "127.0.0.0/8"])
        #expect(policy.decide("http://receiver.internal:8080/") == .connect([try #require(IPAddress("10.20.0.5"))]))
        #expect(Self.refusal(policy.decide("http://both.internal/"))?.contains("192.168.0.9 in 192.168.0.0/16") == true)
        #expect(policy.decide("http://127.0.0.1:9/") == .connect([try #require(IPAddress("127.0.0.1"))]))
        #expect(policy.decide("http://[::ffff:127.0.0.1]/") == .connect([try #require(IPAddress("::ffff:127.0.0.1"))]), "the IPv4 it carries is allowed")
        #expect(Self.refusal(policy.decide("http://localhost/"))?.contains("that is ::1 in ::1/128") == true,
                "localhost is ::1 too, which 127.0.0.0/8 does not allow")
        #expect(Self.refusal(policy.decide("http://[::1]/"))?.contains("::1/128, loopback") == true)
        #expect(Self.refusal(policy.decide("http://10.21.0.1/")) != nil)
        #expect(Self.refusal(policy.decide("http://169.254.169.254/")) != nil)
        let withIPv6 = try resolver.policy(allowing: ["127.0.0.0/8", "::1"])
        #expect(withIPv6.decide("http://localhost/") == .connect([try #require(IPAddress("127.0.0.1")), try #require(IPAddress("::1"))]))
    }

    @Test func theHostIsReadAsWrittenInTheURL() {
        let cases: [(String, String?)] = [
            ("https://hooks.example/symi", "hooks.example"), ("http://hooks.example:8080", "hooks.example"), ("http://[::1]:80/x", "[::1]"),
            ("http://user:pw@10.0.0.1:80/", "10.0.0.1"), ("http://a@b@127.0.0.1/", "127.0.0.1"), ("http://h.example?x=1", "h.example"),
            ("http://h.example#f", "h.example"), ("http:///path", nil), ("hooks.example", nil), ("http://[::1", "[::1"),
        ]
        for (url, host) in cases {
            #expect(WebhookDestinationPolicy.host(of: url) == host, "\(url)")
        }
        #expect(Self.refusal(WebhookDestinationPolicy().decide("http:///x")) == "the URL has no host")
    }
}

extension WebhookDestinationPolicyTests {
    @Test func aLookupThatDoesNotAnswerInTimeIsUnresolvedAndHoldsNoOne() throws {
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        var policy = WebhookDestinationPolicy { _ throws(HostResolverError) in
            // A DNS server that never answers: the lookup returns only when the test ends.
            release.wait()
            return [IPAddress("127.0.0.1")].compactMap { $0 }
        }
        policy.lookupTimeout = .milliseconds(200)
        #expect(policy.decide("https://slow.example/hook") == .unresolved("cannot resolve slow.example: no answer within 0.2 seconds"))
        // A literal needs no lookup, however slow the resolver.
        #expect(Self.refusal(policy.decide("http://127.0.0.1/")) != nil)
    }
}
