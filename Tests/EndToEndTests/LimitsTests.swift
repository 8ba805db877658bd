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

    @Test(
        "Where no control group can be made (the hierarchy read-only), kiln status says the limits are rlimits only, and limits.memory still bounds a step by rlimit"
    )
    func rlimitFallback() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("Not a package", files: ["README.md": "hello\n"])
        // Each trigger holds its size in one allocation: 16 MiB fits under 256 MiB, 1 GiB does not.
        let hold = { (mebibytes: Int) in "python3 -c \"b = bytearray(\(mebibytes) << 20); print(len(b))\"" }
        try home.write(
            "Bots/small.yml",
            "repository: {url: '\(repo.url)'}\nsandbox: none\nlimits: {memory: 256MiB}\ntriggers: [{name: hold, phase: before, run: '\(hold(16))'}]\n"
        )
        try home.write(
            "Bots/large.yml",
            "repository: {url: '\(repo.url)'}\nsandbox: none\nlimits: {memory: 256MiB}\ntriggers: [{name: hold, phase: before, run: '\(hold(1024))'}]\n"
        )
        // Kiln in a sandbox of the test's own whose file system is read-only but for the home:
        // /sys/fs/cgroup with it, as on a host that gives Kiln no group of its own. Its /tmp is
        // its own: the repository and Kiln (built in a clone under /tmp, as CI's is) bound in.
        let confined = { (arguments: [String]) in
            try await runProcess(
                "/usr/bin/bwrap",
                ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--bind", home.path, home.path]
                    + ["--ro-bind", repo.path, repo.path, "--ro-bind", Executables.kiln, Executables.kiln, "--chdir", home.path]
                    + [Executables.kiln] + arguments)
        }
        let status = try await confined(["status"])
        #expect(
            status.standardOutput.contains(
                "limits: rlimits only (Kiln cannot make control groups beneath its own): memory and processes bounded per process, cpus not at all"),
            "\(status.standardOutput) \(status.standardError)")
        #expect(!(try await runProcess(Executables.kiln, ["status"], in: home.path)).standardOutput.contains("limits:"), "said only when weaker")

        let small = try await confined(["run", "small"])
        #expect(small.standardOutput.contains("result: build-errors"), "past the trigger, not a package: \(small.standardOutput)")
        let large = try await confined(["run", "large"])
        #expect(large.standardOutput.contains("result: trigger-error"), "\(large.standardOutput)")
        let log = try String(contentsOfFile: home.url(".kiln/logs/large/1.log"), encoding: .utf8)
        #expect(log.contains("MemoryError"), "\(log)")
    }

    @Test(
        "A trigger writing 3 GiB into its workspace under limits.disk: 1GiB is stopped within seconds, an error issue names the limit, and the workspace is removed; the sandbox's /tmp is bounded by it too"
    )
    func disk() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("Not a package", files: ["README.md": "hello\n"])
        let bot = { (run: String) in
            "repository: {url: '\(repo.url)'}\nlimits: {disk: 1GiB}\ntriggers: [{name: fill, phase: before, run: '\(run)'}]\n"
        }
        try home.write("Bots/fill.yml", bot("dd if=/dev/zero of=big bs=1M count=3072 status=none; sleep 600"))
        let began = ContinuousClock.now
        let filled = try await home.kilnRun("fill")
        #expect(ContinuousClock.now - began < .seconds(120), "stopped as it filled, not at the trigger's end")
        #expect(filled.output.contains("result: build-errors"), "\(filled.output)")
        let sentence = "a trigger wrote more than 1.0 GiB to its workspace (limits.disk) and was stopped"
        let recorded = try await home.recorded(1, of: "fill")
        #expect(recorded.issues.map(\.message) == [sentence] && recorded.issues.first?.type == .error, "\(recorded.issues)")
        #expect(!FileManager.default.fileExists(atPath: home.url(".kiln/workspaces/fill")), "the workspace is removed at once")
        let log = try String(contentsOfFile: home.url(".kiln/logs/fill/1.log"), encoding: .utf8)
        #expect(log.contains("*** \(sentence): stopping every process of the step\n*** the workspace was removed"), "\(log)")

        // The sandbox's private /tmp holds no more than the limit: the write is refused.
        try home.write("Bots/fill.yml", bot("dd if=/dev/zero of=/tmp/big bs=1M count=1536 status=none"))
        let tmp = try await home.kilnRun("fill")
        #expect(tmp.output.contains("result: trigger-error"), "\(tmp.output)")
        let tmpLog = try String(contentsOfFile: home.url(".kiln/logs/fill/2.log"), encoding: .utf8)
        #expect(tmpLog.contains("No space left on device"), "\(tmpLog)")
    }

    @Test(
        "On one kiln serve, a fork bomb, 2 GiB under memory: 512MiB, 3 GiB into a 1 GiB workspace and 500 MiB of output under log: 10MiB each end within seconds as an error naming the limit, while another bot's integration succeeds and /health answers 200 throughout"
    )
    func serverCarriesOn() async throws {
        let hogs = try GitFixture()
        try hogs.commit("Not a package", files: ["README.md": "hello\n"])
        let tiny = try GitFixture()
        try tiny.commit(
            "A package of one library",
            files: [
                "Package.swift":
                    "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"Tiny\", targets: [.target(name: \"Tiny\")])\n",
                "Sources/Tiny/Tiny.swift": "public let answer = 42\n",
            ])
        let hog = { (limits: String, run: String) in
            "repository: {url: '\(hogs.url)'}\nschedule: {poll: 0}\nlimits: \(limits)\ntriggers: [{name: hog, phase: before, run: '\(run)'}]\n"
        }
        // Each would run for ten minutes but for its limit.
        let limited: [(bot: String, limit: String, yaml: String)] = [
            ("bomb", "limits.processes", hog("{processes: 256}", "b() { b | b & }; b; sleep 600")),
            ("memory", "limits.memory", hog("{memory: 512MiB}", "python3 -c \"import time; b = str(1) * (2 << 30); time.sleep(600)\"")),
            ("disk", "limits.disk", hog("{disk: 1GiB}", "dd if=/dev/zero of=big bs=1M count=3072 status=none; sleep 600")),
            ("log", "limits.log", hog("{log: 10MiB}", "yes 0123456789abcdef0123456789abcdef | head -c 524288000; sleep 600")),
        ]
        var bots = Dictionary(uniqueKeysWithValues: limited.map { ($0.bot, $0.yaml) })
        bots["fine"] = "repository: {url: '\(tiny.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        let served = try await ServedHome(bots: bots, config: "executors: 5\n")
        let port = try await served.server.waitForPort()
        for bot in bots.keys.sorted() {
            let queued = try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path)
            #expect(queued.status == 0, "\(queued.standardError)")
        }
        var answers: [Int] = []
        try await served.eventually("every integration ended", timeout: .seconds(180)) {
            answers.append(try await HealthServeTests.health(port).status)
            for bot in bots.keys where try await served.integrations(bot).first?.step != .completed { return false }
            return true
        }
        #expect(!answers.isEmpty && answers.allSatisfy { $0 == 200 }, "\(answers)")
        let store = try served.store()
        for (bot, limit, _) in limited {
            let detail = try #require(try await store.integration(bot: bot, number: 1))
            #expect(detail.integration.result == .buildErrors, "\(bot): \(String(describing: detail.integration.result))")
            #expect(detail.issues.contains { $0.type == .error && $0.message.contains("(\(limit))") }, "\(bot): \(detail.issues)")
            let trigger = try #require(detail.steps.first { $0.name == .beforeTriggers }, "\(bot): \(detail.steps)")
            #expect((trigger.duration ?? .infinity) < 60, "\(bot) stopped within seconds, not at its end: \(trigger)")
        }
        let fine = try #require(try await served.integrations("fine").first)
        #expect(fine.result == .succeeded, "\(fine)")
        #expect(try await HealthServeTests.health(port).status == 200)
        #expect(try await served.server.terminate().status == 0)
    }
}
