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
import KilnTestSupport
import Testing

/// Lines collected from a `@Sendable` callback.
final class Lines: @unchecked Sendable {
    // Guarded by `lock`.
    private var collected: [String] = []
    private let lock = NSLock()

    func append(_ line: Substring) { lock.withLock { collected.append(String(line)) } }
    var all: [String] { lock.withLock { collected } }
}

@Suite("Running an integration's processes")
struct ProcessRunnerTests {
    let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]

    func far() -> ContinuousClock.Instant { .now + .seconds(60) }

    @Test("Output streams to the log and to the line reader; the exit status comes back")
    func output() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("logs/app/1.log"), secrets: [])
        let lines = Lines()
        let end = try await ProcessRunner.run(
            .shell("echo one; echo two >&2; printf 'three'; exit 3"), in: directory.path, environment: environment, log: log,
            deadline: far(), onLine: lines.append)
        await log.close()
        #expect(end == .exited(3))
        #expect(lines.all == ["one", "two", "three"])
        #expect(try String(contentsOfFile: log.path, encoding: .utf8) == "one\ntwo\nthree\n")
    }

    @Test("A log file the disk refuses loses output, not the integration: the loss says how much and why")
    func logLoss() async throws {
        // /dev/full takes the open and refuses every write with ENOSPC, as a full disk does.
        let full = IntegrationLog(path: "/dev/full", secrets: [])
        await full.header("building: swift build")
        await full.append(Array("a line of output\n".utf8))
        await full.close()
        let loss = try #require(await full.loss, "every write failed")
        #expect(loss.bytes == "=== building: swift build\n".utf8.count + "a line of output\n".utf8.count, "\(loss)")
        #expect(loss.sentence.hasPrefix("the log file /dev/full could not be written (") && loss.sentence.hasSuffix(" of output lost"))

        let directory = try TemporaryDirectory()
        try directory.write("logs", "a file where the bot's log directory should be\n")
        let unmade = IntegrationLog(path: directory.url("logs/app/1.log"), secrets: [])
        await unmade.note("result: succeeded")
        #expect(await unmade.loss?.bytes == "*** result: succeeded\n".utf8.count, "a directory that cannot be made loses everything")

        let fine = IntegrationLog(path: directory.url("ok/1.log"), secrets: [])
        await fine.note("result: succeeded")
        await fine.close()
        #expect(await fine.loss == nil)
    }

    @Test("The process sees only the environment it is given, runs in the workspace, and has no input")
    func cleanEnvironment() async throws {
        let directory = try TemporaryDirectory()
        // One of this process's own variables that the child is not given (HOME, USER and the
        // like, or what the test runner exports). Not one set here: `setenv` while other tests'
        // threads start processes, which read `environ`, crashed the test process in CI.
        let shells = ["PWD", "OLDPWD", "SHLVL", "_"]
        let own = ProcessInfo.processInfo.environment.filter { environment[$0.key] == nil && !shells.contains($0.key) && !$0.value.isEmpty }
        let server = try #require(own.keys.sorted().first, "the test process has a variable of its own")
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let lines = Lines()
        let end = try await ProcessRunner.run(
            .shell("env | sort; pwd; cat; echo end"), in: directory.path, environment: environment.merging(["KILN_BOT": "app"]) { $1 }, log: log,
            deadline: far(), onLine: lines.append)
        #expect(end == .exited(0))
        let output = lines.all
        #expect(!output.contains { $0.hasPrefix(server + "=") }, "\(server) reached the process: \(output)")
        #expect(output.contains("KILN_BOT=app"))
        #expect(output.contains("LANG=C.UTF-8"))
        #expect(output.contains(URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path) || output.contains(directory.path))
        #expect(output.last == "end", "stdin is empty, so cat returns at once")
    }

    @Test("At the deadline the whole process group is stopped, children included")
    func timeout() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let start = ContinuousClock.now
        let lines = Lines()
        let end = try await ProcessRunner.run(
            .shell("sleep 300 & echo child $!; sleep 301 & echo child $!; sleep 302"), in: directory.path, environment: environment, log: log,
            deadline: .now + .seconds(5), onLine: lines.append)
        #expect(end == .timedOut)
        // Stopped at the deadline, not when `sleep 302` ends: any bound under 302 s shows it, and a
        // loose one holds when the whole suite (and a compiler) share two cores.
        #expect(ContinuousClock.now - start < .seconds(240))
        // The children by their own PIDs, not by a pattern that any process of the machine (or a
        // PID reused after 32768 others) could match.
        let children = lines.all.compactMap { $0.hasPrefix("child ") ? Int32($0.dropFirst(6)) : nil }
        #expect(children.count == 2, "the shell started both children before the deadline: \(lines.all)")
        let alive = try await Self.stillSleeping(children)
        #expect(alive.isEmpty, "children left behind: \(alive)")
    }

    @Test("A reader that has what it needs stops the step at once: the group is stopped, and the end says so")
    func earlyStop() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let lines = Lines()
        let stop = EarlyStop()
        let end = try await ProcessRunner.run(
            .shell("sleep 303 & echo child $!; echo enough; sleep 304"), in: directory.path, environment: environment, log: log,
            deadline: .now + .seconds(600), stop: stop
        ) { line in
            lines.append(line)
            if line == "enough" { stop.stop() }
        }
        #expect(end == .stopped && end.description == "was stopped at the first failure (test.fail-fast)")
        let children = lines.all.compactMap { $0.hasPrefix("child ") ? Int32($0.dropFirst(6)) : nil }
        #expect(children.count == 1, "\(lines.all)")
        let alive = try await Self.stillSleeping(children)
        #expect(alive.isEmpty, "children left behind: \(alive)")
        // Never asked: the process ends by itself, as without a stop.
        let plain = try await ProcessRunner.run(
            .shell("echo done"), in: directory.path, environment: environment, log: log, deadline: .now + .seconds(60), stop: EarlyStop())
        #expect(plain == .exited(0))
    }

    /// Those of `children` still running `sleep 30…` after up to 10 s of waiting for them to go.
    static func stillSleeping(_ children: [Int32]) async throws -> [Int32] {
        var alive = children
        let deadline = ContinuousClock.now + .seconds(10)
        while !alive.isEmpty, ContinuousClock.now < deadline {
            alive = alive.filter(runsSleep)
            try await Task.sleep(for: .milliseconds(50))
        }
        return alive
    }

    /// Whether `pid` is a live process running `sleep 30…` (not a zombie, not another process
    /// that took the PID since).
    static func runsSleep(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
            !stat[stat.index(after: close)...].hasPrefix(" Z"),
            let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
        else { return false }
        return String(decoding: commandLine, as: UTF8.self).hasPrefix("sleep\u{0}30")
    }

    @Test("Children left in the group after the step ends are stopped with it")
    func leftoverChildren() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let end = try await ProcessRunner.run(
            .shell("sleep 303 > /dev/null 2>&1 & echo done"), in: directory.path, environment: environment, log: log, deadline: far())
        #expect(end == .exited(0))
        #expect(try await leftoverProcesses(matching: "sleep 303").isEmpty)
    }

    @Test("A child moved to a process group of its own (as swift test does with the test runner) is stopped too")
    func ownProcessGroup() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        // `set -m` gives every background job a process group of its own.
        let end = try await ProcessRunner.run(
            .shell("set -m; sleep 305 > /dev/null 2>&1 & echo started"), in: directory.path, environment: environment, log: log, deadline: far())
        #expect(end == .exited(0))
        #expect(try await leftoverProcesses(matching: "sleep 305").isEmpty)
    }

    @Test("Processes that left the step's session are stopped by its mark; in a PID namespace of its own, by the namespace's end")
    func escapedSession() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        // setsid and a double fork: neither the group nor the session holds them any more.
        let end = try await ProcessRunner.run(
            .shell("setsid sleep 306 > /dev/null 2>&1 & (sleep 307 > /dev/null 2>&1 &); echo started"), in: directory.path,
            environment: environment, log: log, deadline: far(), mark: "escaped-\(UUID().uuidString)")
        #expect(end == .exited(0))
        #expect(try await leftoverProcesses(matching: "sleep 30[67]").isEmpty, "the sweep by mark kills them")

        // Isolated, no sweep runs: the namespace ending with its first process must stop them.
        let bubblewrap = "/usr/bin/bwrap"
        try #require(FileManager.default.isExecutableFile(atPath: bubblewrap), "install bubblewrap (apt-get install bubblewrap)")
        let isolated = try await ProcessRunner.run(
            StepCommand(
                bubblewrap,
                [
                    "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--die-with-parent", "--", "/bin/sh", "-c",
                    "setsid sleep 308 > /dev/null 2>&1 & (sleep 309 > /dev/null 2>&1 &); echo started",
                ]), in: directory.path, environment: environment, log: log, deadline: far(), mark: "isolated-\(UUID().uuidString)",
            isolated: true)
        #expect(isolated == .exited(0))
        #expect(try await leftoverProcesses(matching: "sleep 30[89]").isEmpty, "nothing outlives the PID namespace")
    }

    @Test("Canceling the task kills the group and reports canceled")
    func cancel() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let environment = environment
        let task = Task {
            try await ProcessRunner.run(.shell("sleep 304"), in: directory.path, environment: environment, log: log, deadline: .now + .seconds(60))
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        #expect(try await task.value == .canceled)
        #expect(try await leftoverProcesses(matching: "sleep 304").isEmpty)
    }

    @Test("A process that closes its output before it exits ends as it chose, not stopped")
    func closesOutputFirst() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let end = try await ProcessRunner.run(
            .shell("echo done; exec >&- 2>&-; sleep 0.3; exit 4"), in: directory.path, environment: environment, log: log, deadline: far())
        #expect(end == .exited(4))
    }

    @Test("A command named without a path is the first executable file of that name on the process's PATH")
    func pathLookup() async throws {
        let directory = try TemporaryDirectory()
        let manager = FileManager.default
        for name in ["plain", "folder", "first", "second"] {
            try manager.createDirectory(atPath: directory.url(name), withIntermediateDirectories: true)
        }
        try "#!/bin/sh\necho plain\n".write(toFile: directory.url("plain/tool"), atomically: false, encoding: .utf8)  // not executable
        try manager.createDirectory(atPath: directory.url("folder/tool"), withIntermediateDirectories: true)
        for name in ["first", "second"] {
            try "#!/bin/sh\necho \(name)\n".write(toFile: directory.url("\(name)/tool"), atomically: false, encoding: .utf8)
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url("\(name)/tool"))
        }
        let path = ["plain", "folder", "first", "second"].map(directory.url).joined(separator: ":") + ":/usr/bin:/bin"
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let lines = Lines()
        let end = try await ProcessRunner.run(
            StepCommand("tool"), in: directory.path, environment: ["PATH": path], log: log, deadline: far(), onLine: lines.append)
        #expect(end == .exited(0))
        #expect(lines.all == ["first"])
        await #expect(throws: ProcessError.self) {
            try await ProcessRunner.run(StepCommand("no-such-tool"), in: directory.path, environment: ["PATH": path], log: log, deadline: far())
        }
    }

    @Test("A command that cannot start is an error naming it")
    func cannotStart() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        await #expect(throws: ProcessError.self) {
            try await ProcessRunner.run(
                StepCommand("/nonexistent/swift", ["build"]), in: directory.path, environment: [:], log: log, deadline: .now + .seconds(5))
        }
    }
}

@Suite("The integration log")
struct IntegrationLogTests {
    @Test("Secrets are masked, even split across writes; headers and notes stand out; too short a value is not masked")
    func masking() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: ["s3cr3t-token-long", "s3cr3t-token", "short", ""])
        await log.header("building: swift build")
        await log.append(Array("token is s3cr".utf8))
        await log.append(Array("3t-token-long and s3cr3t-token\nnext short".utf8))
        await log.note("result: succeeded")
        await log.close()
        #expect(
            try String(contentsOfFile: log.path, encoding: .utf8)
                == "=== building: swift build\ntoken is *** and ***\nnext short\n*** result: succeeded\n")
    }

    @Test("The log is capped with one clear line; output past the cap is dropped; Kiln's own lines still go in")
    func cap() async throws {
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [], limit: 1024 * 1024)
        let line = Array((String(repeating: "x", count: 99) + "\n").utf8)
        for _ in 0..<20_000 { await log.append(line) }
        #expect(await log.isTruncated)
        await log.note("result: build-errors")
        await log.close()
        let size = try FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int ?? 0
        #expect(size <= 1024 * 1024 + 200)
        let text = try String(contentsOfFile: log.path, encoding: .utf8)
        #expect(text.hasSuffix("*** log truncated at 1.0 MiB (limits.log): later output is not kept\n*** result: build-errors\n"))
    }
}
