import Crypto
import Foundation

/// Access tokens' values: made here, shown once, kept by the store only as their SHA-256.
public enum TokenSecret {
    /// A new token: `kiln_` and 32 random bytes in URL-safe base64 (256 bits).
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "kiln_"
            + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The hash the store keeps of `token`: SHA-256, in hex.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether two hashes are equal, in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// The anti-forgery value of a signed-in person's forms: derived from their token's hash, so
    /// another site (which cannot read the cookie) cannot make it.
    static func formToken(forTokenHash hash: String) -> String {
        String(SHA256.hash(data: Data("kiln-form:\(hash)".utf8)).map { String(format: "%02x", $0) }.joined().prefix(40))
    }
}
