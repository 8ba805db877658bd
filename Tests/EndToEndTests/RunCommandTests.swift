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
import KilnStore
import KilnTestSupport
import Testing

@Suite("kiln run: real integrations of a real package", .serialized)
struct RunCommandTests {
    /// One workspace walked through success, warning, error, test failures and fixes, so each
    /// build after the first is incremental.
    @Test("Results, issues with who introduced them, tests from XCTest and Swift Testing, resolved and moved issues")
    func lifecycle() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\n")
        try await home.seed()
        let repo = package.repository
        let bob = GitFixture.Author.bob

        // 1. A clean success.
        let first = try await home.kilnRun()
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("result: succeeded"))
        let one = try await home.recorded(1)
        #expect(one.integration.summary?.tests == 4)
        #expect(Set(one.tests.map(\.suite)) == ["MathTests", "LibSwiftTests.SwiftMath"])
        #expect(one.tests.allSatisfy { $0.status == .passed })
        #expect(one.steps.map(\.name) == [.checkout, .beforeTriggers, .building, .testing, .processing])
        #expect(one.commits.map(\.subject) == ["Add the package"])
        // It started from the run's shared build of the package, which another repository of
        // the same files made (FixtureSeed): only what differs would be compiled.
        let firstLog = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(firstLog.contains("workspace: warm from this host's snapshot of #1") && !firstLog.contains("Compiling"), "\(firstLog)")

        // 2. Bob adds a warning.
        let warned = try repo.commit(
            "Add an unused value", files: ["Sources/Lib/Lib.swift": FixturePackage.library(body: "    let unused = 1")], author: bob)
        let second = try await home.kilnRun()
        #expect(second.status == 0, "warnings still pass")
        #expect(second.output.contains("result: warnings"))
        #expect(second.output.contains("new warning: Sources/Lib/Lib.swift:2: initialization of immutable value 'unused' was never used"))
        let two = try await home.recorded(2)
        let warning = try #require(two.issues.first)
        #expect(warning.type == .warning && warning.status == .new && warning.file == "Sources/Lib/Lib.swift" && warning.line == 2)
        #expect(warning.introducedBy == [Committer(name: "Bob Builder", email: "bob@example.com", commit: warned)])
        #expect(two.integration.summary?.change(.warning) == 1)

        // 3. Alice breaks the build.
        try repo.commit("Break it", files: ["Sources/Lib/Lib.swift": FixturePackage.library(body: "    let unused = 1\n    missing()")])
        let third = try await home.kilnRun()
        #expect(third.status == 1)
        #expect(third.output.contains("result: build-errors"))
        let three = try await home.recorded(3)
        let error = try #require(three.issues.first { $0.type == .error })
        #expect(error.file == "Sources/Lib/Lib.swift" && error.line == 3 && error.message.contains("cannot find 'missing' in scope"))
        #expect(error.introducedBy.map(\.name) == ["Alice Archer"])
        #expect(three.tests.isEmpty, "no tests run after a failed build")

        // 4. Bob fixes it but a test of each framework fails.
        try repo.commit(
            "Fix, and change expectations",
            files: [
                "Sources/Lib/Lib.swift": FixturePackage.library(body: "    let unused = 1"),
                "Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true),
                "Tests/LibSwiftTests/LibSwiftTests.swift": FixturePackage.swiftTests(failing: true),
            ], author: bob)
        let fourth = try await home.kilnRun()
        #expect(fourth.status == 1)
        #expect(fourth.output.contains("result: test-failures"))
        #expect(fourth.output.contains("failed: MathTests.testMaybeFails (Tests/LibTests/LibTests.swift:6)"))
        #expect(fourth.output.contains("failed: LibSwiftTests.SwiftMath.addsAgain() \"Adds again\" (Tests/LibSwiftTests/LibSwiftTests.swift:6)"))
        let four = try await home.recorded(4)
        #expect(four.integration.summary?[.testFailure] == 2)
        #expect(four.issues.filter { $0.type == .testFailure }.count == 2)
        #expect(four.issues.first { $0.type == .error }?.status == .resolved)
        #expect(four.issues.first { $0.type == .warning }?.status == .unresolved, "the warning survives the build that fixed the error")

        // 5. The tests are fixed and the warning moves ten lines down: unresolved, not new.
        try repo.commit(
            "Fix the tests, add a header",
            files: [
                "Sources/Lib/Lib.swift": FixturePackage.library(padding: 10, body: "    let unused = 1"),
                "Tests/LibTests/LibTests.swift": FixturePackage.xctests(),
                "Tests/LibSwiftTests/LibSwiftTests.swift": FixturePackage.swiftTests(),
            ])
        let fifth = try await home.kilnRun()
        #expect(fifth.status == 0, "\(fifth.output)")
        #expect(fifth.output.contains("result: warnings"))
        let five = try await home.recorded(5)
        let moved = try #require(five.issues.first { $0.type == .warning && $0.status != .resolved })
        #expect(moved.status == .unresolved && moved.line == 12)
        #expect(moved.introducedBy.map(\.name) == ["Bob Builder"], "who introduced it does not change when it moves")
        #expect(Set(five.issues.filter { $0.status == .resolved }.map(\.type)) == [.testFailure])

        // 6. Nothing new: the warning is still reported although nothing is recompiled.
        let sixth = try await home.kilnRun()
        #expect(sixth.output.contains("result: warnings"), "\(sixth.output)")
        #expect(try await home.recorded(6).issues.map(\.status) == [.unresolved])
    }

    @Test("Triggers: a failing before trigger is trigger-error; secrets are masked; a timeout kills the processes")
    func triggersSecretsTimeout() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("Not even a package", files: ["README.md": "hello\n"])
        try home.write(
            "Bots/secret.yml",
            """
            repository: {url: '\(repo.url)'}
            secrets: [DEPLOY_TOKEN]
            triggers:
              - {name: leak, phase: before, run: 'echo "token=$DEPLOY_TOKEN bot=$KILN_BOT"; exit 3'}

            """)
        try home.write(
            "Bots/slow.yml",
            """
            repository: {url: '\(repo.url)'}
            timeout: 2s
            triggers:
              - {name: stall, phase: before, run: 'sleep 311 & sleep 312'}

            """)
        var environment = ProcessInfo.processInfo.environment
        environment["DEPLOY_TOKEN"] = "tok-4f9a-secret"
        let secret = try await runProcess(Executables.kiln, ["run", "secret"], in: home.path, environment: environment)
        #expect(secret.status == 1)
        #expect(secret.standardOutput.contains("result: trigger-error"))
        #expect(secret.standardOutput.contains("before trigger 'leak' failed with exit status 3"))
        let log = try String(contentsOfFile: home.url(".kiln/logs/secret/1.log"), encoding: .utf8)
        #expect(log.contains("token=*** bot=secret"))
        #expect(!log.contains("tok-4f9a-secret"))

        let start = ContinuousClock.now
        let slow = try await runProcess(Executables.kiln, ["run", "slow"], in: home.path)
        #expect(slow.status == 1)
        #expect(slow.standardOutput.contains("result: timeout"))
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(try await leftoverProcesses(matching: "sleep 31[12]").isEmpty, "no process outlives the integration")
    }

    @Test("A sandboxed integration can write its workspace and HOME but nothing else, and still yields every test")
    func sandbox() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        let escape = "/var/tmp/kiln-escape-\(UUID().uuidString.prefix(8))"
        try home.write(
            "Bots/boxed.yml",
            """
            repository: {url: '\(repo.url)'}
            sandbox: bubblewrap
            triggers:
              - name: probe
                phase: before
                run: 'touch "$KILN_WORKSPACE/made-here" "$HOME/made-here" && echo inside-ok; touch \(escape) 2>/dev/null && echo ESCAPED || echo DENIED; grep -l KILN_SERVER_SECRET /proc/[0-9]*/environ 2>/dev/null | wc -l | sed "s/^/secret-holders /"; ls -a "$(getent passwd "$(id -u)" | cut -d: -f6)" | tr "\\n" " " | sed "s/^/account-home: /"; echo'

            """)
        let result = try await runProcess(
            Executables.kiln, ["run", "boxed"], in: home.path,
            environment: ProcessInfo.processInfo.environment.merging(["KILN_SERVER_SECRET": "another bot's"]) { _, new in new })
        let log = try String(contentsOfFile: home.url(".kiln/logs/boxed/1.log"), encoding: .utf8)
        #expect(log.contains("inside-ok"), "\(log)")
        #expect(log.contains("DENIED"))
        #expect(log.contains("secret-holders 0"), "no process outside the sandbox can be read: not kiln's environment, with every bot's secrets")
        // SwiftPM keeps its configuration under the account's home (from passwd, not HOME): the
        // sandbox gives it the bot's HOME there, so it neither warns nor sees the account's files.
        #expect(!log.contains(".swiftpm/configuration is not accessible") && !log.contains("is not accessible or not writable"), "\(log)")
        let accountHome = log.split(separator: "\n").first { $0.hasPrefix("account-home: ") } ?? ""
        #expect(accountHome.contains(" made-here "), "the account's home is the bot's HOME: \(accountHome)")
        #expect(!FileManager.default.fileExists(atPath: escape))
        #expect(FileManager.default.fileExists(atPath: home.url(".kiln/workspaces/boxed/made-here")))
        // swift test writes Swift Testing's events where a sandboxed process may (once it could not, and failed).
        #expect(result.standardOutput.contains("result: succeeded"), "\(result.standardOutput)")
        let integration = try #require(try await SQLiteStore.open(dataDirectory: home.url(".kiln")).integration(bot: "boxed", number: 1))
        #expect(Set(integration.tests.map(\.suite)) == ["MathTests", "LibSwiftTests.SwiftMath"])
    }

    @Test("A test that crashes still yields the tests that ran; a test that hangs is stopped at the timeout with its children")
    func crashAndHang() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\n")
        try await home.seed()
        try repo.commit(
            "A test that crashes",
            files: [
                "Tests/LibTests/LibTests.swift": """
                import XCTest
                @testable import Lib

                final class MathTests: XCTestCase {
                    func testAdds() { XCTAssertEqual(add(1, 2), 3) }
                    func testCrashes() { let values: [Int] = []; XCTAssertEqual(values[3], 0) }
                }

                """
            ])
        let crashed = try await runProcess(Executables.kiln, ["run", "app"], in: home.path)
        #expect(crashed.status == 1)
        #expect(crashed.standardOutput.contains("result: test-failures"), "\(crashed.standardOutput)")
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        let first = try #require(try await store.integration(bot: "app", number: 1))
        #expect(first.tests.first { $0.name == "testAdds" }?.status == .passed)
        let crash = try #require(first.tests.first { $0.name == "testCrashes" })
        #expect(crash.status == .failed)
        #expect(crash.message?.contains("Fatal error: Index out of range") == true, "\(crash.message ?? "")")

        try repo.commit(
            "A test that hangs",
            files: [
                "Tests/LibTests/LibTests.swift": """
                import Foundation
                import XCTest
                @testable import Lib

                final class MathTests: XCTestCase {
                    func testHangs() throws {
                        let child = Process()
                        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
                        child.arguments = ["333"]
                        try child.run()
                        Thread.sleep(forTimeInterval: 600)
                    }
                }

                """
            ])
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\ntimeout: 40s\n")
        let start = ContinuousClock.now
        let stalled = try await runProcess(Executables.kiln, ["run", "app"], in: home.path)
        #expect(stalled.standardOutput.contains("result: timeout"), "\(stalled.standardOutput)")
        #expect(stalled.standardOutput.contains("ran longer than its timeout of 40s"))
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(try await leftoverProcesses(matching: "sleep 333").isEmpty, "the test's child was stopped too")
    }

    @Test(
        "A trigger that prints 200 MiB under limits.log: 10MiB: the log is cut there saying so, the trigger stopped, an error issue names the limit, and kiln's memory stays bounded"
    )
    func hugeOutput() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("Not a package", files: ["README.md": "hello\n"])
        try home.write(
            "Bots/loud.yml",
            """
            repository: {url: '\(repo.url)'}
            test: {enabled: false}
            limits: {log: 10MiB}
            triggers: [{name: loud, phase: before, run: 'head -c 209715200 /dev/zero | tr "\\\\0" x | fold -w 99; sleep 600'}]

            """)
        // python3 reports the peak resident memory of kiln run (ru_maxrss of its children, in KiB).
        let began = ContinuousClock.now
        let measured = try await runProcess(
            "/usr/bin/python3",
            [
                "-c", "import resource,subprocess,sys; subprocess.run(sys.argv[1:]); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
                Executables.kiln, "run", "loud",
            ],
            in: home.path)
        let peak = try #require(Int(measured.standardOutput.split(separator: "\n").last ?? ""))
        #expect(peak < 150 * 1024, "kiln run peaked at \(peak / 1024) MiB for 200 MiB of output")
        let size = try FileManager.default.attributesOfItem(atPath: home.url(".kiln/logs/loud/1.log"))[.size] as? Int ?? 0
        #expect(size > 10 * 1024 * 1024 - 100 && size < 10 * 1024 * 1024 + 4096, "\(size)")
        let sentence = "a trigger printed more than 10.0 MiB of output (limits.log) and was stopped"
        #expect(measured.standardOutput.contains("result: build-errors"), "\(measured.standardOutput)")
        let recorded = try await home.recorded(1, of: "loud")
        #expect(recorded.issues.map(\.message) == [sentence] && recorded.issues.first?.type == .error, "\(recorded.issues)")
        // stopped as the log filled, not by the timeout after the trigger's sleep
        #expect(ContinuousClock.now - began < .seconds(120))
        let log = try String(contentsOfFile: home.url(".kiln/logs/loud/1.log"), encoding: .utf8)
        #expect(
            log.contains("*** log truncated at 10.0 MiB (limits.log): later output is not kept\n*** \(sentence): stopping every process of the step"))
    }

    @Test("A log file the disk refuses: the integration still ends with its result, and its reason says what output was lost")
    func logOnFullDisk() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("Not a package", files: ["README.md": "hello\n"])
        try home.write(
            "Bots/app.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\ntriggers: [{name: hello, phase: before, run: 'echo hello'}]\n")
        // Integration 1's log is /dev/full, which refuses every write as a full disk does.
        try FileManager.default.createDirectory(atPath: home.url(".kiln/logs/app"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: home.url(".kiln/logs/app/1.log"), withDestinationPath: "/dev/full")
        let run = try await home.kilnRun()
        #expect(run.output.contains("result: build-errors"), "not a package: the build fails, and the integration says so: \(run.output)")
        let reason = try #require(try await home.recorded(1).integration.reason?.sentence, "\(run.output)")
        #expect(reason.contains("the log file \(home.url(".kiln/logs/app/1.log")) could not be written ("), "\(reason)")
        #expect(reason.hasSuffix(" of output lost") && run.output.contains(reason), "kiln run shows it: \(run.output)")
    }
}
