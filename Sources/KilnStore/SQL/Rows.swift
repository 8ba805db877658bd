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

// One decoder per record type, for both engines.

extension IntegrationResult: SQLDecodable { public static var sqlDefault: IntegrationResult { .internalError } }
extension IntegrationStep: SQLDecodable { public static var sqlDefault: IntegrationStep { .pending } }
extension IntegrationCause: SQLDecodable { public static var sqlDefault: IntegrationCause { .manual } }
extension IssueType: SQLDecodable { public static var sqlDefault: IssueType { .error } }
extension IssueStatus: SQLDecodable { public static var sqlDefault: IssueStatus { .new } }
extension TestStatus: SQLDecodable { public static var sqlDefault: TestStatus { .passed } }
extension TriggerPhase: SQLDecodable { public static var sqlDefault: TriggerPhase { .after } }

/// A reason is stored as its code and values (`IntegrationReason.stored`); text an older Kiln
/// wrote reads back as it was (`recorded`).
extension IntegrationReason: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .text(stored) }
    public init?(sqlValue: SQLValue) {
        guard let text = String(sqlValue: sqlValue) else { return nil }
        self.init(stored: text)
    }
    public static var sqlDefault: IntegrationReason { .recorded(text: "") }
}

extension Integration {
    init(row: SQLRow) {
        let result: IntegrationResult? = row["result"]
        var summary: Summary?
        if result != nil, let counts: String = row["issue_counts"] {
            summary = Summary(
                issues: IssueCounts.decode(counts), tests: row["tests"], coverage: row["coverage"],
                issueChanges: IssueCounts.decode(row["issue_changes"]),
                testsChange: row["tests_change"], coverageChange: row["coverage_change"])
        }
        // Kept as `pending` with a mark: every rule about queued work holds for it.
        let step: IntegrationStep = row["step"]
        let awaiting = step == .pending && (row["awaiting_approval"] as Int?) == 1
        self.init(
            id: row["id"], bot: row["bot"], number: row["number"], cause: row["cause"], commit: row["commit_sha"], branch: row["branch"],
            step: awaiting ? .awaitingApproval : step, result: result, queuedAt: row["queued_at"], startedAt: row["started_at"],
            endedAt: row["ended_at"],
            summary: summary, reason: row["reason"], expired: row["expired"], host: row["host"], owner: row["owner"],
            pullRequest: Self.pullRequest(row), bisectionID: row["bisection_id"], workspaceSlot: row["workspace_slot"],
            cellOf: row["cell_of"], cell: (row["cell"] as String?).flatMap(Cell.init(name:)), toolchain: row["toolchain"],
            swiftVersion: row["swift_version"], workspace: JSON.decode(WorkspaceOrigin?.self, from: row["workspace"], default: nil),
            rerunOf: Self.rerun(row))
        subject = row["commit_subject"]
        author = row["commit_author"]
        if let tests: Int = row["progress_tests"] { progress = TestProgress(tests: tests, failed: row["progress_failed"] ?? 0) }
        shards = JSON.decode([ShardRun].self, from: row["shards"], default: [])
        approvedBy = row["approved_by"]
        patchCoverage = JSON.decode(PatchCoverage?.self, from: row["patch_coverage"], default: nil)
    }

    private static func rerun(_ row: SQLRow) -> Rerun? {
        guard let number: Int = row["rerun_of"] else { return nil }
        return Rerun(number: number, only: (row["rerun_only"] as String?).flatMap(Rerun.Scope.init(rawValue:)) ?? .all)
    }

    private static func pullRequest(_ row: SQLRow) -> PullRequest? {
        guard let number: Int = row["pull_number"] else { return nil }
        return PullRequest(
            number: number, title: row["pull_title"], author: row["pull_author"], url: row["pull_url"], head: row["pull_head"],
            base: row["pull_base"], ref: row["pull_ref"], fork: row["pull_fork"])
    }

    /// The integration columns that hold its pull request, in `pullArguments`' order.
    static let pullColumns = ["pull_number", "pull_title", "pull_author", "pull_url", "pull_head", "pull_base", "pull_ref", "pull_fork"]

    static func pullArguments(_ pullRequest: PullRequest?) -> [any SQLBindable] {
        guard let pullRequest else {
            return [SQLValue.null, SQLValue.null, SQLValue.null, SQLValue.null, SQLValue.null, SQLValue.null, SQLValue.null, false]
        }
        return [
            pullRequest.number, pullRequest.title, pullRequest.author, pullRequest.url, pullRequest.head, pullRequest.base, pullRequest.ref,
            pullRequest.fork,
        ]
    }
}

/// A summary's counts by kind, as the store keeps them: a JSON object by `IssueType` raw value
/// (`{"error":1,"test-failure":0,"warning":2}`), so that a new kind of issue needs no column.
enum IssueCounts {
    /// Written and read by hand: a completion writes two and every integration read decodes
    /// two, and Foundation's JSON coders cost more than the rest of a row.
    static func encode(_ counts: [IssueType: Int]) -> String {
        "{" + counts.map { "\"\($0.key.rawValue)\":\($0.value)" }.sorted().joined(separator: ",") + "}"
    }

    /// The counts of `text`; kinds this version does not know, and anything malformed, are left out.
    static func decode(_ text: String?) -> [IssueType: Int] {
        guard var text else { return [:] }
        return text.withUTF8 { bytes in
            var counts: [IssueType: Int] = [:]
            var index = 0
            // `{"kind":count,…}`: a quoted key, a colon, a signed integer, a comma or the brace.
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "\"") else {
                    index += 1
                    continue
                }
                let keyStart = index + 1
                guard let keyEnd = bytes[keyStart...].firstIndex(of: UInt8(ascii: "\"")), keyEnd + 1 < bytes.count,
                    bytes[keyEnd + 1] == UInt8(ascii: ":")
                else { break }
                index = keyEnd + 2
                let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
                if negative { index += 1 }
                var value = 0
                while index < bytes.count, (48...57).contains(bytes[index]) {
                    value = value &* 10 &+ Int(bytes[index] - 48)
                    index += 1
                }
                if let kind = IssueType(rawValue: String(decoding: bytes[keyStart..<keyEnd], as: UTF8.self)) {
                    counts[kind] = negative ? -value : value
                }
            }
            return counts
        }
    }
}

extension Claim {
    /// The claim as the store holds it: the integration and the token its holder must show.
    init(row: SQLRow) {
        self.init(integration: Integration(row: row), token: row["claim_token"])
    }
}

extension IntegrationIssue {
    init(row: SQLRow) {
        self.init(
            type: row["type"], message: row["message"], file: row["file"], line: row["line"], fingerprint: row["fingerprint"],
            status: row["status"], introducedBy: JSON.decode([Committer].self, from: row["introduced_by"], default: []),
            cells: JSON.decode([String].self, from: row["cells"], default: []),
            check: (row["analyzer_check"] as String?).flatMap(AnalyzerCheck.init(rawValue:)))
    }
}

extension TestCase {
    init(row: SQLRow) {
        self.init(
            suite: row["suite"], name: row["name"], status: row["status"], duration: row["duration"], message: row["message"],
            file: row["file"], line: row["line"], quarantined: row["quarantined"],
            measurement: (row["measurement"] as String?).flatMap { JSON.decode(TestMeasurement?.self, from: $0, default: nil) },
            cell: row["cell"])
    }
}

extension HostRecord {
    init(row: SQLRow) {
        self.init(
            name: row["name"], version: row["version"], executors: row["executors"], busy: row["busy"], botsDigest: row["bots_digest"],
            startedAt: row["started_at"], lastHeard: row["last_heard"], lease: row["lease"], gone: row["gone"])
        address = row["address"]
    }
}

extension PullRequest {
    init(row: SQLRow) {
        self.init(
            number: row["number"], title: row["title"], author: row["author"], url: row["url"], head: row["head"], base: row["base"],
            ref: row["ref"], fork: row["fork"])
    }
}
