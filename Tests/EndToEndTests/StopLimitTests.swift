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

/// `stop-limit`: a graceful stop that cannot end (a database that no longer answers holds up
/// recording the integration it canceled) is Kiln's to end and report, not systemd's SIGKILL.
@Suite("kiln serve stops within stop-limit")
struct StopLimitTests {
    @Test(
        "SIGTERM while the database is frozen and an integration runs: kiln serve exits at stop-limit naming what it waited for; a second signal exits at once; the next start ends the integration"
    )
    func frozenDatabase() async throws {
        let database = try PostgresServer.start(maxConnections: 100)
        defer { database.stop() }
        let url = try await database.database("stopping")
        let repo = try ServerTests.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntriggers: [{name: wait, phase: before, run: 'sleep 600'}]\n"
        let served = try await ServedHome(bots: ["app": bot], config: "executors: 1\ndatabase: {url: '\(url)'}\nstop-limit: 3s\n")
        let store = try await PostgresStore.open(DatabaseSettings(url: url))
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path).status == 0)
        try await eventually("the integration running its trigger", timeout: .seconds(60)) {
            try await store.integrations(bot: "app", limit: 5, before: nil).first?.step == .beforeTriggers
        }
        database.pause()
        let began = ContinuousClock.now
        let stopped: ProcessOutput
        do {
            stopped = try await served.server.terminate()
        } catch {
            database.resume()
            throw error
        }
        let took = ContinuousClock.now - began
        database.resume()
        #expect(stopped.status == 1, "\(stopped.standardError)")
        #expect(took >= .seconds(3) && took < .seconds(15), "at the limit, not at the store's own 15 s: \(took)")
        #expect(
            stopped.standardError.contains("kiln: the stop took longer than 3.0 seconds (stop-limit): exiting now; still stopping: "),
            "\(stopped.standardError)")
        #expect(stopped.standardError.contains("scheduler"), "the scheduler waits to record what it canceled: \(stopped.standardError)")

        // The next start on the same data ends what the stop could not record.
        let again = try ServedHome(
            home: served.home, server: ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: served.home.path))
        _ = try await again.server.waitForPort()
        try await eventually("the integration ended", timeout: .seconds(60)) {
            try await store.integrations(bot: "app", limit: 5, before: nil).first?.step == .completed
        }
        // A second signal while stopping: out at once. (The trigger holds its integration; the
        // store is frozen again, so the stop cannot end by itself within the test's second.)
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path).status == 0)
        try await eventually("the second integration running", timeout: .seconds(60)) {
            try await store.integrations(bot: "app", limit: 5, before: nil).first { $0.number == 2 }?.step == .beforeTriggers
        }
        database.pause()
        defer { database.resume() }
        again.server.signal(SIGTERM)
        try await Task.sleep(for: .milliseconds(300))
        let twice = try await again.server.terminate()
        database.resume()
        #expect(twice.status == 1 && twice.standardError.contains("kiln: a second signal: exiting now; still stopping: "), "\(twice.standardError)")
    }
}
