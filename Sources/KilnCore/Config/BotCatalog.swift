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

/// Every bot file of a bots directory: the bots that loaded, and the files that did not.
///
/// A broken file never hides the others: the catalog always holds every good bot, and each
/// broken file with all of its problems, so the server can run the good ones and show the rest.
public struct BotCatalog: Sendable {
    public struct Entry: Sendable, Hashable {
        public var file: String
        public var bot: Bot
        /// What `kiln validate` notes about it (`sandbox: none`).
        public var notes: [ConfigDiagnostic] = []

        public init(file: String, bot: Bot, notes: [ConfigDiagnostic] = []) {
            self.file = file
            self.bot = bot
            self.notes = notes
        }
    }

    /// A bot file that could not be used, under the name it would have had.
    public struct BrokenFile: Sendable, Hashable {
        public var file: String
        public var name: String
        public var problems: [ConfigDiagnostic]
        /// Whether the file mentions `private` anywhere: its visibility cannot be read, so it
        /// is taken as private then.
        public var mayBePrivate: Bool

        public init(file: String, name: String, problems: [ConfigDiagnostic], mayBePrivate: Bool = false) {
            self.mayBePrivate = mayBePrivate
            self.file = file
            self.name = name
            self.problems = problems
        }
    }

    public var bots: [Entry]
    public var broken: [BrokenFile]

    public init(bots: [Entry] = [], broken: [BrokenFile] = []) {
        self.bots = bots
        self.broken = broken
    }

    public var diagnostics: [ConfigDiagnostic] { broken.flatMap(\.problems) }

    /// What is worth a look in the good bots at `now`, changing nothing: quarantines that have
    /// ended, and bots that opted out of the sandbox.
    /// What is valid but likely wrong: quarantines that ended by `now`, and with `offered` (this
    /// host's toolchains), a matrix's toolchain this host lacks, whose cells run only elsewhere.
    /// `environment`: the server's, whose secret values are checked; nil checks none.
    public func warnings(at now: Date, offered: Set<String>? = nil, environment: [String: String]? = nil) -> [ConfigDiagnostic] {
        bots.flatMap { entry in
            entry.notes + Self.endedQuarantines(of: entry, at: now) + (offered.map { Self.missingToolchains(of: entry, offered: $0) } ?? [])
                + (environment.map { Self.shortSecrets(of: entry, in: $0) } ?? [])
        }
    }

    private static func shortSecrets(of entry: Entry, in environment: [String: String]) -> [ConfigDiagnostic] {
        entry.bot.secrets.compactMap { name -> ConfigDiagnostic? in
            guard let value = environment[name], !value.isEmpty, SecretMask.isTooShort(value) else { return nil }
            let place = entry.bot.secretPlaces[name] ?? FilePlace(line: 1, column: 1)
            return ConfigDiagnostic(
                file: entry.file, line: place.line, column: place.column, keyPath: "secrets",
                message:
                    "the value of \(name) is shorter than \(SecretMask.minimumLength) characters, so it is not masked (masking it would show "
                    + "where it is rather than hide it): use a longer secret",
                severity: .warning)
        }
    }

    private static func endedQuarantines(of entry: Entry, at now: Date) -> [ConfigDiagnostic] {
        entry.bot.test.quarantine.enumerated().compactMap { index, quarantine -> ConfigDiagnostic? in
            guard let ends = quarantine.ends, ends <= now else { return nil }
            let day = ends.addingTimeInterval(-86_400).formatted(.iso8601.year().month().day())
            return ConfigDiagnostic(
                file: entry.file, line: quarantine.line, column: quarantine.column, keyPath: "test.quarantine[\(index)]",
                message: "the quarantine of '\(quarantine.test)' ended on \(day), so its failures count again: remove the entry, or extend 'until'",
                severity: .warning)
        }
    }

    private static func missingToolchains(of entry: Entry, offered: Set<String>) -> [ConfigDiagnostic] {
        guard let matrix = entry.bot.matrix else { return [] }
        let names = offered.sorted().joined(separator: ", ")
        return matrix.toolchains.filter { !offered.contains($0) }.map { name in
            ConfigDiagnostic(
                file: entry.file, line: matrix.toolchainsLine, column: matrix.toolchainsColumn, keyPath: "matrix.toolchain",
                message:
                    "this host offers no toolchain '\(name)' (it offers \(names)): its cells run only on hosts that do, and end unrun when none is live",
                severity: .warning)
        }
    }

    public func bot(named name: String) -> Bot? { bots.first { $0.bot.name == name }?.bot }

    /// The `.yml` and `.yaml` files directly in `directory`, sorted by name.
    public static func files(in directory: String) throws(ConfigError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadable(path: directory, reason: "no such directory, or not readable")
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return names.filter { ($0.hasSuffix(".yml") || $0.hasSuffix(".yaml")) && !$0.hasPrefix(".") }.sorted().map { prefix + $0 }
    }

    /// Loads every bot file in `directory`.
    public static func load(directory: String) throws(ConfigError) -> BotCatalog {
        load(files: try files(in: directory))
    }

    /// The bot named `name` without parsing every file (`kiln trigger` of one bot among hundreds):
    /// its file `<name>.yml` or `.yaml`, when no file sets a name of its own (a top-level `name:`
    /// line), which is the only way another file could be that bot. Nil when it cannot tell; then
    /// `load(directory:)` decides.
    public static func quickBot(named name: String, directory: String) -> Bot? {
        guard let files = try? files(in: directory) else { return nil }
        let own = files.filter { BotFile.defaultName(forFile: $0) == name }
        guard own.count == 1, let file = own.first else { return nil }
        for other in files {
            guard let data = FileManager.default.contents(atPath: other) else { return nil }
            if namesItself(data) { return nil }
        }
        guard let bot = try? BotFile.loadLocated(path: file).bot, bot.name == name else { return nil }
        return bot
    }

    /// Whether a bot file may set its own `name`: a top-level `name` key, or a file in flow style.
    private static func namesItself(_ data: Data) -> Bool {
        let text = String(decoding: data, as: UTF8.self)
        if text.drop(while: \.isWhitespace).first == "{" { return true }
        return text.split(separator: "\n").contains { line in
            let key = line.hasPrefix("\"") || line.hasPrefix("'") ? line.dropFirst() : line[...]
            return key.hasPrefix("name") && key.dropFirst(4).drop(while: { $0 == " " || $0 == "\"" || $0 == "'" }).first == ":"
        }
    }

    /// Loads the given bot files; two files naming the same bot make the later one broken.
    public static func load(files: [String]) -> BotCatalog {
        var catalog = BotCatalog()
        var owners: [String: String] = [:]
        for file in files {
            do {
                let located = try BotFile.loadLocated(path: file)
                let bot = located.bot
                if let owner = owners[bot.name] {
                    let problem = ConfigDiagnostic(
                        file: file, line: located.nameLine, column: located.nameColumn, keyPath: "name",
                        message: "bot name '\(bot.name)' is already used by \(owner); bot names must be unique")
                    catalog.broken.append(BrokenFile(file: file, name: bot.name, problems: [problem], mayBePrivate: bot.visibility == .private))
                    continue
                }
                owners[bot.name] = file
                catalog.bots.append(Entry(file: file, bot: bot, notes: located.notes))
            } catch {
                // Its visibility cannot be read: a file that so much as mentions `private` is taken as private.
                let mentionsPrivate = FileManager.default.contents(atPath: file).map { String(decoding: $0, as: UTF8.self).contains("private") }
                catalog.broken.append(
                    BrokenFile(
                        file: file, name: BotFile.defaultName(forFile: file), problems: error.diagnostics, mayBePrivate: mentionsPrivate ?? false))
            }
        }
        return catalog
    }
}
