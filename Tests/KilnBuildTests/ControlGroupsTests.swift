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

import Testing

@testable import KilnBuild

@Suite("Control groups: what the start says about moving a step into its group")
struct ControlGroupsTests {
    static let v1Host = """
        tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
        cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
        cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0
        """

    @Test("Moves wait on v1 and on cgroup2 without favordynmods; a cgroup2 mount with it ends the wait")
    func movesWait() {
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
}
