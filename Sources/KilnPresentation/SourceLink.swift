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

/// Where a person reads a file of a bot's repository at a commit, at a line: the forge's own view
/// when the bot has a forge (configured, or implied by the repository's host), else Kiln's view of
/// the file from its mirror (`/bots/{bot}/integrations/{n}/source/{path}`).
public enum SourceLink {
    public static func url(file: String, line: Int?, commit: String, bot: Bot, integration number: Int) -> String {
        let anchor = line.map { "#L\($0)" } ?? ""
        let path = file.split(separator: "/").map { percentEncoded(String($0)) }.joined(separator: "/")
        if let page = forgePage(of: bot, { $0.filePage(commit: commit, path: path) }) { return page + anchor }
        return kilnView(file: file, bot: bot.name, integration: number) + anchor
    }

    /// Kiln's own view of `file` as of integration `number`, which marks the lines its tests ran
    /// (a forge's view cannot).
    public static func kilnView(file: String, bot: String, integration number: Int) -> String {
        let path = file.split(separator: "/").map { percentEncoded(String($0)) }.joined(separator: "/")
        return "/bots/\(percentEncoded(bot))/integrations/\(number)/source/\(path)"
    }

    /// The forge's page of `commit` and its diff; nil when the bot has no forge with pages.
    public static func commit(_ commit: String, bot: Bot) -> String? {
        forgePage(of: bot) { $0.commitPage(commit: commit) }
    }

    /// The forge's page that `page` names under the bot's repository, when the bot has a forge
    /// (configured, or implied by the repository's host) with such pages.
    private static func forgePage(of bot: Bot, _ page: (any Forge) -> String?) -> String? {
        let url = bot.repository.url
        guard let host = url.host, url.scheme != .file, bot.forge != nil || Forges.implied(byHost: host) != nil,
            let relative = page(Forges.forge(bot.forgeKind))
        else { return nil }
        return "https://\(host)/\(ForgeSettings.project(of: url))/\(relative)"
    }

    /// `text` with everything but unreserved characters percent-encoded, for one path segment or
    /// query value.
    public static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters, ASCII only (`CharacterSet.alphanumerics` has every
    /// script's letters).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
