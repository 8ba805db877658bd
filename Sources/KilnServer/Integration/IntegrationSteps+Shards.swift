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
import KilnBuild
import KilnCore
import KilnPresentation

extension IntegrationSteps {
    /// Every test but `skipping`: in one `swift test`, or with `test.shards`, split by the
    /// durations the integration this one is compared with recorded, the parts run at once on
    /// this executor and the idle ones the host lends for it (`SpareExecutors`).
    func testAll(_ package: PackageBuild, skipping: [TestCase], _ course: Course, watch: TestWatch) async throws(Stop) -> TestOutput {
        let commit = course.commit
        let plain = { () async throws(Stop) -> TestOutput in
            try await self.attempt { [commit] in try await package.test(skipping: skipping, commit: commit, watch: watch) }
        }
        guard bot.test.shards != .fixed(1) else { return try await plain() }
        if let reason = package.cannotShard {
            await log.note("test.shards: \(reason)")
            return try await plain()
        }
        guard let listed = try await attempt({ [commit] in try await package.listTests(commit: commit) }) else { return try await plain() }
        let skipped = Set(skipping.map(TestRerun.filterKey))
        let tests = listed.filter { !skipped.contains(TestRerun.filterKey($0)) }
        let durations = TestShards.durations(course.previous?.tests ?? [])
        let wanted: Int
        switch bot.test.shards {
        case .fixed(let count): wanted = min(count, tests.count)
        case .auto:
            let recorded = tests.compactMap { durations[TestRerun.filterKey($0)] }.reduce(0, +)
            wanted = TestShards.worth(recorded: recorded, tests: tests.count)
            if wanted < 2 {
                let why =
                    recorded == 0
                    ? "no test of this suite has a recorded duration yet" : "its recorded \(DurationText.prose(recorded)) is not worth splitting"
                await log.note("test.shards: auto: one part (\(why))")
                return try await plain()
            }
        }
        let borrowed = await spare.borrow(upTo: wanted - 1)
        // `auto`: a part for each executor idle here, and (PostgreSQL) on other hosts.
        let count = bot.test.shards == .auto ? 1 + borrowed + (await partsElsewhere(wanted - 1 - borrowed, watch: watch)) : wanted
        let parts = TestShards.split(tests, count: count, durations: durations)
        // what the split did not use goes back at once
        let lent = min(borrowed, max(0, parts.count - 1))
        if borrowed > lent { await spare.giveBack(borrowed - lent) }
        guard parts.count > 1 else {
            if bot.test.shards == .auto { await log.note("test.shards: auto: one part (no other executor is idle)") }
            return try await plain()
        }
        // The parts no executor of this host is idle for go to other hosts' idle ones, when
        // there are (PostgreSQL), rather than run beside the others here.
        let elsewhere = await partsElsewhere(parts.count - 1 - lent, watch: watch)
        await log.header(Self.shardsHeader(parts: parts.count, lent: lent, elsewhere: elsewhere))
        for (index, part) in parts.enumerated() {
            let recorded = part.compactMap { durations[TestRerun.filterKey($0)] }.reduce(0, +)
            let new = part.filter { durations[TestRerun.filterKey($0)] == nil }.count
            let unknown = new > 0 ? ", \(CountText.of(new, "test")) without one" : ""
            await log.header(
                "shard \(index + 1) of \(parts.count): \(CountText.of(part.count, "test")), \(DurationText.prose(recorded)) recorded\(unknown)")
        }
        let (host, clock) = (integration.host ?? "", context.clock.monotonic)
        let tested: Result<TestOutput, Stop>
        do throws(Stop) {
            if elsewhere > 0 {
                tested = .success(
                    try await testHereAndElsewhere(
                        package, here: Array(parts.dropLast(elsewhere)), elsewhere: Array(parts.suffix(elsewhere)), commit: commit, watch: watch))
            } else {
                tested = .success(
                    try await attempt { [commit] in try await package.test(shards: parts, commit: commit, watch: watch, host: host, clock: clock) })
            }
        } catch {
            tested = .failure(error)
        }
        await spare.giveBack(lent)
        return try tested.get()
    }

    /// What the log says of the shards before they start: on how many executors they run.
    static func shardsHeader(parts: Int, lent: Int, elsewhere: Int = 0) -> String {
        let beside = parts - 1 - lent - elsewhere
        let crowded = beside > 0 ? "; \(CountText.of(beside, "shard")) beside them, no executor being idle for it" : ""
        let others = elsewhere > 0 ? ", and \(CountText.of(elsewhere, "idle executor")) of other hosts" : ""
        return "\(parts) shards at once: on this executor and \(CountText.of(lent, "idle executor")) of this host\(others)\(crowded)"
    }
}
