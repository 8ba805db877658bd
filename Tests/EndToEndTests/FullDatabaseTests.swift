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

        // Every slot taken by sessions of another program, held until the test lets them go: on a
        // loaded machine their starts may spread over seconds, so none ends on a timer.
        let hold = {
            try ChildProcess("/usr/bin/psql", [url, "-tAqc", "SET client_connection_check_interval = 100; SELECT pg_sleep(600)"], in: home.path)
        }
        var holders = try (0..<6).map { _ in try hold() }
        // (the database server's stop ends their sessions; this ends the clients)
        defer { for holder in holders { holder.killGroup() } }
        var answer = ""
        try await eventually("the sessions to fill the server", timeout: .seconds(60), context: answer) {
            // A probe takes a slot while it looks: a holder starting then was refused and ended
            // (once, the server never filled). It is started again.
            for index in holders.indices where !holders[index].isRunning { holders[index] = try hold() }
            let probe = try await runProcess("/usr/bin/psql", [url, "-tAqc", "SELECT count(*) FROM pg_stat_activity"], in: home.path)
            answer = probe.standardOutput + probe.standardError
            return probe.standardError.contains("too many clients")
        }
        let second = try ChildProcess(Executables.kiln, ["trigger", "app"], in: home.path)
        try await eventually("kiln trigger to say it waits", timeout: .seconds(60), context: second.standardError) {
            second.standardError.contains("PostgreSQL has no free connection")
        }
        #expect(second.isRunning, "it waits, and has not given up: \(second.standardError)")
        // One session given back (its client ended: the server, looking every 100 ms, ends
        // the session): the trigger connects and queues.
        let held = holders.allSatisfy { $0.isRunning }
        try #require(held, "every slot still held")
        holders[0].killGroup()
        let output = try await second.finish(within: .seconds(60))
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput == "app #1 was already queued; the trigger joins it\n", "\(output.standardOutput)")
    }
}
