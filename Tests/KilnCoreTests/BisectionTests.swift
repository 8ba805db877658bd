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
import Testing

@Suite("Bisection: which commits to integrate, and when it has found the one")
struct BisectionTests {
    static func commits(_ count: Int) -> [Commit] {
        (1...count).map {
            Commit(sha: "c\($0)", author: "A\($0)", email: "a\($0)@example.com", date: Date(timeIntervalSince1970: 0), subject: "commit \($0)")
        }
    }

    /// Runs a whole search against a range where `culprit` (1-based) is the first bad commit and
    /// `broken` commits fail for another reason; returns the rounds and the end.
    static func search(_ count: Int, culprit: Int, broken: Set<Int> = [], parallel: Int = 1) -> (rounds: [[String]], end: Bisection.Step) {
        var bisection = Bisection(
            id: 1, bot: "app", integrationID: 1, commits: commits(count), fingerprints: ["f"], maxIntegrations: 8, createdAt: Date())
        var rounds: [[String]] = []
        while true {
            let step = bisection.next(parallel: parallel)
            guard case .integrate(let probes) = step else { return (rounds, step) }
            rounds.append(probes.map(\.sha))
            for probe in probes {
                let index = Int(probe.sha.dropFirst()) ?? 0
                bisection.integrations.append(index)
                bisection.verdicts[probe.sha] = broken.contains(index) ? .skip : index >= culprit ? .bad : .good
            }
        }
    }

    @Test("Eight commits, one executor: halving finds any culprit in at most 3 integrations")
    func halving() {
        for culprit in 1...8 {
            let (rounds, end) = Self.search(8, culprit: culprit)
            #expect(end == .found(Self.commits(8)[culprit - 1]), "culprit \(culprit)")
            #expect(rounds.count <= 3 && rounds.allSatisfy { $0.count == 1 }, "culprit \(culprit): \(rounds)")
        }
        #expect(Self.search(8, culprit: 5).rounds.first == ["c4"], "the first probe halves the range")
    }

    @Test("With three idle executors, each round integrates three commits and two rounds suffice")
    func kWay() {
        for culprit in 1...8 {
            let (rounds, end) = Self.search(8, culprit: culprit, parallel: 3)
            #expect(end == .found(Self.commits(8)[culprit - 1]))
            #expect(rounds.count <= 2, "culprit \(culprit): \(rounds)")
        }
        #expect(Self.search(8, culprit: 5, parallel: 3).rounds.first == ["c2", "c4", "c6"])
    }

    @Test("A commit that fails for another reason is skipped; a culprit hidden behind skips is named as a range")
    func skips() {
        let (rounds, end) = Self.search(8, culprit: 5, broken: [6])
        #expect(end == .found(Self.commits(8)[4]), "c6 is skipped; c4 good and c5 bad still pin c5")
        #expect(rounds.joined().contains("c6"))
        let (_, hidden) = Self.search(8, culprit: 5, broken: [4, 5])
        guard case .failed(let reason) = hidden else {
            Issue.record("expected a failure, got \(hidden)")
            return
        }
        #expect(reason == .among(["c4", "c5", "c6"]), "\(reason)")
    }

    @Test("A search stops at bisect.max-integrations")
    func bounded() {
        var bisection = Bisection(
            id: 1, bot: "app", integrationID: 1, commits: Self.commits(8), fingerprints: ["f"], maxIntegrations: 1, createdAt: Date())
        bisection.integrations = [4]
        bisection.verdicts["c4"] = .good
        #expect(bisection.next(parallel: 1) == .failed(.limitReached(integrations: 1)))
    }

    @Test("A commit is bad when a sought failure shows; good when it built and tested without it; skipped otherwise")
    func verdicts() {
        #expect(Bisection.verdict(result: .testFailures, found: ["f", "g"], sought: ["f"]) == .bad)
        #expect(Bisection.verdict(result: .testFailures, found: ["g"], sought: ["f"]) == .good)
        #expect(Bisection.verdict(result: .succeeded, found: [], sought: ["f"]) == .good)
        #expect(Bisection.verdict(result: .buildErrors, found: ["e"], sought: ["f"]) == .skip)
        #expect(Bisection.verdict(result: .checkoutError, found: [], sought: ["f"]) == .skip)
    }
}
