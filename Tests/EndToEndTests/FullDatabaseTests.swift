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

@Suite("A PostgreSQL server with no free connection")
struct FullDatabaseTests {
    @Test("kiln trigger waits for a free connection, saying so, and queues once one is given back")
    func triggerWaits() async throws {
        let server = try PostgresServer.start(maxConnections: 6)
        defer { server.stop() }
        let url = try await server.database("crowded")
        let repo = try ServerTests.quickRepository()
        let home = try TemporaryDirectory()
        try home.write("kiln.yml", "database: {url: '\(url)'}\n")
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\n")
        let first = try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path)
        #expect(first.status == 0 && first.standardOutput == "queued app #1\n", "\(first.standardError)")

        // Every slot taken, for 6 s, by sessions of another program: long enough for all six to be
        // connected at once on a loaded machine (at 3 s, the first had ended before the last began).
        let holders = (0..<6).map { _ in
            Task { try await runProcess("/usr/bin/psql", [url, "-tAqc", "SELECT pg_sleep(6)"], in: home.path) }
        }
        var answer = ""
        try await eventually("the sessions to fill the server", timeout: .seconds(20), context: answer) {
            let probe = try await runProcess("/usr/bin/psql", [url, "-tAqc", "SELECT count(*) FROM pg_stat_activity"], in: home.path)
            answer = probe.standardOutput + probe.standardError
            return probe.standardError.contains("too many clients")
        }
        let started = ContinuousClock.now
        let second = try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path)
        let waited = ContinuousClock.now - started
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput == "app #1 was already queued; the trigger joins it\n", "\(second.standardOutput)")
        #expect(second.standardError.contains("PostgreSQL has no free connection"), "\(second.standardError)")
        #expect(waited > .milliseconds(200), "it waited for the sessions to end: \(waited)")
        for holder in holders { _ = try await holder.value }
    }
}
