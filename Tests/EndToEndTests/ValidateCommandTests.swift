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
import KilnTestSupport
import Testing

@Suite("kiln validate, run as a real process")
struct ValidateCommandTests {
    @Test("Good files: exit 0, no problem lines")
    func goodDirectory() async throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: https://github.com/example/app.git}\n")
        try home.write("Bots/lib.yml", "repository: {url: /srv/git/lib.git, branch: develop}\nschedule: {periodic: daily 02:00}\n")
        let result = try await runProcess(Executables.kiln, ["validate"], in: home.path)
        #expect(result.status == 0)
        #expect(result.standardOutput == "")
        #expect(result.standardError == "checked 2 bot files: 2 valid\n")
    }

    @Test("A quarantine that has ended is a warning with its position; the file stays valid")
    func endedQuarantine() async throws {
        let home = try TemporaryDirectory()
        try home.write(
            "Bots/app.yml",
            """
            repository: {url: https://github.com/example/app.git}
            test:
              quarantine:
                - MathTests/testForever
                - {test: MathTests/testRace, until: 2020-01-31}
                - {test: MathTests/testLater, until: 2999-12-31}

            """)
        let result = try await runProcess(Executables.kiln, ["validate"], in: home.path)
        #expect(result.status == 0, "a warning changes nothing")
        #expect(
            result.standardOutput
                == "Bots/app.yml:5:14: warning: the quarantine of 'MathTests/testRace' ended on 2020-01-31, so its failures count again: remove the entry, or extend 'until'\n"
        )
        #expect(result.standardError == "checked 1 bot file: 1 valid\n")
    }

    @Test("A secret whose value is too short to mask is a warning at its name; a long one is not")
    func shortSecret() async throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: https://github.com/example/app.git}\nsecrets: [LONG_KEY, SHORT_KEY, UNSET_KEY]\n")
        let environment = ProcessInfo.processInfo.environment.merging(["LONG_KEY": "long-enough-1", "SHORT_KEY": "abc123"]) { _, new in new }
        let result = try await runProcess(Executables.kiln, ["validate"], in: home.path, environment: environment)
        #expect(result.status == 0, "a warning changes nothing")
        #expect(
            result.standardOutput
                == "Bots/app.yml:2:21: warning: the value of SHORT_KEY is shorter than 8 characters, so it is not masked (masking it would show where it is rather than hide it): use a longer secret\n"
        )
    }

    @Test("Bad files: one compiler-style line per problem on stdout, exit 1")
    func badDirectory() async throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: https://github.com/example/app.git}\n")
        try home.write("Bots/x.yml", "repository:\n  url: /srv/git/x.git\n\n\n\n\n\n\n\n\n\nschedule:\n  poll: 2m\nshedule: {}\n")
        try home.write("Bots/y.yml", "repository: {url: /srv/git/y.git}\ntimeout: soon\nsandbox: docker\n")
        let result = try await runProcess(Executables.kiln, ["validate", "Bots/"], in: home.path)
        #expect(result.status == 1)
        #expect(
            result.standardOutput == """
                Bots/x.yml:14:1: error: unknown key 'shedule' (did you mean 'schedule'?)
                Bots/y.yml:2:10: error: 'timeout' must be a duration such as 90s, 2m or 1h30m, not 'soon'
                Bots/y.yml:3:10: error: 'sandbox' must be one of none, bubblewrap, not 'docker'

                """)
        #expect(result.standardError == "checked 3 bot files: 1 valid, 2 with problems\n")
    }

    @Test("Single files can be named; the server config is checked too")
    func filesAndConfig() async throws {
        let home = try TemporaryDirectory()
        try home.write("kiln.yml", "bots: bots.d\nexecutors: none\n")
        try home.write("bots.d/a.yml", "repository: {url: /srv/git/a.git}\n")
        try home.write("elsewhere/b.yml", "repository: {url: /srv/git/b.git}\nname: B\n")
        let result = try await runProcess(Executables.kiln, ["validate", "elsewhere/b.yml"], in: home.path)
        #expect(result.status == 1)
        #expect(
            result.standardOutput == """
                kiln.yml:2:12: error: 'executors' must be a whole number, not 'none'
                elsewhere/b.yml:2:7: error: 'B' is not a valid bot name (lowercase letters, digits, '.', '_' and '-', starting with a letter or digit)

                """)
        let fine = try await runProcess(
            Executables.kiln, ["validate", "--config", "kiln.yml", "--bots", "bots.d", "--data", "/tmp/x"], in: home.path)
        #expect(fine.status == 1, "the config's own problem still counts")
        #expect(fine.standardOutput.hasPrefix("kiln.yml:2:12: error:"))
    }

    @Test("A missing bots directory is one clear line, not a stack trace")
    func missingDirectory() async throws {
        let home = try TemporaryDirectory()
        let result = try await runProcess(Executables.kiln, ["validate"], in: home.path)
        #expect(result.status == 1)
        #expect(result.standardOutput == "Bots:1:1: error: cannot read: no such file or directory\n")
    }

    @Test("The example bots of this repository validate")
    func exampleBots() async throws {
        let result = try await runProcess(Executables.kiln, ["validate", "Bots"], in: Executables.packageRoot)
        #expect(result.status == 0, "\(result.standardOutput)")
    }

    @Test("--help shows examples")
    func help() async throws {
        let result = try await runProcess(Executables.kiln, ["validate", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Examples:\n  kiln validate"))
    }
}
