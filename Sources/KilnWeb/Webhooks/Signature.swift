import Crypto
import Foundation
import HTTPTypes

/// How each forge signs a delivery, and checking it in constant time.
enum Signature {
    /// The header carrying the signature, per forge (Forgejo sends its own name beside Gitea's).
    static func headerNames(for forge: PushEvent.Forge) -> [HTTPField.Name] {
        switch forge {
        case .github: [.githubSignature]
        case .gitlab: [.gitlabToken]
        case .gitea: [.giteaSignature, .forgejoSignature]
        case .generic: [.kilnSignature]
        }
    }

    /// Whether `header` is `body` signed with `secret` the way `forge` signs:
    /// GitHub and generic `sha256=<hex HMAC-SHA256>`, Gitea and Forgejo `<hex HMAC-SHA256>`,
    /// GitLab the secret itself as a token. Every comparison takes the same time whatever matches.
    static func isValid(_ header: String, body: [UInt8], secret: [UInt8], forge: PushEvent.Forge) -> Bool {
        let key = SymmetricKey(data: secret)
        switch forge {
        case .gitlab:
            // Compare MACs of both tokens: equal length, and the comparison is constant-time.
            let presented = HMAC<SHA256>.authenticationCode(for: Array(header.utf8), using: key)
            return HMAC<SHA256>.isValidAuthenticationCode(presented, authenticating: secret, using: key)
        case .github, .generic, .gitea:
            var hex = Substring(header.trimmingCharacters(in: .whitespaces))
            if forge != .gitea || hex.hasPrefix("sha256=") {
                guard hex.hasPrefix("sha256=") else { return false }
                hex = hex.dropFirst("sha256=".count)
            }
            guard let mac = bytes(hex: hex), mac.count == SHA256.byteCount else { return false }
            return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: key)
        }
    }

    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
