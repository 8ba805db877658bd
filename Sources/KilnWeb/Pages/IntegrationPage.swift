// What an integration's page renders (Web/integration.mustache). The rules of ViewModels.swift hold here.

struct StepView {
    var name: String
    var duration: String
}

struct CommitView {
    var sha: String
    var shortSHA: String
    var author: String
    var email: String
    var date: String
    var subject: String
}

struct IssueView {
    var type: String
    var message: String
    var location: String?
    var introducedBy: String?
}

struct IssueGroupView {
    var title: String
    var status: String
    var issues: [IssueView]
    var count: Int
}

struct TestView {
    var suite: String
    var name: String
    var status: String
    var duration: String
    /// Why it failed, for a failing or flaky test.
    var message: String?
    /// The test's history page.
    var url: String
}

struct TriggerView {
    var name: String
    var phase: String
    var exitStatus: Int
    var failed: Bool
    var duration: String
}

struct IntegrationPage {
    var title: String
    var bot: String
    var botURL: String
    var number: Int
    var result: String
    var tone: String
    var running: Bool
    var cause: String
    /// The host that ran it; nil while queued.
    var host: String?
    var pullRequest: PullRequestView?
    var commit: String
    var branch: String
    var reason: String?
    var queuedAt: String
    var startedAt: String
    var duration: String
    var summary: IntegrationSummaryView
    var steps: [StepView]
    var commits: [CommitView]
    var hasCommits: Bool
    var issueGroups: [IssueGroupView]
    var hasIssues: Bool
    var failingTests: [TestView]
    var hasFailingTests: Bool
    /// Tests that failed, then passed when run again: shown apart, blaming nobody.
    var flakyTests: [TestView]
    /// "1 flaky test", for the summary; nil without any.
    var flakyText: String?
    /// Failures of quarantined tests: shown, but failing nothing.
    var quarantinedFailures: [TestView]
    /// "1 quarantined failure", for the summary; nil without any.
    var quarantinedText: String?
    var tests: [TestView]
    var hasTests: Bool
    var testsShown: Int
    var testsTotal: Int
    var testsCut: Bool
    var triggers: [TriggerView]
    var hasTriggers: Bool
    var logTail: String
    var logTruncated: Bool
    var logURL: String
    var expired: Bool
}
