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

/// Where a server's files are: the options every command takes.
struct LocationOptions: ParsableArguments, ServerLocation {
    @Option(name: .long, help: ArgumentHelp("The server config file (default: kiln.yml, if present).", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The bots directory (default: the config's 'bots', else Bots).", valueName: "dir"))
    var bots: String?

    @Option(name: .long, help: ArgumentHelp("The data directory (default: the config's 'data', else .kiln).", valueName: "dir"))
    var data: String?
}

/// The defaults of `LocationOptions` (`kiln.yml` if present, its bots and data directories),
/// for `kiln trigger BOT` given no options, which `Kiln.main` runs without ArgumentParser.
struct DefaultLocation: ServerLocation {
    var config: String? { nil }
    var bots: String? { nil }
    var data: String? { nil }
}

/// Where a server's files are, however the command was given them.
protocol ServerLocation {
    var config: String? { get }
    var bots: String? { get }
    var data: String? { get }
}

extension ServerLocation {
    /// The config file in force: the one named, else `kiln.yml` when it exists.
    var configFile: String? {
        if let config { return config }
        return FileManager.default.fileExists(atPath: "kiln.yml") ? "kiln.yml" : nil
    }

    /// The server config with the command line's overrides applied.
    func serverConfig() throws(ConfigError) -> ServerConfig {
        var config = ServerConfig()
        if let file = configFile { config = try ServerConfigFile.load(path: file) }
        if let bots { config.bots = bots }
        if let data { config.data = data }
        // Mirrors, workspaces and logs refer to each other by path: keep the data directory absolute.
        config.data = URL(fileURLWithPath: config.data).standardizedFileURL.path
        return config
    }

    /// The server's trigger socket, when it is settled without parsing the config file: under the
    /// data directory given, or the default one because the file names no `data` (a YAML key is
    /// spelt out, or escaped with a backslash). Nil when the file must be read. A relative path
    /// stays relative: the kernel resolves it from the working directory, as the server resolved
    /// its own. Plain system calls: Foundation's first file read and path standardisation took
    /// 0.5 ms of a command that starts in about seven.
    var triggerSocketUnparsed: String? {
        if let data { return DataDirectory(data).triggerSocket }
        switch ConfigText.read(config ?? "kiln.yml") {
        case .absent where config == nil: break
        case .read(let text) where !text.contains("data".utf8) && !text.contains(UInt8(ascii: "\\")): break
        default: return nil
        }
        return DataDirectory(ServerConfig.defaultData).triggerSocket
    }

    /// The server config; prints its problems like a compiler and exits 1 when it has any.
    func loadServerConfig() throws -> ServerConfig {
        do {
            return try serverConfig()
        } catch {
            throw fail(with: error)
        }
    }

    /// The valid bot named `name` in `config`'s bots directory: its own file when that settles it
    /// (`BotCatalog.quickBot`), or else every file, so that errors name the bots there are; prints
    /// one clear line and exits 1 when there is no such bot or its file is broken.
    func loadOneBot(named name: String, config: ServerConfig) throws -> Bot {
        if let bot = BotCatalog.quickBot(named: name, directory: config.bots) { return bot }
        return try loadBot(named: name).bot
    }

    func loadBot(named name: String) throws -> (config: ServerConfig, catalog: BotCatalog, bot: Bot) {
        let config: ServerConfig
        let catalog: BotCatalog
        do {
            config = try serverConfig()
            catalog = try BotCatalog.load(directory: config.bots)
        } catch {
            throw fail(with: error)
        }
        if let bot = catalog.bot(named: name) { return (config, catalog, bot) }
        if let broken = catalog.broken.first(where: { $0.name == name }) {
            Console.error("error: bot '\(name)' cannot integrate: \(broken.file) has problems (run kiln validate)")
        } else {
            let known = catalog.bots.map(\.bot.name).sorted().joined(separator: ", ")
            Console.error("error: no bot named '\(name)' in \(config.bots)" + (known.isEmpty ? "" : " (bots: \(known))"))
        }
        throw ExitCode.failure
    }
}

/// Prints configuration problems like a compiler and exits 1.
func fail(with error: ConfigError) -> ExitCode {
    for diagnostic in error.diagnostics { Console.out(diagnostic.description) }
    return ExitCode.failure
}

/// A config file's bytes, read with plain system calls (see `triggerSocketUnparsed`).
enum ConfigText {
    case read([UInt8])
    case absent
    case unreadable

    static func read(_ path: String) -> ConfigText {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .absent : .unreadable }
        defer { close(descriptor) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return .read(text) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return .unreadable }
            text += chunk[..<count]
        }
    }
}
