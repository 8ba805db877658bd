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
import KilnPresentation

extension Workspace {
    /// Runs `command` (through `run`, told of the group) bounded by `limits`: in a control group of
    /// its own (`ControlGroups.host`), watched while it runs, every process in it stopped at once when one
    /// of them reaches a limit, or when its output went past `limits.log` (the log cut it there);
    /// where no group can be made, under rlimits its shell sets, the log cut but the step going on.
    func bounded(
        _ command: StepCommand, step: IntegrationStep, run: (StepCommand, ControlGroup?) async throws(ProcessError) -> ProcessEnd
    ) async throws(ProcessError) -> ProcessEnd {
        guard !limits.isEmpty else { return try await run(command, nil) }
        guard let group = ControlGroups.host.group(limits) else { return try await run(Self.underRlimits(command, limits), nil) }
        let log = self.log
        let ended: Result<ProcessEnd, ProcessError>
        var reached: ResourceLimit?
        (ended, reached) = await withTaskGroup(of: ResourceLimit?.self) { watchers in
            watchers.addTask { [directory] in await Self.watch(group, log: log, step: step, workspace: directory) }
            let ended: Result<ProcessEnd, ProcessError>
            do throws(ProcessError) {
                ended = .success(try await run(Self.joining(group, command), group))
            } catch {
                ended = .failure(error)
            }
            watchers.cancelAll()
            var reached: ResourceLimit?
            for await found in watchers where found != nil { reached = found }
            return (ended, reached)
        }
        let seen = reached
        reached = reached ?? group.reached()
        let left = await group.remove()
        if !left.isEmpty { await log.note("the control groups \(left.joined(separator: ", ")) could not be removed: remove them by hand (rmdir)") }
        guard let reached else { return try ended.get() }
        let found = LimitReached(limit: reached, value: limits.value(of: reached), step: step)
        // the kernel ended a process, and so the step, before the next look: said now, where it ends
        if seen == nil { await log.note("\(LimitText.sentence(found)): stopping every process of the step") }
        if reached == .disk {
            // freed now, not at the next integration: the next one starts from a new checkout
            do throws(StaleFile) {
                try StaleFile.remove(directory)
                await log.note("the workspace was removed: the next integration checks out anew")
            } catch {
                await log.note("\(error)")
            }
        }
        return .limitReached(found)
    }

    /// Looks at `group`'s events (and whether the log was cut at `limits.log`) every 100 ms, and
    /// at what `workspace` holds every second (`limits.disk`), until canceled: at the first limit
    /// reached, says so in the log and stops every process in the group.
    static func watch(_ group: ControlGroup, log: IntegrationLog, step: IntegrationStep, workspace: String) async -> ResourceLimit? {
        var round = 0
        while !Task.isCancelled {
            var found = group.reached()
            if found == nil, group.limits.log != nil, await log.isTruncated { found = .log }
            if found == nil, round % 10 == 9, let disk = group.limits.disk, DiskUsage.exceeds(workspace, disk) { found = .disk }
            round += 1
            if let limit = found {
                let reached = LimitReached(limit: limit, value: group.limits.value(of: limit), step: step)
                await log.note("\(LimitText.sentence(reached)): stopping every process of the step")
                await group.killAll()
                return limit
            }
            do { try await Task.sleep(for: .milliseconds(100)) } catch { return nil }
        }
        return nil
    }

    /// `command`, its shell first joining `group` (in each hierarchy, `ControlGroup.joinFiles`), so
    /// that nothing it starts runs outside; 125 when it cannot join.
    static func joining(_ group: ControlGroup, _ command: StepCommand) -> StepCommand {
        let join = group.joinFiles.map { "echo \(group.joinValue) > " + StepCommand.quoted($0) }.joined(separator: " && ")
        return preceded(command, by: "{ \(join); } || exit 125")
    }

    /// `command` under rlimits its shell sets: memory as the data segment's size, processes per
    /// user (which root is not held to). Kiln's start says that this is all the host allows.
    static func underRlimits(_ command: StepCommand, _ limits: ResourceLimits) -> StepCommand {
        var settings: [String] = []
        if let memory = limits.memory { settings.append("ulimit -d \(memory / 1024)") }
        if let processes = limits.processes { settings.append("ulimit -u \(processes)") }
        guard !settings.isEmpty else { return command }
        return preceded(command, by: settings.map { "\($0) 2>/dev/null" }.joined(separator: "; "))
    }

    /// `command` after the shell commands of `prefix`, shown as it was. A shell command (a
    /// trigger's script) runs them in its own shell, before its first line so that its line
    /// numbers stay as written: one shell started, not two (0.5–0.8 ms a step, measured here);
    /// anything else is started by a shell that runs them and then `exec`s it.
    static func preceded(_ command: StepCommand, by prefix: String) -> StepCommand {
        guard let script = command.script else { return command.wrapped("/bin/sh", ["-c", prefix + #"; exec "$@""#, "kiln-limits"]) }
        var preceded = StepCommand.shell(prefix + "; " + script)
        preceded.shown = command.display
        return preceded
    }
}

extension ResourceLimits {
    /// The value of `limit`: bytes, a count, cores.
    func value(of limit: ResourceLimit) -> Double {
        switch limit {
        case .memory: memory.map(Double.init) ?? 0
        case .processes: processes.map(Double.init) ?? 0
        case .cpus: cpus ?? 0
        case .disk: disk.map(Double.init) ?? 0
        case .log: log.map(Double.init) ?? 0
        }
    }
}
