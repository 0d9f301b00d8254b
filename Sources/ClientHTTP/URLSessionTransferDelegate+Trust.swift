#if canImport(Security)
import Foundation
import Security

// Not compiled on Linux (no Security framework; FoundationNetworking never asks the delegate about server trust).
extension URLSessionTransferDelegate {
    /// With ``TransportOptions/caFile`` set, the server's chain must end at one of its certificates and nowhere
    /// else (`SecTrustSetAnchorCertificatesOnly`); the host name check of URLSession's SSL policy stays. Without
    /// it, the system's trust decides (`performDefaultHandling`).
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust, case .success(let der)? = anchors else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        let certificates = der.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        var error: CFError?
        if certificates.count == der.count,
           SecTrustSetAnchorCertificates(trust, certificates as CFArray) == errSecSuccess,
           SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess,
           SecTrustEvaluateWithError(trust, &error) {
            completionHandler(.useCredential, URLCredential(trust: trust))
            return
        }
        let reason = error.map { CFErrorCopyDescription($0) as String } ?? "a certificate of the CA file was not usable"
        end(task, .tls, "server certificate not trusted by the CA file: \(reason)")
        completionHandler(.cancelAuthenticationChallenge, nil)
    }
}
#endif
