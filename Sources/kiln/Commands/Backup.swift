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
import KilnPresentation
import KilnServer

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the installation while it serves, into a directory kiln serve --data opens as it is.",
        discussion: """
            With SQLite (the default), copies the store with SQLite's online backup (the store as \
            of one moment; the server goes on writing meanwhile), checks the copy's integrity, then \
            copies the logs and assets. Mirrors, workspaces and snapshots are caches and are left \
            out. DEST must be new or empty. To restore: stop the server, put DEST where data: \
            points (or start it with --data DEST), start it. With PostgreSQL, back the database \
            up with pg_dump; nothing on this host's disk needs keeping.

            Examples:
              kiln backup /var/backups/kiln/2026-11-27
              kiln backup --config /etc/kiln/kiln.yml /mnt/backup/kiln
            """
    )

    @OptionGroup var location: LocationOptions

    @Argument(help: ArgumentHelp("Where the copy goes: a new or empty directory.", valueName: "dest"))
    var destination: String

    func run() async throws {
        let config = try location.loadServerConfig()
        let absolute = URL(fileURLWithPath: destination).standardizedFileURL.path
        let report: InstallationBackup.Report
        do {
            report = try await InstallationBackup(config: config, destination: absolute).run()
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        switch report {
        case .sqlite(let integrations, let databaseBytes, let files, let fileBytes, let vanished, let seconds):
            Console.out(
                "backed up \(integrations) integrations (\(ByteCount.text(databaseBytes)) of store, integrity ok) and \(files) logs and assets "
                    + "(\(ByteCount.text(fileBytes))) to \(absolute) in \(String(format: "%.1f", seconds)) s")
            if vanished > 0 { Console.out("\(vanished) files went away while copying (retention removed their integrations' logs)") }
            Console.out("to restore: stop kiln serve, then kiln serve --data \(absolute) (or point data: at it)")
        case .postgres(let url):
            Console.out("the store is PostgreSQL (\(url)): back it up with pg_dump -Fc, restore with pg_restore")
            Console.out("nothing on this host needs copying: its mirrors, workspaces and snapshots are caches Kiln rebuilds")
        }
    }
}
