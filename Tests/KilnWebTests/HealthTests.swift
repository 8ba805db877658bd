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
import KilnTestSupport
import Testing

@Suite("/health: the store, the disk and the scheduler, as a load balancer reads them")
struct HealthTests {
    struct Answer: Decodable {
        struct Part: Decodable {
            var ok: Bool
            var detail: String
        }
        var status: String
        var store: Part
        var disk: Part
        var scheduler: Part
    }

    @Test("A host whose store answers, whose disk has room and whose scheduler turns: 200 with each part ok")
    func healthy() async throws {
        let web = try await WebFixture.start(bots: [:])
        defer { Task { await web.stop() } }
        let reply = try await web.get("/health")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.contentType == "application/json; charset=utf-8")
        let answer = try JSONDecoder().decode(Answer.self, from: reply.body)
        #expect(answer.status == "ok")
        #expect(answer.store.ok && answer.store.detail.hasPrefix("answered a query in "), "\(answer.store.detail)")
        #expect(answer.disk.ok && answer.disk.detail.contains("free (health.min-free-disk: 1.0 GiB)"), "\(answer.disk.detail)")
        #expect(answer.scheduler.ok && answer.scheduler.detail.hasPrefix("turned "), "\(answer.scheduler.detail)")
    }

    @Test("Less free disk than health.min-free-disk: 503 naming the disk, the other parts still ok")
    func diskFull() async throws {
        let web = try await WebFixture.start(bots: [:]) { $0.healthMinFreeDisk = 1 << 60 }
        defer { Task { await web.stop() } }
        let reply = try await web.get("/health")
        #expect(reply.status == 503, "\(reply.text)")
        let answer = try JSONDecoder().decode(Answer.self, from: reply.body)
        #expect(answer.status == "unavailable")
        #expect(
            !answer.disk.ok && answer.disk.detail.hasPrefix("only ") && answer.disk.detail.contains(" free, under health.min-free-disk ("),
            "\(answer.disk.detail)")
        #expect(answer.store.ok && answer.scheduler.ok)
    }

    @Test("health.min-free-disk is read from kiln.yml, and a bad size is an error at its line and column")
    func configuration() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("kiln.yml", "health:\n  min-free-disk: 5GiB\n")
        #expect(try ServerConfigFile.load(path: good).healthMinFreeDisk == 5 << 30)
        let bad = try directory.write("bad.yml", "health:\n  min-free-disk: lots\n")
        #expect(throws: ConfigError.self) { try ServerConfigFile.load(path: bad) }
        do {
            _ = try ServerConfigFile.load(path: bad)
        } catch {
            #expect("\(error)".contains("bad.yml:2:18: error: 'min-free-disk' must be a size such as 1GiB"), "\(error)")
        }
    }

    @Test("A scheduler silent past its limit is unhealthy; a pulse beaten since is healthy again")
    func schedulerPulse() {
        let start = ContinuousClock.now
        let pulse = Pulse(now: start)
        let limit = 30.0
        func finding(at offset: Duration) -> HealthCheck.Finding {
            let seconds = pulse.silence(at: start + offset)
            return .schedulerTurned(seconds: Double(seconds.components.seconds), limit: limit)
        }
        #expect(finding(at: .seconds(29)).healthy)
        #expect(!finding(at: .seconds(31)).healthy)
        pulse.beat(at: start + .seconds(31))
        #expect(finding(at: .seconds(40)).healthy)
        // An older beat never moves the pulse back.
        pulse.beat(at: start)
        #expect(finding(at: .seconds(40)).healthy)
        let stalled = HealthCheck(
            store: .storeAnswered(seconds: 0.001), disk: .diskFree(free: 2 << 30, wanted: 1 << 30), scheduler: finding(at: .seconds(70)))
        #expect(!stalled.healthy)
        #expect(stalled.scheduler.sentence == "has not turned for 39 s (limit 30 s): no integration is claimed or stopped")
    }
}
