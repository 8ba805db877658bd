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
import Synchronization

/// How this host bounds a step's processes (`limits:`): a control group of their own beneath
/// Kiln's, where Kiln can make one (cgroup v2, or v1's `memory`, `pids` and `cpu` hierarchies);
/// else rlimits the step's shell sets before it starts the command (memory as the data segment's
/// size, processes per user: weaker, and nothing tells when they were reached).
public enum ControlGroups: Sendable, Hashable {
    /// cgroup v2: groups are made in `parent`, whose subtree has the controllers.
    case v2(parent: String)
    /// cgroup v1: each hierarchy's directory of Kiln's own group, where it could make one.
    case v1(memory: String?, pids: String?, cpu: String?)
    /// No control group Kiln can make: why.
    case rlimits(reason: String)

    /// What this process can use, looked at once (making and removing a group to see).
    public static let host = detect()

    /// What a `kiln serve` of this host would use, looked at without changing anything (for
    /// `kiln status`): whether the groups' directories may be written, not whether a group can
    /// be made there.
    public static func lookingOnly() -> ControlGroups { detect(trying: false) }

    /// What the start of `kiln serve` and `kiln status` say.
    public var sentence: String {
        switch self {
        case .v2(let parent): "limits: control groups (cgroup v2) beneath \(parent)"
        case .v1(let memory, let pids, let cpu):
            "limits: control groups (cgroup v1) for "
                + [memory.map { _ in "memory" }, pids.map { _ in "processes" }, cpu.map { _ in "cpus" }].compactMap { $0 }.joined(separator: ", ")
        case .rlimits(let reason): "limits: rlimits only (\(reason)): memory and processes bounded per process, cpus not at all"
        }
    }

    /// What the start says after `sentence` when moving a step's shell into its group waits: on
    /// cgroup v2 the kernel holds every move of a process until an RCU grace period has passed
    /// (12–17 ms a move on this project's v1 hosts, where processes were moved before), unless a
    /// cgroup2 hierarchy is mounted with `favordynmods` (Linux 6.0+), which makes moves cheap for
    /// the whole host and forks and exits a little dearer. On v1 the shell moves its one thread
    /// (`tasks`), which the kernel does without that wait. Nil when moves are cheap, or there are
    /// no groups.
    public var waitNotice: String? {
        guard case .v2 = self else { return nil }
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        return Self.movesWait(mounts: mounts)
            ? "limits: each step's start waits about 10 ms for the kernel to move its shell into its group;"
                + " mounting cgroup2 with favordynmods (Linux 6.0+) ends the wait (docs/operations.md#limits)"
            : nil
    }

    /// Whether moving a process between groups waits for an RCU grace period: no `cgroup2`
    /// mount in `mounts` (the format of /proc/self/mounts) has the `favordynmods` option.
    static func movesWait(mounts: String) -> Bool {
        !mounts.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[2] == "cgroup2" && fields[3].split(separator: ",").contains("favordynmods")
        }
    }

    static func detect(root: String = "/sys/fs/cgroup", own: String = "/proc/self/cgroup", trying: Bool = true) -> ControlGroups {
        let probe = { (directory: String) in trying ? Self.probe(directory) : access(directory, W_OK) == 0 }
        let lines = ((try? String(contentsOfFile: own, encoding: .utf8)) ?? "").split(separator: "\n")
        var v1: [String: String] = [:]
        var unified: String?
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let (controllers, path) = (parts[1], String(parts[2]))
            if controllers.isEmpty {
                unified = path
                continue
            }
            for controller in controllers.split(separator: ",") where ["memory", "pids", "cpu"].contains(String(controller)) {
                for mount in ["\(root)/\(controllers)", "\(root)/\(controller)"] where FileManager.default.fileExists(atPath: mount + "/tasks") {
                    v1[String(controller)] = mount + (path == "/" ? "" : path)
                    break
                }
            }
        }
        if let unified, FileManager.default.fileExists(atPath: "\(root)/cgroup.controllers") {
            let parent = root + (unified == "/" ? "" : unified)
            let wanted = ["memory", "pids", "cpu"]
            let enabled = ((try? String(contentsOfFile: parent + "/cgroup.subtree_control", encoding: .utf8)) ?? "").split(separator: " ")
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            let missing = wanted.filter { !enabled.contains($0) }
            let control = parent + "/cgroup.subtree_control"
            let writable =
                missing.isEmpty
                || (trying ? write(missing.map { "+\($0)" }.joined(separator: " "), to: control) : access(control, W_OK) == 0)
            return writable && probe(parent)
                ? .v2(parent: parent)
                : .rlimits(reason: "Kiln's control group \(parent) cannot have children with the memory, pids and cpu controllers")
        }
        let usable = v1.filter { probe($0.value) }
        guard !usable.isEmpty else {
            return .rlimits(
                reason: v1.isEmpty ? "no control group hierarchy for memory, pids or cpu" : "Kiln cannot make control groups beneath its own")
        }
        return .v1(memory: usable["memory"], pids: usable["pids"], cpu: usable["cpu"])
    }

    /// Whether a group can be made (and removed) in `directory`.
    private static func probe(_ directory: String) -> Bool {
        let trial = "\(directory)/kiln-probe-\(getpid())"
        guard mkdir(trial, 0o755) == 0 || errno == EEXIST else { return false }
        return rmdir(trial) == 0
    }

    static func write(_ text: String, to file: String) -> Bool {
        guard let handle = FileHandle(forWritingAtPath: file) else { return false }
        defer { try? handle.close() }  // a close after a write that went through loses nothing
        do {
            try handle.write(contentsOf: Data(text.utf8))
            return true
        } catch {
            return false
        }
    }

    private static let made = Atomic<Int>(0)

    /// A new group bounded by `limits`; nil when this host has none to make (rlimits, or nothing
    /// to bound) or one cannot be made now (then the step runs bounded by rlimits).
    public func group(_ limits: ResourceLimits) -> ControlGroup? {
        guard !limits.isEmpty else { return nil }
        let name = "kiln-\(getpid())-\(Self.made.add(1, ordering: .relaxed).newValue)"
        var group = ControlGroup(limits: limits)
        switch self {
        case .rlimits: return nil
        case .v2(let parent):
            let directory = "\(parent)/\(name)"
            guard mkdir(directory, 0o755) == 0 else { return nil }
            group.directories = [directory]
            group.memory = limits.memory.map { _ in directory }
            group.pids = limits.processes.map { _ in directory }
            var written = true
            if let memory = limits.memory {
                written = Self.write("\(memory)", to: directory + "/memory.max") && written
                // no swap beyond the limit (a kernel without swap accounting has no such file)
                _ = Self.write("0", to: directory + "/memory.swap.max")
            }
            if let processes = limits.processes { written = Self.write("\(processes)", to: directory + "/pids.max") && written }
            if let cpus = limits.cpus { written = Self.write("\(Int(cpus * 100_000)) 100000", to: directory + "/cpu.max") && written }
            guard written else {
                group.discard()
                return nil
            }
        case .v1(let memory, let pids, let cpu):
            group.joinsByThread = true
            var written = true
            if let memory, let bytes = limits.memory {
                let directory = "\(memory)/\(name)"
                guard mkdir(directory, 0o755) == 0 else { return nil }
                group.directories.append(directory)
                group.memory = directory
                written = Self.write("\(bytes)", to: directory + "/memory.limit_in_bytes") && written
                // no swap beyond the limit (a kernel without swap accounting has no such file)
                _ = Self.write("\(bytes)", to: directory + "/memory.memsw.limit_in_bytes")
            }
            if let pids, let processes = limits.processes {
                let directory = "\(pids)/\(name)"
                if mkdir(directory, 0o755) == 0 {
                    group.directories.append(directory)
                    group.pids = directory
                    written = Self.write("\(processes)", to: directory + "/pids.max") && written
                } else {
                    written = false
                }
            }
            if let cpu, let cpus = limits.cpus {
                let directory = "\(cpu)/\(name)"
                if mkdir(directory, 0o755) == 0 {
                    group.directories.append(directory)
                    written = Self.write("100000", to: directory + "/cpu.cfs_period_us") && written
                    written = Self.write("\(Int(cpus * 100_000))", to: directory + "/cpu.cfs_quota_us") && written
                } else {
                    written = false
                }
            }
            guard written, !group.directories.isEmpty else {
                group.discard()
                return nil
            }
        }
        return group
    }
}

/// One step's control group: in each hierarchy, the directory its processes join.
public struct ControlGroup: Sendable {
    let limits: ResourceLimits
    var directories: [String] = []
    /// The directories whose events say the memory or the processes limit was reached.
    var memory: String?
    var pids: String?
    /// Whether a single-threaded process joins by moving its thread (v1's `tasks`, written `0`
    /// for the writer itself): the kernel moves the current thread without the global lock whose
    /// grace period a process's move (`cgroup.procs`) waits for, 12–17 ms on this project's hosts
    /// against 15–70 µs. A shell has one thread, and what it starts is born in the group.
    var joinsByThread = false

    /// The files a process writes to, to join the group, and what it writes there (`$$`: the
    /// shell's own pid).
    var joinFiles: [String] { directories.map { $0 + (joinsByThread ? "/tasks" : "/cgroup.procs") } }
    var joinValue: String { joinsByThread ? "0" : "$$" }

    /// The limit the processes reached, if any: the kernel ended one for memory, or refused a
    /// fork for processes.
    func reached() -> ResourceLimit? {
        if let memory, Self.count("oom_kill", in: memory + "/memory.events") ?? Self.count("oom_kill", in: memory + "/memory.oom_control") ?? 0 > 0 {
            return .memory
        }
        if let pids, Self.count("max", in: pids + "/pids.events") ?? 0 > 0 { return .processes }
        return nil
    }

    /// The number after `key` in a flat-keyed file (`oom_kill 1`), nil when there is no such key.
    static func count(_ key: String, in file: String) -> Int? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == key { return Int(words[1]) }
        }
        return nil
    }

    /// The processes in the group now (its first hierarchy's `cgroup.procs`; none when it cannot
    /// be read, as when the group is gone).
    func members() -> [pid_t] {
        guard let directory = directories.first else { return [] }
        let listed = (try? String(contentsOfFile: directory + "/cgroup.procs", encoding: .utf8)) ?? ""
        return listed.split(separator: "\n").compactMap { pid_t($0) }
    }

    /// Kills every process in the group now, once: `killAll` repeats it until none is left.
    func killMembers() {
        for pid in members() { sendSignal(SIGKILL, to: pid) }
    }

    /// Kills every process in the group, again until none is left (a fork bomb forks while it is
    /// being stopped), a few hundred rounds at most.
    func killAll() async {
        for _ in 0..<300 {
            let pids = members()
            if pids.isEmpty { return }
            for pid in pids { sendSignal(SIGKILL, to: pid) }
            // canceled: the rounds go on without a pause, as many as are left
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Removes the group, once its processes are gone (it kills what is left): the directories
    /// that could not be removed.
    @discardableResult
    func remove() async -> [String] {
        await killAll()
        var left: [String] = []
        for directory in directories.reversed() {
            // an empty group goes at once; one whose last process is still being reaped, moments later
            var removed = false
            for _ in 0..<200 {
                if rmdir(directory) == 0 || errno == ENOENT {
                    removed = true
                    break
                }
                guard errno == EBUSY else { break }
                // canceled: the rounds go on without a pause, as many as are left
                try? await Task.sleep(for: .milliseconds(5))
            }
            if !removed { left.append(directory) }
        }
        return left
    }

    /// Removes a group no process has joined yet (one that could not be set up).
    func discard() {
        for directory in directories.reversed() { rmdir(directory) }
    }
}
