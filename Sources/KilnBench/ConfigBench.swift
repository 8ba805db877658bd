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

/// Foundation: `kiln validate` on 1,000 bot files.
struct ConfigBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let directory = work.url("Bots")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for index in 1...1000 {
            let bot = """
                repository:
                  url: https://github.com/example/app-\(index).git
                  branch: main
                schedule:
                  on-commit: true
                  poll: 2m
                  periodic: cron "*/15 * * * 1-5"
                build: {configuration: release, arguments: [--static-swift-stdlib]}
                test: {arguments: [--parallel], coverage: true}
                timeout: 1h30m
                environment: {LANG: C.UTF-8}
                triggers:
                  - {name: lint, phase: before, run: swift format lint -r Sources}
                  - {name: publish, phase: after, on: [succeeded, warnings], run: ./publish.sh}
                  - {email: new-issues, issues: [errors, warnings], cc: [lead@example.com], allowed-domains: [example.com]}
                  - {email: report, every: daily, to: [team@example.com]}

                """
            try bot.write(toFile: "\(directory)/bot-\(index).yml", atomically: false, encoding: .utf8)
        }
        try command(kiln, ["validate", directory])
        let median = try await Measure.median(runs: 7) { try command(kiln, ["validate", directory]) }
        table.add("kiln validate, 1,000 bot files", target: "< 1 s", measured: Measure.format(median), comparison: "whole process, median of 7")
    }
}
