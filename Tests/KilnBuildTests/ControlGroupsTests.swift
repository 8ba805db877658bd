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

@testable import KilnBuild

@Suite("Control groups: how a step joins its group, and what the start says about the moves")
struct ControlGroupsTests {
    static let v1Host = """
        tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
        cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
        cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0
        """

    @Test(
        "A process's move waits on cgroup2 without favordynmods, a cgroup2 mount with it ends the wait; on v1 the shell moves its only thread, and the start says nothing"
    )
    func movesWait() {
        #expect(ControlGroups.v1(memory: "/sys/fs/cgroup/memory", pids: nil, cpu: nil).waitNotice == nil)
        #expect(ControlGroups.movesWait(mounts: Self.v1Host))
        #expect(ControlGroups.movesWait(mounts: "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n"))
        #expect(!ControlGroups.movesWait(mounts: "cgroup2 /sys/fs/cgroup cgroup2 rw,relatime,nsdelegate,favordynmods 0 0\n"))
        // the option counts on any cgroup2 mount: the kernel's lock it relaxes is one for the host
        #expect(!ControlGroups.movesWait(mounts: Self.v1Host + "\nnone /tmp/cg2 cgroup2 rw,relatime,favordynmods 0 0\n"))
        // a v1 hierarchy's options, or a path that says it, are not the option
        #expect(ControlGroups.movesWait(mounts: "cgroup /favordynmods cgroup rw,favordynmods 0 0\n"))
    }

    @Test("Hosts bounded by rlimits alone have nothing to wait for")
    func rlimitsSayNothing() {
        #expect(ControlGroups.rlimits(reason: "no hierarchy").waitNotice == nil)
    }

    @Test(
        "A step joins its group before it runs: a script in its own shell (its line numbers as written), a program through a shell that execs it; a join that fails runs nothing and exits 125"
    )
    func joining() async throws {
        let directory = try TemporaryDirectory()
        // Two hierarchies' directories, one with a quote in its path.
        var group = ControlGroup(limits: ResourceLimits(memory: 1 << 30, processes: 64))
        group.directories = [directory.url("memory"), directory.url("it's pids")]
        for folder in group.directories { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        func joined() throws -> [String] {
            try group.joinFiles.map { try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
        }

        // dash has no $LINENO: the line its error names tells.
        let script = Workspace.joining(group, .shell("echo $$\nno-such-command-kiln"))
        #expect(script.display == "echo $$\nno-such-command-kiln", "the log shows the script as written")
        #expect(
            script.executable == "/bin/sh" && script.arguments.count == 2 && script.arguments[1].hasSuffix("; echo $$\nno-such-command-kiln"),
            "one shell joins and runs the script, none before it: \(script.arguments)")
        let ran = try await runProcess(script.executable, script.arguments)
        let pid = try joined()
        #expect(pid.count == 2 && pid[0] == pid[1], "\(pid)")
        #expect(ran.standardOutput == "\(pid[0])\n", "the script's own shell joined: \(ran.standardOutput)")
        #expect(ran.standardError.contains(": 2: no-such-command-kiln: not found"), "its line numbers as written: \(ran.standardError)")

        let program = Workspace.joining(group, StepCommand("/bin/sh", ["-c", "echo $$", "named"]))
        let started = try await runProcess(program.executable, program.arguments)
        let programPid = started.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try joined() == [programPid, programPid], "exec'd in the shell that joined")

        group.directories.append(directory.url("missing"))
        let refused = Workspace.joining(group, .shell("echo ran"))
        let failed = try await runProcess(refused.executable, refused.arguments)
        #expect(failed.status == 125 && !failed.standardOutput.contains("ran"), "\(failed.status) \(failed.standardOutput)")
    }

    @Test("On this host's control groups, a step's shell joins each hierarchy's group, and what it starts is born there")
    func joinsThisHost() async throws {
        let limits = ResourceLimits(memory: 1 << 30, processes: 256, cpus: 1)
        let group = try #require(
            ControlGroups.host.group(limits), "this host gives Kiln no control group to make (\(ControlGroups.host.sentence)): run the tests as root")
        let joined = Workspace.joining(group, .shell("cat /proc/self/cgroup"))
        let ran = try await runProcess(joined.executable, joined.arguments)
        let left = await group.remove()
        #expect(ran.status == 0, "\(ran.standardError)")
        let name = try #require(group.directories.first.map { ($0 as NSString).lastPathComponent })
        let inGroup = ran.standardOutput.split(separator: "\n").filter { $0.hasSuffix("/" + name) }
        #expect(inGroup.count == group.directories.count, "in each of \(group.directories): \(ran.standardOutput)")
        #expect(left.isEmpty, "removed: \(left)")
        if case .v1 = ControlGroups.host { #expect(group.joinFiles.allSatisfy { $0.hasSuffix("/tasks") } && group.joinValue == "0") }
    }

    @Test(
        "A step in a control group of its own leaves nothing behind without a sweep of /proc: what left its session is stopped as a member of the group, when it ends and when it is stopped"
    )
    func groupStopsEscapes() async throws {
        let limits = ResourceLimits(processes: 256)
        let directory = try TemporaryDirectory()
        let log = IntegrationLog(path: directory.url("1.log"), secrets: [])
        let environment = ["PATH": "/usr/bin:/bin"]
        for (escape, deadline) in [("sleep 316", ContinuousClock.now + .seconds(60)), ("sleep 317", ContinuousClock.now + .seconds(1))] {
            let group = try #require(
                ControlGroups.host.group(limits),
                "this host gives Kiln no control group to make (\(ControlGroups.host.sentence)): run the tests as root")
            // setsid and a double fork: neither the step's process group nor its session holds them;
            // no mark either, so only the group can find them. The second step outlives its deadline.
            let step = Workspace.joining(
                group,
                .shell(
                    "setsid \(escape) > /dev/null 2>&1 & (\(escape) > /dev/null 2>&1 &); echo started; [ \"\(escape)\" = 'sleep 316' ] || sleep 318"))
            let end = try await ProcessRunner.run(step, in: directory.path, environment: environment, log: log, deadline: deadline, group: group)
            #expect(end == (escape == "sleep 316" ? .exited(0) : .timedOut), "\(end)")
            #expect(try await leftoverProcesses(matching: escape).isEmpty, "\(escape) was stopped with its step")
            #expect(await group.remove().isEmpty)
        }
        #expect(try await leftoverProcesses(matching: "sleep 318").isEmpty)
    }
}
