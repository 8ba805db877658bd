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

@Suite("Bot files: every key and every default")
struct BotFileDecodingTests {
    @Test("A file holding only the repository is a complete bot with the documented defaults")
    func shortestBot() throws {
        let bot = try BotFile.decode("repository: {url: https://github.com/example/app.git}\n", file: "/srv/kiln/Bots/app.yml")
        #expect(bot.name == "app")
        #expect(bot.repository.url.redacted == "https://github.com/example/app.git")
        #expect(bot.repository.branch == "main")
        #expect(bot.repository.caFile == nil)
        #expect(bot.schedule.onCommit)
        #expect(bot.schedule.poll == .seconds(120))
        #expect(bot.schedule.periodic == nil)
        #expect(bot.clean == .never)
        #expect(bot.cancelSuperseded)
        #expect(bot.build.configuration == .debug)
        #expect(bot.build.arguments.isEmpty)
        #expect(bot.test.enabled)
        #expect(bot.test.arguments.isEmpty)
        #expect(!bot.test.coverage)
        #expect(bot.test.retries == 2, "failed tests that passed before are run twice more before anyone is blamed")
        #expect(bot.test.quarantine.isEmpty)
        #expect(bot.bisect == BisectSettings(enabled: true, maxIntegrations: 8, wait: .seconds(1800)))
        #expect(bot.timeout == .seconds(1800))
        #expect(bot.sandbox == .bubblewrap)
        #expect(bot.environment.isEmpty)
        #expect(bot.secrets.isEmpty)
        #expect(bot.webhookSecretFile == nil)
        #expect(bot.triggers.isEmpty)
        #expect(bot.cache == .warm, "a new workspace starts from a snapshot unless told")
        #expect(try BotFile.decode("repository: {url: /srv/git/app.git}\ncache: none\n", file: "Bots/app.yml").cache == .none)
        #expect(bot == Bot(name: "app", repository: bot.repository))
    }

    @Test("Every key of docs/bot-file.md is decoded into typed values")
    func everyKey() throws {
        let yaml = """
            name: kiln
            repository:
              url: https://ci:s3cret@github.com/example/kiln.git
              branch: release/1.x
              ca-file: /etc/kiln/ca.pem
            schedule:
              on-commit: false
              poll: 1h30m
              periodic: weekly mon 02:00
            clean: weekly
            cancel-superseded: false
            build:
              configuration: release
              arguments: [--static-swift-stdlib, -Xswiftc, -Onone]
            test:
              enabled: false
              arguments: [--parallel]
              coverage: true
              retries: 0
              quarantine: ["MathTests/testRace", {test: "LibTests.SwiftMath/adds()", until: 2026-12-31}]
            timeout: 90s
            bisect: {max-integrations: 5, wait: 10m}
            sandbox: bubblewrap
            environment:
              LANG: C.UTF-8
              EMPTY:
              COUNT: 3
            secrets: [DEPLOY_TOKEN, NPM_TOKEN]
            webhook-secret-file: /etc/kiln/kiln-hook
            triggers:
              - name: lint
                phase: before
                run: swift format lint -r Sources
              - name: publish
                phase: after
                on: [succeeded, warnings]
                run: ./scripts/publish.sh
              - phase: after
                run: echo done
              - email: new-issues
                issues: [errors, test-failures]
                cc: [lead@example.com]
                allowed-domains: [Example.com]
              - email: report
                every: change
                to: [team@example.com, "Jörg Müller <jorg@example.org>"]
            """
        let bot = try BotFile.decode(yaml, file: "Bots/whatever.yml")
        #expect(bot.name == "kiln")
        #expect(bot.repository.url.redacted == "https://github.com/example/kiln.git")
        #expect(bot.repository.url.raw == "https://ci:s3cret@github.com/example/kiln.git")
        #expect(bot.repository.branch == "release/1.x")
        #expect(bot.repository.caFile == "/etc/kiln/ca.pem")
        #expect(!bot.schedule.onCommit)
        #expect(bot.schedule.poll == .seconds(5400))
        #expect(bot.schedule.periodic?.text == "weekly mon 02:00")
        #expect(bot.clean == .weekly)
        #expect(!bot.cancelSuperseded)
        #expect(bot.build == BuildSettings(configuration: .release, arguments: ["--static-swift-stdlib", "-Xswiftc", "-Onone"]))
        #expect(
            bot.test
                == TestSettings(
                    enabled: false, arguments: ["--parallel"], coverage: true, retries: 0,
                    quarantine: [
                        QuarantinedTest(test: "MathTests/testRace", line: 20, column: 16),
                        QuarantinedTest(test: "LibTests.SwiftMath/adds()", until: Date(timeIntervalSince1970: 1_798_761_600), line: 20, column: 45),
                    ]))
        #expect(bot.timeout == .seconds(90))
        #expect(bot.bisect == BisectSettings(enabled: true, maxIntegrations: 5, wait: .seconds(600)))
        #expect(try BotFile.decode("repository: {url: /srv/git/app.git}\nbisect: false\n", file: "Bots/app.yml").bisect.enabled == false)
        for (written, failFast) in [("true", FailFast.always), ("pull-requests", .pullRequests), ("false", .never)] {
            let yaml = "repository: {url: /srv/git/app.git}\ntest: {fail-fast: \(written)}\n"
            #expect(try BotFile.decode(yaml, file: "Bots/app.yml").test.failFast == failFast)
        }
        #expect(try BotFile.decode("repository: {url: /srv/git/app.git}\n", file: "Bots/app.yml").test.failFast == .never)
        #expect(FailFast.pullRequests.applies(toPullRequest: true) && !FailFast.pullRequests.applies(toPullRequest: false))
        for (written, shards) in [("4", TestShardCount.fixed(4)), ("auto", .auto), ("1", .fixed(1))] {
            let yaml = "repository: {url: /srv/git/app.git}\ntest: {shards: \(written)}\n"
            #expect(try BotFile.decode(yaml, file: "Bots/app.yml").test.shards == shards)
        }
        #expect(try BotFile.decode("repository: {url: /srv/git/app.git}\n", file: "Bots/app.yml").test.shards == .fixed(1))
        let limited = try BotFile.decode(
            "repository: {url: /srv/git/app.git}\nlimits: {memory: 512MiB, processes: 256, cpus: 1.5, disk: 2GiB, log: 10MiB}\n", file: "a.yml")
        #expect(limited.limits == ResourceLimits(memory: 512 << 20, processes: 256, cpus: 1.5, disk: 2 << 30, log: 10 << 20))
        #expect(try BotFile.decode("repository: {url: /srv/git/app.git}\n", file: "Bots/app.yml").limits.isEmpty, "kiln.yml's apply")
        for (wrong, said) in [
            ("{memory: lots}", "'memory' must be a size"), ("{cpus: 0}", "'cpus' must be"), ("{processes: 2}", "'processes' must be"),
            ("{disks: 1GiB}", "unknown key 'disks'"), ("{log: 1KiB}", "'log' must be a size of 64KiB or more"),
            ("{disk: 1MiB}", "'disk' must be a size of 64MiB or more"),
        ] {
            let error = #expect(throws: ConfigError.self) {
                try BotFile.decode("repository: {url: /srv/git/app.git}\nlimits: \(wrong)\n", file: "Bots/app.yml")
            }
            #expect(
                error?.description.contains("Bots/app.yml:2:") == true && error?.description.contains(said) == true,
                "\(wrong): \(String(describing: error))")
        }
        // a bot's own over kiln.yml's; a fork's never above fork-limits, even where the bot asks more
        let own = ResourceLimits(memory: 16 << 30, cpus: 4)
        #expect(own.over(.serverDefaults) == ResourceLimits(memory: 16 << 30, processes: 4096, cpus: 4, disk: 40 << 30, log: 100 << 20))
        #expect(
            own.over(.serverDefaults).capped(by: .forkDefaults)
                == ResourceLimits(memory: 4 << 30, processes: 1024, cpus: 1, disk: 10 << 30, log: 20 << 20))
        #expect(ResourceLimits(memory: 1 << 30).capped(by: .forkDefaults).memory == 1 << 30, "a bot may ask less")
        for wrong in ["many", "0", "65", "[2]"] {
            let error = #expect(throws: ConfigError.self) {
                try BotFile.decode("repository: {url: /srv/git/app.git}\ntest: {shards: \(wrong)}\n", file: "Bots/app.yml")
            }
            #expect(error?.description.contains("Bots/app.yml:2:") == true && error?.description.contains("'shards' must be") == true, "\(wrong)")
        }
        #expect(throws: ConfigError.self) {
            try BotFile.decode("repository: {url: /srv/git/app.git}\ntest: {fail-fast: soon}\n", file: "Bots/app.yml")
        }
        let analyzing = "repository: {url: /srv/git/app.git}\nanalyze: {lint: true, api-breakage: error}\n"
        #expect(try BotFile.decode(analyzing, file: "Bots/app.yml").analyze == AnalyzeSettings(lint: true, apiBreakage: .error))
        #expect(try BotFile.decode("repository: {url: /srv/git/app.git}\n", file: "Bots/app.yml").analyze.enabled == false)
        let sound = "repository: {url: /srv/git/app.git}\nanalyze: {documentation: false, soundness: true, license-header: {project: Kiln}}\n"
        let soundness = try BotFile.decode(sound, file: "Bots/app.yml").analyze
        #expect(soundness.checks == Set(AnalyzerCheck.allCases).subtracting([.documentation]), "a check named beside soundness stays off")
        #expect(soundness.licenseProject == "Kiln" && soundness.words == AnalyzeSettings.defaultWords && !soundness.apiBreaksAreErrors)
        let alone = "repository: {url: /srv/git/app.git}\nanalyze: {language: {words: [foo, bar]}, documentation: {targets: [Lib]}, shell: true}\n"
        let chosen = try BotFile.decode(alone, file: "Bots/app.yml").analyze
        #expect(chosen.checks == [.language, .documentation, .shell] && chosen.words == ["foo", "bar"] && chosen.documentationTargets == ["Lib"])
        let filtered = "repository: {url: /srv/git/app.git}\ntriggers:\n  - {email: new-issues, issues: [errors, license-header]}\n"
        let selection = try #require(
            try BotFile.decode(filtered, file: "Bots/app.yml").triggers.compactMap { trigger -> IssueSelection? in
                guard case .email(let email) = trigger, case .newIssues(let selection) = email.kind else { return nil }
                return selection
            }.first)
        #expect(selection == IssueSelection(types: [.error], checks: [.licenseHeader]))
        let header = IntegrationIssue(type: .analyzerWarning, message: "no license header", fingerprint: "a", check: .licenseHeader)
        let lint = IntegrationIssue(type: .analyzerWarning, message: "[Indentation]", fingerprint: "b", check: .format)
        #expect(selection.contains(header) && !selection.contains(lint))
        let archiving = """
            repository: {url: /srv/git/app.git}
            archive: {products: [kiln], arguments: [--static-swift-stdlib], files: ['docs/**/*.html'], on: [succeeded], max-size: 20MB}
            """
        #expect(
            try BotFile.decode(archiving, file: "Bots/app.yml").archive
                == ArchiveSettings(
                    products: ["kiln"], arguments: ["--static-swift-stdlib"], files: ["docs/**/*.html"], on: [.succeeded], maxSize: 20_000_000))
        let defaults = try BotFile.decode("repository: {url: /srv/git/app.git}\n", file: "Bots/app.yml").archive
        #expect(!defaults.enabled && defaults.on == [.succeeded, .warnings] && defaults.maxSize == 512 << 20)
        #expect(bot.sandbox == .bubblewrap)
        #expect(
            bot.environment == [
                EnvironmentVariable(name: "COUNT", value: "3"), EnvironmentVariable(name: "EMPTY", value: ""),
                EnvironmentVariable(name: "LANG", value: "C.UTF-8"),
            ])
        #expect(bot.secrets == ["DEPLOY_TOKEN", "NPM_TOKEN"])
        #expect(bot.webhookSecretFile == "/etc/kiln/kiln-hook")
        #expect(
            bot.triggers == [
                .script(ScriptTrigger(name: "lint", phase: .before, run: "swift format lint -r Sources")),
                .script(ScriptTrigger(name: "publish", phase: .after, on: [.succeeded, .warnings], run: "./scripts/publish.sh")),
                .script(ScriptTrigger(name: "trigger-3", phase: .after, run: "echo done")),
                .email(
                    EmailTrigger(
                        kind: .newIssues(IssueSelection(types: [.error, .testFailure])), cc: [EmailAddress(address: "lead@example.com")],
                        allowedDomains: ["example.com"])),
                .email(
                    EmailTrigger(
                        kind: .report(.change),
                        to: [EmailAddress(address: "team@example.com"), EmailAddress(name: "Jörg Müller", address: "jorg@example.org")])),
            ])
    }

    @Test("Email trigger defaults: new-issues covers every issue type, a report goes after every integration")
    func emailDefaults() throws {
        let yaml = """
            repository: {url: /srv/git/app.git}
            triggers:
              - email: new-issues
              - email: report
                to: team@example.com
            """
        let bot = try BotFile.decode(yaml, file: "Bots/app.yml")
        #expect(
            bot.triggers == [
                .email(EmailTrigger(kind: .newIssues(.all))),
                .email(EmailTrigger(kind: .report(.integration), to: [EmailAddress(address: "team@example.com")])),
            ])
        guard case .email(let newIssues) = bot.triggers[0] else { Issue.record("expected an email trigger"); return }
        #expect(newIssues.allows(EmailAddress(address: "anyone@anywhere.net")))
    }

    @Test("allowed-domains keeps recipients to those domains, whatever their case")
    func allowedDomains() {
        let trigger = EmailTrigger(kind: .newIssues(IssueSelection(types: [.error])), allowedDomains: ["example.com"])
        #expect(trigger.allows(EmailAddress(address: "dev@Example.COM")))
        #expect(!trigger.allows(EmailAddress(address: "dev@example.com.evil.net")))
    }

    @Test("A relative repository path is resolved against the bot file's directory")
    func relativeRepositoryPath() throws {
        let bot = try BotFile.decode("repository: {url: ../repos/app.git}\n", file: "/srv/kiln/Bots/app.yml")
        #expect(bot.repository.url.scheme == .file)
        #expect(bot.repository.url.raw == "/srv/kiln/repos/app.git")
    }

    @Test("Each example bot in Bots/ loads without a problem")
    func exampleBots() throws {
        let catalog = try BotCatalog.load(directory: Executables.packageRoot + "/Bots")
        #expect(catalog.broken.map(\.problems) == [])
        #expect(catalog.bots.map(\.bot.name).sorted() == ["kiln", "kiln-nightly"])
        let nightly = try #require(catalog.bot(named: "kiln-nightly"))
        #expect(nightly.schedule.periodic?.text == "daily 02:00")
        #expect(nightly.repository.url.raw == Executables.packageRoot)
    }

    @Test("kiln trigger's quick look finds a bot by its file alone, and defers to the whole catalog when another file may name itself so")
    func quickBot() throws {
        let directory = try TemporaryDirectory()
        let bot = "repository: {url: /srv/app.git}\ntriggers: [{name: wait, phase: before, run: 'true'}]\n"
        try directory.write("app.yml", bot)
        try directory.write("other.yaml", "repository: {url: /srv/other.git}\ntriggers:\n  - name: notify\n    phase: after\n    run: 'true'\n")
        #expect(BotCatalog.quickBot(named: "app", directory: directory.path)?.repository.url.raw == "/srv/app.git")
        #expect(BotCatalog.quickBot(named: "missing", directory: directory.path) == nil)
        for (text, why) in [
            ("name: app\nrepository: {url: /srv/third.git}\n", "a file naming itself"),
            ("{repository: {url: /srv/third.git}}\n", "a flow-style file"),
            ("'name' : app\nrepository: {url: /srv/third.git}\n", "a quoted name key"),
        ] {
            try directory.write("third.yml", text)
            #expect(BotCatalog.quickBot(named: "app", directory: directory.path) == nil, "\(why) may be app")
            #expect(try BotCatalog.load(directory: directory.path).bot(named: "app") != nil)
        }
        try directory.write("third.yml", "repository: {url: /srv/third.git}\n")
        try directory.write("app.yml", "repository: [not, a, mapping]\n")
        #expect(BotCatalog.quickBot(named: "app", directory: directory.path) == nil, "a broken file is left to the catalog's diagnostics")
    }
}
