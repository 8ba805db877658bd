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
import KilnTestSupport
import Testing

@Suite("Server config: kiln.yml")
struct ServerConfigTests {
    /// What decoding `yaml` as /etc/kiln/kiln.yml reports, one line per problem.
    static func problems(_ yaml: String) -> [String] {
        do {
            _ = try ServerConfigFile.decode(yaml, file: "kiln.yml", directory: "/etc/kiln")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("No file, or an empty one, means the documented defaults")
    func defaults() throws {
        let config = try ServerConfigFile.decode("", file: "/etc/kiln/kiln.yml", directory: "/etc/kiln")
        #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(config.data == "/etc/kiln/.kiln")
        #expect(config.bots == "/etc/kiln/Bots")
        #expect(config.executors == 2)
        #expect(config.publicURL == nil)
        #expect(config.timeZone == nil)
        #expect(config.webhookSecretFile == nil)
        #expect(config.sshKeyFile == nil)
        #expect(config.smtp == nil)
        #expect(config.reports == ReportTimes(dailyHour: 8, dailyMinute: 0, weeklyOn: .mon))
        #expect(config.retention == 500)
        #expect(config.database == nil, "SQLite in the data directory")
        #expect(config.host == ProcessInfo.processInfo.hostName)
        #expect(config.hostLease == .seconds(30))
    }

    @Test("Every key is decoded; relative paths are resolved against the file's directory")
    func everyKey() throws {
        let yaml = """
            listen: "[::1]:9090"
            data: /var/lib/kiln
            bots: bots.d
            executors: 4
            public-url: https://ci.example.com/
            time-zone: Europe/Berlin
            webhooks:
              secret-file: webhook-secret
            git:
              ssh-key-file: /etc/kiln/id_ed25519
            smtp:
              url: smtp://mail.example.com:587
              username: kiln
              password-file: smtp-password
              from: Kiln <kiln@example.com>
              starttls: required
            reports:
              daily-at: "07:30"
              weekly-on: fri
            retention:
              integrations: 50
            database:
              url: postgres://kiln@db.example.com:5432/kiln
              password-file: database-password
            host: build-2
            host-lease: 45s
            """
        let config = try ServerConfigFile.decode(yaml, file: "/etc/kiln/kiln.yml", directory: "/etc/kiln")
        #expect(config.listen == ListenAddress(host: "::1", port: 9090))
        #expect(config.listen.description == "[::1]:9090")
        #expect(config.data == "/var/lib/kiln")
        #expect(config.bots == "/etc/kiln/bots.d")
        #expect(config.executors == 4)
        #expect(config.publicURL == "https://ci.example.com")
        #expect(config.timeZone == "Europe/Berlin")
        #expect(config.webhookSecretFile == "/etc/kiln/webhook-secret")
        #expect(config.sshKeyFile == "/etc/kiln/id_ed25519")
        #expect(
            config.smtp
                == SMTPSettings(
                    url: "smtp://mail.example.com:587", username: "kiln", passwordFile: "/etc/kiln/smtp-password",
                    from: EmailAddress(name: "Kiln", address: "kiln@example.com"), starttls: .required))
        #expect(config.reports == ReportTimes(dailyHour: 7, dailyMinute: 30, weeklyOn: .fri))
        #expect(config.retention == 50)
        #expect(config.database == DatabaseSettings(url: "postgres://kiln@db.example.com:5432/kiln", passwordFile: "/etc/kiln/database-password"))
        #expect(config.host == "build-2")
        #expect(config.hostLease == .seconds(45))
        // What a sandboxed build may not read: the secret files, the bot files, kiln.yml itself.
        let hidden = ["webhook-secret", "id_ed25519", "smtp-password", "database-password", "bots.d", "kiln.yml"]
        #expect(Set(config.secretFiles) == Set(hidden.map { "/etc/kiln/" + $0 }))
    }

    @Test("The database keys: a socket directory is a host too; mistakes are named with their position, a password never")
    func databaseKeys() throws {
        let socket = try ServerConfigFile.decode("database: {url: 'postgres://kiln@/kiln?host=/run/postgresql'}\n", file: "k.yml", directory: "/")
        #expect(socket.database?.url == "postgres://kiln@/kiln?host=/run/postgresql")
        #expect(socket.database?.maxConnections == 4, "four connections per host unless told")
        let budget = try ServerConfigFile.decode("database: {url: 'postgres://kiln@db/kiln', max-connections: 3}\n", file: "k.yml", directory: "/")
        #expect(budget.database?.maxConnections == 3)
        // One connection cannot carry both the heartbeats and the work.
        #expect(
            Self.problems("database: {url: 'postgres://kiln@db/kiln', max-connections: 1}\n") == [
                "kiln.yml:1:61: error: 'max-connections' must be from 2 to 64, not 1"
            ])
        #expect(DatabaseSettings(url: "postgres://kiln:hunter 2@db:5432/kiln").redactedURL == "postgres://kiln:***@db:5432/kiln", "not a valid URL")
        // The snapshots a host keeps: 20 GiB unless told, a size with its unit.
        #expect(try ServerConfigFile.decode("", file: "k.yml", directory: "/").cacheMaxSize == 20 << 30)
        #expect(try ServerConfigFile.decode("cache: {max-size: 500MB}\n", file: "k.yml", directory: "/").cacheMaxSize == 500_000_000)
        #expect(
            Self.problems("cache: {max-size: plenty, keep: 3}\n") == [
                "kiln.yml:1:19: error: 'max-size' must be a size such as 20GiB or 500MB, not 'plenty'",
                "kiln.yml:1:27: error: unknown key 'keep' in 'cache' (expected one of max-size)",
            ])
        // The audit trail: 90 days unless told, a duration longer than zero.
        #expect(try ServerConfigFile.decode("", file: "k.yml", directory: "/").auditRetention == .seconds(90 * 86_400))
        #expect(try ServerConfigFile.decode("audit: {retention: 30d}\n", file: "k.yml", directory: "/").auditRetention == .seconds(30 * 86_400))
        #expect(Self.problems("audit: {retention: 0}\n") == ["kiln.yml:1:20: error: 'retention' must be longer than zero"])
        #expect(DatabaseSettings(url: "postgres://kiln:p@ss@db/kiln").redactedURL == "postgres://kiln:***@db/kiln")
        #expect(DatabaseSettings(url: "postgres://kiln@db/kiln").redactedURL == "postgres://kiln@db/kiln")
        let yaml = """
            database:
              url: mysql://kiln:hunter2@db/kiln
              pasword-file: x
            host: "build 2"
            host-lease: 1s
            """
        let reported = Self.problems(yaml)
        #expect(
            reported == [
                "kiln.yml:2:8: error: 'url' must be postgres://user@host:5432/name (or postgres://user@/name?host=/socket/dir), not 'mysql://kiln:***@db/kiln'",
                "kiln.yml:3:3: error: unknown key 'pasword-file' in 'database' (did you mean 'password-file'?)",
                "kiln.yml:4:7: error: 'host' must be a name of letters, digits, '-', '_' and '.', such as build-2, not 'build 2'",
                "kiln.yml:5:13: error: 'host-lease' must be 3s or more (hosts heartbeat six times in it, and a lease must outlast a slow beat)",
            ])
    }

    @Test("Every problem in the server file is reported with its position")
    func problems() {
        let yaml = """
            listen: localhost
            executors: 0
            public-url: ci.example.com
            time-zone: Mars/Olympus
            smtp:
              url: http://mail.example.com
              password-file: pw
            reports: {daily-at: "8am", weekly-on: someday}
            retention: {integrations: -1}
            lissen: 1
            """
        let reported = Self.problems(yaml)
        #expect(
            reported == [
                "kiln.yml:1:9: error: 'listen' must be HOST:PORT such as 127.0.0.1:8080, not 'localhost'",
                "kiln.yml:2:12: error: 'executors' must be from 1 to 64, not 0",
                "kiln.yml:3:13: error: 'public-url' must be an http:// or https:// URL such as https://ci.example.com, not 'ci.example.com'",
                "kiln.yml:4:12: error: 'Mars/Olympus' is not a time zone (expected a name such as Europe/Berlin or UTC)",
                "kiln.yml:6:3: error: missing key 'from' in 'smtp' (the sender, such as Kiln <kiln@example.com>)",
                "kiln.yml:6:8: error: 'url' must be smtp://host:port or smtps://host:port, not 'http://mail.example.com'",
                "kiln.yml:7:3: error: 'password-file' needs 'username' too",
                "kiln.yml:8:21: error: '8am' is not a time of day (use HH:MM, 00:00 to 23:59)",
                "kiln.yml:8:39: error: 'weekly-on' must be one of sun, mon, tue, wed, thu, fri, sat, not 'someday'",
                "kiln.yml:9:27: error: 'integrations' must be at least 1, not -1",
                "kiln.yml:10:1: error: unknown key 'lissen' (did you mean 'listen'?)",
            ])
    }

    @Test("The example server config in Deploy/ is valid")
    func deployExample() throws {
        let config = try ServerConfigFile.load(path: Executables.packageRoot + "/Deploy/kiln.yml")
        #expect(config.listen.port == 8080)
    }
}

@Suite("Bot catalog: a directory of bot files")
struct BotCatalogTests {
    @Test("Good bots load while broken files are kept with all their problems; duplicate names break the later file")
    func mixedDirectory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\n")
        try directory.write("Bots/broken.yml", "repository: {url: /srv/git/app.git}\nshedule: {}\ntimeout: never\n")
        try directory.write("Bots/copy.yaml", "# the same bot again\nname: app\nrepository: {url: /srv/git/other.git}\n")
        try directory.write("Bots/README.md", "not a bot")
        try directory.write("Bots/.hidden.yml", "not: a bot")
        let catalog = try BotCatalog.load(directory: directory.url("Bots"))
        #expect(catalog.bots.map(\.bot.name) == ["app"])
        #expect(catalog.broken.map(\.name) == ["broken", "app"])
        #expect(
            catalog.diagnostics.map(\.description) == [
                "\(directory.url("Bots/broken.yml")):2:1: error: unknown key 'shedule' (did you mean 'schedule'?)",
                "\(directory.url("Bots/broken.yml")):3:10: error: 'timeout' must be a duration such as 90s, 2m or 1h30m, not 'never'",
                "\(directory.url("Bots/copy.yaml")):2:7: error: bot name 'app' is already used by \(directory.url("Bots/app.yml")); bot names must be unique",
            ])
    }

    @Test("A missing bots directory is an error that names it")
    func missingDirectory() {
        #expect(throws: ConfigError.self) { try BotCatalog.load(directory: "/nonexistent/Bots") }
    }

    @Test("An unreadable file is reported as broken, not thrown")
    func unreadableFile() {
        let catalog = BotCatalog.load(files: ["/nonexistent/Bots/ghost.yml"])
        #expect(catalog.bots.isEmpty)
        #expect(catalog.broken.map(\.name) == ["ghost"])
        #expect(catalog.diagnostics.first?.description.hasPrefix("/nonexistent/Bots/ghost.yml:1:1: error: cannot read") == true)
    }
}
