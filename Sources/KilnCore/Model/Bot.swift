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

/// A configured thing that integrates: one bot file, decoded and validated.
///
/// Every field has the default docs/bot-file.md documents, so `Bot(name:repository:)` is the
/// shortest useful bot, exactly like a file that holds only `repository: {url: …}`.
public struct Bot: Sendable, Hashable {
    public var name: String
    public var repository: Repository
    public var schedule: BotSchedule
    public var clean: CleanPolicy
    public var cancelSuperseded: Bool
    public var build: BuildSettings
    public var test: TestSettings
    public var timeout: Duration
    /// How its processes are confined: under bubblewrap unless the bot opts out (`sandbox: none`).
    public var sandbox: Sandbox
    /// Extra environment for every process of an integration, sorted by name.
    public var environment: [EnvironmentVariable]
    /// Names of variables taken from the server's environment and masked in logs and pages.
    public var secrets: [String]
    /// Where each secret is named in the bot file, for warnings about its value.
    public var secretPlaces: [String: FilePlace] = [:]
    /// HMAC secret for this bot's webhooks, overriding the server's `webhooks.secret-file`.
    public var webhookSecretFile: String?
    public var triggers: [Trigger]
    /// Which pull requests into `repository.branch` it integrates too.
    public var pullRequests: PullRequestPolicy
    /// Where commit statuses go; nil: none are posted.
    public var forge: ForgeSettings?
    /// Whether a failure of several commits is bisected to the one that brought it.
    public var bisect: BisectSettings
    /// What is analyzed after the tests.
    public var analyze: AnalyzeSettings
    /// How measurements are judged against their baseline.
    public var performance: PerformanceSettings
    /// What is built in release configuration and kept as the integration's asset.
    public var archive: ArchiveSettings
    /// `matrix`: the cells each integration runs in; nil is one cell of the bot's own settings.
    public var matrix: Matrix? = nil
    /// `network`: whether building, testing, analyzing and archiving see a network.
    public var network: NetworkAccess = .network
    /// `visibility`: private bots are seen only with a token that may see them.
    public var visibility: Visibility = .public
    /// `cache`: whether a new workspace starts from a warm copy (`WorkspaceCache`).
    public var cache: WorkspaceCache = .warm
    /// `limits`: bounds on its steps' processes, over kiln.yml's `limits:` where it says nothing.
    public var limits = ResourceLimits()
    /// `coverage`: what the change's coverage must reach (with `test.coverage`).
    public var coverage = CoverageSettings()

    public init(
        name: String,
        repository: Repository,
        schedule: BotSchedule = BotSchedule(),
        clean: CleanPolicy = .never,
        cancelSuperseded: Bool = true,
        build: BuildSettings = BuildSettings(),
        test: TestSettings = TestSettings(),
        timeout: Duration = .seconds(30 * 60),
        sandbox: Sandbox = .bubblewrap,
        environment: [EnvironmentVariable] = [],
        secrets: [String] = [],
        webhookSecretFile: String? = nil,
        triggers: [Trigger] = [],
        pullRequests: PullRequestPolicy = PullRequestPolicy(),
        forge: ForgeSettings? = nil,
        bisect: BisectSettings = BisectSettings(),
        analyze: AnalyzeSettings = AnalyzeSettings(),
        performance: PerformanceSettings = PerformanceSettings(),
        archive: ArchiveSettings = ArchiveSettings()
    ) {
        self.name = name
        self.repository = repository
        self.schedule = schedule
        self.clean = clean
        self.cancelSuperseded = cancelSuperseded
        self.build = build
        self.test = test
        self.timeout = timeout
        self.sandbox = sandbox
        self.environment = environment
        self.secrets = secrets
        self.webhookSecretFile = webhookSecretFile
        self.triggers = triggers
        self.pullRequests = pullRequests
        self.forge = forge
        self.bisect = bisect
        self.analyze = analyze
        self.performance = performance
        self.archive = archive
    }

    /// The forge that keeps its pull requests: the configured one, else what its host implies,
    /// else GitHub's conventions (which Gitea and Forgejo share).
    public var forgeKind: ForgeKind {
        forge?.kind ?? Forges.implied(byHost: repository.url.host)?.kind ?? .github
    }

    /// Whether `name` is a valid bot name: `[a-z0-9][a-z0-9._-]*`.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLowerAlphanumeric(first) else { return false }
        return name.utf8.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

/// The repository a bot watches.
public struct Repository: Sendable, Hashable {
    public var url: RepositoryURL
    public var branch: String
    /// A CA bundle to verify this repository's https certificate with, instead of the system's.
    public var caFile: String?

    public init(url: RepositoryURL, branch: String = "main", caFile: String? = nil) {
        self.url = url
        self.branch = branch
        self.caFile = caFile
    }
}

/// When a bot integrates on its own.
public struct BotSchedule: Sendable, Hashable {
    /// Integrate when the branch moves (webhook or polling).
    public var onCommit: Bool
    /// How often to look at the remote head; zero means webhooks only.
    public var poll: Duration
    public var periodic: PeriodicSchedule?

    public init(onCommit: Bool = true, poll: Duration = .seconds(120), periodic: PeriodicSchedule? = nil) {
        self.onCommit = onCommit
        self.poll = poll
        self.periodic = periodic
    }
}

/// When the workspace, `.build` included, is wiped before checkout.
public enum CleanPolicy: String, CaseIterable, Sendable, Hashable {
    case never, always, daily, weekly
}

/// `cache`: whether a new workspace of the bot starts from a snapshot of a warm one (the default)
/// and its successful integrations leave one, or every new workspace builds from nothing.
public enum WorkspaceCache: String, CaseIterable, Sendable, Hashable {
    case warm, none
}

public enum BuildConfiguration: String, CaseIterable, Codable, Sendable, Hashable {
    case debug, release
}

public struct BuildSettings: Sendable, Hashable {
    public var configuration: BuildConfiguration
    /// Extra arguments to `swift build`.
    public var arguments: [String]

    public init(configuration: BuildConfiguration = .debug, arguments: [String] = []) {
        self.configuration = configuration
        self.arguments = arguments
    }
}

public struct TestSettings: Sendable, Hashable {
    public var enabled: Bool
    /// Extra arguments to `swift test`.
    public var arguments: [String]
    /// Build with `--enable-code-coverage` and store the percentage.
    public var coverage: Bool
    /// How many times a test that failed here and passed in the previous integration is run
    /// again before it counts as failed; passing on a re-run makes it `flaky`. 0: never.
    public var retries: Int
    /// Tests whose failures fail nothing and mail nobody, while their quarantine holds.
    public var quarantine: [QuarantinedTest]
    /// Which tests run first (`test.order`).
    public var order: TestOrder
    /// Whether the first failure ends the testing step (`test.fail-fast`).
    public var failFast: FailFast
    /// How many parts of about equal recorded duration the tests run in at once (`test.shards`).
    public var shards: TestShardCount

    public init(
        enabled: Bool = true, arguments: [String] = [], coverage: Bool = false, retries: Int = 2, quarantine: [QuarantinedTest] = [],
        order: TestOrder = .failedFirst, failFast: FailFast = .never, shards: TestShardCount = .fixed(1)
    ) {
        self.enabled = enabled
        self.arguments = arguments
        self.coverage = coverage
        self.retries = retries
        self.quarantine = quarantine
        self.order = order
        self.failFast = failFast
        self.shards = shards
    }
}

/// When the first failing test ends the testing step (`test.fail-fast`): the tests after it are
/// recorded as not run, and the executor is free at once.
public enum FailFast: String, CaseIterable, Sendable, Hashable {
    /// Every test runs, whatever fails.
    case never = "false"
    case always = "true"
    /// Only in integrations of pull requests: a branch's integrations still run every test.
    case pullRequests = "pull-requests"

    /// Whether it applies to an integration, of a pull request or not.
    public func applies(toPullRequest isPullRequest: Bool) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .pullRequests: isPullRequest
        }
    }
}

/// How many parts a testing step's tests run in at once (`test.shards`).
public enum TestShardCount: Sendable, Hashable {
    /// This many (1: one `swift test`), each on an idle executor where one is free.
    case fixed(Int)
    /// As many as the host has idle executors for and the suite's recorded length makes worth
    /// it (`TestShards.worth`).
    case auto

    /// The most shards a step runs in.
    public static let most = 64
}

/// Which tests an integration runs first (`test.order`).
public enum TestOrder: String, CaseIterable, Sendable, Hashable {
    /// The tests that failed or were flaky in the bot's last integrations run first, in a pass of
    /// their own, then the rest: a failure that is still there is known in seconds.
    case failedFirst = "failed-first"
    /// One `swift test`, as the package has it.
    case asWritten = "as-written"
}

public enum Sandbox: String, CaseIterable, Sendable, Hashable {
    case none, bubblewrap
}

public struct EnvironmentVariable: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether `name` is a portable environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}

/// `network`: what the package's own processes may reach.
public enum NetworkAccess: String, CaseIterable, Sendable, Hashable {
    /// The host's network, as any process (the default).
    case network
    /// No network at all for `swift build`, `swift test`, analyze and archive (a network namespace
    /// of their own under bubblewrap); dependencies come from Kiln's mirrors. Triggers keep it.
    case none
}

/// Where in its file something was written: for warnings found after the file was read.
public struct FilePlace: Sendable, Hashable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}
