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
import KilnGit
import KilnPresentation
import KilnStore

extension IntegrationSteps {
    // MARK: Steps

    /// The `checkout` step: the commit, the commits it brings and the baseline go in `course`.
    func checkout(_ course: inout Course) async throws(Stop) {
        try await enter(.checkout, &course)
        let pullRequest = integration.pullRequest
        if let pullRequest {
            let from = pullRequest.fork ? " from a fork (no secrets)" : ""
            await log.header(
                "checkout: \(bot.repository.url.redacted) pull request #\(pullRequest.number) (\(pullRequest.head) into \(pullRequest.base))\(from)")
        } else {
            await log.header("checkout: \(bot.repository.url.redacted) \(bot.repository.branch)")
        }
        let (mirrors, store, claim, repository, commit) = (context.mirrors, store, claim, bot.repository, course.commit)
        do {
            course.wiped = try workspace.prepare(now: context.clock.now)
            let notes = NoteCollector()
            // A pull request's commits are those its head adds to the base branch as it is now;
            // the branch's are those since its previous integration. An integration of a known
            // commit (a push, a poll, a bisection) fetches only when the mirror lacks it.
            let previous: String?
            let target: String
            if let pullRequest {
                let (base, head) = try await mirrors.update(repository, pullRef: pullRequest.ref, log: notes.add)
                (previous, target) = (base, commit ?? head)
            } else {
                // From the integration its issues are compared with: the commits of one that was
                // canceled or ended before building are still this one's to be blamed for. Read
                // while the mirror is brought up to date.
                async let predecessor = store.predecessor(.built, bot: bot.name, before: integration.shownNumber)
                if let commit {
                    try await mirrors.ensureMirror(of: repository, contains: commit, log: notes.add)
                    target = commit
                } else {
                    target = try await mirrors.update(repository, log: notes.add)
                }
                previous = try await predecessor?.commit
            }
            for note in notes.notes { await log.note(note) }
            // The commit is recorded (unless the queued row has it), the workspace checked out and
            // the new commits listed at once: the store, the workspace and the mirror are apart.
            async let recorded: Void = target == integration.commit ? () : store.setCommit(claim, commit: target)
            async let listed = mirrors.commits(of: repository, from: previous, to: target)
            // A checkout that fails still leaves the commit recorded, as it did when it came first.
            var checkoutFailure: GitError?
            do {
                try await mirrors.checkout(target, of: repository, into: workspace.directory)
            } catch {
                checkoutFailure = error
            }
            try await recorded
            if let checkoutFailure { throw checkoutFailure }
            let commits = try await listed
            (course.commit, course.commits, course.baseline) = (target, commits, previous)
            await log.append(Array("checked out \(target) (\(commits.count) new commit\(commits.count == 1 ? "" : "s"))\n".utf8))
        } catch let error as GitError {
            await log.note(error.description)
            throw stop(.checkoutError, .checkoutFailed(message: error.description))
        } catch StoreError.claimLost(_, let reason) {
            throw .lost("this host no longer holds the integration (\(reason))")
        } catch {
            await log.note("\(error)")
            throw stop(.internalError, .fault(stage: .checkout, message: "\(error)"))
        }
    }

    /// The `build` step; the integration compared with and the dependencies go in `course`.
    func build(_ package: PackageBuild, _ course: inout Course) async throws(Stop) -> BuildOutput {
        try await enter(.building, &course)
        course.previous = try await previousDetail()
        let (previous, commit) = (course.previous?.issues ?? [], course.commit)
        let unavailable: [Diagnostic]
        (course.dependencies, unavailable) = await mirrorDependencies()
        if bot.network == .none, !unavailable.isEmpty { return .failed(unavailable) }
        var built = try await attempt { [commit] in try await package.build(commit: commit, previous: previous) }
        _ = try ended(built.end)
        // Without a network SwiftPM cannot fetch what Kiln has not mirrored yet (a dependency new
        // to the package, or a version it now requires): Kiln fetches what it names, and builds
        // again.
        var refreshed = false
        for _ in 0..<Self.dependencyRounds where bot.network == .none && !built.succeeded {
            let messages = built.diagnostics.map(\.message)
            let wanted = PackageResolved.unreachable(in: messages)
            let unresolved = !refreshed && messages.contains { $0.contains("could not be resolved") || $0.contains("Couldn't fetch updates") }
            guard !wanted.isEmpty || unresolved else { break }
            let missing = await mirrorMore(wanted, refreshing: unresolved)
            refreshed = refreshed || unresolved
            if !missing.isEmpty { return .failed(missing) }
            built = try await attempt { [commit] in try await package.build(commit: commit, previous: previous) }
            _ = try ended(built.end)
        }
        return built
    }

    /// How many times a build without network is tried again after Kiln fetched what it lacked.
    static let dependencyRounds = 8

    /// What the `analyze` step found: analyzer warnings, and API breaks that the bot counts as
    /// errors (`api-breakage: error`).
    struct Analysis {
        var findings: [Diagnostic] = []
        var errors: [Diagnostic] = []
    }

    /// The `analyze` step, when the bot asks for it (not in a bisect integration, which only
    /// looks for a failure). A check that could not run is an error issue that says why, never
    /// a clean pass.
    func analyze(_ package: PackageBuild, _ course: inout Course) async throws(Stop) -> Analysis {
        let settings = bot.analyze
        guard settings.enabled, integration.bisectionID == nil, analyzes else { return Analysis() }
        try await enter(.analyzing, &course)
        let (commit, baseline) = (course.commit, course.baseline)
        var analysis = Analysis()
        if settings.lint {
            analysis.findings = try await analyzed(into: &analysis) { [commit] in try await package.lint(commit: commit) }
        }
        if settings.apiBreakage != .off {
            if let baseline, baseline != commit {
                let breaks = try await analyzed(into: &analysis) { [commit] in try await package.apiBreakage(since: baseline, commit: commit) }
                if settings.apiBreakage == .error {
                    analysis.errors += breaks.map {
                        var error = $0; error.severity = .error; return error
                    }
                } else {
                    analysis.findings += breaks
                }
            } else {
                await log.note("API breakage not checked: no earlier integration to compare with")
            }
        }
        let soundness = package.soundness(settings, commit: commit)
        for check in settings.checks.sorted() where SoundnessChecks.covers(check) {
            let found = try await analyzed(into: &analysis) { try await soundness.run(check) }
            await log.note("\(check.rawValue): \(CountText.of(found.count, "finding"))")
            analysis.findings += found
        }
        return analysis
    }

    /// One check's findings; a check that could not run adds an error saying why to `analysis`.
    private func analyzed(into analysis: inout Analysis, _ body: () async throws -> AnalysisOutput) async throws(Stop) -> [Diagnostic] {
        let output = try await attempt(body)
        _ = try ended(output.end)
        if let failure = output.failure {
            await log.note(failure)
            analysis.errors.append(Diagnostic.error(failure))
        }
        return output.findings
    }

    /// The `archiving` step, when the bot archives and the build succeeded: not for a bisect
    /// integration, nor for a fork's pull request unless `archive.pull-requests` says so, nor
    /// when failed tests already rule out every result `archive.on` accepts.
    func archive(_ package: PackageBuild, built: BuildOutput, tested: TestOutput, _ course: inout Course) async throws(Stop) -> ArchiveOutput? {
        let settings = bot.archive
        guard settings.enabled, built.succeeded, integration.bisectionID == nil, archives else { return nil }
        if workspace.fromFork, !settings.pullRequests {
            await log.note("not archived: a pull request from a fork archives only with archive.pull-requests: true")
            return nil
        }
        if tested.tests.contains(where: \.counts), !settings.on.contains(.testFailures) {
            await log.note("not archived: tests failed, and archive.on does not keep test-failures")
            return nil
        }
        try await enter(.archiving, &course)
        let archived = try await attempt { [workspace, commit = course.commit] in
            try await package.archive(in: workspace.archiveDirectory, commit: commit)
        }
        _ = try ended(archived.end)
        if let refusal = archived.refusal { await log.note(refusal.sentence) }
        if let asset = archived.asset { await log.note("packed \(asset.name): \(ByteCount.text(asset.size)), sha256 \(asset.sha256)") }
        return archived
    }

    /// Keeps the archive with the integration when `archive.on` accepts its result, before the
    /// after triggers (which see it as `KILN_ARCHIVE` and `KILN_ASSETS`: `course.archive`); says
    /// why otherwise.
    func keep(_ archived: ArchiveOutput?, outcome: inout IntegrationOutcome, _ course: inout Course) async throws(Stop) {
        guard let archived else { return }
        if let refusal = archived.refusal, outcome.reason == nil { outcome.reason = refusal }
        guard let asset = archived.asset, let file = archived.file, let contents = archived.contents else { return }
        guard bot.archive.on.contains(outcome.result) else {
            await log.note("archive not kept: archive.on does not keep \(outcome.result.rawValue)")
            return
        }
        do {
            try await store.storeAsset(asset, from: file, for: claim)
            course.archive = (file, contents)
        } catch StoreError.claimLost(_, let reason) {
            throw .lost("this host no longer holds the integration (\(reason))")
        } catch {
            await log.note("archive not kept: \(error)")
            outcome.reason = outcome.reason ?? .archiveNotKept(message: "\(error)")
        }
    }

    func process(
        _ package: PackageBuild, built: BuildOutput, tested: TestOutput, analyzed: Analysis, regressed: [MeasuredRegression],
        archived: ArchiveOutput?, _ course: inout Course
    ) async throws(Stop) -> IntegrationOutcome {
        try await enter(.processing, &course)
        let carried = package.carriedWarnings(from: course.previous?.issues ?? [], build: built)
        if !carried.isEmpty { await log.note("\(carried.count) warning(s) kept from files this build did not recompile") }
        var outcome = IssueBuilder.outcome(
            build: built, carried: carried + analyzed.errors + (archived?.diagnostics.filter { $0.severity == .error } ?? []), tests: tested,
            findings: analyzed.findings, regressed: regressed,
            regressions: bot.performance.regressions)
        if let commit = course.commit {
            let (mirrors, repository) = (context.mirrors, bot.repository)
            await IssueBuilder.attribute(&outcome.issues, commits: course.commits) { file, line in
                // a line blame cannot read is attributed to the range's authors (IssueBuilder.attribute)
                try? await mirrors.blame(of: repository, file: file, line: line, at: commit)
            }
        }
        outcome.commits = course.commits
        outcome.triggers = course.triggers
        outcome.dependencies = course.dependencies
        outcome.shards = tested.shards
        outcome.patchCoverage = await patchCoverage(tested.lines, course)
        outcome.review = await reviewRequest(course)
        outcome.review?.patch = outcome.patchCoverage
        outcome.review?.commentsUncovered = bot.coverage.comments
        return outcome
    }

    /// With coverage measured: how much of the change its tests ran, the change being a pull
    /// request's since its merge base with the base branch, a branch's since the integration it is
    /// compared with. Nil with nothing to compare with, or when the change cannot be read (said in
    /// the log).
    func patchCoverage(_ lines: LineCoverage?, _ course: Course) async -> PatchCoverage? {
        guard let lines, let baseline = course.baseline, let commit = course.commit else { return nil }
        do {
            let patch = PatchCoverage(
                changed: try await context.mirrors.changedLines(of: bot.repository, base: baseline, head: commit), lines: lines)
            await log.note(patch.sentence)
            return patch
        } catch {
            await log.note("patch coverage not measured: the change's lines are unknown (\(error))")
            return nil
        }
    }

    /// For a pull request of a bot with `forge.review` (a matrix's integration, not its cells):
    /// where its review goes, with the lines it changed since its merge base with the base
    /// branch. Changed lines that cannot be read leave every finding to the review's summary.
    func reviewRequest(_ course: Course) async -> ReviewRequest? {
        guard let pullRequest = workspace.pullRequest, let forge = bot.forge, forge.review, cell == nil, let commit = course.commit else {
            return nil
        }
        var changed = ChangedLines()
        if let baseline = course.baseline {
            do {
                changed = try await context.mirrors.changedLines(of: bot.repository, base: baseline, head: commit)
            } catch {
                await log.note("the pull request's changed lines are unknown (\(error)): its findings go in the review's summary")
            }
        }
        return ReviewRequest(
            forge: forge.kind, apiURL: forge.apiURL, tokenFile: forge.tokenFile, project: ForgeSettings.project(of: bot.repository.url),
            pullRequest: pullRequest.number, head: commit, changed: changed, url: nil, limit: forge.reviewLimit)
    }

    /// The integration this one is compared with, with its issues and tests; nil when there is
    /// none, or its details have expired. A store that cannot say ends the integration: without
    /// it every open issue would look new, and its committers would be mailed again. The build
    /// step reads it, once per integration (`Course.previous`). A cell sees what the same cell
    /// found there (and what an integration before the bot had a matrix found).
    func previousDetail() async throws(Stop) -> IntegrationDetail? {
        do {
            var detail: IntegrationDetail?
            if let previous = try await store.predecessor(.built, bot: bot.name, before: integration.shownNumber), !previous.expired {
                detail = try await store.integration(bot: bot.name, number: previous.number)
            }
            if let name = cell?.name {
                detail?.tests.removeAll { $0.cell != nil && $0.cell != name }
                detail?.issues.removeAll { !$0.cells.isEmpty && !$0.cells.contains(name) }
            }
            return detail
        } catch {
            throw stop(.internalError, .fault(stage: .readingBaseline, message: "\(error)"))
        }
    }
}
