import Foundation

/// PEM certificate files (RFC 7468): the base64 DER between `-----BEGIN CERTIFICATE-----` and
/// `-----END CERTIFICATE-----` lines, as `TransportOptions.caFile` holds them. URLSession's trust evaluation
/// takes DER (`SecCertificateCreateWithData`), libcurl takes the file itself.
enum PEMCertificates {
    /// The DER bytes of every well-formed certificate block in `text`, in file order. Other blocks (keys),
    /// text between blocks and blocks whose base64 does not decode are skipped.
    static func der(fromPEM text: String) -> [Data] {
        var certificates: [Data] = []
        var base64: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line == "-----BEGIN CERTIFICATE-----" {
                base64 = ""
            } else if line == "-----END CERTIFICATE-----" {
                if let body = base64, let der = Data(base64Encoded: body), !der.isEmpty { certificates.append(der) }
                base64 = nil
            } else if base64 != nil {
                base64? += line
            }
        }
        return certificates
    }
}
