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
import Yams

/// Reads the server file, `kiln.yml`.
public enum ServerConfigFile {
    static let rootKeys = [
        "listen", "data", "bots", "executors", "public-url", "time-zone", "webhooks", "git", "smtp", "reports", "retention",
        "database", "host", "host-lease", "sandbox-fallback", "toolchains", "access", "cache", "audit", "health", "limits", "fork-limits",
        "stop-limit",
    ]

    /// Reads `path`; relative paths inside it (data, bots, secret files) are resolved against its directory.
    public static func load(path: String) throws(ConfigError) -> ServerConfig {
        let text = try ConfigFileText.read(path)
        let directory = URL(filePath: path, directoryHint: .notDirectory).deletingLastPathComponent().path
        return try decode(text, file: path, directory: directory)
    }

    public static func decode(_ text: String, file: String, directory: String) throws(ConfigError) -> ServerConfig {
        let reader = ConfigReader(file: file)
        var config = ServerConfig()
        config.file = file
        func resolve(_ path: String) -> String {
            path.hasPrefix("/") ? path : URL(fileURLWithPath: directory).appendingPathComponent(path).standardizedFileURL.path
        }
        config.data = resolve(config.data)
        config.bots = resolve(config.bots)
        guard let root = reader.compose(text) else { throw .invalid(reader.diagnostics) }
        if ConfigReader.isNull(root) { return config }
        guard let fields = reader.mapping(root, path: .root, keys: rootKeys) else { throw .invalid(reader.diagnostics) }

        if let node = fields["listen"], let text = reader.string(node, path: fields.path("listen"), expected: "HOST:PORT") {
            if let address = ListenAddress(parsing: text) {
                config.listen = address
            } else {
                reader.error("'listen' must be HOST:PORT such as 127.0.0.1:8080, not '\(text)'", at: node, path: fields.path("listen"))
            }
        }
        if let node = fields["data"], let text = reader.string(node, path: fields.path("data"), expected: "a directory") {
            config.data = resolve(text)
        }
        if let node = fields["bots"], let text = reader.string(node, path: fields.path("bots"), expected: "a directory") {
            config.bots = resolve(text)
        }
        if let node = fields["sandbox-fallback"] {
            if reader.choice(node, path: fields.path("sandbox-fallback"), among: ["none"]) != nil { config.sandboxFallback = Sandbox.none }
        }
        if let node = fields["executors"], let value = reader.integer(node, path: fields.path("executors"), range: 1...64) {
            config.executors = value
        }
        if let node = fields["public-url"], let text = reader.string(node, path: fields.path("public-url"), expected: "a URL") {
            if let url = URLComponents(string: text), ["http", "https"].contains(url.scheme?.lowercased()), url.host?.isEmpty == false {
                config.publicURL = text.hasSuffix("/") ? String(text.dropLast()) : text
            } else {
                reader.error(
                    "'public-url' must be an http:// or https:// URL such as https://ci.example.com, not '\(text)'", at: node,
                    path: fields.path("public-url"))
            }
        }
        if let node = fields["time-zone"], let text = reader.string(node, path: fields.path("time-zone"), expected: "a time zone") {
            if TimeZone(identifier: text) != nil {
                config.timeZone = text
            } else {
                reader.error("'\(text)' is not a time zone (expected a name such as Europe/Berlin or UTC)", at: node, path: fields.path("time-zone"))
            }
        }
        if let node = fields["webhooks"], let webhooks = reader.mapping(node, path: fields.path("webhooks"), keys: ["secret-file"]) {
            if let node = webhooks["secret-file"], let text = reader.string(node, path: webhooks.path("secret-file"), expected: "a file path") {
                config.webhookSecretFile = resolve(text)
            }
        }
        if let node = fields["git"], let git = reader.mapping(node, path: fields.path("git"), keys: ["ssh-key-file"]) {
            if let node = git["ssh-key-file"], let text = reader.string(node, path: git.path("ssh-key-file"), expected: "a file path") {
                config.sshKeyFile = resolve(text)
            }
        }
        if let node = fields["smtp"] { config.smtp = decodeSMTP(node, path: fields.path("smtp"), resolve: resolve, reader: reader) }
        if let node = fields["reports"] { decodeReports(node, path: fields.path("reports"), into: &config.reports, reader: reader) }
        if let node = fields["retention"], let retention = reader.mapping(node, path: fields.path("retention"), keys: ["integrations"]) {
            if let node = retention["integrations"], let value = reader.integer(node, path: retention.path("integrations"), range: 1...Int.max) {
                config.retention = value
            }
        }
        if let node = fields["database"] { config.database = decodeDatabase(node, path: fields.path("database"), resolve: resolve, reader: reader) }
        if let node = fields["host"], let text = reader.string(node, path: fields.path("host"), expected: "a host name") {
            if !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) {
                config.host = text
            } else {
                reader.error(
                    "'host' must be a name of letters, digits, '-', '_' and '.', such as build-2, not '\(text)'", at: node, path: fields.path("host"))
            }
        }
        if let node = fields["host-lease"], let value = reader.duration(node, path: fields.path("host-lease"), allowZero: false) {
            if value >= .seconds(3) {
                config.hostLease = value
            } else {
                reader.error(
                    "'host-lease' must be 3s or more (hosts heartbeat six times in it, and a lease must outlast a slow beat)", at: node,
                    path: fields.path("host-lease"))
            }
        }
        if let node = fields["stop-limit"], let value = reader.duration(node, path: fields.path("stop-limit"), allowZero: false) {
            config.stopLimit = value
        }
        if let node = fields["toolchains"] {
            config.toolchains = decodeToolchains(node, path: fields.path("toolchains"), resolve: resolve, reader: reader)
        }
        if let node = fields["access"], let access = reader.mapping(node, path: fields.path("access"), keys: ["anonymous"]) {
            if let node = access["anonymous"], let value = reader.choice(node, path: access.path("anonymous"), as: AnonymousAccess.self) {
                config.anonymousAccess = value
            }
        }
        if let node = fields["cache"], let cache = reader.mapping(node, path: fields.path("cache"), keys: ["max-size"]),
            let node = cache["max-size"]
        {
            let text = reader.string(node, path: cache.path("max-size"), expected: "a size such as 20GiB")
            if let text, let bytes = ArchiveSettings.bytes(text) {
                config.cacheMaxSize = bytes
            } else if text != nil {
                reader.error("'max-size' must be a size such as 20GiB or 500MB, not '\(text ?? "")'", at: node, path: cache.path("max-size"))
            }
        }
        if let node = fields["audit"], let audit = reader.mapping(node, path: fields.path("audit"), keys: ["retention"]),
            let node = audit["retention"], let value = reader.duration(node, path: audit.path("retention"), allowZero: false)
        {
            config.auditRetention = value
        }
        if let node = fields["limits"], let limits = reader.limits(node, path: fields.path("limits")) {
            config.limits = limits.over(ResourceLimits.serverDefaults)
        }
        if let node = fields["fork-limits"], let limits = reader.limits(node, path: fields.path("fork-limits")) {
            config.forkLimits = limits.over(ResourceLimits.forkDefaults)
        }
        if let node = fields["health"], let health = reader.mapping(node, path: fields.path("health"), keys: ["min-free-disk"]),
            let node = health["min-free-disk"]
        {
            let text = reader.string(node, path: health.path("min-free-disk"), expected: "a size such as 1GiB")
            if let text, let bytes = ArchiveSettings.bytes(text) {
                config.healthMinFreeDisk = bytes
            } else if text != nil {
                reader.error(
                    "'min-free-disk' must be a size such as 1GiB or 500MB, not '\(text ?? "")'", at: node, path: health.path("min-free-disk"))
            }
        }
        guard reader.diagnostics.isEmpty else { throw .invalid(reader.diagnostics) }
        return config
    }

    /// `toolchains:`: name → the folder that holds its `swift`, which must be there.
    private static func decodeToolchains(_ node: Node, path: ConfigPath, resolve: (String) -> String, reader: ConfigReader) -> [String: String] {
        guard case .mapping(let mapping) = node else {
            reader.error(
                "'toolchains' must be a mapping of toolchain names to folders (\"6.2\": /opt/swift-6.2/usr/bin), not \(ConfigReader.kind(of: node))",
                at: node, path: path)
            return [:]
        }
        var toolchains: [String: String] = [:]
        for (key, value) in mapping {
            guard case .scalar(let keyScalar) = key, Cell.isValidToolchainName(keyScalar.string) else {
                reader.error("\(ConfigReader.kind(of: key)) is not a toolchain name (letters, digits, '.' and '_')", at: key, path: path)
                continue
            }
            let name = keyScalar.string
            guard name != Matrix.defaultToolchain else {
                reader.error("'default' is always the swift on PATH: give this toolchain another name", at: key, path: path.key(name))
                continue
            }
            guard let text = reader.string(value, path: path.key(name), expected: "a folder") else { continue }
            let folder = resolve(text)
            guard FileManager.default.isExecutableFile(atPath: folder + "/swift") else {
                reader.error(
                    "toolchain '\(name)': \(folder) holds no swift (name the folder of its swift, such as /opt/swift-6.2/usr/bin)", at: value,
                    path: path.key(name))
                continue
            }
            toolchains[name] = folder
        }
        return toolchains
    }

    private static func decodeDatabase(_ node: Node, path: ConfigPath, resolve: (String) -> String, reader: ConfigReader) -> DatabaseSettings? {
        guard let fields = reader.mapping(node, path: path, keys: ["url", "password-file", "max-connections"]) else { return nil }
        var url: String?
        if let node = fields.required("url", in: reader, hint: " (postgres://user@host:5432/name)"),
            let text = reader.string(node, path: fields.path("url"), expected: "a URL")
        {
            if let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme?.lowercased()),
                components.host?.isEmpty == false || components.queryItems?.contains(where: { $0.name == "host" }) == true
            {
                url = text
            } else {
                reader.error(
                    "'url' must be postgres://user@host:5432/name (or postgres://user@/name?host=/socket/dir), not '\(DatabaseSettings(url: text).redactedURL)'",
                    at: node, path: fields.path("url"))
            }
        }
        let passwordFile = fields["password-file"].flatMap { reader.string($0, path: fields.path("password-file"), expected: "a file path") }
        let connections = fields["max-connections"].flatMap { reader.integer($0, path: fields.path("max-connections"), range: 2...64) }
        guard let url else { return nil }
        var settings = DatabaseSettings(url: url, passwordFile: passwordFile.map(resolve))
        if let connections { settings.maxConnections = connections }
        return settings
    }

    private static func decodeSMTP(_ node: Node, path: ConfigPath, resolve: (String) -> String, reader: ConfigReader) -> SMTPSettings? {
        guard let fields = reader.mapping(node, path: path, keys: ["url", "username", "password-file", "from", "starttls", "ca-file"]) else {
            return nil
        }
        var url: String?
        if let node = fields.required("url", in: reader, hint: " (smtp://host:port or smtps://host:port)"),
            let text = reader.string(node, path: fields.path("url"), expected: "a URL")
        {
            if let components = URLComponents(string: text), ["smtp", "smtps"].contains(components.scheme?.lowercased()),
                components.host?.isEmpty == false
            {
                url = text
            } else {
                reader.error("'url' must be smtp://host:port or smtps://host:port, not '\(text)'", at: node, path: fields.path("url"))
            }
        }
        var from: EmailAddress?
        if let node = fields.required("from", in: reader, hint: " (the sender, such as Kiln <kiln@example.com>)"),
            let addresses = reader.emailAddresses(node, path: fields.path("from"))
        {
            if addresses.count == 1 {
                from = addresses.first
            } else {
                reader.error("'from' must be one address", at: node, path: fields.path("from"))
            }
        }
        let username = fields["username"].flatMap { reader.string($0, path: fields.path("username"), expected: "a user name") }
        let passwordFile = fields["password-file"].flatMap { reader.string($0, path: fields.path("password-file"), expected: "a file path") }
        if passwordFile != nil, username == nil, let entry = fields.fields["password-file"] {
            reader.error("'password-file' needs 'username' too", at: entry.key, path: fields.path("password-file"))
        }
        var starttls = SMTPSettings.StartTLS.optional
        if let node = fields["starttls"], let value = reader.choice(node, path: fields.path("starttls"), as: SMTPSettings.StartTLS.self) {
            starttls = value
        }
        let caFile = fields["ca-file"].flatMap { reader.string($0, path: fields.path("ca-file"), expected: "a file path") }
        guard let url, let from else { return nil }
        return SMTPSettings(
            url: url, username: username, passwordFile: passwordFile.map(resolve), from: from, starttls: starttls, caFile: caFile.map(resolve))
    }

    private static func decodeReports(_ node: Node, path: ConfigPath, into reports: inout ReportTimes, reader: ConfigReader) {
        guard let fields = reader.mapping(node, path: path, keys: ["daily-at", "weekly-on"]) else { return }
        if let node = fields["daily-at"], let text = reader.string(node, path: fields.path("daily-at"), expected: "a time such as 08:00") {
            do {
                (reports.dailyHour, reports.dailyMinute) = try PeriodicSchedule.time(text)
            } catch {
                reader.error(error.description, at: node, path: fields.path("daily-at"))
            }
        }
        if let node = fields["weekly-on"], let value = reader.choice(node, path: fields.path("weekly-on"), as: Weekday.self) {
            reports.weeklyOn = value
        }
    }
}
