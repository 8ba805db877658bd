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

import Crypto
import Foundation
import KilnCore
import KilnPresentation
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// This host's snapshots of warm workspaces (`WorkspaceSnapshot`, under
/// `DataDirectory.snapshots`): packing a workspace's `.build` after a successful integration,
/// checking a pack (its size, SHA-256 and toolchain), and starting a new workspace from one.
///
/// A pack is `tar` of `.build` (POSIX format, which keeps modification times whole) through
/// `zstd -1`: swift-argument-parser's 233 MB `.build` packs to 70 MB in 0.8 s. The files of one
/// snapshot are replaced together: the pack first, its description last, each by a rename, so a
/// reader sees an old snapshot or a new one, never half.
public struct WorkspaceSnapshots: Sendable {
    public let layout: DataDirectory
    /// This host's name, recorded in the snapshots it makes.
    public let host: String
    /// `cache.max-size`: the bytes of packs kept; the oldest go first.
    public let maxSize: Int

    public init(layout: DataDirectory, host: String, maxSize: Int) {
        self.layout = layout
        self.host = host
        self.maxSize = maxSize
    }

    /// The snapshot this host holds of `bot` in `cell`, if any.
    public func snapshot(of bot: String, cell: String) -> WorkspaceSnapshot? {
        guard let data = FileManager.default.contents(atPath: layout.snapshotManifest(of: bot, cell: cell)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(WorkspaceSnapshot.self, from: data)
    }

    /// Every snapshot this host holds.
    public func all() -> [WorkspaceSnapshot] {
        let bots = (try? FileManager.default.contentsOfDirectory(atPath: layout.snapshots)) ?? []
        return bots.flatMap { bot in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(layout.snapshots)/\(bot)")) ?? []
            return files.filter { $0.hasSuffix(".json") }.compactMap { snapshot(of: bot, cell: String($0.dropLast(".json".count))) }
        }
    }

    /// Packs `workspace`'s `.build` as the snapshot of its bot in `cell`, replacing the one
    /// there, then drops the oldest snapshots beyond `maxSize`; returns it and those dropped.
    /// Nothing may write the workspace meanwhile (the caller holds it).
    /// `started`: told the process that packs, the leader of a session (and process group) of
    /// its own, whose priority the caller sets (`SnapshotPacker`).
    public func pack(
        _ workspace: Workspace, cell: String, number: Int, commit: String, swiftVersion: String, now: Date,
        started: @escaping @Sendable (pid_t) async -> Void = { _ in }
    ) async throws(SnapshotError) -> (made: WorkspaceSnapshot, dropped: [WorkspaceSnapshot]) {
        let bot = workspace.bot.name
        let partial = "\(layout.snapshots)/\(bot)/\(cell).\(UUID().uuidString).partial"
        // packing into it fails with its own error when the folder is missing
        try? FileManager.default.createDirectory(atPath: "\(layout.snapshots)/\(bot)", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: partial) }
        try await Self.packBuild(of: workspace, into: partial, started: started)
        let (bytes, sha256) = try Self.digest(of: partial)
        let snapshot = WorkspaceSnapshot(
            bot: bot, cell: cell, host: host, number: number, commit: commit, swiftVersion: swiftVersion, seenAs: workspace.seenAs, bytes: bytes,
            sha256: sha256, createdAt: now)
        try install(snapshot, pack: partial)
        return (snapshot, prune(keeping: snapshot))
    }

    /// Packs `workspace`'s `.build` into `file`, with the times of the checkout's files
    /// (`SourceTimes`), in a session of its own (`started` is told its leader).
    static func packBuild(of workspace: Workspace, into file: String, started: @escaping @Sendable (pid_t) async -> Void) async throws(SnapshotError)
    {
        await SourceTimes.save(in: workspace.directory)
        // POSIX (pax) headers keep modification times to the nanosecond: with GNU tar's default
        // whole seconds, llbuild takes every unpacked file as changed and runs every command again
        // (swift-argument-parser: a 6.1 s build where 1 s would do, relinking each executable).
        try await shell(
            #"tar --format=posix --pax-option=delete=atime,delete=ctime -C "$0" -I "zstd -1 -T0 -q" -cf "$1" .build"#,
            [workspace.directory, file],
            doing: "packing .build", session: true, started: started)
    }

    /// Moves `file`, a pack checked against `snapshot`, into place as this host's snapshot of its
    /// bot and cell (also a pack fetched from another host, which this host then offers too),
    /// and removes the pack it replaces.
    public func install(_ snapshot: WorkspaceSnapshot, pack file: String) throws(SnapshotError) {
        let (bot, cell) = (snapshot.bot, snapshot.cell)
        let manifest = layout.snapshotManifest(of: bot, cell: cell)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(snapshot) else { throw .failed("encoding the snapshot's description") }
        // the manifest's write below fails with its own error when the folder is missing
        try? FileManager.default.createDirectory(atPath: "\(layout.snapshots)/\(bot)", withIntermediateDirectories: true)
        let written = manifest + ".partial"
        let pack = layout.snapshot(of: bot, cell: cell, sha256: snapshot.sha256)
        guard FileManager.default.createFile(atPath: written, contents: data), rename(file, pack) == 0, rename(written, manifest) == 0 else {
            // the snapshot is refused below; a leftover manifest is removed with the next pack of this cell
            try? FileManager.default.removeItem(atPath: written)
            throw .failed("writing the snapshot into \(layout.snapshots): \(String(cString: strerror(errno)))")
        }
        // The packs it replaces (and any a crash left without a description).
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(layout.snapshots)/\(bot)")) ?? []
        for name in files where name.hasPrefix(cell + ".") && name.hasSuffix(".tar.zst") && "\(layout.snapshots)/\(bot)/\(name)" != pack {
            // an older pack left behind is only space, within cache.max-size's next sweep
            try? FileManager.default.removeItem(atPath: "\(layout.snapshots)/\(bot)/\(name)")
        }
    }

    /// Checks the pack at `file` against `snapshot` (size, SHA-256, and the toolchain that is
    /// to build on it, `swiftVersion`), then unpacks it as `workspace`'s `.build`, which must not
    /// exist; the files the checkout holds as they were when it was packed get the times `.build`
    /// saw them at (`SourceTimes`). (Where the workspace is seen at another path than the
    /// snapshot's, its clang module caches go next, `Workspace.settleSeenPath`.)
    public func unpack(_ snapshot: WorkspaceSnapshot, from file: String, into workspace: Workspace, swiftVersion: String?) async throws(SnapshotError)
    {
        guard snapshot.swiftVersion == swiftVersion else {
            throw .toolchain(made: snapshot.swiftVersion, here: swiftVersion ?? "no swift")
        }
        let (bytes, sha256) = try Self.digest(of: file)
        guard bytes == snapshot.bytes else { throw .truncated(expected: snapshot.bytes, found: bytes) }
        guard sha256 == snapshot.sha256 else { throw .corrupted(expected: snapshot.sha256, found: sha256) }
        let staging = "\(workspace.directory)/.kiln-seed"
        // a leftover seed is replaced; unpacking below reports its own failure
        try? FileManager.default.removeItem(atPath: staging)
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw .failed("creating \(staging): \(error.localizedDescription)")
        }
        // a seed left behind is replaced by the next one and wiped with the workspace
        defer { try? FileManager.default.removeItem(atPath: staging) }
        try await Self.shell(#"tar -C "$0" -I zstd -xf "$1""#, [staging, file], doing: "unpacking the snapshot")
        guard rename("\(staging)/.build", "\(workspace.directory)/.build") == 0 else {
            throw .failed("moving the snapshot into \(workspace.directory)/.build: \(String(cString: strerror(errno)))")
        }
        await SourceTimes.restore(in: workspace.directory)
    }

    /// The bots this host holds snapshots of.
    public func bots() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: layout.snapshots)) ?? []
    }

    /// Removes every snapshot of `bot` (a bot that is gone).
    public func remove(bot: String) {
        // snapshots that stay are only space, within cache.max-size's next sweep
        try? FileManager.default.removeItem(atPath: "\(layout.snapshots)/\(bot)")
    }

    /// Drops the oldest snapshots until the packs fit in `maxSize` with `kept`, or `kept` alone
    /// when it is larger than that; returns those dropped.
    func prune(keeping kept: WorkspaceSnapshot) -> [WorkspaceSnapshot] {
        guard kept.bytes <= maxSize else {
            remove(kept)
            return [kept]
        }
        var snapshots = all().sorted { $0.createdAt < $1.createdAt }
        var total = snapshots.reduce(0) { $0 + $1.bytes }
        var dropped: [WorkspaceSnapshot] = []
        while total > maxSize, let oldest = snapshots.first(where: { $0 != kept }) {
            snapshots.removeAll { $0 == oldest }
            total -= oldest.bytes
            remove(oldest)
            dropped.append(oldest)
        }
        return dropped
    }

    /// Removes one snapshot: refused, or over `maxSize`.
    public func remove(_ snapshot: WorkspaceSnapshot) {
        // without its manifest a pack is never used; what stays is swept with cache.max-size
        try? FileManager.default.removeItem(atPath: layout.snapshotManifest(of: snapshot.bot, cell: snapshot.cell))
        try? FileManager.default.removeItem(atPath: layout.snapshot(of: snapshot.bot, cell: snapshot.cell, sha256: snapshot.sha256))
    }

    /// The size and SHA-256 (hex) of the file at `path`, read in chunks.
    public static func digest(of path: String) throws(SnapshotError) -> (bytes: Int, sha256: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .failed("reading \(path): \(String(cString: strerror(errno)))") }
        // closing a file that was only read loses nothing
        defer { try? handle.close() }
        var hash = SHA256()
        var bytes = 0
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                throw .failed("reading \(path): \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            hash.update(data: chunk)
            bytes += chunk.count
        }
        return (bytes, hash.finalize().map { String(format: "%02x", $0) }.joined())
    }

    /// Runs Kiln's own `script` (`$0`, `$1`… are `arguments`) with nothing of the server's
    /// environment but PATH; its standard error says why it failed. `session`: in a session of
    /// its own, whose processes all end when the caller is canceled; `started` is told its leader.
    static func shell(
        _ script: String, _ arguments: [String], doing what: String, session: Bool = false,
        started: @escaping @Sendable (pid_t) async -> Void = { _ in }
    ) async throws(SnapshotError) {
        let ended: (success: Bool, status: String, said: String)
        var options = PlatformOptions()
        options.createSession = session
        if session { options.teardownSequence = [.send(signal: .terminate, toProcessGroup: true, allowedDurationToNextStep: .seconds(2))] }
        do {
            let result = try await Subprocess.run(
                .path(FilePath("/bin/sh")), arguments: Arguments(["-c", script] + arguments),
                environment: .custom(["PATH": "/usr/local/bin:/usr/bin:/bin"]), platformOptions: options, input: .none, output: .discarded,
                error: .string(limit: 16 * 1024)
            ) { execution in await started(execution.processIdentifier.value) }
            ended = (result.terminationStatus.isSuccess, "\(result.terminationStatus)", result.standardError)
        } catch {
            throw .failed("\(what): \(error)")
        }
        guard ended.success else {
            let said = ended.said.split(separator: "\n").last.map(String.init) ?? ""
            throw .failed("\(what) failed (\(ended.status))\(said.isEmpty ? "" : ": \(said)")")
        }
    }
}

/// Why a snapshot was not made or not used: the workspace then builds from nothing, and its log
/// says this.
public enum SnapshotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Made with another compiler: its products would be rebuilt anyway, or worse, mixed.
    case toolchain(made: String, here: String)
    /// Shorter or longer than it was made: a transfer cut short.
    case truncated(expected: Int, found: Int)
    /// Its SHA-256 is not the one it was made with.
    case corrupted(expected: String, found: String)
    /// A step failed; says which and why (tar or zstd missing, a full disk).
    case failed(String)

    public var description: String {
        switch self {
        case .toolchain(let made, let here): "it was made with \(made), and this build uses \(here)"
        case .truncated(let expected, let found): "it is \(found) bytes where \(expected) were packed (a transfer cut short)"
        case .corrupted(let expected, let found): "its SHA-256 is \(ShortHash.text(found))…, not \(ShortHash.text(expected))… as packed (corrupted)"
        case .failed(let why): why + (why.contains("zstd") && why.contains("not found") ? " (apt-get install zstd)" : "")
        }
    }
}
