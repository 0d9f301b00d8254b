import Foundation

/// A throw-away In-App Purchase key for the promotional offer tests: a P-256 private key in PKCS#8 PEM (what App Store
/// Connect's `.p8` files hold) and its public half, made by the `openssl` command line (Debian's `openssl`, installed
/// by scripts/bootstrap), so the tests verify the server's signatures with a tool that is not the server's code.
package struct OfferSigningKey: Sendable {
    /// The `.p8` file, for `--appstore-offer-key`.
    package let privateKeyPath: String
    /// The public half, PEM.
    package let publicKeyPath: String

    /// Makes the key files in `directory`.
    package init(in directory: URL) throws {
        privateKeyPath = directory.appendingPathComponent("SubscriptionKey.p8").path
        publicKeyPath = directory.appendingPathComponent("public.pem").path
        for arguments in [["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", privateKeyPath],
                          ["pkey", "-in", privateKeyPath, "-pubout", "-out", publicKeyPath]] {
            let status = try SpawnedProcess.run("/usr/bin/openssl", arguments, stdout: "/dev/null")
            guard status == 0 else { throw TestFailure("openssl \(arguments.joined(separator: " ")) exited with \(status)") }
        }
    }

    /// Whether the DER signature `der` verifies over `payload` with the public half (`openssl dgst -sha256 -verify`).
    package func verifies(_ der: Data, over payload: String, scratch directory: URL) throws -> Bool {
        let name = UUID().uuidString
        let payloadFile = directory.appendingPathComponent("payload-\(name)")
        let signatureFile = directory.appendingPathComponent("signature-\(name).der")
        defer {
            try? FileManager.default.removeItem(at: payloadFile)
            try? FileManager.default.removeItem(at: signatureFile)
        }
        try Data(payload.utf8).write(to: payloadFile)
        try der.write(to: signatureFile)
        let status = try SpawnedProcess.run("/usr/bin/openssl", ["dgst", "-sha256", "-verify", publicKeyPath, "-signature",
                                                                 signatureFile.path, payloadFile.path], stdout: "/dev/null")
        return status == 0
    }
}
