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

/// `GET /bots/{bot}/integrations/{n}/steps` (`?cell=NAME`: a matrix cell's): the log as a page of
/// its steps (`StepsPage`). `?find=TEXT` answers with a redirect to the first line holding it
/// (`…/steps?line=N#LN`), which opens that line's step and marks the line: where a failure's
/// "in the log" leads. `?line=N` marks line N.
extension LogController {
    /// The most of a log a page reads: a larger log shows its end, and the page says so.
    static let pageBytes = 4 << 20
    /// The most lines a step shows: a longer one shows its end.
    static let linesPerSection = 5_000

    func addStepRoutes(to router: Router<KilnRequestContext>, assets: WebAssets) {
        router.get("bots/{bot}/integrations/{number}/steps") { request, context in
            let query = request.uri.queryParameters
            let cell = query["cell"].map(String.init)
            let integration = try await locate(bot: try context.parameters.require("bot"), number: context.parameters.get("number"), cell: cell)
            let number = integration.cellOf ?? integration.number
            var path = "/bots/\(integration.bot)/integrations/\(number)/steps"
            if let cell { path += "?cell=" + SourceLink.percentEncoded(cell) }
            if let wanted = query["find"].map(String.init), !wanted.isEmpty {
                let found = try await findLine(wanted, in: integration)
                let location = found.map { path + (cell == nil ? "?" : "&") + "line=\($0)#L\($0)" } ?? path
                return Response(status: .found, headers: [.location: location])
            }
            let page = try await stepsPage(of: integration, shownAs: number, cell: cell, marked: query["line"].flatMap { Int(String($0)) })
            return PageChrome.page(ByteBuffer(string: assets.render(page, "steps")), for: context)
        }
    }

    func stepsPage(of integration: Integration, shownAs number: Int, cell: String?, marked: Int?) async throws -> StepsPage {
        let base = "/bots/\(integration.bot)/integrations/\(number)"
        let steps = try await store.integration(bot: integration.bot, number: number).map { detail in
            cell == nil ? detail.steps : []
        }
        let size = try await store.logSize(bot: integration.bot, number: integration.number) ?? 0
        let start = max(0, size - Self.pageBytes)
        var bytes = try await readAll(integration, from: start, upTo: size)
        var firstLine = 1
        if start > 0 {
            firstLine += try await newlines(in: integration, before: start)
            if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                bytes = Array(bytes[bytes.index(after: newline)...])
                firstLine += 1
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let log = LogText(text[...], firstLine: firstLine, linesPerSection: Self.linesPerSection)
        let sections = StepsPage.sections(of: log, steps: steps ?? [], result: integration.result, marked: marked)
        return StepsPage(
            title: "\(integration.bot) #\(number)\(cell.map { " \($0)" } ?? "") steps · Kiln", bot: integration.bot,
            botURL: "/bots/\(integration.bot)",
            integrationURL: base, number: number, cell: cell, result: integration.result?.rawValue ?? integration.step.rawValue,
            tone: IntegrationReport.tone(integration.result), logURL: base + "/log" + (cell.map { "?cell=" + SourceLink.percentEncoded($0) } ?? ""),
            sections: sections, hasSections: !sections.isEmpty,
            skipped: start > 0 ? "The log's first \(ByteCount.text(start)) are left out here: the whole log has them." : nil)
    }

    /// Reads the log from `start` up to `end` in chunks of a MiB, handing each to `body`, until
    /// `body` says to stop (false).
    private func scan(_ integration: Integration, from start: Int, upTo end: Int, _ body: ([UInt8]) -> Bool) async throws {
        var offset = start
        while offset < end, let chunk = try await read(integration, from: offset, limit: min(1 << 20, end - offset)), body(chunk) {
            offset += chunk.count
        }
    }

    /// The log's bytes from `start` to `end`.
    private func readAll(_ integration: Integration, from start: Int, upTo end: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        try await scan(integration, from: start, upTo: end) {
            bytes += $0; return true
        }
        return bytes
    }

    /// How many lines end before `offset`.
    private func newlines(in integration: Integration, before offset: Int) async throws -> Int {
        var count = 0
        try await scan(integration, from: 0, upTo: offset) { chunk in
            count += chunk.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            return true
        }
        return count
    }

    /// The number of the first line of the log holding `wanted`, as the terminal showed it; nil
    /// when none does. A `file:line` is looked for as written, then by its file's name alone
    /// (Swift Testing names only that).
    func findLine(_ wanted: String, in integration: Integration) async throws -> Int? {
        let size = try await store.logSize(bot: integration.bot, number: integration.number) ?? 0
        var needles = [wanted]
        if wanted.contains("/"), let last = wanted.split(separator: "/").last { needles.append(String(last)) }
        for needle in needles {
            var (number, carry, read, found): (Int, [UInt8], Int, Int?) = (0, [], 0, nil)
            try await scan(integration, from: 0, upTo: size) { chunk in
                read += chunk.count
                var lines = (carry + chunk).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                carry = read < size ? Array(lines.removeLast()) : []
                for line in lines {
                    number += 1
                    if LogText.plain(String(decoding: line, as: UTF8.self)[...]).contains(needle) {
                        found = number
                        return false
                    }
                }
                return true
            }
            if let found { return found }
        }
        return nil
    }
}
