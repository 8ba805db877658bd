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

@Suite("kiln trigger through the server's trigger socket")
struct TriggerSocketTests {
    /// A bot whose before trigger waits for the file `go` in the home (so that a second trigger
    /// finds one queued behind it), and a bot that integrates at once; and their repository.
    static func served() async throws -> (ServedHome, GitFixture) {
        let repo = try ServerTests.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        let served = try await ServedHome(bots: [
            // Unsandboxed: the file it waits for is outside the workspace, in the test's /tmp.
            "held": bot + "sandbox: none\ntriggers: [{name: wait, phase: before, run: 'while [ ! -e ../../../go ]; do sleep 0.05; done'}]\n",
            // Under the default sandbox, as users run it.
            "quick": bot,
        ])
        return (served, repo)
    }

    @Test("With a server running, kiln trigger asks it: no bot file or store read by the command, queued and joined said as before")
    func throughTheServer() async throws {
        let (served, repo) = try await Self.served()
        defer { withExtendedLifetime(repo) {} }
        let home = served.home
        #expect(FileManager.default.fileExists(atPath: home.url(".kiln/serve.sock")))
        // From elsewhere, with bots the command cannot read: only the server knows the bot.
        let elsewhere = try TemporaryDirectory()
        let options = ["--data", home.url(".kiln"), "--bots", elsewhere.url("none")]
        let first = try await runProcess(Executables.kiln, ["trigger", "held"] + options, in: elsewhere.path)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput == "queued held #1\n")
        try await served.eventually("held #1 to wait in its before trigger") {
            try await served.integrations("held").first?.step == .beforeTriggers
        }
        // Pushed while #1 runs: #2, triggered after, checks it out.
        let pushed = try repo.commit("second", files: ["README.md": "still not a package\n"])
        let second = try await runProcess(Executables.kiln, ["trigger", "held"] + options, in: elsewhere.path)
        #expect(second.standardOutput == "queued held #2\n")
        let third = try await runProcess(Executables.kiln, ["trigger", "held"] + options, in: elsewhere.path)
        #expect(third.standardOutput == "held #2 was already queued; the trigger joins it\n")
        try home.write("go", "")
        try await served.eventually("both integrations of held to complete") {
            let integrations = try await served.integrations("held")
            return integrations.count == 2 && integrations.allSatisfy { $0.step == .completed }
        }
        // Built: the repository is no package, so the build is what fails, after the checkout.
        #expect(try await served.integrations("held").map(\.result) == [.buildErrors, .buildErrors])
        #expect(try await served.integrations("held").map(\.cause) == [.manual, .manual])
        #expect(try await served.integrations("held").map(\.commit) == [pushed, try repo.head("HEAD~1")])
        // The same without a server's bots: the command's own lookup, and its own words.
        let unknown = try await runProcess(Executables.kiln, ["trigger", "nobody"], in: home.path)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.hasPrefix("error: no bot named 'nobody' in \(home.path)/Bots (bots: held, quick)"), "\(unknown.standardError)")
        // Stopped gracefully, the server takes its socket with it.
        #expect(try await served.server.terminate().status == 0)
        #expect(!FileManager.default.fileExists(atPath: home.url(".kiln/serve.sock")))
    }

    @Test("A socket left by a stopped server is passed by: kiln trigger queues in the store, and the next server integrates it")
    func staleSocket() async throws {
        let (served, repo) = try await Self.served()
        defer { withExtendedLifetime(repo) {} }
        let home = served.home
        try await served.eventually("the server to have recorded its bots") { try await served.store().botOverviews().count == 2 }
        served.server.sigkill()
        #expect(FileManager.default.fileExists(atPath: home.url(".kiln/serve.sock")), "a stopped server leaves its socket")
        let queued = try await runProcess(Executables.kiln, ["trigger", "quick"], in: home.path)
        #expect(queued.status == 0, "\(queued.standardError)")
        #expect(queued.standardOutput == "queued quick #1\n")
        let next = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        _ = try await next.waitForPort()
        let restarted = ServedHome(home: home, server: next)
        try await restarted.eventually("quick #1 to be integrated") { try await restarted.integrations("quick").first?.result == .buildErrors }
        // The new server listens where the dead one's socket was.
        let again = try await runProcess(Executables.kiln, ["trigger", "quick"], in: home.path)
        #expect(again.standardOutput == "queued quick #2\n")
        try await restarted.eventually("quick #2 to be integrated") {
            try await restarted.integrations("quick").map(\.result) == [.buildErrors, .buildErrors]
        }
        _ = try await next.terminate()
    }

    @Test("kiln.yml's data directory is where the command finds the server; without one, the default")
    func dataDirectoryFromTheConfig() async throws {
        let repo = try ServerTests.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        let served = try await ServedHome(bots: ["quick": bot], config: "executors: 1\ndata: state\n")
        #expect(FileManager.default.fileExists(atPath: served.home.url("state/serve.sock")))
        // A socket of no server at the default place must not be asked instead.
        try served.home.write(".kiln/serve.sock", "")
        // Bots the command cannot read: only the server at state/ can queue it.
        let queued = try await runProcess(Executables.kiln, ["trigger", "quick", "--bots", served.home.url("none")], in: served.home.path)
        #expect(queued.standardOutput == "queued quick #1\n", "\(queued.standardError)")
        // Without `data` in kiln.yml, the default data directory's socket, named from the working
        // directory without reading the config; the bots again only the server can read.
        let byDefault = try await ServedHome(bots: ["quick": bot])
        let joined = try await runProcess(Executables.kiln, ["trigger", "quick", "--bots", byDefault.home.url("none")], in: byDefault.home.path)
        #expect(joined.standardOutput == "queued quick #1\n", "\(joined.standardError)")
        _ = try await byDefault.server.terminate()
        let store = try SQLiteStore.open(dataDirectory: served.home.url("state"))
        try await served.eventually("quick #1 to be integrated") {
            try await store.integrations(bot: "quick", limit: 10, before: nil).first?.step == .completed
        }
        _ = try await served.server.terminate()
    }
}
