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
import Hummingbird
import KilnCore
import KilnPresentation
import KilnStore

/// Kiln's view of a file of a bot's repository as of an integration's commit, every line
/// numbered and anchored (`#L12`, marked when it is the target): where a failure's `file:line`
/// leads when the bot has no forge to show it (`SourceLink`). It is a page of the bot, so the
/// bot's visibility applies.
struct SourceController {
    let store: any IntegrationRecords & HostRegistry
    let assets: WebAssets
    let bots: @Sendable () async -> [Bot]
    let source: SourceReader

    /// Files larger than this are not shown (a generated file, a binary).
    static let largest = 2 << 20

    func addRoutes(to router: Router<KilnRequestContext>) {
        router.get("bots/{bot}/integrations/{number}/source/**") { _, context in
            let overview = try await store.overview(of: try context.parameters.require("bot"))
            let number = try APIController.number(context.parameters.get("number"))
            let path = context.parameters.getCatchAll().joined(separator: "/")
            guard !path.isEmpty, !path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
                throw WebError.badRequest("a file's path in the repository, relative to its root")
            }
            guard let detail = try await store.integration(bot: overview.state.name, number: number) else {
                throw WebError.notFound("integration \(number) of bot '\(overview.state.name)'")
            }
            guard let commit = detail.integration.commit, let bot = await bots().first(where: { $0.name == overview.state.name }) else {
                throw WebError.notFound("the commit of integration \(number) of bot '\(overview.state.name)'")
            }
            let data: Data
            switch await source(bot.repository, commit, path) {
            case .text(let contents): data = contents
            case .missing: throw WebError.notFound("\(path) in commit \(commit)")
            case .unavailable(let reason): throw WebError.unavailable("\(path) cannot be read from the repository now: \(reason)")
            }
            guard data.count <= Self.largest, !data.contains(0) else {
                throw WebError.notFound("\(path) is a binary or larger than \(Self.largest >> 20) MiB: it is not shown")
            }
            let page = SourcePage(
                bot: bot.name, number: number, path: path, commit: commit, text: String(decoding: data, as: UTF8.self),
                coverage: detail.integration.patchCoverage?.files.first { $0.path == path })
            return PageChrome.page(ByteBuffer(string: assets.render(page, "source")), for: context)
        }
    }
}

/// What Web/source.mustache renders.
struct SourcePage {
    var title: String
    var bot: String
    var botURL: String
    var integrationURL: String
    var number: Int
    var path: String
    var commit: String
    var lines: [SourceLineView]
    /// With the integration's coverage of this file (a file its change touched): the figure.
    var coverageSummary: String?

    init(bot: String, number: Int, path: String, commit: String, text: String, coverage: PatchCoverage.File? = nil) {
        title = "\(path) · \(bot) #\(number) · Kiln"
        self.bot = bot
        botURL = "/bots/\(bot)"
        integrationURL = "/bots/\(bot)/integrations/\(number)"
        self.number = number
        self.path = path
        self.commit = commit
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        self.lines = lines.enumerated().map { SourceLineView(number: $0 + 1, text: String($1), marked: false, anchor: "L\($0 + 1)") }
        guard let coverage, let run = coverage.run, let notRun = coverage.notRun else { return }
        let (ran, missed, changed) = (Set(run), Set(notRun), Set(coverage.lines ?? []))
        for index in self.lines.indices {
            let number = self.lines[index].number
            if ran.contains(number) {
                (self.lines[index].coverClass, self.lines[index].coverageLabel, self.lines[index].glyph) = (
                    "ran", PatchCoverage.File.lineWords(ran: true), "✓"
                )
            } else if missed.contains(number) {
                (self.lines[index].coverClass, self.lines[index].coverageLabel, self.lines[index].glyph) = (
                    "not-run", PatchCoverage.File.lineWords(ran: false), "✗"
                )
            }
            self.lines[index].changed = changed.contains(number)
        }
        coverageSummary = coverage.wholeFileSentence
    }
}
