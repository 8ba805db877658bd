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
import KilnGit
import KilnPresentation
import KilnStore
import KilnTestSupport
import Logging
import Testing

@testable import KilnServer

/// What an integration does when a store read its verdict rests on fails: it says so, and never
/// decides as if the read had answered.
@Suite("Store failures an integration cannot decide without")
struct StoreFailureTests {
    @Test(
        "A failing test whose history cannot be read ends the integration saying why, instead of blaming a committer for what may be flaky"
    )
    func historyUnreadable() async throws {
        let package = try FixturePackage()
        let data = try TemporaryDirectory()
        try data.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\n")
        let bot = try #require(try BotCatalog.load(directory: data.url("Bots")).bot(named: "app"))
        let store = try SQLiteStore.open(dataDirectory: data.path)

        func integrate(failing: Set<String>) async throws -> Integration {
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let sequencer = IntegrationSequencer(
                store: FailingStore(store, failing: failing), mirrors: Mirrors(directory: data.url("mirrors")), layout: DataDirectory(data.path),
                serverEnvironment: ProcessInfo.processInfo.environment, secretFiles: { [] }, logger: logger)
            _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
            let claim = try #require(try await store.claimNext(owner: "test", now: Date()))
            return try #require(await sequencer.run(claim, of: bot))
        }

        #expect(try await integrate(failing: []).result == .succeeded)
        try package.repository.commit(
            "Break a test", files: ["Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true)], author: .bob)

        let unread = try await integrate(failing: ["testHistory"])
        #expect(unread.result == .internalError, "\(unread)")
        #expect(
            unread.reason?.sentence.contains("cannot read the history of MathTests.testMaybeFails") == true,
            "\(unread.reason?.sentence ?? "no reason")")
        #expect(try await store.integration(bot: "app", number: unread.number)?.issues.allSatisfy(\.introducedBy.isEmpty) == true)

        // The same commit with the store answering: a test failure, blamed on who broke it.
        let read = try await integrate(failing: [])
        #expect(read.result == .testFailures, "\(read)")
        let failure = try #require(try await store.integration(bot: "app", number: read.number)?.issues.first { $0.type == .testFailure })
        #expect(failure.introducedBy.map(\.name) == ["Bob Builder"], "\(failure.introducedBy)")
    }
}
