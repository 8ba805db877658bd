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

/// A command an integration runs: a build, a test run, a trigger script.
public struct StepCommand: Sendable, Hashable {
    public var executable: String
    public var arguments: [String]
    /// What the log header shows instead of the command line; nil: the command line.
    var shown: String?

    public init(_ executable: String, _ arguments: [String] = []) {
        self.executable = executable
        self.arguments = arguments
    }

    /// A shell command, run with `/bin/sh -c`.
    public static func shell(_ script: String) -> StepCommand { StepCommand("/bin/sh", ["-c", script]) }

    /// `text` as one word for `/bin/sh`.
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The command with its output (and its children's) written line by line, not in blocks: a
    /// test binary writing to a pipe otherwise holds its lines until it exits, so no failure could
    /// be read before the end. Through coreutils' `stdbuf`; without it, the command as it is.
    func lineBuffered() -> StepCommand {
        guard access(Self.stdbuf, X_OK) == 0 else { return self }
        var command = StepCommand(Self.stdbuf, ["-oL", "-eL", executable] + arguments)
        command.shown = display + "   (line by line: stdbuf -oL -eL)"
        return command
    }

    static let stdbuf = "/usr/bin/stdbuf"

    /// The command run by `executable` with `arguments` first (a wrapper that `exec`s it), shown
    /// as it was.
    func wrapped(_ executable: String, _ arguments: [String]) -> StepCommand {
        var command = StepCommand(executable, arguments + [self.executable] + self.arguments)
        command.shown = display
        return command
    }

    /// The script, when this is a shell command (`shell`) and nothing else.
    var script: String? { executable == "/bin/sh" && arguments.count == 2 && arguments[0] == "-c" ? arguments[1] : nil }

    /// The command as a log header shows it.
    public var display: String {
        if let shown { return shown }
        if let script { return script }
        return ([executable] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }
}
