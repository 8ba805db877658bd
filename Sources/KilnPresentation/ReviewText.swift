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

/// What a pull request's review says: a line comment per finding, what a resolved one becomes,
/// and the summary comment. Each ends with a hidden marker naming its finding, by which Kiln
/// finds its comments again among those the forge reads back.
public enum ReviewText {
    /// `<!-- kiln:FINGERPRINT -->`.
    public static func marker(_ fingerprint: String) -> String { "<!-- kiln:\(fingerprint) -->" }

    /// The fingerprint a comment's marker names; nil for a comment Kiln did not write.
    public static func fingerprint(in body: String) -> String? {
        guard let start = body.range(of: "<!-- kiln:"), let end = body.range(of: " -->", range: start.upperBound..<body.endIndex) else {
            return nil
        }
        return String(body[start.upperBound..<end.lowerBound])
    }

    /// A finding's kind, with its check: `warning`, `analyzer-warning (license-header)`.
    static func kind(_ finding: ReviewFinding) -> String {
        finding.check.map { "\(finding.type.rawValue) (\($0.rawValue))" } ?? finding.type.rawValue
    }

    static func link(_ draft: ReviewDraft) -> String {
        let name = "integration #\(draft.number)"
        return draft.request.url.map { "[\(name)](\($0))" } ?? name
    }

    /// A comment on a changed line.
    public static func comment(_ finding: ReviewFinding, draft: ReviewDraft) -> String {
        if let run = finding.uncovered {
            let coverage = draft.request.patch.map { " Coverage of this change: \($0.sentence)." } ?? ""
            return "**Kiln**: no test runs \(lines(run)) of this change.\(coverage)\n\nMeasured by \(link(draft)).\n\(marker(finding.fingerprint))"
        }
        let cells = finding.cells.isEmpty ? "" : " (in \(finding.cells.joined(separator: ", ")))"
        return "**Kiln**: new \(kind(finding))\(cells)\n\n```\n\(finding.message)\n```\n\nFound by \(link(draft)).\n\(marker(finding.fingerprint))"
    }

    /// "line 12" or "lines 12–14".
    static func lines(_ run: ClosedRange<Int>) -> String {
        (run.count == 1 ? "line " : "lines ") + PatchCoverage.range(run)
    }

    /// What a comment whose finding went away becomes.
    public static func resolved(_ comment: ReviewComment, draft: ReviewDraft) -> String {
        "~~Kiln: this finding~~ is resolved in \(ShortHash.text(draft.request.head)) (\(link(draft))).\n\n<details><summary>It was</summary>\n\n"
            + comment.body.replacingOccurrences(of: marker(comment.fingerprint), with: "") + "\n</details>\n" + marker(comment.fingerprint)
    }

    /// The summary: the findings not on a changed line, or over the limit; and when none is left,
    /// that none is.
    public static func summary(_ findings: [ReviewFinding], draft: ReviewDraft) -> String {
        var lines = ["**Kiln** · \(link(draft)) of \(ShortHash.text(draft.request.head))"]
        if findings.isEmpty {
            lines.append("\nNo new findings outside the lines this pull request changed.")
        } else {
            lines.append("\n\(CountText.of(findings.count, "new finding")) outside the lines this pull request changed, or over its comment limit:\n")
            for finding in findings {
                let place = finding.file.map { file in "`\(file)\(finding.line.map { ":\($0)" } ?? "")` " } ?? ""
                if let run = finding.uncovered {
                    lines.append("- \(place)no test runs \(Self.lines(run))")
                    continue
                }
                let cells = finding.cells.isEmpty ? "" : " (in \(finding.cells.joined(separator: ", ")))"
                lines.append("- \(kind(finding)): \(place)\(finding.message.split(separator: "\n").first ?? "")\(cells)")
            }
        }
        if let patch = draft.request.patch {
            let uncovered = patch.files.filter { !$0.uncovered.isEmpty }
            lines.append("\nCoverage of this change: \(patch.sentence)\(uncovered.isEmpty ? "." : "; not run by any test:")\n")
            for file in uncovered { lines.append("- `\(file.path)`: \(PatchCoverage.ranges(file.uncovered))") }
        }
        lines.append(marker(ReviewComment.summary))
        return lines.joined(separator: "\n")
    }
}
