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

/// An email as Kiln sends it: multipart/alternative with a plain-text and an HTML part, UTF-8
/// everywhere, headers encoded per RFC 2047, a Message-ID, a Date, and a List-Id per bot.
public struct MailMessage: Sendable, Hashable {
    public var from: EmailAddress
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    public var subject: String
    public var text: String
    public var html: String
    /// `<bot>.<host>` style identifier so that mail clients can filter per bot.
    public var listID: String?
    public var date: Date
    public var messageID: String

    public init(
        from: EmailAddress, to: [EmailAddress], cc: [EmailAddress] = [], subject: String, text: String, html: String, listID: String? = nil,
        date: Date, messageID: String? = nil
    ) {
        self.from = from
        self.to = to
        self.cc = cc
        self.subject = subject
        self.text = text
        self.html = html
        self.listID = listID
        self.date = date
        self.messageID = messageID ?? "<kiln.\(UUID().uuidString.lowercased())@\(from.domain)>"
    }

    /// Every address the message goes to (the SMTP envelope).
    public var recipients: [String] {
        var seen: Set<String> = []
        return (to + cc).map(\.address).filter { seen.insert($0.lowercased()).inserted }
    }

    /// The message as bytes on the wire, lines ending in CRLF.
    public func rendered() -> [UInt8] {
        let boundary = "kiln-" + UUID().uuidString.lowercased()
        var lines: [String] = []
        lines.append("From: " + Self.header(address: from))
        if !to.isEmpty { lines.append("To: " + to.map(Self.header(address:)).joined(separator: ",\r\n ")) }
        if !cc.isEmpty { lines.append("Cc: " + cc.map(Self.header(address:)).joined(separator: ",\r\n ")) }
        lines.append("Subject: " + Self.encodedWords(subject))
        lines.append("Date: " + Self.rfc5322(date))
        lines.append("Message-ID: " + messageID)
        if let listID { lines.append("List-Id: <\(listID)>") }
        lines.append("Auto-Submitted: auto-generated")
        lines.append("MIME-Version: 1.0")
        lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
        lines.append("")
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines.append("--" + boundary)
            lines.append("Content-Type: \(type); charset=utf-8")
            lines.append("Content-Transfer-Encoding: base64")
            lines.append("")
            lines.append(contentsOf: Self.base64Lines(Array(body.utf8)))
        }
        lines.append("--" + boundary + "--")
        lines.append("")
        return Array(lines.joined(separator: "\r\n").utf8)
    }

    // MARK: Encoding

    /// `Name <address>`: a plain name as it is (quoted when it has specials), any other as an
    /// RFC 2047 encoded word.
    static func header(address: EmailAddress) -> String {
        guard let name = address.name, !name.isEmpty else { return address.address }
        if name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 32 && $0.value < 127 }) {
            let plain = name.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || " !#$%&'*+-/=?^_`{|}~".unicodeScalars.contains($0)
            }
            let quoted = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return (plain ? name : "\"\(quoted)\"") + " <\(address.address)>"
        }
        return encodedWords(name) + " <\(address.address)>"
    }

    /// The text as is when it is printable ASCII, else as `=?UTF-8?B?…?=` words of at most 75
    /// characters (never splitting a character), folded onto continuation lines.
    static func encodedWords(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 32 && $0.value < 127 }), !text.contains("=?") { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words.joined(separator: "\r\n ")
    }

    static func base64Lines(_ bytes: [UInt8]) -> [String] {
        let encoded = Data(bytes).base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    static func rfc5322(_ date: Date) -> String {
        var style = Date.VerbatimFormatStyle(
            format:
                "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) +0000",
            locale: Locale(identifier: "en_US_POSIX"), timeZone: TimeZone(identifier: "UTC") ?? .gmt, calendar: Calendar(identifier: .gregorian))
        style.locale = Locale(identifier: "en_US_POSIX")
        return date.formatted(style)
    }
}
