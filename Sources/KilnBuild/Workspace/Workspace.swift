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

/// One integration's view of its bot's workspace: where the checkout is, the environment and
/// sandbox its processes get, and running them with the integration's log, deadline and mark.
/// A pull request from a fork gets a workspace and a HOME of their own (see `DataDirectory`), and
/// always runs confined (see `sandboxed`).
///
/// Every process — triggers, `swift build`, `swift test` — runs in the workspace with the same
/// environment: PATH from the server, a HOME of the bot's own in the data directory, LANG, the
/// bot's `environment` and `secrets` (none for a pull request from a fork: its code is not the
/// team's), and the KILN_ variables. Under `sandbox: bubblewrap` the
/// whole file system is read-only but for the workspace, the HOME and a private /tmp.
public struct Workspace: Sendable {
    /// The bot as this integration sees it: without secrets for a pull request from a fork.
    public let bot: Bot
    /// The pull request integrated; nil for the branch.
    public let pullRequest: PullRequest?
    /// The integration's number.
    public let number: Int
    /// Which of the bot's workspaces (`DataDirectory.workspace(of:fork:slot:)`): 0, the bot's own,
    /// but for a bisection integrating several commits at once.
    public let slot: Int
    /// The checkout.
    public let directory: String
    /// Where the integration's processes see the checkout: every sandboxed workspace of the bot,
    /// on any host, is bound at one path (`DataDirectory.confinedWorkspace(of:)`), so that what
    /// `.build` and clang's module caches recorded of their path holds in copies too (bisect
    /// workspaces, snapshots), and builds there are warm.
    public var seenAs: String {
        confined ? DataDirectory.confinedWorkspace(of: bot.name) : directory
    }
    public let home: String
    public let log: IntegrationLog
    public let deadline: ContinuousClock.Instant
    /// The integration's archive (`KILN_ARCHIVE`) and its unpacked contents (`KILN_ASSETS`), for
    /// after triggers, once the `archiving` step made and kept one.
    public var archive: (file: String, contents: String)?
    /// `KILN_MARK` of every process of this integration (see `DataDirectory.processMark`).
    public let mark: String
    /// For a matrix cell with a toolchain other than `default`: the folder that holds its `swift`
    /// (`toolchains:` in kiln.yml), first on PATH, and bound read-only into the sandbox.
    public var toolchain: String?
    /// What bounds its steps' processes (`limits:`, and `fork-limits:` for a fork's pull request).
    public var limits = ResourceLimits()
    let layout: DataDirectory
    /// The server's environment: where secrets and PATH come from. Nothing else of it reaches builds.
    let serverEnvironment: [String: String]
    /// Files and directories a fork's code must not read: the server's secret files, every bot's
    /// forge token, the bot files (a repository URL may carry credentials).
    let hidden: [String]

    public init(
        bot: Bot, number: Int, layout: DataDirectory, serverEnvironment: [String: String], log: IntegrationLog, deadline: ContinuousClock.Instant,
        pullRequest: PullRequest? = nil, hidden: [String] = [], slot: Int = 0
    ) {
        self.bot = Self.bot(bot, for: pullRequest)
        self.pullRequest = pullRequest
        self.number = number
        self.layout = layout
        let fork = pullRequest?.fork == true
        self.slot = slot
        self.directory = layout.workspace(of: bot.name, fork: fork, slot: slot)
        self.home = layout.home(of: bot.name, fork: fork)
        self.serverEnvironment = serverEnvironment
        self.log = log
        self.deadline = deadline
        self.mark = layout.processMark(bot: bot.name, slot: slot)
        self.hidden = hidden
    }

    /// Where the `archiving` step packs: in the bot's HOME, which a sandboxed build may write.
    public var archiveDirectory: String { home + "/.kiln-archive" }

    /// Whether this integration runs a fork's code: no secrets, a workspace of its own, confined.
    public var fromFork: Bool { pullRequest?.fork == true }

    /// Whether its processes run under bubblewrap: when the bot says so, and always for a fork.
    public var confined: Bool { bot.sandbox == .bubblewrap || fromFork }

    /// The values of the bot's secrets in the server's environment, for masking in the log.
    public static func secrets(of bot: Bot, in environment: [String: String]) -> [(name: String, value: String)] {
        bot.secrets.compactMap { name in environment[name].map { (name, $0) } }
    }

    /// `bot` as an integration of `pullRequest` may see it: a fork's code gets no secrets.
    public static func bot(_ bot: Bot, for pullRequest: PullRequest?) -> Bot {
        guard pullRequest?.fork == true else { return bot }
        var stripped = bot
        stripped.secrets = []
        return stripped
    }

    public var exists: Bool { FileManager.default.fileExists(atPath: directory) }

    /// Wipes the workspace (with its `.build`) when the bot's `clean` schedule says it is time;
    /// returns whether it did.
    @discardableResult
    public func prepare(now: Date) throws -> Bool {
        let marker = layout.cleanMarker(of: bot.name, fork: fromFork, slot: slot)
        // stat(2): Foundation's attributes would read /etc/passwd and /etc/group for the owner.
        var status = stat()
        let last =
            stat(marker, &status) == 0
            ? Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9) : .distantPast
        let age = now.timeIntervalSince(last)
        let due: Bool
        switch bot.clean {
        case .never: due = false
        case .always: due = true
        case .daily: due = age >= 86_400
        case .weekly: due = age >= 7 * 86_400
        }
        guard due else { return false }
        try StaleFile.remove(directory)
        try FileManager.default.createDirectory(atPath: (marker as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: marker))
        return true
    }

    /// Makes `.build` hold where its processes see the workspace (`seenAs`): clang refuses a
    /// module cache built at another path ("was compiled with module cache path …"), which a
    /// workspace holds when it was last built sandboxed and now is not (or the other way round),
    /// by a Kiln that showed it at another path, or when it came from a snapshot made at another
    /// path. Those caches are removed (and built again); `.build/.kiln-seen-as` records the path.
    /// Returns the path it was seen at before when caches were removed.
    public func settleSeenPath() async -> String? {
        let build = directory + "/.build"
        let marker = build + "/.kiln-seen-as"
        let built = FileManager.default.fileExists(atPath: build)
        let last = built ? (try? String(contentsOfFile: marker, encoding: .utf8)) ?? directory : seenAs
        var dropped: String?
        if last != seenAs {
            do throws(SnapshotError) {
                try await WorkspaceSnapshots.shell(
                    #"find "$0" -type d -name ModuleCache -prune -exec rm -rf {} +"#, [build], doing: "removing clang's module caches")
                dropped = last
            } catch {
                // The marker stays as it was, so that the next integration tries again; this
                // build may fail on the caches, and its log says why.
                await log.note("\(error): clang may refuse the module caches made at \(last)")
                return nil
            }
        }
        // swift build creates it too, and says so if it cannot
        try? FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        if !built || last != seenAs { _ = FileManager.default.createFile(atPath: marker, contents: Data(seenAs.utf8)) }
        return dropped
    }

    /// The environment of a process of the integration. Triggers (`forTrigger`) also get the
    /// integration's own variables (number, commit, log, and for after triggers the result);
    /// `swift build` and `swift test` get only what stays the same from one integration to the
    /// next, since SwiftPM evaluates the manifest again whenever its environment changes
    /// (measured: 0.2–0.25 s on every warm build).
    public func environment(commit: String?, result: IntegrationResult? = nil, forTrigger: Bool = true) -> [String: String] {
        let path = serverEnvironment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        var variables: [String: String] = [
            "PATH": toolchain.map { "\($0):\(path)" } ?? path,
            "HOME": home,
            "LANG": "C.UTF-8",
        ]
        for variable in bot.environment { variables[variable.name] = variable.value }
        for secret in bot.secrets { variables[secret] = serverEnvironment[secret] ?? "" }
        variables["KILN_BOT"] = bot.name
        variables["KILN_BRANCH"] = bot.repository.branch
        variables["KILN_WORKSPACE"] = seenAs
        guard forTrigger else { return variables }
        variables["KILN_INTEGRATION"] = String(number)
        variables["KILN_COMMIT"] = commit ?? ""
        variables["KILN_LOG"] = log.path
        if let pullRequest {
            variables["KILN_PULL_REQUEST"] = String(pullRequest.number)
            variables["KILN_PULL_REQUEST_HEAD"] = pullRequest.head
        }
        if let result { variables["KILN_RESULT"] = result.rawValue }
        if let archive {
            variables["KILN_ARCHIVE"] = archive.file
            variables["KILN_ASSETS"] = archive.contents
        }
        return variables
    }

    /// Runs one process of the integration in the workspace (sandboxed when the bot says so, and
    /// always for a fork), under a log header naming `step`; `logged: false` keeps its output
    /// (a file list, not something a person reads) out of the log.
    public func run(
        _ command: StepCommand, step: IntegrationStep, commit: String?, result: IntegrationResult? = nil, logged: Bool = true,
        stop: EarlyStop? = nil, onLine: @escaping @Sendable (Substring) -> Void = { _ in }
    ) async throws(ProcessError) -> ProcessEnd {
        // a HOME that cannot be made fails the process that needs it, in the log
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        // without it, a sandboxed build's module cache lives only as long as its process
        if confined { try? FileManager.default.createDirectory(atPath: moduleCache, withIntermediateDirectories: true) }
        await log.header("\(step.rawValue): \(command.display)")
        do {
            // The package's own processes see no network with `network: none`; triggers keep it.
            let offline = bot.network == .none && step != .beforeTriggers && step != .afterTriggers
            let run = { (limited: StepCommand, group: ControlGroup?) async throws(ProcessError) -> ProcessEnd in
                try await ProcessRunner.run(
                    limited, in: directory,
                    environment: environment(commit: commit, result: result, forTrigger: step == .beforeTriggers || step == .afterTriggers),
                    log: log, deadline: deadline, mark: mark, isolated: confined, group: group, logged: logged, stop: stop, onLine: onLine)
            }
            return try await bounded(confined ? sandboxed(command, network: !offline) : command, step: step, run: run)
        } catch .cannotStart(let display, let reason) where confined {
            let why = fromFork ? "a pull request from a fork always runs" : "this bot runs"
            throw .cannotStart(command: display, reason: "\(reason); \(why) under bubblewrap: install it (apt-get install bubblewrap)")
        }
    }

    /// The command under bubblewrap: the whole file system read-only, a private /tmp, only the
    /// workspace and the bot's HOME writable, and a process namespace of its own (so /proc shows
    /// no other process's environment: not the server's, which holds every bot's secrets); the
    /// sandbox dies with Kiln. It stays in the step's process group, so a timeout or cancel kills
    /// it like any step.
    ///
    /// It is also kept from the files that would give it secrets it is not given: the data
    /// directory is an empty one but for its own workspace and HOME, its own log and the mirrors
    /// (read-only): no other bot's workspace, HOME or log, no database; the `hidden` files (the
    /// server's secret files, forge tokens, the bot files) cannot be read and hidden directories
    /// are empty.
    ///
    /// Without `network`, it has a network namespace of its own too: a loopback and nothing else.
    /// The home directory of the account Kiln runs as, from its passwd entry.
    static let accountHome: String? = {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }()

    func sandboxed(_ command: StepCommand, network: Bool = true) -> StepCommand {
        let mirrors = layout.mirrors
        var arguments = ["--unshare-pid"] + (network ? [] : ["--unshare-net"])
        // the private /tmp bounded by limits.disk too: the kernel refuses writes past it
        arguments +=
            ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"] + (limits.disk.map { ["--size", "\($0)"] } ?? []) + ["--tmpfs", "/tmp"]
        // SwiftPM keeps `.swiftpm/configuration` and `.swiftpm/security` in the account's home
        // (its passwd entry), whatever HOME says: there the build gets its own HOME, writable,
        // and none of the account's files. Not when the data directory lies inside it.
        let account = Self.accountHome.flatMap { account in
            account == home || account == "/" || layout.path == account || layout.path.hasPrefix(account + "/") ? nil : account
        }
        if let account { arguments += ["--bind", home, account] }
        arguments += ["--tmpfs", layout.path]
        let absolute = hidden.map { $0.hasPrefix("/") ? $0 : URL(fileURLWithPath: $0).standardizedFileURL.path }
        for path in absolute
        where !path.hasPrefix(layout.path + "/") && !path.hasPrefix("/tmp/") && !(account.map { path.hasPrefix($0 + "/") } ?? false) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            arguments += isDirectory.boolValue ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]
        }
        if FileManager.default.fileExists(atPath: mirrors) { arguments += ["--ro-bind", mirrors, mirrors] }
        if FileManager.default.fileExists(atPath: log.path) { arguments += ["--ro-bind", log.path, log.path] }
        if let toolchain { arguments += ["--ro-bind", toolchain, toolchain] }
        arguments += ["--bind", directory, seenAs, "--bind", home, home]
        if FileManager.default.fileExists(atPath: moduleCache) { arguments += ["--bind", moduleCache, moduleCacheSeenAs] }
        arguments += ["--die-with-parent", "--chdir", seenAs, "--", command.executable]
        return StepCommand("bwrap", arguments + command.arguments)
    }

    /// Kills the processes an integration of this data directory left behind (a server stopped
    /// mid-integration); returns how many there were.
    @discardableResult
    public static func killLeftovers(of integration: Integration, in layout: DataDirectory) -> Int {
        ProcessRunner.killMarked(layout.processMark(bot: integration.bot, slot: integration.workspaceSlot ?? 0))
    }
}
