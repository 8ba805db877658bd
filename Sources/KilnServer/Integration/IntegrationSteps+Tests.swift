import Foundation
import KilnBuild
import KilnCore
import KilnStore

extension IntegrationSteps {
    /// How many of a bot's latest integrations a failing test's history is read from.
    static let historyWindow = 20
    /// More failing tests than this is a breakage, not flakiness: their histories are not read.
    static let historyLookups = 20

    mutating func test(_ package: PackageBuild, built: BuildOutput) async throws(Stop) -> TestOutput {
        guard bot.test.enabled, built.succeeded else { return TestOutput() }
        try await enter(.testing)
        var tested = try await attempt { [commit] in try await package.test(commit: commit) }
        _ = try ended(tested.end)
        let now = Date()
        for index in tested.tests.indices where bot.test.quarantine.holding(tested.tests[index], at: now) != nil {
            tested.tests[index].quarantined = true
        }
        try await rerunFailures(package, tested: &tested)
        await flakyByHistory(&tested.tests)
        let flaky = tested.tests.filter { $0.status == .flaky }
        if !flaky.isEmpty {
            let names = flaky.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
            await log.note("\(flaky.count) flaky test\(flaky.count == 1 ? "" : "s"), not counted as failures: \(names)")
        }
        return tested
    }

    /// Runs the tests that failed here but passed in the previous integration again, up to
    /// `test.retries` times, before they count as failures: those that pass become `flaky`.
    mutating func rerunFailures(_ package: PackageBuild, tested: inout TestOutput) async throws(Stop) {
        guard bot.test.retries > 0, tested.tests.contains(where: \.counts) else { return }
        let previous = await previousDetail()
        var candidates = TestRerun.candidates(tested.tests, previous: previous?.tests ?? [])
        guard let previous, !candidates.isEmpty else { return }
        for round in 1...bot.test.retries where !candidates.isEmpty {
            let names = candidates.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
            let count = "\(candidates.count) test\(candidates.count == 1 ? "" : "s")"
            await log.header("re-running \(count) that passed in #\(previous.integration.number) (\(round) of \(bot.test.retries)): \(names)")
            let rerun = try await attempt { [commit, candidates] in try await package.rerun(candidates, commit: commit) }
            _ = try ended(rerun.end)
            tested.tests = TestRerun.settle(tested.tests, rerun: rerun.tests)
            candidates = candidates.filter { candidate in !tested.tests.contains { $0.key == candidate.key && $0.status == .flaky } }
        }
    }

    /// A failure of a test whose own history says it is flaky (a re-run that passed, a commit it
    /// both passed and failed on, a result that keeps changing) is a flaky failure: it blames
    /// nobody. Its message says why.
    func flakyByHistory(_ tests: inout [TestCase]) async {
        let failed = tests.indices.filter { tests[$0].counts && !tests[$0].isProcessFailure }
        guard !failed.isEmpty, failed.count <= Self.historyLookups else { return }
        for index in failed {
            let test = tests[index]
            guard let history = try? await store.testHistory(bot: bot.name, suite: test.suite, name: test.name, limit: Self.historyWindow),
                let reason = history.flakiness
            else { continue }
            tests[index].status = .flaky
            tests[index].message = "flaky by its history (\(reason)): \(test.message ?? "failed")"
        }
    }

    /// Each passing test that measured something, judged against the same test's measurements
    /// in the bot's latest branch integrations on this host (`performance.baseline` of them;
    /// machines differ, so other hosts' do not count). No baseline yet is no regression.
    func performanceRegressions(_ tests: [TestCase]) async -> [MeasuredRegression] {
        guard integration.bisectionID == nil, let host = integration.host else { return [] }
        var found: [MeasuredRegression] = []
        for test in tests where test.status == .passed {
            guard let values = test.measurement,
                let history = try? await store.testHistory(bot: bot.name, suite: test.suite, name: test.name, limit: Self.historyWindow)
            else { continue }
            let baseline = history.runs.filter { $0.host == host }.compactMap(\.test.measurement).prefix(bot.performance.baseline)
            if let regression = PerformanceRegression.judge(
                values, baseline: Array(baseline.joined()), tolerance: bot.performance.tolerance, host: host)
            {
                found.append(MeasuredRegression(test: test, regression: regression))
                await log.note(regression.message(suite: test.suite, name: test.name))
            }
        }
        return found
    }
}
