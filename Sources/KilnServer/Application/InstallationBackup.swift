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

/// `kiln backup DEST`: a copy of the installation, taken while it serves, that `kiln serve
/// --data DEST` opens as it is. With SQLite: the store through SQLite's online backup (the
/// store as of one moment, with the writers carrying on), then the logs and assets on disk,
/// copied after it, so that every integration the copy holds as completed has its log. Mirrors,
/// workspaces and snapshots are caches, rebuilt by the first integrations, and are not copied.
/// With PostgreSQL everything worth keeping is in the database: its own `pg_dump` backs it up.
public struct InstallationBackup: Sendable {
    let config: ServerConfig
    let destination: String

    public init(config: ServerConfig, destination: String) {
        self.config = config
        self.destination = destination
    }

    /// What a backup copied.
    public enum Report: Sendable {
        case sqlite(integrations: Int, databaseBytes: Int, files: Int, fileBytes: Int, vanished: Int, seconds: Double)
        /// The store is PostgreSQL (its URL without a password): nothing on this host needs copying.
        case postgres(url: String)
    }

    public func run() async throws(BackupError) -> Report {
        if let database = config.database { return .postgres(url: database.redactedURL) }
        let start = MonotonicClock.system.now
        let layout = config.dataDirectory
        let target = DataDirectory(destination)
        guard FileManager.default.fileExists(atPath: layout.database) else { throw .noStore(layout.database) }
        try prepareDestination()
        let store: SQLiteStore
        let check: String
        do {
            store = try SQLiteStore.open(dataDirectory: layout.path)
            check = try await store.backup(to: target.database)
        } catch {
            throw .store(error)
        }
        guard check == "ok" else { throw .damaged(check) }
        // After the store: a log that was written when the copy was taken is at least as long now.
        var (files, bytes, vanished) = (0, 0, 0)
        for folder in ["logs", "assets"] {
            let copied = try copyTree(layout.path + "/" + folder, to: target.path + "/" + folder)
            files += copied.files
            bytes += copied.bytes
            vanished += copied.vanished
        }
        let integrations: Int
        do {
            let copy = try SQLiteStore.open(dataDirectory: target.path)
            integrations = try await copy.integrationCount()
        } catch {
            throw .store(error)
        }
        let databaseBytes = (try? FileManager.default.attributesOfItem(atPath: target.database)[.size] as? Int) ?? 0
        return .sqlite(
            integrations: integrations, databaseBytes: databaseBytes, files: files, fileBytes: bytes, vanished: vanished,
            seconds: MonotonicClock.system.since(start).seconds)
    }

    /// DEST: made when missing; refused when it holds anything.
    private func prepareDestination() throws(BackupError) {
        let manager = FileManager.default
        if manager.fileExists(atPath: destination) {
            let entries = (try? manager.contentsOfDirectory(atPath: destination)) ?? ["?"]
            guard entries.isEmpty else { throw .destinationNotEmpty(destination) }
        }
        do {
            try manager.createDirectory(atPath: destination, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(destination, "\(error)")
        }
    }

    /// Copies every file under `source` to the same place under `target`. A file that goes away
    /// meanwhile (retention removed its integration's log) is counted, not an error.
    private func copyTree(_ source: String, to target: String) throws(BackupError) -> (files: Int, bytes: Int, vanished: Int) {
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: source) else { return (0, 0, 0) }
        var (files, bytes, vanished) = (0, 0, 0)
        while let relative = walker.nextObject() as? String {
            let from = source + "/" + relative
            let to = target + "/" + relative
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: from, isDirectory: &isDirectory) else {
                vanished += 1
                continue
            }
            do {
                if isDirectory.boolValue {
                    try manager.createDirectory(atPath: to, withIntermediateDirectories: true)
                    continue
                }
                try manager.createDirectory(atPath: (to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try manager.copyItem(atPath: from, toPath: to)
                files += 1
                bytes += (try manager.attributesOfItem(atPath: to)[.size] as? Int) ?? 0
            } catch {
                guard manager.fileExists(atPath: from) else {
                    vanished += 1
                    continue
                }
                throw .cannotWrite(to, "\(error)")
            }
        }
        return (files, bytes, vanished)
    }
}

/// Why `kiln backup` made no copy.
public enum BackupError: Error, Sendable, CustomStringConvertible {
    case noStore(String)
    case destinationNotEmpty(String)
    case cannotWrite(String, String)
    case store(StoreError)
    case damaged(String)

    public var description: String {
        switch self {
        case .noStore(let path): "there is no store at \(path): give the server's --config or --data"
        case .destinationNotEmpty(let path): "\(path) is not empty: give a new or empty directory, so that no backup mixes with another"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .store(let error): "\(error)"
        case .damaged(let check): "the copy does not pass SQLite's integrity check (\(check)): the store itself may be damaged; run kiln status"
        }
    }
}
