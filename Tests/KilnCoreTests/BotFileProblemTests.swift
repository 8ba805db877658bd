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

import KilnCore
import Testing

/// An invalid bot file and every line `kiln validate` must print for it.
struct InvalidBotFile: Sendable, CustomTestStringConvertible {
    var label: String
    var yaml: String
    var expected: [String]

    var testDescription: String { label }
}

@Suite("Bot files: problems are reported with file, line and column")
struct BotFileProblemTests {
    static let cases: [InvalidBotFile] = [
        InvalidBotFile(
            label: "visibility value",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                visibility: secret
                """,
            expected: ["2:13: error: 'visibility' must be one of public, private, not 'secret'"]),
        InvalidBotFile(
            label: "archive values",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                archive: {products: [../kiln], files: [/etc/passwd], on: [succeded], max-size: lots}
                """,
            expected: [
                "2:21: error: 'products' names executable products of the package, not '../kiln'",
                "2:39: error: 'files' are globs inside the workspace, not '/etc/passwd'",
                "2:59: error: 'on' value 'succeded' is not a result (did you mean 'succeeded'?)",
                "2:80: error: 'max-size' must be a size such as 512MiB or 20MB, not 'lots'",
            ]),
        InvalidBotFile(
            label: "cache value",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                cache: cold
                """,
            expected: ["2:8: error: 'cache' must be one of warm, none, not 'cold'"]),
        InvalidBotFile(
            label: "analyze values",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                analyze: {lint: yes please, api-breakage: sometimes, spelling: true}
                """,
            expected: [
                "2:17: error: 'lint' must be true or false, not 'yes please'",
                "2:43: error: 'api-breakage' must be true, false or error, not 'sometimes'",
                "2:54: error: unknown key 'spelling' in 'analyze' (expected one of soundness, lint, api-breakage, documentation, license-header, language, symlink, shell, yaml, python)",
            ]),
        InvalidBotFile(
            label: "analyze check options",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                analyze: {license-header: {project: [a]}, language: {words: ["two words"]}, yaml: {strict: true}}
                """,
            expected: [
                "2:37: error: 'project' must be the project's name, not a list",
                "2:61: error: 'words' must list single words",
                "2:83: error: 'yaml' must be true or false, not a mapping",
            ]),
        InvalidBotFile(
            label: "matrix values",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                matrix: {toolchain: ["6.2-nightly"], configuration: [debug, debug], sanitizer: [threads], os: [linux]}
                """,
            expected: [
                "2:22: error: '6.2-nightly' is not a toolchain name (letters, digits, '.' and '_', as hosts name them under toolchains:)",
                "2:53: error: 'configuration' must list at least one value, each once",
                "2:81: error: 'sanitizer' must be one of none, thread, address, undefined, not 'threads'",
                "2:91: error: unknown key 'os' in 'matrix' (expected one of toolchain, configuration, sanitizer, exclude)",
            ]),
        InvalidBotFile(
            label: "matrix exclusions and cells",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                matrix:
                  configuration: [debug, release]
                  sanitizer: [none, thread]
                  exclude:
                    - {configuration: release, sanitizer: address}
                    - {}
                """,
            expected: [
                "6:43: error: exclude names sanitizer 'address', which the matrix does not list (none, thread)",
                "7:7: error: an exclusion names at least one of toolchain, configuration, sanitizer",
            ]),
        InvalidBotFile(
            label: "network without the sandbox",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                sandbox: none
                network: none
                """,
            expected: [
                "3:10: error: network: none needs the sandbox: with sandbox: none the builds have the host's network (remove one of the two)"
            ]),
        InvalidBotFile(
            label: "bisect bounds",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                bisect: {max-integrations: 0, wait: soon}
                """,
            expected: [
                "2:28: error: 'max-integrations' must be from 1 to 64, not 0",
                "2:37: error: 'wait' must be a duration such as 90s, 2m or 1h30m, not 'soon'",
            ]),
        InvalidBotFile(
            label: "test retries out of range",
            yaml: """
                repository: {url: https://github.com/example/app.git}
                test:
                  retries: 11
                """,
            expected: ["3:12: error: 'retries' must be from 0 to 10, not 11"]),
        InvalidBotFile(
            label: "misspelt top-level key",
            yaml: """
                repository:
                  url: https://github.com/example/app.git
                shedule:
                  poll: 5m
                """,
            expected: ["3:1: error: unknown key 'shedule' (did you mean 'schedule'?)"]),
        InvalidBotFile(
            label: "unknown key with nothing close",
            yaml: """
                repository: {url: /srv/git/app.git}
                build:
                  flavour: spicy
                """,
            expected: ["3:3: error: unknown key 'flavour' in 'build' (expected one of configuration, arguments)"]),
        InvalidBotFile(
            label: "forge of a self-hosted repository without kind or api-url",
            yaml: """
                repository: {url: https://git.example.com/team/app.git}
                forge:
                  token-file: /etc/kiln/token
                """,
            expected: [
                "3:3: error: missing key 'kind' in 'forge': the repository's host does not say which forge it is (github, gitlab or gitea)"
            ]),
        InvalidBotFile(
            label: "forge of a self-hosted GitLab without api-url or token",
            yaml: """
                repository: {url: https://gitlab.example.com/team/app.git}
                pull-requests: {forks: maybe}
                forge: {kind: gitlab, warnings: amber}
                """,
            expected: [
                "2:24: error: 'forks' must be true, false or approve, not 'maybe'",
                "3:8: error: missing key 'api-url' in 'forge' (a self-hosted gitlab needs its API's URL, such as https://git.example.com/api/v4)",
            ]),
        InvalidBotFile(
            label: "empty file",
            yaml: "",
            expected: ["1:1: error: the file is empty: a bot needs at least 'repository: {url: …}'"]),
        InvalidBotFile(
            label: "not a mapping",
            yaml: "- repository\n",
            expected: ["1:1: error: the file must be a mapping of keys to values, not a list"]),
        InvalidBotFile(
            label: "missing repository",
            yaml: """
                schedule:
                  on-commit: false
                """,
            expected: ["1:1: error: missing key 'repository' (every bot needs 'repository: {url: …}')"]),
        InvalidBotFile(
            label: "repository without url",
            yaml: """
                repository:
                  branch: main
                """,
            expected: ["2:3: error: missing key 'url' in 'repository'"]),
        InvalidBotFile(
            label: "unsupported URL scheme",
            yaml: "repository: {url: 'ftp://example.com/app.git'}\n",
            expected: [
                "1:19: error: unsupported URL scheme 'ftp' (use https, ssh, git, file or a path) (expected https://host/path.git, ssh://host/path, git@host:path or a local path)"
            ]),
        InvalidBotFile(
            label: "URL without a host",
            yaml: "repository: {url: 'https:///app.git'}\n",
            expected: [
                "1:19: error: the repository URL has no host (expected https://host/path.git, ssh://host/path, git@host:path or a local path)"
            ]),
        InvalidBotFile(
            label: "bad branch name",
            yaml: "repository: {url: /srv/git/app.git, branch: 'feature..x'}\n",
            expected: ["1:45: error: 'feature..x' is not a valid branch name"]),
        InvalidBotFile(
            label: "bad duration and zero timeout",
            yaml: """
                repository: {url: /srv/git/app.git}
                schedule:
                  poll: soon
                timeout: 0s
                """,
            expected: [
                "3:9: error: 'poll' must be a duration such as 90s, 2m or 1h30m, not 'soon'",
                "4:10: error: 'timeout' must be longer than zero",
            ]),
        InvalidBotFile(
            label: "units out of order",
            yaml: "repository: {url: /srv/git/app.git}\ntimeout: 30m1h\n",
            expected: ["2:10: error: 'timeout' must be a duration such as 90s, 2m or 1h30m, not '30m1h'"]),
        InvalidBotFile(
            label: "poll too frequent",
            yaml: "repository: {url: /srv/git/app.git}\nschedule: {poll: 5s}\n",
            expected: ["2:18: error: 'poll' must be 0 (webhooks only) or at least 10s, not '5s'"]),
        InvalidBotFile(
            label: "wrong type for a boolean",
            yaml: "repository: {url: /srv/git/app.git}\nschedule: {on-commit: sometimes}\ncancel-superseded: [true]\n",
            expected: [
                "2:23: error: 'on-commit' must be true or false, not 'sometimes'",
                "3:20: error: 'cancel-superseded' must be true or false, not a list",
            ]),
        InvalidBotFile(
            label: "unknown periodic form",
            yaml: "repository: {url: /srv/git/app.git}\nschedule: {periodic: monthly}\n",
            expected: [
                "2:22: error: 'monthly' is not a schedule (use hourly, daily HH:MM, weekly DAY HH:MM or cron \"m h dom mon dow\")"
            ]),
        InvalidBotFile(
            label: "bad daily time",
            yaml: "repository: {url: /srv/git/app.git}\nschedule:\n  periodic: daily 25:00\n",
            expected: ["3:13: error: '25:00' is not a time of day (use HH:MM, 00:00 to 23:59)"]),
        InvalidBotFile(
            label: "bad weekday",
            yaml: "repository: {url: /srv/git/app.git}\nschedule:\n  periodic: weekly funday 02:00\n",
            expected: ["3:13: error: 'funday' is not a day of the week (use mon, tue, wed, thu, fri, sat or sun)"]),
        InvalidBotFile(
            label: "cron value out of range",
            yaml: "repository: {url: /srv/git/app.git}\nschedule:\n  periodic: cron \"61 * * * *\"\n",
            expected: ["3:13: error: cron minute '61' is out of range 0-59"]),
        InvalidBotFile(
            label: "cron with four fields",
            yaml: "repository: {url: /srv/git/app.git}\nschedule:\n  periodic: cron \"*/15 * * *\"\n",
            expected: ["3:13: error: cron needs 5 fields (minute hour day-of-month month day-of-week), found 4"]),
        InvalidBotFile(
            label: "cron bad month name and zero step",
            yaml: "repository: {url: /srv/git/app.git}\nschedule:\n  periodic: cron \"*/0 * * jab *\"\n",
            expected: ["3:13: error: cron minute step in '*/0' must be a whole number of at least 1"]),
        InvalidBotFile(
            label: "cron bad month name",
            yaml: "repository: {url: /srv/git/app.git}\nschedule:\n  periodic: cron \"0 2 * jab mon-fri\"\n",
            expected: ["3:13: error: cron month 'jab' is not a number, range or name"]),
        InvalidBotFile(
            label: "value not among the choices",
            yaml: "repository: {url: /srv/git/app.git}\nclean: sometimes\nsandbox: docker\nbuild: {configuration: Release}\n",
            expected: [
                "2:8: error: 'clean' must be one of never, always, daily, weekly, not 'sometimes'",
                "3:10: error: 'sandbox' must be one of none, bubblewrap, not 'docker'",
                "4:24: error: 'configuration' must be one of debug, release, not 'Release'",
            ]),
        InvalidBotFile(
            label: "arguments not a list of strings",
            yaml: "repository: {url: /srv/git/app.git}\ntest:\n  arguments: {parallel: true}\n",
            expected: ["3:14: error: 'arguments' must be a list, not a mapping"]),
        InvalidBotFile(
            label: "invalid bot name",
            yaml: "name: My App\nrepository: {url: /srv/git/app.git}\n",
            expected: [
                "1:7: error: 'My App' is not a valid bot name (lowercase letters, digits, '.', '_' and '-', starting with a letter or digit)"
            ]),
        InvalidBotFile(
            label: "environment problems",
            yaml: """
                repository: {url: /srv/git/app.git}
                environment:
                  KILN_BOT: x
                  2FAST: y
                  LIST: [a, b]
                secrets: [DEPLOY-TOKEN]
                """,
            expected: [
                "3:3: error: 'KILN_BOT' is reserved: Kiln sets the KILN_ variables itself",
                "4:3: error: '2FAST' is not a variable name (letters, digits and _, not starting with a digit)",
                "5:9: error: 'LIST' must be a string, not a list",
                "6:11: error: 'DEPLOY-TOKEN' is not a variable name (letters, digits and _, not starting with a digit)",
            ]),
        InvalidBotFile(
            label: "script trigger without run, bad on: value",
            yaml: """
                repository: {url: /srv/git/app.git}
                triggers:
                  - name: lint
                    phase: before
                  - name: publish
                    phase: after
                    on: [success, warnings]
                    run: ./publish.sh
                """,
            expected: [
                "3:5: error: missing key 'run' in trigger 'lint' (the shell command this trigger runs)",
                "7:10: error: 'on' value 'success' is not a result (did you mean 'succeeded'?)",
            ]),
        InvalidBotFile(
            label: "trigger without phase, on: for a before trigger, duplicate names",
            yaml: """
                repository: {url: /srv/git/app.git}
                triggers:
                  - name: a
                    run: make
                  - name: b
                    phase: before
                    on: [succeeded]
                    run: make
                  - name: b
                    phase: after
                    run: make
                """,
            expected: [
                "3:5: error: missing key 'phase' in trigger 'a' (before or after)",
                "7:9: error: 'on' applies only to after triggers: before triggers run ahead of any result",
                "9:11: error: trigger name 'b' is used twice; give each script trigger its own name",
            ]),
        InvalidBotFile(
            label: "email triggers: no recipients, bad address, bad issue type, misplaced keys",
            yaml: """
                repository: {url: /srv/git/app.git}
                triggers:
                  - email: report
                    every: daily
                  - email: new-issues
                    issues: [errors, warning]
                    cc: [not-an-address]
                    to: [a@example.com]
                  - email: digest
                    run: make
                  - emial: report
                """,
            expected: [
                "3:5: error: missing key 'to' in the report email trigger (who receives the report)",
                "6:22: error: 'issues' value 'warning' is not an issue type or check (did you mean 'warnings'?)",
                "7:10: error: 'not-an-address' is not an email address (expected name@example.com or Name <name@example.com>)",
                "8:5: error: 'to' does not apply to new-issues emails: they go to the committers who introduced the issues; use 'cc' for anyone else",
                "9:12: error: 'email' must be one of new-issues, report, not 'digest'",
                "10:5: error: 'run' applies only to script triggers",
                "11:5: error: unknown key 'emial' in 'triggers' (did you mean 'email'?)",
                "11:5: error: missing key 'phase' in trigger 4 (before or after)",
                "11:5: error: missing key 'run' in trigger 4 (the shell command this trigger runs)",
            ]),
        InvalidBotFile(
            label: "YAML syntax error",
            yaml: "repository:\n  url: [unclosed\n",
            expected: [
                "3:1: error: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence that starts at line 2, column 8)"
            ]),
        InvalidBotFile(
            label: "tab indentation",
            yaml: "repository:\n\turl: /srv/git/app.git\n",
            expected: [
                "2:1: error: invalid YAML: found character that cannot start any token (while scanning for the next token that starts at line 2, column 1)"
            ]),
        InvalidBotFile(
            label: "duplicate key",
            yaml: "repository: {url: /srv/git/app.git}\nclean: never\nclean: always\n",
            expected: ["2:1: error: duplicate key 'clean' (each key may appear once per mapping)"]),
    ]

    @Test("Each invalid file gets exactly its problems, positioned", arguments: cases)
    func problems(_ file: InvalidBotFile) {
        let path = "Bots/app.yml"
        var reported: [String] = []
        do {
            _ = try BotFile.decode(file.yaml, file: path)
        } catch {
            reported = error.diagnostics.map(\.description)
        }
        #expect(reported == file.expected.map { "\(path):\($0)" })
    }

    @Test("Problems carry the key path, for the API's problem lists")
    func keyPaths() {
        let yaml = "repository: {url: /srv/git/app.git}\nschedule: {poll: soon}\ntriggers:\n  - {name: x, phase: after, on: [nope], run: y}\n"
        var paths: [String] = []
        do {
            _ = try BotFile.decode(yaml, file: "Bots/app.yml")
        } catch {
            paths = error.diagnostics.map(\.keyPath)
        }
        #expect(paths == ["schedule.poll", "triggers[0].on[0]"])
    }

    @Test("A file named badly is reported at its top unless it says name:")
    func fileName() throws {
        var reported: [String] = []
        do {
            _ = try BotFile.decode("repository: {url: /srv/git/app.git}\n", file: "Bots/My App.yml")
        } catch {
            reported = error.diagnostics.map(\.description)
        }
        #expect(
            reported == [
                "Bots/My App.yml:1:1: error: the file name 'My App' is not a valid bot name (lowercase letters, digits, '.', '_' and '-', starting with a letter or digit); rename the file or add 'name:'"
            ])
        let named = try BotFile.decode("name: my-app\nrepository: {url: /srv/git/app.git}\n", file: "Bots/My App.yml")
        #expect(named.name == "my-app")
    }
}
