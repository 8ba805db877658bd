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
import Synchronization

/// What the `archiving` step made: the archive and its asset, or the build errors of a product
/// that did not build, or why the archive was refused.
public struct ArchiveOutput: Sendable {
    /// Diagnostics of the release builds: a product that does not build is a build error.
    public var diagnostics: [Diagnostic] = []
    /// The packed archive (`KILN_ARCHIVE`) and its record; nil when there is none.
    public var file: String?
    public var asset: Asset?
    /// The unpacked contents (`KILN_ASSETS`).
    public var contents: String?
    /// Why no archive is kept although the products built (`archiveTooLarge`: over `archive.max-size`).
    public var refusal: IntegrationReason?
    public var end: ProcessEnd = .exited(0)
}

extension PackageBuild {
    /// `swift build -c release --product NAME` (and the bot's `archive.arguments`) for each product,
    /// then every product at `bin/NAME` and every file matching `archive.files` at its relative
    /// path, packed as `<bot>.tar.gz` in `directory` (emptied first), with its size and SHA-256.
    public func archive(in directory: String, commit: String?) async throws(ProcessError) -> ArchiveOutput {
        let settings = bot.archive
        var output = ArchiveOutput()
        let contents = directory + "/contents"
        // a leftover archive folder is replaced by the copy that follows, which reports its own failure
        try? FileManager.default.removeItem(atPath: directory)
        do {
            try FileManager.default.createDirectory(atPath: contents + "/bin", withIntermediateDirectories: true)
        } catch {
            throw ProcessError.cannotStart(command: "archive", reason: "cannot create \(contents): \(error.localizedDescription)")
        }
        if !settings.products.isEmpty {
            let release = ["build", "-c", "release"] + workspace.compilerFlags + settings.arguments
            for product in settings.products {
                let parser = Mutex(DiagnosticParser(root: workspace.directory))
                let end = try await workspace.run(StepCommand("swift", release + ["--product", product]), step: .archiving, commit: commit) { line in
                    parser.withLock { $0.consume(line.utf8) }
                }
                output.diagnostics += parser.withLock { $0.diagnostics }
                output.end = end
                guard end.succeeded else {
                    if !output.diagnostics.contains(where: { $0.severity == .error }) {
                        output.diagnostics.append(
                            Diagnostic.error("swift build --product \(product) \(end.description)"))
                    }
                    return output
                }
            }
            // `.build/release` links to the products, unless the arguments move or retarget them:
            // then SwiftPM says where they are.
            var bin = "\(workspace.directory)/.build/release"
            let moving = ["--scratch-path", "--build-path", "--triple", "--swift-sdk", "--arch"]
            if settings.arguments.contains(where: { argument in moving.contains { argument.hasPrefix($0) } }) {
                let shown = Mutex<String?>(nil)
                output.end = try await workspace.run(StepCommand("swift", release + ["--show-bin-path"]), step: .archiving, commit: commit) { line in
                    if line.hasPrefix("/") { shown.withLock { $0 = String(line) } }
                }
                guard output.end.succeeded, let path = shown.withLock({ $0 }) else { return output }
                bin = path
            }
            for product in settings.products {
                do {
                    try FileManager.default.copyItem(atPath: "\(bin)/\(product)", toPath: "\(contents)/bin/\(product)")
                } catch {
                    output.diagnostics.append(
                        Diagnostic.error("archive: product '\(product)' built no executable at \(bin)/\(product): is it an executable product?"))
                    return output
                }
            }
        }
        for file in ArchiveGlob.matches(settings.files, in: workspace.directory) {
            let target = "\(contents)/\(file)"
            do {
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: "\(workspace.directory)/\(file)", toPath: target)
            } catch {
                // An archive without a file its globs name is not the archive the bot asked for.
                output.diagnostics.append(
                    Diagnostic.error("archive: cannot add \(file): \(error.localizedDescription)"))
                return output
            }
        }
        let name = "\(bot.name).tar.gz"
        let archive = "\(directory)/\(name)"
        output.end = try await workspace.run(StepCommand("tar", ["-czf", archive, "-C", contents, "."]), step: .archiving, commit: commit)
        guard output.end.succeeded else { return output }
        guard let (size, sha256) = Self.digest(archive) else {
            output.diagnostics.append(
                Diagnostic.error("archive: cannot read \(archive) back to digest it"))
            return output
        }
        if size > settings.maxSize {
            output.refusal = .archiveTooLarge(bytes: size, limit: settings.maxSize)
            // the refusal is what counts; a folder left behind goes with the next archive of this workspace
            try? FileManager.default.removeItem(atPath: directory)
            return output
        }
        output.file = archive
        output.contents = contents
        output.asset = Asset(name: name, size: size, sha256: sha256)
        return output
    }

    /// The size and SHA-256 of the file at `path`, read in 1 MiB pieces.
    static func digest(_ path: String) -> (Int, String)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        // closing a file that was only read loses nothing
        defer { try? handle.close() }
        var hash = SHA256()
        var size = 0
        while let piece = try? handle.read(upToCount: 1 << 20), !piece.isEmpty {
            hash.update(data: piece)
            size += piece.count
        }
        return (size, hash.finalize().map { String(format: "%02x", $0) }.joined())
    }
}

/// `archive.files`: globs over the workspace's relative paths. `*` and `?` match within one path
/// component, `**` any number of them; `.build` and `.git` are never searched.
public enum ArchiveGlob {
    public static func matches(_ globs: [String], in root: String) -> [String] {
        guard !globs.isEmpty, let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        let patterns = globs.compactMap { try? NSRegularExpression(pattern: regex(for: $0)) }
        var found: [String] = []
        while let path = walker.nextObject() as? String {
            if path == ".build" || path == ".git" {
                walker.skipDescendants()
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: "\(root)/\(path)", isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let range = NSRange(path.startIndex..., in: path)
            if patterns.contains(where: { $0.firstMatch(in: path, range: range) != nil }) { found.append(path) }
        }
        return found.sorted()
    }

    /// The anchored regular expression a glob stands for.
    static func regex(for glob: String) -> String {
        var pattern = "^"
        var characters = Array(glob)[...]
        while let character = characters.popFirst() {
            switch character {
            case "*" where characters.first == "*":
                characters.removeFirst()
                if characters.first == "/" {
                    characters.removeFirst()
                    pattern += "(.*/)?"
                } else {
                    pattern += ".*"
                }
            case "*": pattern += "[^/]*"
            case "?": pattern += "[^/]"
            default: pattern += NSRegularExpression.escapedPattern(for: String(character))
            }
        }
        return pattern + "$"
    }
}
