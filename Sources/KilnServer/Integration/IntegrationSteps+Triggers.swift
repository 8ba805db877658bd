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

import KilnBuild
import KilnCore
import KilnStore

extension IntegrationSteps {
    // MARK: Triggers

    /// Runs the bot's script triggers of `phase` in the workspace, in order (an after trigger only
    /// when its `on` lists `result`); a before trigger that fails ends the integration. What each
    /// did goes in `course.triggers`.
    func runTriggers(_ phase: TriggerPhase, result: IntegrationResult?, _ course: inout Course) async throws(Stop) {
        let scripts = bot.triggers.compactMap { trigger -> ScriptTrigger? in
            guard case .script(let script) = trigger, script.phase == phase else { return nil }
            if let result, !script.on.contains(result) { return nil }
            return script
        }
        guard !scripts.isEmpty || phase == .before else { return }
        // The step is recorded while its first script starts, not before: a trigger's process
        // starts a write sooner. A lost claim or a failed record still ends the integration, once
        // the scripts have run.
        let (step, claim, store, clock) = (phase == .before ? IntegrationStep.beforeTriggers : .afterTriggers, claim, store, context.clock)
        async let recording = Self.record(step, of: claim, in: store, now: clock.now)
        var stopped: Stop?
        do throws(Stop) {
            try await enter(step, &course, recordedHere: false)
            try await run(scripts, phase: phase, result: result, &course)
        } catch {
            stopped = error
        }
        try recorded(step, await recording)
        if let stopped { throw stopped }
    }

    private func run(_ scripts: [ScriptTrigger], phase: TriggerPhase, result: IntegrationResult?, _ course: inout Course) async throws(Stop) {
        var workspace = workspace
        workspace.archive = course.archive
        for script in scripts {
            let start = context.clock.monotonic.now
            let end = try ended(
                try await attempt(workspaceGone: .triggerError) { [workspace, commit = course.commit, step = course.step] in
                    try await workspace.run(.shell(script.run), step: step, commit: commit, result: result)
                })
            let status: Int
            switch end {
            case .exited(let code): status = Int(code)
            case .signaled(let signal): status = 128 + Int(signal)
            case .timedOut, .canceled, .stopped, .limitReached: status = -1
            }
            course.triggers.append(
                TriggerRun(name: script.name, phase: phase, exitStatus: status, duration: context.clock.monotonic.since(start).seconds))
            if status != 0 {
                await log.note("trigger '\(script.name)' failed with exit status \(status)")
                if phase == .before { throw stop(.triggerError, .triggerFailed(name: script.name, status: status)) }
            }
        }
    }
}
