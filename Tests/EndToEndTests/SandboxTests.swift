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

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Sandbox: a bot's secrets reach only its own builds")
struct SandboxTests {
    /// Bot A has a secret (in Kiln's environment, as every bot's secrets are) and leaves it in
    /// its workspace; its bot file mentions it too, as a credential in a URL would. Bot B looks
    /// for it where a build could: other processes' environments, the data directory, A's
    /// workspace, the bot files, the server's kiln.yml — from its trigger and from its test. Under
    /// the sandbox B finds nothing; with `sandbox: none` it finds it everywhere, which shows the
    /// probe would catch a leak. The data directory and files live outside /tmp, which the sandbox
    /// replaces anyway, so that what is hidden is hidden by name.
    @Test("Under the default sandbox another bot's trigger and test find the secret nowhere; with sandbox: none they find it everywhere")
    func secretsStayWithTheirBot() async throws {
        let home = try TemporaryDirectory("kiln-sandbox", under: URL(fileURLWithPath: "/var/tmp"))
        let repo = try ServerTests.quickRepository()
        let secret = "tok-\(UUID().uuidString.prefix(12))"
        try home.write("kiln.yml", "# the database password is \(secret)\nexecutors: 1\n")
        try home.write(
            "Bots/a.yml",
            """
            # deploys with \(secret)
            repository: {url: '\(repo.url)'}
            test: {enabled: false}
            sandbox: bubblewrap
            secrets: [DEPLOY_TOKEN]
            triggers: [{name: keep, phase: before, run: 'echo "$DEPLOY_TOKEN" > "$KILN_WORKSPACE/token.txt"'}]

            """)
        let probe = """
            n=0; for f in /proc/[0-9]*/environ; do grep -qs \(secret) "$f" && n=$((n+1)); done; echo "probe proc $n"; \
            grep -rqs --exclude-dir=b \(secret) \(home.url(".kiln")) && echo "probe data yes" || echo "probe data no"; \
            grep -qs \(secret) \(home.url(".kiln/workspaces/a/token.txt")) && echo "probe workspace yes" || echo "probe workspace no"; \
            grep -rqs \(secret) \(home.url("Bots")) && echo "probe bots yes" || echo "probe bots no"; \
            grep -qs \(secret) \(home.url("kiln.yml")) && echo "probe config yes" || echo "probe config no"
            """
        // B's package runs the same probe from an XCTest, as a build's own code would. (B's own
        // workspace, HOME and log hold the probe, and so the secret: the probe skips them.)
        let package = try FixturePackage()
        let testProbe = probe.replacingOccurrences(of: "echo \"probe ", with: "echo \"test-probe ")
        try package.repository.commit(
            "Probe",
            files: [
                "Tests/LibTests/ProbeTests.swift": """
                import Foundation
                import XCTest

                final class ProbeTests: XCTestCase {
                    func testProbe() throws {
                        let shell = Process()
                        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
                        shell.arguments = ["-c", #\"\"\"
                \(testProbe)
                \"\"\"#]
                        try shell.run()
                        shell.waitUntilExit()
                    }
                }

                """
            ])
        let bot = { (sandbox: String) in
            "repository: {url: '\(package.repository.url)'}\n\(sandbox)triggers: [{name: probe, phase: before, run: '\(probe)'}]\n"
        }
        let environment = ProcessInfo.processInfo.environment.merging(["DEPLOY_TOKEN": secret]) { _, new in new }
        let kept = try await runProcess(Executables.kiln, ["run", "a"], in: home.path, environment: environment)
        #expect(try String(contentsOfFile: home.url(".kiln/workspaces/a/token.txt"), encoding: .utf8) == secret + "\n", "\(kept.standardOutput)")

        try home.write("Bots/b.yml", bot(""))  // the default: sandboxed
        _ = try await runProcess(Executables.kiln, ["run", "b"], in: home.path, environment: environment)
        let boxed = try String(contentsOfFile: home.url(".kiln/logs/b/1.log"), encoding: .utf8)
        for line in ["probe proc 0", "probe data no", "probe workspace no", "probe bots no", "probe config no"] {
            #expect(boxed.contains(line), "\(line): \(boxed)")
            #expect(boxed.contains("test-" + line), "from the test: \(line): \(boxed)")
        }

        try home.write("Bots/b.yml", bot("sandbox: none\n"))
        _ = try await runProcess(Executables.kiln, ["run", "b"], in: home.path, environment: environment)
        let open = try String(contentsOfFile: home.url(".kiln/logs/b/2.log"), encoding: .utf8)
        #expect(!open.contains("probe proc 0"), "kiln's own environment holds every bot's secrets: \(open)")
        for line in ["probe data yes", "probe workspace yes", "probe bots yes", "probe config yes"] {
            #expect(open.contains(line), "\(line): \(open)")
            #expect(open.contains("test-" + line), "from the test: \(line): \(open)")
        }
    }

    @Test("Without bubblewrap: said at start, on the front page and by kiln status; bots wanting it are not run unless sandbox-fallback: none")
    func withoutBubblewrap() async throws {
        let home = try TemporaryDirectory()
        let repo = try ServerTests.quickRepository()
        // A PATH with the toolchain but no bwrap.
        let bin = try TemporaryDirectory()
        let swift = try #require(
            ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/swift" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        try FileManager.default.createSymbolicLink(atPath: bin.url("swift"), withDestinationPath: swift)
        let environment = ProcessInfo.processInfo.environment.merging(["PATH": bin.path]) { _, new in new }
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        try home.write("Bots/app.yml", bot)
        try home.write("Bots/open.yml", bot + "sandbox: none\n")

        let refused = try await runProcess(Executables.kiln, ["run", "app"], in: home.path, environment: environment)
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "cannot integrate: bubblewrap cannot run here (bwrap is not installed), so bots without sandbox: none are not run: install bubblewrap"
            ),
            "\(refused.standardError)")
        let open = try await runProcess(Executables.kiln, ["run", "open"], in: home.path, environment: environment)
        #expect(open.standardOutput.contains("result: build-errors"), "a bot that opted out runs: \(open.standardOutput)")
        let status = try await runProcess(Executables.kiln, ["status"], in: home.path, environment: environment)
        #expect(status.standardOutput.contains("sandbox: bubblewrap cannot run here (bwrap is not installed)"), "\(status.standardOutput)")

        let served = try await ServedHome(bots: ["app": bot], config: "executors: 1\n", environment: environment)
        let port = try await served.server.waitForPort()
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/")))
        let page = String(decoding: data, as: UTF8.self)
        #expect(page.contains("<h2>Sandbox</h2><p>bubblewrap cannot run here (bwrap is not installed)"), "\(page)")
        #expect(page.contains("not runnable: bubblewrap cannot run here"), "the bot is shown not runnable, with the reason: \(page)")
        let output = try await served.server.terminate()
        #expect(output.standardOutput.contains("bubblewrap cannot run here"), "said at start: \(output.standardOutput)")

        try home.write("kiln.yml", "sandbox-fallback: none\n")
        let fallback = try await runProcess(Executables.kiln, ["run", "app"], in: home.path, environment: environment)
        #expect(fallback.standardOutput.contains("result: build-errors"), "\(fallback.standardOutput) \(fallback.standardError)")
        #expect(fallback.standardOutput.contains("sandbox: bubblewrap cannot run here (bwrap is not installed): bots run unconfined"))
    }

    @Test("kiln validate notes each bot that opts out of the sandbox, with its position")
    func validateNotesOptOut() async throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/open.yml", "repository: {url: /srv/git/open.git}\nsandbox: none\n")
        try home.write("Bots/boxed.yml", "repository: {url: /srv/git/boxed.git}\n")
        let result = try await runProcess(Executables.kiln, ["validate"], in: home.path)
        #expect(result.status == 0, "a note is no error: \(result.standardOutput)")
        #expect(
            result.standardOutput.contains(
                "Bots/open.yml:2:10: note: sandbox: none: this bot's builds run unconfined and can read every other bot's secrets"),
            "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("boxed.yml:"), "\(result.standardOutput)")
    }

    @Test("A real package with a dependency resolves, builds and tests under the default sandbox with clean: always")
    func dependencyUnderSandbox() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        // swift-log from the machine's package copies (git's insteadOf maps github.com to them).
        try package.repository.commit(
            "Log",
            files: [
                "Package.swift": """
                // swift-tools-version: 6.0
                import PackageDescription

                let package = Package(
                    name: "Fixture",
                    dependencies: [.package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2")],
                    targets: [
                        .target(name: "Lib", dependencies: [.product(name: "Logging", package: "swift-log")]),
                        .testTarget(name: "LibTests", dependencies: ["Lib"]),
                        .testTarget(name: "LibSwiftTests", dependencies: ["Lib"]),
                    ]
                )

                """,
                "Sources/Lib/Lib.swift": "import Logging\n\nlet logger = Logger(label: \"lib\")\n\n" + FixturePackage.library(),
            ])
        let resolved = try await runProcess("/usr/bin/env", ["swift", "package", "resolve"], in: package.repository.path)
        #expect(resolved.status == 0, "\(resolved.standardError)")
        try package.repository.commit(
            "Pin", files: ["Package.resolved": try String(contentsOfFile: package.repository.path + "/Package.resolved", encoding: .utf8)])
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\nclean: always\n")
        // The same package without any network: swift-log comes from Kiln's mirror (fetched from
        // the copy git's insteadOf names, as git would), which the build's git is sent to.
        try home.write("Bots/offline.yml", "repository: {url: '\(package.repository.url)'}\nclean: always\nnetwork: none\n")
        for bot in ["app", "offline"] {
            let run = try await home.kilnRun(bot)
            #expect(run.status == 0 && run.output.contains("result: succeeded"), "\(bot): \(run.output)")
            let recorded = try await home.recorded(1, of: bot)
            let listed = try await runProcess(
                "/usr/bin/env", ["swift", "test", "list", "--skip-build"], in: home.url(".kiln/workspaces/\(bot)"))
            let swiftPM = listed.standardOutput.split(separator: "\n").filter { !$0.isEmpty }
            #expect(recorded.tests.count == swiftPM.count && swiftPM.count == 4, "\(bot): \(recorded.tests.map(\.name)) against \(swiftPM)")
        }
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        let log = String(decoding: try await store.readLog(bot: "offline", number: 1, from: 0, limit: 1 << 22) ?? [], as: UTF8.self)
        #expect(log.contains("dependencies: 1 resolved from Kiln's mirrors") && log.contains("swift-log 1.16.2 (current)"), "\(log)")
        let config = try String(contentsOfFile: home.url(".kiln/homes/offline/.gitconfig"), encoding: .utf8)
        #expect(config.contains("insteadOf = https://github.com/apple/swift-log.git") && config.contains(home.url(".kiln/mirrors/dependencies/")))
    }
}
