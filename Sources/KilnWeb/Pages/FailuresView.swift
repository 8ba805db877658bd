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
import KilnPresentation

/// One new failure at the top of a failed integration's page: what failed, where (linked to the
/// file at that commit), the source lines around it, who brought it, in which cells.
struct FailureView {
    var kind: String
    var message: String
    /// `Sources/Lib/Lib.swift:12`.
    var location: String?
    /// The file at the integration's commit and line: the forge's page, or Kiln's (`SourceLink`).
    var url: String?
    var lines: [SourceLineView]
    var hasLines: Bool
    /// The line of the log where it was reported (`…/steps?find=file:line:`).
    var logURL: String?
    var introducedBy: String?
    var cells: String?
}

/// A line of a file as a page shows it, numbered; `marked`: the line a failure is reported at.
struct SourceLineView {
    var number: Int
    var text: String
    var marked: Bool
    /// Its anchor, `L12`.
    var anchor: String
    /// In a file's view with coverage: `ran` or `not-run` for an executable line (its class),
    /// with the words a screen reader says; nil for a line that is not executable.
    var coverClass: String? = nil
    var coverageLabel: String? = nil
    /// What the eye reads beside the colour: ✓ or ✗.
    var glyph: String? = nil
    /// One of the change's executable lines.
    var changed = false
}

/// The failures an integration's page shows first, and the lines of source they read.
enum Failures {
    /// The kinds of new issue that are failures a person reads first.
    static let kinds: Set<IssueType> = [.error, .testFailure, .sanitizer, .analyzerWarning]
    /// At most this many are shown first (all are in the issue list below).
    static let shown = 10
    /// Lines shown before and after a failure's line.
    static let context = 2

    /// The new failures of `detail`, each with its source lines read from the integration's
    /// commit; no lines for a file that cannot be read (the link still leads to it).
    static func views(of detail: IntegrationDetail, bot: Bot?, source: SourceReader, kept: Kept<[Substring]>) async -> [FailureView] {
        let integration = detail.integration
        let failures = detail.issues.filter { $0.status == .new && kinds.contains($0.type) }.prefix(shown)
        var files: [String: [Substring]] = [:]
        var views: [FailureView] = []
        for issue in failures {
            var view = FailureView(
                kind: issue.type.noun, message: issue.message, location: issue.file.map { file in issue.line.map { "\(file):\($0)" } ?? file },
                url: nil, lines: [], hasLines: false, logURL: nil,
                introducedBy: issue.introducedBy.isEmpty
                    ? nil : issue.introducedBy.map { "\($0.name) (\(ShortHash.text($0.commit)))" }.joined(separator: ", "),
                cells: issue.cellsText)
            if let file = issue.file, let line = issue.line {
                view.logURL =
                    "/bots/\(integration.bot)/integrations/\(integration.number)/steps?find="
                    + file.split(separator: "/").map { SourceLink.percentEncoded(String($0)) }.joined(separator: "/")
                    + "%3A\(line)%3A"
            }
            if let file = issue.file, let commit = integration.commit, let bot, !file.hasPrefix("/") {
                view.url = SourceLink.url(file: file, line: issue.line, commit: commit, bot: bot, integration: integration.number)
                if let line = issue.line {
                    // A file at a commit never changes: read from the mirror once.
                    let key = "\(bot.repository.url.identity)@\(commit):\(file)"
                    if files[file] == nil { files[file] = await kept.value(for: key) }
                    if files[file] == nil, case .text(let data) = await source(bot.repository, commit, file) {
                        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
                        files[file] = lines
                        await kept.keep(lines, for: key)
                    }
                    view.lines = Self.lines(files[file] ?? [], around: line)
                    view.hasLines = !view.lines.isEmpty
                }
            }
            views.append(view)
        }
        return views
    }

    /// `line` and `context` lines either side, numbered from 1; none when the file is shorter.
    static func lines(_ file: [Substring], around line: Int) -> [SourceLineView] {
        guard line >= 1, line <= file.count else { return [] }
        return (max(1, line - context)...min(file.count, line + context)).map { number in
            SourceLineView(number: number, text: String(file[number - 1]), marked: number == line, anchor: "L\(number)")
        }
    }
}
