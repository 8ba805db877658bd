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
    /// durations the integration this one is compared with recorded, the parts run at once.
    func testAll(_ package: PackageBuild, skipping: [TestCase], _ course: Course, watch: TestWatch) async throws(Stop) -> TestOutput {
        let commit = course.commit
        let plain = { () async throws(Stop) -> TestOutput in
            try await self.attempt { [commit] in try await package.test(skipping: skipping, commit: commit, watch: watch) }
        }
        guard bot.test.shards > 1 else { return try await plain() }
        if let reason = package.cannotShard {
            await log.note("test.shards: \(reason)")
            return try await plain()
        }
        guard let listed = try await attempt({ [commit] in try await package.listTests(commit: commit) }) else { return try await plain() }
        let skipped = Set(skipping.map(TestRerun.filterKey))
        let tests = listed.filter { !skipped.contains(TestRerun.filterKey($0)) }
        let durations = TestShards.durations(course.previous?.tests ?? [])
        let parts = TestShards.split(tests, count: bot.test.shards, durations: durations)
        guard parts.count > 1 else { return try await plain() }
        for (index, part) in parts.enumerated() {
            let recorded = part.compactMap { durations[TestRerun.filterKey($0)] }.reduce(0, +)
            let new = part.filter { durations[TestRerun.filterKey($0)] == nil }.count
            let unknown = new > 0 ? ", \(CountText.of(new, "test")) without one" : ""
            await log.header(
                "shard \(index + 1) of \(parts.count): \(CountText.of(part.count, "test")), \(DurationText.prose(recorded)) recorded\(unknown)")
        }
        return try await attempt { [commit] in try await package.test(shards: parts, commit: commit, watch: watch) }
    }
}
