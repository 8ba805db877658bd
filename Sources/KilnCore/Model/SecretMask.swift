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

/// Every form in which a bot's secret values may come out of a build, each replaced by `***`:
/// the value; each line of a value that has several (output is read line by line); its base64
/// (standard and URL-safe, at each of the three alignments it can have inside a longer encoded
/// text, as in an HTTP basic authorization); its percent- and form-encoding; its escaped form in JSON.
///
/// A value shorter than `minimumLength` is not masked: replacing every `abc` in a log would show
/// where the secret is rather than hide it, and `kiln validate` warns of it.
public struct SecretMask: Sendable {
    public static let minimumLength = 8
    /// Longest first, so that a form containing another is masked whole.
    private let forms: [[UInt8]]

    public static let none = SecretMask(values: [])

    public init(values: [String]) {
        var forms: Set<[UInt8]> = []
        for value in values where !Self.isTooShort(value) {
            for form in Self.forms(of: value) where form.count >= Self.minimumLength { forms.insert(form) }
        }
        self.forms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
    }

    public var isEmpty: Bool { forms.isEmpty }

    /// Whether `value` is too short to be masked.
    public static func isTooShort(_ value: String) -> Bool {
        value.trimmingCharacters(in: .whitespacesAndNewlines).utf8.count < minimumLength
    }

    /// The forms of `value` looked for in output.
    static func forms(of value: String) -> [[UInt8]] {
        let bytes = Array(value.utf8)
        var forms = [bytes]
        let lines = value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        if lines.count > 1 { forms += lines.map { Array($0.utf8) } }
        for encoded in base64Forms(of: bytes) {
            forms.append(Array(encoded.utf8))
            forms.append(Array(encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").utf8))
        }
        let json = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "/", with: "\\/")
        if json != value { forms.append(Array(json.utf8)) }
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        if let percent = value.addingPercentEncoding(withAllowedCharacters: unreserved) {
            forms.append(Array(percent.utf8))
            forms.append(Array(percent.replacingOccurrences(of: "%20", with: "+").utf8))
        }
        return forms
    }

    /// The value's base64 whole, and the part of it that does not depend on what surrounds it
    /// when it starts at each of the three positions of a base64 group.
    static func base64Forms(of bytes: [UInt8]) -> [String] {
        var forms = [Data(bytes).base64EncodedString()]
        for skipped in 0..<3 where bytes.count > skipped {
            let aligned = bytes.dropFirst(skipped)
            let whole = aligned.count / 3 * 3
            guard whole > 0 else { continue }
            forms.append(Data(aligned.prefix(whole)).base64EncodedString())
        }
        return forms
    }

    /// `bytes` with every form replaced by `***`.
    public func apply(_ bytes: [UInt8]) -> [UInt8] {
        guard !forms.isEmpty else { return bytes }
        var output = bytes
        for form in forms {
            guard let first = form.first, output.count >= form.count, output.contains(first) else { continue }
            var result: [UInt8] = []
            var copied = 0
            var index = 0
            let last = output.count - form.count
            while index <= last {
                if output[index] == first, output[index..<(index + form.count)].elementsEqual(form) {
                    if result.isEmpty { result.reserveCapacity(output.count) }
                    result += output[copied..<index]
                    result += [42, 42, 42]
                    index += form.count
                    copied = index
                } else {
                    index += 1
                }
            }
            guard copied > 0 else { continue }
            result += output[copied...]
            output = result
        }
        return output
    }

    /// `text` with every form replaced by `***`.
    public func apply(_ text: some StringProtocol) -> String {
        guard !forms.isEmpty else { return String(text) }
        return String(decoding: apply(Array(text.utf8)), as: UTF8.self)
    }
}
