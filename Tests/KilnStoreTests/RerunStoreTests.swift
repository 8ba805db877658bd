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
import KilnStore
import KilnTestSupport
import Testing

@Suite("Re-runs in the queue")
struct RerunStoreTests {
    @Test(
        "A re-run takes its integration's commit, joins only a queued re-run of the same, is joined by no push, and is no poll's predecessor; a failed-only one is nobody's baseline",
        arguments: Engine.allCases)
    func queueing(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let failing = TestCase(suite: "S", name: "t", status: .failed, duration: 0.1, message: "no")
        try await test.integrate("app", outcome: IntegrationOutcome(result: .testFailures, tests: [failing]), commit: "c1")
        let one = try #require(try await store.integration(bot: "app", number: 1))

        let failedOnly = try Rerun.request(one, only: .failed)
        let queued = try await store.enqueue(failedOnly, now: test.at(10))
        #expect(!queued.coalesced && queued.integration.number == 2 && queued.integration.cause == .rerun)
        #expect(queued.integration.commit == "c1" && queued.integration.rerunOf == Rerun(number: 1, only: .failed))
        let again = try await store.enqueue(failedOnly, now: test.at(11))
        #expect(again.coalesced && again.integration.number == 2, "a second press joins the queued one")
        let whole = try await store.enqueue(try Rerun.request(one, only: .all), now: test.at(12))
        #expect(!whole.coalesced && whole.integration.number == 3, "a re-run of all of it is another")
        let push = try await store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: "c2", branch: "main"), now: test.at(13))
        #expect(!push.coalesced && push.integration.number == 4, "a push joins no re-run")
        #expect(try await store.integration(bot: "app", number: 2)?.integration.commit == "c1", "nor re-points one")

        // #2 and #3 run and pass: neither is the head a poll compares with; #2 is nobody's baseline.
        for number in [2, 3] {
            let queuedID = try #require(try await store.integration(bot: "app", number: number)).integration.id
            let claim = try #require(try await store.claim(queuedID, owner: "t", now: test.at(20)))
            try await store.complete(claim, outcome: IntegrationOutcome(result: .succeeded), now: test.at(21))
        }
        #expect(try await store.predecessor(.withCommit, bot: "app", before: nil)?.number == 4)
        #expect(try await store.predecessor(.built, bot: "app", before: 4)?.number == 3, "the whole re-run is the baseline")
        #expect(try await store.predecessor(.built, bot: "app", before: 3)?.number == 1, "the failed-only one is not")
        let three = try #require(try await store.integration(bot: "app", number: 3))
        #expect(throws: Rerun.Refusal.nothingFailed(number: 3, result: .succeeded)) { try Rerun.request(three, only: .failed) }
    }
}
