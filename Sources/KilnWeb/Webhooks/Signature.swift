//===----------------------------------------------------------------------===//
//
// This source file is part of the Kiln open source project
//
// Copyright (c) 2026 the Kiln project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import KilnCore

/// Checking a delivery's signature the way its forge makes it (`SignatureScheme`), in constant time.
enum Signature {
    /// Whether `header` is `body` signed with `secret` as `scheme` says: an HMAC-SHA256 in hex
    /// (after its prefix), or the secret itself as a token. Every comparison takes the same time
    /// whatever matches.
    static func isValid(_ header: String, body: [UInt8], secret: [UInt8], scheme: SignatureScheme) -> Bool {
        let key = SymmetricKey(data: secret)
        switch scheme {
        case .token:
            // Compare MACs of both tokens: equal length, and the comparison is constant-time.
            let presented = HMAC<SHA256>.authenticationCode(for: Array(header.utf8), using: key)
            return HMAC<SHA256>.isValidAuthenticationCode(presented, authenticating: secret, using: key)
        case .hmacSHA256(let prefix, let prefixOptional):
            var hex = Substring(header.trimmingCharacters(in: .whitespaces))
            if hex.hasPrefix(prefix) {
                hex = hex.dropFirst(prefix.count)
            } else if !prefixOptional {
                return false
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
