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

import KilnCore

/// Where a person reads a file of a bot's repository at a commit, at a line: the forge's own view
/// when the bot has a forge (configured, or implied by the repository's host), else Kiln's view of
/// the file from its mirror (`/bots/{bot}/integrations/{n}/source/{path}`).
public enum SourceLink {
    public static func url(file: String, line: Int?, commit: String, bot: Bot, integration number: Int) -> String {
        let anchor = line.map { "#L\($0)" } ?? ""
        let path = file.split(separator: "/").map { percentEncoded(String($0)) }.joined(separator: "/")
        let url = bot.repository.url
        if let host = url.host, url.scheme != .file, bot.forge != nil || Forges.implied(byHost: host) != nil,
            let page = Forges.forge(bot.forgeKind).filePage(commit: commit, path: path)
        {
            return "https://\(host)/\(ForgeSettings.project(of: url))/\(page)\(anchor)"
        }
        return "/bots/\(bot.name)/integrations/\(number)/source/\(path)\(anchor)"
    }

    /// `text` with everything but unreserved characters percent-encoded, for one path segment.
    public static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"):
                encoded.append(Character(UnicodeScalar(byte)))
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
