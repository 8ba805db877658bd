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

/// Reads bot files (`Bots/<name>.yml`) into validated `Bot` values.
public enum BotFile {
    static let rootKeys = [
        "name", "repository", "schedule", "clean", "cancel-superseded", "build", "test", "timeout", "sandbox", "network", "environment",
        "secrets", "webhook-secret-file", "triggers", "pull-requests", "forge", "bisect", "analyze", "performance", "archive",
        "matrix", "visibility", "cache", "limits", "coverage",
    ]

    /// Reads and decodes the bot file at `path`, named as the user gave it (for diagnostics).
    public static func load(path: String) throws(ConfigError) -> Bot {
        try loadLocated(path: path).bot
    }

    /// A decoded bot with the position of its name (the `name:` value, else the top of the file).
    struct Located {
        var bot: Bot
        var nameLine: Int
        var nameColumn: Int
        /// What `kiln validate` notes about a good file (`sandbox: none`).
        var notes: [ConfigDiagnostic] = []
    }

    static func loadLocated(path: String) throws(ConfigError) -> Located {
        let text = try ConfigFileText.read(path)
        return try decodeLocated(text, file: path)
    }

    /// Decodes a bot file's text. The bot is named after the file unless it says `name:`;
    /// a relative repository path is resolved against the file's directory.
    public static func decode(_ text: String, file: String) throws(ConfigError) -> Bot {
        try decodeLocated(text, file: file).bot
    }

    static func decodeLocated(_ text: String, file: String) throws(ConfigError) -> Located {
        let reader = ConfigReader(file: file)
        let url = URL(filePath: file, directoryHint: .notDirectory)
        let directory = url.deletingLastPathComponent().path
        let fileName = url.deletingPathExtension().lastPathComponent
        let located = decode(text, fileName: fileName, directory: directory, reader: reader)
        let problems = reader.diagnostics
        guard let located, problems.isEmpty else {
            throw .invalid(
                problems.isEmpty ? [ConfigDiagnostic(file: file, line: 1, column: 1, keyPath: "", message: "the file is not a bot")] : problems)
        }
        return located
    }

    /// The name a bot in `file` has unless it says otherwise.
    public static func defaultName(forFile file: String) -> String {
        // A file's path: `fileURLWithPath` would ask the file system whether it is a directory.
        URL(filePath: file, directoryHint: .notDirectory).deletingPathExtension().lastPathComponent
    }

    private static func decode(_ text: String, fileName: String, directory: String, reader: ConfigReader) -> Located? {
        guard let root = reader.compose(text) else { return nil }
        if ConfigReader.isNull(root) {
            reader.error("the file is empty: a bot needs at least 'repository: {url: …}'", at: root, path: .root)
            return nil
        }
        guard let fields = reader.mapping(root, path: .root, keys: rootKeys) else { return nil }

        var name = fileName
        if let node = fields["name"] {
            if let text = reader.string(node, path: fields.path("name")) {
                name = text
                checkName(text, at: node, path: fields.path("name"), reader: reader)
            }
        } else {
            checkName(fileName, at: root, path: .root, reader: reader)
        }

        let repository = fields.required("repository", in: reader, hint: " (every bot needs 'repository: {url: …}')").flatMap {
            decodeRepository($0, path: fields.path("repository"), directory: directory, reader: reader)
        }
        var bot = Bot(name: name, repository: repository ?? Repository(url: placeholderURL))

        if let node = fields["schedule"] { decodeSchedule(node, path: fields.path("schedule"), into: &bot.schedule, reader: reader) }
        if let node = fields["clean"], let value = reader.choice(node, path: fields.path("clean"), as: CleanPolicy.self) { bot.clean = value }
        if let node = fields["cancel-superseded"], let value = reader.bool(node, path: fields.path("cancel-superseded")) {
            bot.cancelSuperseded = value
        }
        if let node = fields["build"] { decodeBuild(node, path: fields.path("build"), into: &bot.build, reader: reader) }
        if let node = fields["test"] { decodeTest(node, path: fields.path("test"), into: &bot.test, reader: reader) }
        if let node = fields["timeout"], let value = reader.duration(node, path: fields.path("timeout"), allowZero: false) {
            bot.timeout = value
        }
        if let node = fields["sandbox"], let value = reader.choice(node, path: fields.path("sandbox"), as: Sandbox.self) { bot.sandbox = value }
        if let node = fields["network"], let value = reader.choice(node, path: fields.path("network"), as: NetworkAccess.self) {
            bot.network = value
            if value == .none, bot.sandbox == .none {
                reader.error(
                    "network: none needs the sandbox: with sandbox: none the builds have the host's network (remove one of the two)", at: node,
                    path: fields.path("network"))
            }
        }
        if let node = fields["cache"], let value = reader.choice(node, path: fields.path("cache"), as: WorkspaceCache.self) { bot.cache = value }
        if let node = fields["limits"], let value = reader.limits(node, path: fields.path("limits")) { bot.limits = value }
        if let node = fields["visibility"], let value = reader.choice(node, path: fields.path("visibility"), as: Visibility.self) {
            bot.visibility = value
        }
        if let node = fields["environment"] {
            bot.environment = decodeEnvironment(node, path: fields.path("environment"), reader: reader)
        }
        if let node = fields["secrets"] { decodeSecrets(node, path: fields.path("secrets"), into: &bot, reader: reader) }
        if let node = fields["webhook-secret-file"] {
            bot.webhookSecretFile = reader.string(node, path: fields.path("webhook-secret-file"), expected: "a file path")
        }
        if let node = fields["triggers"] {
            bot.triggers = decodeTriggers(node, path: fields.path("triggers"), reader: reader)
        }
        if let node = fields["pull-requests"] {
            bot.pullRequests = decodePullRequests(node, path: fields.path("pull-requests"), reader: reader)
        }
        if let node = fields["coverage"] { decodeCoverage(node, path: fields.path("coverage"), into: &bot.coverage, reader: reader) }
        if let node = fields["bisect"] { decodeBisect(node, path: fields.path("bisect"), into: &bot.bisect, reader: reader) }
        if let node = fields["analyze"] { decodeAnalyze(node, path: fields.path("analyze"), into: &bot.analyze, reader: reader) }
        var archiveCell: (node: Node, path: ConfigPath)?
        if let node = fields["archive"] { decodeArchive(node, path: fields.path("archive"), into: &bot.archive, cell: &archiveCell, reader: reader) }
        if let node = fields["matrix"] { bot.matrix = decodeMatrix(node, path: fields.path("matrix"), reader: reader) }
        if let (node, path) = archiveCell, let name = bot.archive.cell {
            let names = bot.matrix?.cells.map(\.name) ?? []
            if !names.contains(name), fields["matrix"] == nil || bot.matrix != nil {
                let listed = names.isEmpty ? "the bot has no matrix" : "its cells are \(names.joined(separator: ", "))"
                reader.error("'cell' names a cell of the matrix to archive from, not '\(name)': \(listed)", at: node, path: path)
            }
        }
        if let node = fields["performance"] {
            decodePerformance(node, path: fields.path("performance"), into: &bot.performance, reader: reader)
        }
        if let node = fields["forge"], let repository {
            bot.forge = decodeForge(node, path: fields.path("forge"), repository: repository, reader: reader)
        }
        guard repository != nil else { return nil }
        let nameMark = fields["name"]?.mark
        var notes: [ConfigDiagnostic] = []
        if bot.sandbox == .none, let mark = fields["sandbox"]?.mark {
            notes.append(
                ConfigDiagnostic(
                    file: reader.file, line: mark.line, column: mark.column, keyPath: "sandbox",
                    message:
                        "sandbox: none: this bot's builds run unconfined and can read every other bot's secrets, workspaces and the server's files",
                    severity: .note))
        }
        if bot.coverage != CoverageSettings(), !bot.test.coverage, let mark = fields["coverage"]?.mark {
            notes.append(
                ConfigDiagnostic(
                    file: reader.file, line: mark.line, column: mark.column, keyPath: "coverage",
                    message: "coverage: measures nothing without test.coverage: true", severity: .note))
        }
        if bot.coverage.comments, bot.forge?.review != true, let mark = fields["coverage"]?.mark {
            notes.append(
                ConfigDiagnostic(
                    file: reader.file, line: mark.line, column: mark.column, keyPath: "coverage.comments",
                    message: "coverage.comments: comments go in a pull request's review, which needs forge.review: true", severity: .note))
        }
        return Located(bot: bot, nameLine: nameMark?.line ?? 1, nameColumn: nameMark?.column ?? 1, notes: notes)
    }

    /// Stands in while a file without a usable repository is still checked for its other problems.
    private static let placeholderURL: RepositoryURL = {
        do { return try RepositoryURL(parsing: "/", relativeTo: "/") } catch { preconditionFailure("'/' is a valid path") }
    }()

    private static func checkName(_ name: String, at node: Node, path: ConfigPath, reader: ConfigReader) {
        guard !Bot.isValidName(name) else { return }
        let subject = path == .root ? "the file name '\(name)' is not a valid bot name" : "'\(name)' is not a valid bot name"
        let fix = path == .root ? "; rename the file or add 'name:'" : ""
        reader.error("\(subject) (lowercase letters, digits, '.', '_' and '-', starting with a letter or digit)\(fix)", at: node, path: path)
    }

    private static func decodeRepository(_ node: Node, path: ConfigPath, directory: String, reader: ConfigReader) -> Repository? {
        guard let fields = reader.mapping(node, path: path, keys: ["url", "branch", "ca-file"]) else { return nil }
        var url: RepositoryURL?
        if let node = fields.required("url", in: reader), let text = reader.string(node, path: fields.path("url"), expected: "a URL or path") {
            do {
                url = try RepositoryURL(parsing: text, relativeTo: directory)
            } catch {
                reader.error(
                    "\(error.description) (expected https://host/path.git, ssh://host/path, git@host:path or a local path)", at: node,
                    path: fields.path("url"))
            }
        }
        var repository = Repository(url: url ?? placeholderURL)
        if let node = fields["branch"], let branch = reader.string(node, path: fields.path("branch"), expected: "a branch name") {
            if isValidBranch(branch) {
                repository.branch = branch
            } else {
                reader.error("'\(branch)' is not a valid branch name", at: node, path: fields.path("branch"))
            }
        }
        if let node = fields["ca-file"] { repository.caFile = reader.string(node, path: fields.path("ca-file"), expected: "a file path") }
        return url == nil ? nil : repository
    }

    /// The rules of `git check-ref-format --branch` that matter in practice.
    static func isValidBranch(_ name: String) -> Bool {
        let forbidden: Set<Character> = [" ", "~", "^", ":", "?", "*", "[", "\\"]
        return !name.isEmpty && !name.hasPrefix("-") && !name.hasPrefix("/") && !name.hasSuffix("/") && !name.hasSuffix(".lock")
            && !name.hasSuffix(".") && !name.contains("..") && !name.contains("//") && !name.contains("@{")
            && !name.contains(where: { forbidden.contains($0) || $0.asciiValue.map { $0 < 32 || $0 == 127 } == true })
    }

    private static func decodeSchedule(_ node: Node, path: ConfigPath, into schedule: inout BotSchedule, reader: ConfigReader) {
        guard let fields = reader.mapping(node, path: path, keys: ["on-commit", "poll", "periodic"]) else { return }
        if let node = fields["on-commit"], let value = reader.bool(node, path: fields.path("on-commit")) { schedule.onCommit = value }
        if let node = fields["poll"], let value = reader.duration(node, path: fields.path("poll"), allowZero: true) {
            if value != .zero, value < .seconds(10) {
                reader.error("'poll' must be 0 (webhooks only) or at least 10s, not '\(value.configSpelling)'", at: node, path: fields.path("poll"))
            } else {
                schedule.poll = value
            }
        }
        if let node = fields["periodic"], let text = reader.string(node, path: fields.path("periodic"), expected: "a schedule") {
            do {
                schedule.periodic = try PeriodicSchedule(parsing: text)
            } catch {
                reader.error(error.description, at: node, path: fields.path("periodic"))
            }
        }
    }

    private static func decodeBuild(_ node: Node, path: ConfigPath, into build: inout BuildSettings, reader: ConfigReader) {
        guard let fields = reader.mapping(node, path: path, keys: ["configuration", "arguments"]) else { return }
        if let node = fields["configuration"], let value = reader.choice(node, path: fields.path("configuration"), as: BuildConfiguration.self) {
            build.configuration = value
        }
        if let node = fields["arguments"], let value = reader.strings(node, path: fields.path("arguments")) { build.arguments = value }
    }

    private static func decodeCoverage(_ node: Node, path: ConfigPath, into coverage: inout CoverageSettings, reader: ConfigReader) {
        guard let fields = reader.mapping(node, path: path, keys: ["patch", "min-lines", "comments"]) else { return }
        if let node = fields["patch"], let value = reader.integer(node, path: fields.path("patch"), range: 0...100) { coverage.patch = value }
        if let node = fields["min-lines"], let value = reader.integer(node, path: fields.path("min-lines"), range: 0...100_000) {
            coverage.minLines = value
        }
        if let node = fields["comments"], let value = reader.bool(node, path: fields.path("comments")) { coverage.comments = value }
    }

    private static func decodePullRequests(_ node: Node, path: ConfigPath, reader: ConfigReader) -> PullRequestPolicy {
        if case .scalar = node, let enabled = reader.bool(node, path: path) { return PullRequestPolicy(enabled: enabled) }
        guard case .mapping = node, let fields = reader.mapping(node, path: path, keys: ["enabled", "forks", "trusted"]) else {
            return PullRequestPolicy()
        }
        var policy = PullRequestPolicy(enabled: true)
        if let node = fields["enabled"], let value = reader.bool(node, path: fields.path("enabled")) { policy.enabled = value }
        if let node = fields["forks"] {
            if case .scalar(let scalar) = node, scalar.style == .plain, scalar.string == "approve" {
                (policy.forks, policy.approval) = (true, true)
            } else if let value = reader.bool(node, path: fields.path("forks"), or: "approve") {
                policy.forks = value
            }
        }
        if let node = fields["trusted"], let logins = reader.strings(node, path: fields.path("trusted")) { policy.trusted = logins }
        return policy
    }

    private static func decodeForge(_ node: Node, path: ConfigPath, repository: Repository, reader: ConfigReader) -> ForgeSettings? {
        guard let fields = reader.mapping(node, path: path, keys: ["kind", "api-url", "token-file", "warnings", "review", "review-limit"]) else {
            return nil
        }
        let host = repository.url.host
        let implied = Forges.implied(byHost: host)
        var kind = implied?.kind
        let kinds = Forges.statusKinds.map(\.rawValue)
        if let node = fields["kind"] {
            guard let value = reader.choice(node, path: fields.path("kind"), among: kinds) else { return nil }
            kind = ForgeKind(rawValue: value)
        }
        guard let kind else {
            reader.error(
                "missing key 'kind' in 'forge': the repository's host does not say which forge it is (\(kinds.dropLast().joined(separator: ", ")) or \(kinds.last ?? ""))",
                at: node,
                path: path)
            return nil
        }
        var apiURL = implied?.kind == kind ? host.flatMap { kind.forge.publicAPI(forHost: $0) } : nil
        if let node = fields["api-url"], let text = reader.string(node, path: fields.path("api-url"), expected: "an http(s) URL") {
            guard let url = URLComponents(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                reader.error("'api-url' must be an http:// or https:// URL, not '\(text)'", at: node, path: fields.path("api-url"))
                return nil
            }
            apiURL = text.hasSuffix("/") ? String(text.dropLast()) : text
        }
        guard let apiURL else {
            reader.error(
                "missing key 'api-url' in 'forge' (a self-hosted \(kind.rawValue) needs its API's URL, such as https://git.example.com/api/v\(kind == .gitlab ? 4 : 1))",
                at: node, path: path)
            return nil
        }
        guard let tokenNode = fields.required("token-file", in: reader, hint: " (the file holding the API token statuses are posted with)"),
            let tokenFile = reader.string(tokenNode, path: fields.path("token-file"), expected: "a file path")
        else { return nil }
        var forge = ForgeSettings(kind: kind, apiURL: apiURL, tokenFile: tokenFile)
        if let node = fields["warnings"], let value = reader.choice(node, path: fields.path("warnings"), as: ForgeSettings.WarningsState.self) {
            forge.warnings = value
        }
        if let node = fields["review"], let value = reader.bool(node, path: fields.path("review")) { forge.review = value }
        if let node = fields["review-limit"], let value = reader.integer(node, path: fields.path("review-limit"), range: 0...100) {
            forge.reviewLimit = value
        }
        return forge
    }
}
