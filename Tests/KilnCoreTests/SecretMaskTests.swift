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

import Foundation
import KilnCore
import Testing

@Suite("Secret masking: every form a secret's value can take in output")
struct SecretMaskTests {
    let secret = "s3cr3t-T0ken/42"
    var mask: SecretMask { SecretMask(values: [secret]) }

    @Test("The value itself, anywhere in a line, however often")
    func value() {
        #expect(
            mask.apply("XCTAssertEqual failed: (\"\(secret)\") is not equal to (\"x\") \(secret)")
                == "XCTAssertEqual failed: (\"***\") is not equal to (\"x\") ***")
        #expect(mask.apply("nothing here") == "nothing here")
    }

    @Test("Base64 of the value, alone or inside a longer encoded text at each alignment, both alphabets")
    func base64() {
        #expect(!mask.apply(Data(secret.utf8).base64EncodedString()).contains(Data(secret.utf8).base64EncodedString()))
        for prefix in ["", "a", "ab", "user:", "me:"] {
            let encoded = Data((prefix + secret + "!").utf8).base64EncodedString()
            let masked = mask.apply("Authorization: Basic \(encoded)")
            #expect(masked.contains("***"), "\(prefix): \(masked)")
            // What is left of the encoded text cannot be decoded back to the secret.
            let left = masked.replacingOccurrences(of: "Authorization: Basic ", with: "")
            #expect(left.count < encoded.count - 8, "\(prefix): \(masked)")
        }
        let urlSafe = Data(secret.utf8).base64EncodedString().replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-")
        #expect(mask.apply("token=\(urlSafe)").hasPrefix("token=***"))
    }

    @Test("URL- and form-encoded, and escaped in JSON")
    func encodings() {
        #expect(mask.apply("GET /?t=s3cr3t-T0ken%2F42 HTTP/1.1") == "GET /?t=*** HTTP/1.1")
        let spaced = SecretMask(values: ["pass word 1234"])
        #expect(spaced.apply("a=pass+word+1234&b=pass%20word%201234") == "a=***&b=***")
        #expect(mask.apply(#"{"expected":"s3cr3t-T0ken\/42"}"#) == #"{"expected":"***"}"#)
    }

    @Test("Each line of a secret with several, as output is read line by line")
    func lines() {
        let key = "-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\n0hwVgbJfsaGx1fxG2kUo\n-----END KEY-----\n"
        let masked = SecretMask(values: [key]).apply("line 1: MIIBOgIBAAJBAKj34GkxFhD9\nline 2: 0hwVgbJfsaGx1fxG2kUo\n")
        #expect(masked == "line 1: ***\nline 2: ***\n")
    }

    @Test("A value shorter than 8 characters is not masked (and said to be too short)")
    func short() {
        #expect(SecretMask.isTooShort("abc1234") && !SecretMask.isTooShort("abcd1234"))
        #expect(SecretMask(values: ["abc1234", ""]).isEmpty)
        #expect(SecretMask(values: ["abc1234"]).apply("abc1234") == "abc1234")
    }

    @Test("A secret that contains another is masked whole")
    func nested() {
        let both = SecretMask(values: ["token-12345678", "token-12345678-and-more"])
        #expect(both.apply("x token-12345678-and-more y token-12345678") == "x *** y ***")
    }
}
