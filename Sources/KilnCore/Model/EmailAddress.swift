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

/// An email address with an optional display name: `lead@example.com` or `Kiln <kiln@example.com>`.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    public var name: String?
    /// The bare address, `local@domain`.
    public var address: String

    public var domain: String { String(address[address.index(after: address.lastIndex(of: "@") ?? address.startIndex)...]) }

    /// Parses `addr@domain` or `Display Name <addr@domain>`; nil when it is not a plausible address.
    public init?(_ text: String) {
        let trimmed = text.trimmingWhitespace()
        var name: String?
        var address = trimmed
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            let display = trimmed[..<open].trimmingWhitespace()
            name = display.isEmpty ? nil : display.trimming(["\""])
            address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        }
        guard Self.isPlausible(address) else { return nil }
        self.name = name
        self.address = address
    }

    public init(name: String? = nil, address: String) {
        self.name = name
        self.address = address
    }

    public var description: String {
        guard let name else { return address }
        return "\(name) <\(address)>"
    }

    /// One `@`, a local part of printable ASCII without spaces or brackets, and a domain of
    /// letters, digits and hyphens in dot-separated labels.
    private static func isPlausible(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last, !local.isEmpty, !domain.isEmpty else { return false }
        let forbiddenInLocal: Set<Character> = [" ", "<", ">", "(", ")", ",", ";", ":", "\\", "\"", "[", "]"]
        guard local.allSatisfy({ $0.isASCII && !$0.isWhitespace && !forbiddenInLocal.contains($0) }) else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }

    func trimming(_ set: Set<Character>) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
