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

import ArgumentParser
import Foundation
import KilnCore

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check bot files and the server config.",
        discussion: """
            Prints one line per problem, `file:line:col: error: message`, and exits 1 if there is any; \
            exits 0 when every file is valid. Warnings (`file:line:col: warning: message`, such as a \
            quarantine that has ended) change nothing. With no paths, checks the bots directory.

            Examples:
              kiln validate
              kiln validate Bots/
              kiln validate Bots/app.yml Bots/lib.yml
            """
    )

    @OptionGroup var location: LocationOptions

    @Argument(help: ArgumentHelp("Bot files or directories to check (default: the bots directory).", valueName: "path"))
    var paths: [String] = []

    func run() throws {
        var problems: [ConfigDiagnostic] = []
        var bots = location.bots ?? "Bots"
        var offered: Set<String> = [Matrix.defaultToolchain]
        if let file = location.configFile {
            do throws(ConfigError) {
                let config = try ServerConfigFile.load(path: file)
                bots = location.bots ?? config.bots
                offered.formUnion(config.toolchains.keys)
            } catch {
                problems += error.diagnostics
            }
        }
        var files: [String] = []
        for path in paths.isEmpty ? [bots] : paths {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                do {
                    files += try BotCatalog.files(in: path)
                } catch {
                    problems += error.diagnostics
                }
            } else {
                files.append(path)
            }
        }
        let catalog = BotCatalog.load(files: files)
        problems += catalog.diagnostics
        for problem in problems + catalog.warnings(at: WallClock.system.now, offered: offered, environment: ProcessInfo.processInfo.environment) {
            Console.out(problem.description)
        }
        let summary =
            "checked \(files.count) bot file\(files.count == 1 ? "" : "s"): \(catalog.bots.count) valid"
            + (catalog.broken.isEmpty ? "" : ", \(catalog.broken.count) with problems")
        Console.error(summary)
        if !problems.isEmpty { throw ExitCode.failure }
    }
}
