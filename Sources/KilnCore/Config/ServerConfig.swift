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

/// The server's settings: `kiln.yml`, every key optional. Command-line flags override it.
public struct ServerConfig: Sendable, Hashable {
    public var listen: ListenAddress
    /// Holds kiln.sqlite, mirrors/, workspaces/ and logs/ (see `DataDirectory`).
    public var data: String
    public var bots: String
    /// Integrations running at once.
    public var executors: Int
    /// The server's address as people reach it, for links in emails.
    public var publicURL: String?
    /// IANA time zone for periodic schedules and reports; nil means the machine's.
    public var timeZone: String?
    /// HMAC secret for all forges' webhooks (a bot may override it).
    public var webhookSecretFile: String?
    /// Private key for ssh:// and git@host:path repositories.
    public var sshKeyFile: String?
    public var smtp: SMTPSettings?
    public var reports: ReportTimes
    /// Integrations per bot whose logs, issues and tests are kept; summaries are kept forever.
    public var retention: Int
    /// A PostgreSQL database that several hosts share; nil: SQLite in the data directory.
    public var database: DatabaseSettings?
    /// This host's name among several (`host`); the machine's host name by default.
    public var host: String
    /// How long a host may stay silent before the others take it as gone (`host-lease`).
    public var hostLease: Duration
    /// `stop-limit`: how long `kiln serve` gives a graceful stop (SIGTERM, SIGINT) before it
    /// exits anyway, naming what it waited for; what was left unrecorded is recovered at the
    /// next start.
    public var stopLimit: Duration = .seconds(30)
    /// `sandbox-fallback: none`: where bubblewrap cannot run, bots that did not opt out of the
    /// sandbox run unconfined rather than not at all.
    public var sandboxFallback: Sandbox? = nil
    /// The Swift toolchains this host offers to matrix cells besides `default` (`toolchains:`):
    /// name → the folder that holds its `swift`.
    public var toolchains: [String: String] = [:]
    /// `access.anonymous`: what a request without a token may do.
    public var anonymousAccess: AnonymousAccess = .read
    /// `cache.max-size`: how many bytes of workspace snapshots this host keeps (`WorkspaceSnapshot`).
    public var cacheMaxSize: Int = 20 << 30
    /// `audit.retention`: how long the audit trail keeps an event.
    public var auditRetention: Duration = .seconds(90 * 86_400)
    /// `health.min-free-disk`: below this many free bytes on the data directory's file system,
    /// `/health` answers 503.
    public var healthMinFreeDisk: Int = 1 << 30
    /// `limits:`: every bot's processes' bounds where its own file says nothing.
    public var limits = ResourceLimits.serverDefaults
    /// `fork-limits:`: the bounds a fork's pull request never goes above, whatever its bot says.
    public var forkLimits = ResourceLimits.forkDefaults
    /// The file these settings were read from, if any: it may hold a database URL with its
    /// password, so a build may not read it.
    public var file: String? = nil

    /// `data` when kiln.yml names none.
    public static let defaultData = ".kiln"

    /// The paths under `data`.
    public var dataDirectory: DataDirectory { DataDirectory(data) }

    /// What a sandboxed build must not read: every secret file this config names, the config file
    /// itself, and the bot files (a repository URL may carry credentials). Bots' own token files
    /// come from the bots.
    public var secretFiles: [String] {
        [webhookSecretFile, sshKeyFile, smtp?.passwordFile, database?.passwordFile, bots, file].compactMap { $0 }
    }

    public init(
        listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080),
        data: String = defaultData,
        bots: String = "Bots",
        executors: Int = 2,
        publicURL: String? = nil,
        timeZone: String? = nil,
        webhookSecretFile: String? = nil,
        sshKeyFile: String? = nil,
        smtp: SMTPSettings? = nil,
        reports: ReportTimes = ReportTimes(),
        retention: Int = 500,
        database: DatabaseSettings? = nil,
        host: String = ProcessInfo.processInfo.hostName,
        hostLease: Duration = .seconds(30)
    ) {
        self.listen = listen
        self.data = data
        self.bots = bots
        self.executors = executors
        self.publicURL = publicURL
        self.timeZone = timeZone
        self.webhookSecretFile = webhookSecretFile
        self.sshKeyFile = sshKeyFile
        self.smtp = smtp
        self.reports = reports
        self.retention = retention
        self.database = database
        self.host = host
        self.hostLease = hostLease
    }
}

/// `database:` in kiln.yml: where the shared PostgreSQL database is.
public struct DatabaseSettings: Sendable, Hashable {
    /// `postgres://user@host:port/name`, or `postgres://user@/name?host=/run/postgresql` for a
    /// Unix socket directory.
    public var url: String
    /// A file holding the password; the URL may carry one too.
    public var passwordFile: String?
    /// The most connections a `kiln serve` host holds (`max-connections`): one for heartbeats,
    /// leases and change notifications, the rest for its work. A command holds one.
    public var maxConnections = 4

    public init(url: String, passwordFile: String? = nil) {
        self.url = url
        self.passwordFile = passwordFile
    }

    /// The URL with any password in it replaced by `***`, for messages and logs.
    public var redactedURL: String {
        // What sits between `scheme://user:` and the last `@` of the authority is the password,
        // whether or not the rest of the text is a valid URL.
        guard let scheme = url.range(of: "://") else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
        let authority = url[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
        return url[..<url.index(after: colon)] + "***" + url[at...]
    }
}

/// `HOST:PORT`, `[IPv6]:PORT`.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" "), !host.contains("/") else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public struct SMTPSettings: Sendable, Hashable {
    public enum StartTLS: String, CaseIterable, Sendable, Hashable {
        /// Upgrade when the server offers STARTTLS.
        case optional
        /// Refuse to send unless the connection is upgraded.
        case required
    }

    /// `smtp://host[:port]` or `smtps://host[:port]`.
    public var url: String
    public var username: String?
    public var passwordFile: String?
    public var from: EmailAddress
    public var starttls: StartTLS
    /// Certificates to trust for the SMTP server instead of the system's (a private CA).
    public var caFile: String?

    public init(
        url: String, username: String? = nil, passwordFile: String? = nil, from: EmailAddress, starttls: StartTLS = .optional, caFile: String? = nil
    ) {
        self.caFile = caFile
        self.url = url
        self.username = username
        self.passwordFile = passwordFile
        self.from = from
        self.starttls = starttls
    }
}

/// When daily and weekly report emails go out.
public struct ReportTimes: Sendable, Hashable {
    public var dailyHour: Int
    public var dailyMinute: Int
    public var weeklyOn: Weekday

    public init(dailyHour: Int = 8, dailyMinute: Int = 0, weeklyOn: Weekday = .mon) {
        self.dailyHour = dailyHour
        self.dailyMinute = dailyMinute
        self.weeklyOn = weeklyOn
    }
}
