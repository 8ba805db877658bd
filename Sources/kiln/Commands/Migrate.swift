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
import KilnServer
import KilnStore

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy the data directory's embedded store into an empty PostgreSQL database.",
        discussion: """
            Copies everything the embedded SQLite store holds (bots' numbering, every integration \
            with its steps, issues, tests, commits, trigger runs and log, the mail outbox and the \
            webhook deliveries) into an empty PostgreSQL database, in one transaction, and checks \
            that each table and the logs came to the same count there. The SQLite file is left as it \
            was. Stop kiln serve on the data directory first: migrate holds its lock while it copies.

            Afterwards, name the database in kiln.yml (database: url:) and start kiln serve.

            Examples:
              kiln migrate --to postgres://kiln@db.example.com/kiln --password-file /etc/kiln/database-password
              kiln migrate --data /var/lib/kiln --to 'postgres://kiln@/kiln?host=/run/postgresql'
            """
    )

    @OptionGroup var location: LocationOptions

    @Option(help: ArgumentHelp("The PostgreSQL database to copy into.", valueName: "postgres://user@host:port/name"))
    var to: String

    @Option(help: ArgumentHelp("A file holding the database's password.", valueName: "file"))
    var passwordFile: String?

    func run() async throws {
        let config = try location.loadServerConfig()
        let layout = config.dataDirectory
        let lock: ServeLock
        do {
            lock = try ServeLock.acquire(layout, holder: "kiln migrate (pid \(getpid()), since \(WallClock.system.now.formatted(.iso8601)))")
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        let settings = DatabaseSettings(url: to, passwordFile: passwordFile)
        let report: MigrationReport
        do {
            report = try await StoreMigration.copy(from: layout, host: config.host, to: settings, now: WallClock.system.now) { Console.out($0) }
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        withExtendedLifetime(lock) {}
        Console.out("copied \(layout.database) into \(report.database), and verified:")
        let width = report.tables.map(\.name.count).max() ?? 0
        for table in report.tables {
            Console.out("  \(table.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(table.rows)")
        }
        Console.out("  \("logs".padding(toLength: width, withPad: " ", startingAt: 0))  \(report.logs) (\(report.logBytes) bytes)")
        Console.out(
            """
            Next, name the database in kiln.yml and start kiln serve:
              database:
                url: \(report.database)\(passwordFile.map { "\n    password-file: \($0)" } ?? "")
            """)
    }
}
