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

/// The workspace snapshots being packed after their integrations' results: neither the verdict
/// nor the executor, which goes on to its next integration, waits for a pack (a cold build's
/// `.build` takes a few hundred milliseconds of both cores, `docs/performance.md`). Each pack
/// holds its workspace until it ends (`WorkspaceHolds`), so one workspace has one pack at a time.
///
/// A pack runs at the lowest priority, taking only what integrations leave of the cores: its
/// processes niced to 19, and the kernel's scheduling group of its session too (autogroups weigh
/// each session's group alike, whatever its processes' niceness). It is raised to the normal
/// priority once something waits for it: the bot's next integration in that workspace, or the
/// end (`kiln run` before it exits, a server that stops), so that a busy host does not starve it.
actor SnapshotPacker {
    /// The packs under way, by the order they started in.
    private var packing: [Int: Task<Void, Never>] = [:]
    private var started = 0
    /// The session leader of each workspace's pack, by workspace folder.
    private var sessions: [String: pid_t] = [:]
    /// The workspaces being packed (how many packs of each: the next may start as the last
    /// releases the workspace), and those whose pack something waits for.
    private var active: [String: Int] = [:]
    private var hurried: Set<String> = []

    /// Runs `pack` for the workspace at `directory` beside whatever runs next, and returns;
    /// `pack` tells `began` its process.
    func start(_ directory: String, _ pack: @escaping @Sendable (_ began: @escaping @Sendable (pid_t) async -> Void) async -> Void) {
        started += 1
        let number = started
        active[directory, default: 0] += 1
        // owned here until it ends (`settle` awaits it)
        packing[number] = Task {
            await pack { pid in await self.began(pid, in: directory) }
            self.ended(number, in: directory)
        }
    }

    private func began(_ pid: pid_t, in directory: String) {
        sessions[directory] = pid
        Self.prioritize(pid, nice: hurried.contains(directory) ? 0 : 19)
    }

    private func ended(_ number: Int, in directory: String) {
        packing[number] = nil
        active[directory, default: 1] -= 1
        if active[directory] == 0 {
            active[directory] = nil
            sessions[directory] = nil
            hurried.remove(directory)
        }
    }

    /// Raises the pack of the workspace at `directory`, if one runs, to the normal priority:
    /// something waits for it.
    func hurry(_ directory: String) {
        guard active[directory] != nil else { return }
        hurried.insert(directory)
        if let pid = sessions[directory] { Self.prioritize(pid, nice: 0) }
    }

    /// Returns once no pack is under way, raised to the normal priority: `kiln run` before it
    /// exits, a server that stops. A caller canceled stops the packs (their tar is ended and its
    /// partial pack removed).
    func settle() async {
        for directory in active.keys { hurry(directory) }
        while let (_, task) = packing.first {
            await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
            if Task.isCancelled { return }
        }
    }

    /// Sets the niceness of the session `leader` leads: of its scheduling group, and of its
    /// processes (its process group). Lowering is always allowed; raising back to 0 is allowed
    /// for the group, and for the processes when Kiln runs as root or RLIMIT_NICE allows it.
    private static func prioritize(_ leader: pid_t, nice: Int32) {
        // without autogroups (a kernel built without, or a process in a control group of its
        // own) there is no such file, and the processes' niceness alone applies
        if let group = fopen("/proc/\(leader)/autogroup", "w") {
            fputs("\(nice)", group)
            fclose(group)
        }
        // the session's processes: the pack's shell, tar and zstd (nothing to do once they end)
        _ = setpriority(__priority_which_t(PRIO_PGRP.rawValue), id_t(leader), nice)
    }
}
