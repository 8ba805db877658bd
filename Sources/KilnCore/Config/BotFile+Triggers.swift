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

import Yams

extension BotFile {
    static let scriptTriggerKeys = ["name", "phase", "on", "run"]
    static let emailTriggerKeys = ["email", "issues", "to", "cc", "allowed-domains", "every"]

    static func decodeTriggers(_ node: Node, path: ConfigPath, reader: ConfigReader) -> [Trigger] {
        guard case .sequence(let sequence) = node else {
            reader.error("'triggers' must be a list of triggers, not \(ConfigReader.kind(of: node))", at: node, path: path)
            return []
        }
        var triggers: [Trigger] = []
        var scriptNames: Set<String> = []
        for (index, item) in sequence.enumerated() {
            let itemPath = path.index(index)
            guard var fields = reader.mapping(item, path: itemPath, keys: scriptTriggerKeys + emailTriggerKeys, what: "a trigger") else { continue }
            fields.name = triggerName(fields, position: index + 1)
            if fields["email"] != nil {
                reportMisplaced(fields, keys: ["name", "phase", "on", "run"], applyTo: "script triggers", reader: reader)
                if let trigger = decodeEmailTrigger(fields, reader: reader) { triggers.append(.email(trigger)) }
            } else {
                reportMisplaced(fields, keys: ["issues", "to", "cc", "allowed-domains", "every"], applyTo: "email triggers", reader: reader)
                guard let trigger = decodeScriptTrigger(fields, position: index + 1, reader: reader) else { continue }
                if !scriptNames.insert(trigger.name).inserted, let nameNode = fields["name"] {
                    reader.error(
                        "trigger name '\(trigger.name)' is used twice; give each script trigger its own name", at: nameNode, path: fields.path("name")
                    )
                }
                triggers.append(.script(trigger))
            }
        }
        return triggers
    }

    /// `trigger 'lint'`, `the report email trigger`, `trigger 3`: how messages name a trigger.
    private static func triggerName(_ fields: MappingFields, position: Int) -> String {
        if case .scalar(let scalar)? = fields["name"] { return "trigger '\(scalar.string)'" }
        if case .scalar(let scalar)? = fields["email"] { return "the \(scalar.string) email trigger" }
        return "trigger \(position)"
    }

    private static func reportMisplaced(_ fields: MappingFields, keys: [String], applyTo kind: String, reader: ConfigReader) {
        for key in keys {
            guard let entry = fields.fields[key] else { continue }
            reader.error("'\(key)' applies only to \(kind)", at: entry.key, path: fields.path(key))
        }
    }

    private static func decodeScriptTrigger(_ fields: MappingFields, position: Int, reader: ConfigReader) -> ScriptTrigger? {
        var name = "trigger-\(position)"
        if let node = fields["name"], let text = reader.string(node, path: fields.path("name"), expected: "a name") { name = text }
        let phase = fields.required("phase", in: reader, hint: " (before or after)").flatMap {
            reader.choice($0, path: fields.path("phase"), as: TriggerPhase.self)
        }
        let run = fields.required("run", in: reader, hint: " (the shell command this trigger runs)").flatMap {
            reader.string($0, path: fields.path("run"), expected: "a shell command")
        }
        var results = Set(IntegrationResult.allCases)
        if let node = fields["on"] {
            if phase == .before {
                reader.error("'on' applies only to after triggers: before triggers run ahead of any result", at: node, path: fields.path("on"))
            } else if let names = reader.choices(node, path: fields.path("on"), names: IntegrationResult.allCases.map(\.rawValue), what: "a result") {
                results = Set(names.compactMap(IntegrationResult.init(rawValue:)))
            }
        }
        guard let phase, let run else { return nil }
        return ScriptTrigger(name: name, phase: phase, on: results, run: run)
    }

    private static func decodeEmailTrigger(_ fields: MappingFields, reader: ConfigReader) -> EmailTrigger? {
        guard let emailNode = fields["email"] else { return nil }
        enum Kind: String, CaseIterable { case newIssues = "new-issues", report }
        let kind = reader.choice(emailNode, path: fields.path("email"), as: Kind.self)
        var trigger = EmailTrigger(kind: .report(.integration))
        if let node = fields["cc"], let value = reader.emailAddresses(node, path: fields.path("cc")) { trigger.cc = value }
        if let node = fields["allowed-domains"] {
            trigger.allowedDomains =
                reader.list(node, path: fields.path("allowed-domains")) { item, path in
                    guard let domain = reader.string(item, path: path, expected: "a domain") else { return nil }
                    guard EmailAddress("postmaster@\(domain)") != nil else {
                        reader.error("'\(domain)' is not a domain name (expected example.com)", at: item, path: path)
                        return nil
                    }
                    return domain.lowercased()
                } ?? []
        }
        switch kind {
        case .newIssues:
            var selection = IssueSelection.all
            if let node = fields["issues"],
                let names = reader.choices(node, path: fields.path("issues"), names: IssueSelection.names, what: "an issue type or check")
            {
                selection = IssueSelection(names: names)
            }
            trigger.kind = .newIssues(selection)
            for key in ["to", "every"] {
                guard let entry = fields.fields[key] else { continue }
                let why =
                    key == "to"
                    ? "they go to the committers who introduced the issues; use 'cc' for anyone else"
                    : "they are sent after each integration that introduced issues"
                reader.error("'\(key)' does not apply to new-issues emails: \(why)", at: entry.key, path: fields.path(key))
            }
        case .report:
            var every = ReportFrequency.integration
            if let node = fields["every"], let value = reader.choice(node, path: fields.path("every"), as: ReportFrequency.self) { every = value }
            trigger.kind = .report(every)
            if let entry = fields.fields["issues"] {
                reader.error("'issues' applies only to new-issues emails", at: entry.key, path: fields.path("issues"))
            }
            if let node = fields.required("to", in: reader, hint: " (who receives the report)"),
                let addresses = reader.emailAddresses(node, path: fields.path("to"))
            {
                if addresses.isEmpty {
                    reader.error("'to' must list at least one address for a report", at: node, path: fields.path("to"))
                }
                trigger.to = addresses
            }
        case nil:
            return nil
        }
        return trigger
    }
}
