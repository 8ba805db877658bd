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
import Testing

@Suite("Reasons as data")
struct IntegrationReasonTests {
    /// One of every case, with values a sentence can be checked against.
    static let every: [IntegrationReason] = [
        .canceledFromWeb(token: "alice"), .canceledFromWeb(token: nil), .canceled, .pullRequestClosed(number: 7, merged: true),
        .superseded(commit: "0123456789abcdef"), .serverStopped, .botUnavailable, .cellRemoved(cell: "6_2-debug-none"),
        .noHost(toolchain: "6.2"), .matrixEnded(result: .buildErrors), .checkoutFailed(message: "reference 'main' not found"),
        .triggerFailed(name: "lint", status: 3), .timedOut(limit: .seconds(1800)), .workspaceDeleted(path: "/w/app"),
        .archiveTooLarge(bytes: 2048, limit: 1024), .archiveNotKept(message: "disk full"),
        .fault(stage: .checkout, message: "e1"), .fault(stage: .recordingStep(.testing), message: "e2"),
        .fault(stage: .readingBaseline, message: "e3"), .fault(stage: .readingTestHistory(test: "S.t"), message: "e4"),
        .fault(stage: .other, message: "e5"), .abandoned(owner: "kiln 12@a", step: .building), .abandoned(owner: nil, step: .checkout),
        .hostLost(host: "build-1", lastHeard: Date(timeIntervalSince1970: 1_800_000_000), step: .testing),
        .hostLost(host: "build-2", lastHeard: nil, step: .pending),
        .logLost(path: "/l/1.log", bytes: 4096, message: "No space left on device", besides: .triggerFailed(name: "t", status: 1)),
        .cells([.init(cell: "a", reason: .noHost(toolchain: "x")), .init(cell: "b", reason: .canceled)]), .failuresDidNotReproduce(number: 4),
        .recorded(text: "as it was"),
    ]

    @Test("Every reason is stored as its code and values, and reads back as the same case")
    func roundTrip() throws {
        for reason in Self.every {
            let stored = reason.stored
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any], "\(stored)")
            #expect(object["code"] as? String == reason.code, "\(stored)")
            #expect(IntegrationReason(stored: stored) == reason, "\(stored)")
        }
        #expect(Set(Self.every.map(\.code)).count == 22, "every case has a code of its own")
    }

    @Test("Text an older Kiln stored, or a code this one does not know, is kept as it was")
    func legacy() {
        #expect(IntegrationReason(stored: "pull request #2 was closed") == .recorded(text: "pull request #2 was closed"))
        #expect(IntegrationReason(stored: #"{"code":"from-the-future","x":1}"#) == .recorded(text: #"{"code":"from-the-future","x":1}"#))
        #expect(IntegrationReason(stored: "{not json") == .recorded(text: "{not json"))
    }

    @Test("KilnPresentation makes each reason's one sentence from its values")
    func sentences() {
        #expect(IntegrationReason.superseded(commit: "0123456789abcdef").sentence == "superseded by a newer commit, 0123456789")
        #expect(IntegrationReason.pullRequestClosed(number: 7, merged: true).sentence == "pull request #7 was merged")
        #expect(IntegrationReason.canceledFromWeb(token: "alice").sentence == "canceled from the web (token alice)")
        #expect(IntegrationReason.timedOut(limit: .seconds(1800)).sentence == "the integration ran longer than its timeout of 30m")
        #expect(
            IntegrationReason.archiveTooLarge(bytes: 2048, limit: 1024).sentence == "archive not kept: 2.0 KiB is over archive.max-size (1.0 KiB)")
        #expect(
            IntegrationReason.hostLost(host: "build-2", lastHeard: nil, step: .pending).sentence
                == "host 'build-2' stopped answering (never heard from) during step 'pending'; another host ended this integration and queued its commit again"
        )
        #expect(
            IntegrationReason.logLost(
                path: "/l/1.log", bytes: 4096, message: "No space left on device", besides: .triggerFailed(name: "t", status: 1)
            )
            .sentence
                == "before trigger 't' failed with exit status 1; the log file /l/1.log could not be written (No space left on device): 4.0 KiB of output lost"
        )
        #expect(
            IntegrationReason.cells([.init(cell: "a", reason: .noHost(toolchain: "x")), .init(cell: "b", reason: .canceled)]).sentence
                == "a: no live host offers the toolchain 'x' (name it under `toolchains:` in a host's kiln.yml); b: canceled")
        #expect(Self.every.allSatisfy { !$0.sentence.isEmpty })
    }
}

@Suite("One report of an integration, for its page and its mail")
struct IntegrationReportTests {
    @Test("The report lists at most 50 new issues and failing tests, counts flaky tests apart, and times a running integration so far")
    func report() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var integration = Integration(
            id: 1, bot: "app", number: 4, cause: .webhook, commit: "0123456789abcdef", branch: "main", step: .testing, queuedAt: start)
        integration.startedAt = start
        let issues = (0..<60).map { (index: Int) in
            IntegrationIssue(type: .error, message: "e\(index)", file: "a.swift", line: index, fingerprint: "\(index)", status: .new)
        }
        let tests =
            (0..<60).map { TestCase(suite: "S", name: "t\($0)", status: .failed, duration: 1) } + [
                TestCase(suite: "S", name: "flaky", status: .flaky, duration: 1)
            ]
        let detail = IntegrationDetail(integration: integration, steps: [], commits: [], issues: issues, tests: tests, triggers: [])
        let report = IntegrationReport(detail, now: start.addingTimeInterval(90))
        #expect(report.result == "testing" && report.tone == "neutral" && report.shortCommit == "0123456789" && report.reason == nil)
        #expect(report.duration == DurationText.prose(90))
        #expect(report.newIssues.count == 50 && report.hasNewIssues && report.newIssues.first?.location == "a.swift:0")
        #expect(report.failingTests.count == 50 && report.failingTests.first == "S.t0")
        #expect(report.flakyTests == ["S.flaky"])
    }
}

@Suite("A bisection's failure and a test's flakiness as data")
struct HistoryWordsTests {
    @Test("A bisection's failure is stored as data and read back, an older sentence kept; its sentence names short commits")
    func bisectionFailure() {
        let failures: [Bisection.Failure] = [.noneShowed, .among(["0123456789abcdef", "fedcba9876543210"]), .limitReached(integrations: 3)]
        for failure in failures { #expect(Bisection.Failure(stored: failure.stored) == failure, "\(failure.stored)") }
        #expect(Bisection.Failure(stored: "no commit showed it") == .recorded("no commit showed it"))
        #expect(
            Bisection.Failure.among(["0123456789abcdef", "fedcba9876543210"]).sentence
                == "it is one of 0123456789, fedcba9876: the others failed for other reasons")
    }

    @Test("A cold workspace's reason is stored as data; an older Kiln's sentence is read back as it was")
    func coldReason() throws {
        let refused = WorkspaceOrigin.cold(
            .refused([.init(host: nil, number: 4, error: "corrupted"), .init(host: "build-2", number: 5, toolchain: "Swift version 6.2")]))
        let stored = try JSONEncoder().encode(refused)
        #expect(try JSONDecoder().decode(WorkspaceOrigin.self, from: stored) == refused)
        #expect(
            refused.sentence
                == "cold: this host's snapshot of #4 was refused: corrupted; build-2's snapshot of #5 was made with Swift version 6.2")
        let older = try JSONDecoder().decode(WorkspaceOrigin.self, from: Data(#"{"origin":"cold","reason":"cache: none"}"#.utf8))
        #expect(older == .cold(.recorded("cache: none")) && older.sentence == "cold: cache: none")
    }

    @Test("Flakiness reads as the test page and a flaky test's message say it")
    func flakiness() {
        #expect(TestHistory.Flakiness.passedOnRerun(number: 2).sentence == "it failed, then passed when run again, in #2")
        #expect(TestHistory.Flakiness.sameCommit("b", numbers: [2, 3]).sentence == "it passed and failed on the same commit b (#2, #3)")
        #expect(TestHistory.Flakiness.flipping(flips: 4, integrations: 5).sentence == "its result changed 4 times in its last 5 integrations")
    }
}

@Suite("How long ago, as the pages and kiln status say it")
struct AgoTests {
    @Test("Just now under 45 s, then minutes, hours under two days, then days; a dash for no date")
    func ago() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ago = { (seconds: Double) in Ago.text(now.addingTimeInterval(-seconds), now: now) }
        #expect(ago(10) == "just now" && ago(100) == "2 min ago" && ago(7200) == "2 h ago" && ago(3 * 86400) == "3 days ago")
        #expect(ago(-30) == "just now", "a clock a little ahead is not the future")
        #expect(Ago.text(nil, now: now) == "—")
    }
}
