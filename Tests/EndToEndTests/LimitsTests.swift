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

/// `limits:` under the default sandbox: a step's processes in a control group of their own,
/// stopped when they reach a limit, which the integration reports as an error.
@Suite("Limits: a step that reaches one is stopped, and its integration says which")
struct LimitsTests {
    /// A test that holds 3 GiB, each page written.
    static let hog = """
        import XCTest

        final class HogTests: XCTestCase {
            func testHolds() {
                let held = [UInt8](repeating: 1, count: 3 << 30)
                XCTAssertEqual(held.count, 3 << 30)
            }
        }

        """

    /// A test that starts a fork bomb and waits for it.
    static let bomb = """
        import Foundation
        import XCTest

        final class HogTests: XCTestCase {
            func testForks() throws {
                let bomb = Process()
                bomb.executableURL = URL(fileURLWithPath: "/bin/sh")
                bomb.arguments = ["-c", "b() { b | b & }; b; sleep 600"]
                try bomb.run()
                bomb.waitUntilExit()
            }
        }

        """

    /// A test that spins on two threads for 4 s and asserts that it got no more than 0.6 of a
    /// core over that time, as `cpus: 0.5` allows.
    static let spinner = """
        import Foundation
        import XCTest

        final class SpinTests: XCTestCase {
            func testSpinsBounded() {
                let start = Date()
                DispatchQueue.concurrentPerform(iterations: 2) { _ in
                    var spun = 0
                    while Date().timeIntervalSince(start) < 4 { spun &+= 1 }
                    XCTAssertNotEqual(spun, -1)
                }
                var usage = rusage()
                getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
                let used = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
                let ratio = used / Date().timeIntervalSince(start)
                print("cpu time over wall time: \\(ratio)")
                XCTAssertLessThanOrEqual(ratio, 0.6)
            }
        }

        """

    @Test(
        "3 GiB under limits.memory: 1GiB and a fork bomb under limits.processes: 256 each end as an error naming the limit; the package then passes, and a spinner under cpus: 0.5 gets half a core"
    )
    func memoryAndProcesses() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        let bot = { (limits: String) in "repository: {url: '\(repo.url)'}\ntest: {order: as-written}\ntimeout: 5m\nlimits: \(limits)\n" }

        try repo.commit("Hold memory", files: ["Tests/LibTests/HogTests.swift": Self.hog])
        try home.write("Bots/app.yml", bot("{memory: 1GiB}"))
        try await home.seed()
        let first = try await home.kilnRun()
        #expect(first.status == 1 && first.output.contains("result: build-errors"), "\(first.output)")
        let one = try await home.recorded(1)
        let memory = "the tests used more than 1.0 GiB of memory (limits.memory) and were stopped"
        #expect(one.issues.map(\.message) == [memory] && one.issues.first?.type == .error && one.issues.first?.status == .new, "\(one.issues)")
        #expect(one.integration.reason?.code == "limit-reached", "\(String(describing: one.integration.reason))")
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(log.contains(memory + ": stopping every process of the step"), "\(log)")

        try repo.commit("Fork", files: ["Tests/LibTests/HogTests.swift": Self.bomb])
        try home.write("Bots/app.yml", bot("{processes: 256}"))
        let second = try await home.kilnRun()
        #expect(second.status == 1 && second.output.contains("result: build-errors"), "\(second.output)")
        let two = try await home.recorded(2)
        let processes = "the tests started more than 256 processes at once (limits.processes) and were stopped"
        #expect(two.issues.filter { $0.status == .new }.map(\.message) == [processes], "\(two.issues)")
        #expect(two.issues.filter { $0.status == .resolved }.map(\.message) == [memory], "no longer reached: \(two.issues)")
        let testing = try #require(two.steps.first { $0.name == .testing })
        #expect((testing.duration ?? .infinity) < 60, "stopped within seconds, not at the timeout: \(testing)")

        // The limits do not get in a plain build's and test's way.
        try repo.git("rm", "-q", "Tests/LibTests/HogTests.swift")
        try repo.git("commit", "-q", "-m", "No more hogs")
        let third = try await home.kilnRun()
        #expect(third.status == 0 && third.output.contains("result: succeeded"), "\(third.output)")
        let three = try await home.recorded(3)
        // A spinner on two cores under cpus: 0.5 gets half a core, as its own test asserts.
        try repo.commit("Spin", files: ["Tests/LibTests/SpinTests.swift": Self.spinner])
        try home.write("Bots/app.yml", bot("{cpus: 0.5}"))
        let fourth = try await home.kilnRun()
        #expect(fourth.status == 0 && fourth.output.contains("result: succeeded"), "\(fourth.output)")
        let spun = try String(contentsOfFile: home.url(".kiln/logs/app/4.log"), encoding: .utf8)
        #expect(spun.contains("cpu time over wall time: 0."), "\(spun)")
        #expect(three.issues.allSatisfy { $0.status == .resolved } && three.issues.count == 1, "\(three.issues)")
    }
}
