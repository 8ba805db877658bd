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
import KilnGit
import KilnStore
import KilnTestSupport
import KilnWeb
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A private bot `classified` and a public `open`, each with one integration that has a test and
/// an archive; tokens made as `kiln token add` makes them.
struct AccessHarness {
    let web: WebFixture
    let repo: GitFixture
    static let hidden = "classified"

    static func start(anonymous: AnonymousAccess = .read, publicURL: String? = nil) async throws -> AccessHarness {
        // The private bot's repository has a file at the path every `**` route is asked for, so
        // that its source view answers too.
        let repo = try GitFixture()
        let commit = try repo.commit("Start", files: ["Suite/test": "a file\n"])
        let web = try await WebFixture.start(
            bots: ["classified": Bots.following(repo.url) + "visibility: private\n", "open": Bots.following("https://github.com/example/open.git")]
        ) {
            $0.anonymousAccess = anonymous
            $0.publicURL = publicURL
        }
        let file = web.directory.url("archive.tar.gz")
        try Data("archive".utf8).write(to: URL(fileURLWithPath: file))
        for bot in ["classified", "open"] {
            _ = try await web.store.enqueue(
                QueueRequest(bot: bot, cause: .manual, commit: bot == hidden ? commit : "abc1234", branch: "main"), now: Date())
            let claim = try #require(try await web.store.claimNext(owner: "test", now: Date()))
            let asset = Asset(name: "\(bot).tar.gz", size: 7, sha256: String(repeating: "a", count: 64))
            try await web.store.storeAsset(asset, from: file, for: claim)
            let test = TestCase(suite: "Suite", name: "test", status: .passed, duration: 0.1)
            try await web.store.complete(claim, outcome: IntegrationOutcome(result: .succeeded, tests: [test]), now: Date())
        }
        let repository = Repository(url: try RepositoryURL(parsing: repo.url, relativeTo: "/"))
        _ = try await Mirrors(directory: DataDirectory(web.directory.url("data")).mirrors).update(repository)
        return AccessHarness(web: web, repo: repo)
    }

    /// A new token, as `kiln token add` makes one.
    func token(_ name: String, _ role: AccessRole, bots: [String] = []) async throws -> String {
        let value = TokenSecret.make()
        try await web.store.addToken(AccessToken(name: name, role: role, bots: bots, createdAt: Date()), hash: TokenSecret.hash(value))
        return value
    }

    /// A request as it is sent, redirects not followed.
    func send(
        _ method: String, _ path: String, token: String? = nil, cookie: String? = nil, body: String = "", contentType: String? = nil
    ) async throws -> WebFixture.Reply {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if let cookie { headers["Cookie"] = cookie }
        if let contentType { headers["Content-Type"] = contentType }
        return try await web.send(method, path, body: Data(body.utf8), headers: headers)
    }

    /// `path` with its parameters filled in for `bot`'s integration 1, its test and its archive.
    static func concrete(_ route: String, bot: String) -> (method: String, path: String) {
        let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
        var path = parts.count > 1 ? parts[1] : "/"
        if !path.hasPrefix("/") { path = "/" + path }
        path = path.replacingOccurrences(of: "{bot}", with: bot).replacingOccurrences(of: "{number}", with: "1")
            .replacingOccurrences(of: "{name}", with: "\(bot).tar.gz").replacingOccurrences(of: "**", with: "Suite/test")
        return (parts.first ?? "GET", path)
    }
}

@Suite("Access: private bots, tokens, members' actions, sign-in")
struct AccessTests {
    @Test("Every route the server has: a private bot is 404 without a token and absent from every list; with a viewer token naming it, 200")
    func everyRoute() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let viewer = try await harness.token("board", .viewer, bots: ["classified"])
        let other = try await harness.token("elsewhere", .viewer, bots: ["open"])
        let routes = webRoutes(
            WebDependencies(
                store: harness.web.store, bots: { [] }, assets: try WebAssets.load(), webhookSecret: nil,
                listen: ListenAddress(host: "127.0.0.1", port: 0)))
        #expect(routes.count >= 20, "\(routes)")
        var checked = 0
        for route in routes {
            let (method, path) = AccessHarness.concrete(route, bot: AccessHarness.hidden)
            let anonymous = try await harness.send(method, path)
            guard route.contains("{bot}") else {
                #expect(!anonymous.text.contains(AccessHarness.hidden), "\(route) shows the private bot to the anonymous: \(anonymous.text)")
                continue
            }
            checked += 1
            // Exactly as for a bot that does not exist.
            let nobody = try await harness.send(method, AccessHarness.concrete(route, bot: "nobody").path)
            #expect(anonymous.status == 404 && nobody.status == 404, "\(route) without a token: \(anonymous.status)")
            #expect(anonymous.text == nobody.text.replacingOccurrences(of: "nobody", with: AccessHarness.hidden), "\(route)")
            let unnamed = try await harness.send(method, path, token: other)
            #expect(unnamed.status == 404, "\(route) with a token for other bots: \(unnamed.status)")
            guard method == "GET" else { continue }
            let seen = try await harness.send(method, path, token: viewer)
            guard !route.contains("hosts/") else {
                // Host to host only (a workspace snapshot): a person's token opens nothing.
                #expect(seen.status == 404 && seen.text == nobody.text.replacingOccurrences(of: "nobody", with: AccessHarness.hidden), "\(route)")
                continue
            }
            #expect([200, 302].contains(seen.status), "\(route) with a viewer token naming the bot: \(seen.status) \(seen.text)")
        }
        #expect(checked >= 12, "the bot's routes: pages, JSON, log, badge, assets, latest, tests, members' actions")
        // A bot that does not exist answers the same.
        let missing = try await harness.send("GET", "/api/bots/nobody")
        let hidden = try await harness.send("GET", "/api/bots/classified")
        #expect(missing.status == hidden.status && missing.text.replacingOccurrences(of: "nobody", with: "classified") == hidden.text)
        // The lists show it to the token that names it.
        #expect(try await harness.send("GET", "/", token: viewer).text.contains("classified"))
        #expect(try await harness.send("GET", "/api/bots", token: viewer).text.contains("\"classified\""))
        #expect(try await harness.send("GET", "/api/bots").text.contains("\"open\""), "public bots stay public")
    }

    @Test("A viewer may not queue (403), a member queues (202, Location) and cancels; no token is 401; a revoked token is refused at once")
    func membersAct() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let viewer = try await harness.token("reader", .viewer)
        let member = try await harness.token("alice", .member, bots: ["classified"])
        #expect(try await harness.send("POST", "/api/bots/open/integrations").status == 401)
        #expect(try await harness.send("POST", "/api/bots/open/integrations", token: viewer).status == 403)
        #expect(try await harness.send("POST", "/api/bots/open/integrations", token: member).status == 403, "its token names other bots")
        let queued = try await harness.send("POST", "/api/bots/classified/integrations", token: member)
        #expect(queued.status == 202, "\(queued.text)")
        #expect(queued.headers["location"] == "/api/bots/classified/integrations/2")
        let answer = try #require(try queued.json() as? [String: Any])
        #expect(answer["bot"] as? String == "classified" && answer["number"] as? Int == 2)
        #expect(try await harness.web.store.integration(bot: "classified", number: 2)?.integration.cause == .manual)
        let canceled = try await harness.send("POST", "/api/bots/classified/integrations/2/cancel", token: member)
        #expect(canceled.status == 202, "\(canceled.text)")
        #expect(try await harness.web.store.integration(bot: "classified", number: 2)?.integration.result == .canceled)
        // The JSON gives the reason's code and the one sentence the page shows.
        let detail = try #require(try await harness.send("GET", "/api/bots/classified/integrations/2", token: member).json() as? [String: Any])
        let reason = try #require(detail["reason"] as? [String: String], "\(detail)")
        #expect(reason == ["code": "canceled-from-web", "text": "canceled from the web (token alice)"])
        let page = try await harness.send("GET", "/bots/classified/integrations/2", token: member)
        #expect(page.text.contains("canceled from the web (token alice)"), "the page says the same")
        #expect(try await harness.send("POST", "/api/bots/classified/integrations/2/cancel", token: member).status == 409)
        let unknown = try await harness.send(
            "POST", "/api/bots/classified/integrations", token: member, body: "{\"pullRequest\": 7}", contentType: "application/json")
        #expect(unknown.status == 404, "\(unknown.status) \(unknown.text)")
        #expect(try await harness.web.store.tokens().first { $0.name == "alice" }?.lastUsedAt != nil, "last used is kept")

        try await harness.web.store.revokeToken(named: "alice")
        #expect(try await harness.send("POST", "/api/bots/classified/integrations", token: member).status == 401)
        #expect(try await harness.send("GET", "/api/bots/classified", token: member).status == 401)
        #expect(try await harness.send("GET", "/api/bots", token: "kiln_made-up").status == 401)
    }

    @Test("Sign-in: the cookie's flags; a member's page has forms whose csrf is checked; sign-out")
    func signIn() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let member = try await harness.token("alice", .member)
        #expect(try await harness.send("GET", "/login").text.contains("name=\"token\""))
        let refused = try await harness.send("POST", "/login", body: "token=kiln_wrong", contentType: "application/x-www-form-urlencoded")
        #expect(refused.status == 401 && refused.headers["set-cookie"] == nil)
        let signed = try await harness.send(
            "POST", "/login", body: "token=" + (member.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? member),
            contentType: "application/x-www-form-urlencoded")
        #expect(signed.status == 303 && signed.headers["location"] == "/")
        let cookie = try #require(signed.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"), "\(cookie)")
        #expect(!cookie.contains("Secure"), "public-url is not https here")
        let session = String(cookie.prefix { $0 != ";" })

        let page = try await harness.send("GET", "/bots/classified", cookie: session)
        #expect(page.status == 200 && page.text.contains("Integrate now"), "\(page.text)")
        let csrf = try #require(page.text.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.output.1)
        #expect(!(try await harness.send("GET", "/bots/classified").text.contains("Integrate now")), "no forms for the anonymous")
        let form = "application/x-www-form-urlencoded"
        #expect(try await harness.send("POST", "/api/bots/classified/integrations", cookie: session, body: "", contentType: form).status == 403)
        #expect(
            try await harness.send("POST", "/api/bots/classified/integrations", cookie: session, body: "csrf=0000", contentType: form).status == 403)
        #expect(try await harness.send("POST", "/api/bots/classified/integrations", cookie: session).status == 403, "a cookie alone never acts")
        let queued = try await harness.send("POST", "/api/bots/classified/integrations", cookie: session, body: "csrf=\(csrf)", contentType: form)
        #expect(queued.status == 303 && queued.headers["location"] == "/bots/classified/integrations/2", "\(queued.status) \(queued.text)")
        let running = try await harness.send("GET", "/bots/classified/integrations/2", cookie: session)
        #expect(running.text.contains("action=\"/api/bots/classified/integrations/2/cancel\""), "a queued integration's page offers Cancel")
        let cancel = {
            try await harness.send("POST", "/api/bots/classified/integrations/2/cancel", cookie: session, body: "csrf=\(csrf)", contentType: form)
        }
        let canceled = try await cancel()
        #expect(canceled.status == 303 && canceled.headers["location"] == "/bots/classified/integrations/2", "\(canceled.status)")
        // The same Cancel pressed again on the page as it was: back to the page, which says why nothing happened.
        let late = try await cancel()
        #expect(late.status == 303 && late.headers["location"] == "/bots/classified/integrations/2?already=ended", "\(late.status) \(late.text)")
        let told = try await harness.send("GET", "/bots/classified/integrations/2?already=ended", cookie: session)
        #expect(told.status == 200 && told.text.contains("It had already ended when Cancel was pressed: nothing was canceled."), "\(told.text)")

        let out = try await harness.send("POST", "/logout", cookie: session)
        #expect(out.status == 303 && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
    }

    @Test(
        "Re-run forms: Run again on an integration that ended, Run failed tests again only where something failed; a refused re-run lands on the page that says why"
    )
    func rerunForms() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let store = harness.web.store
        // #2 of the private bot fails a test, on the commit of #1.
        let commit = try #require(try await store.integration(bot: "classified", number: 1)?.integration.commit)
        _ = try await store.enqueue(QueueRequest(bot: "classified", cause: .manual, commit: commit, branch: "main"), now: Date())
        let claim = try #require(try await store.claimNext(owner: "test", now: Date()))
        let failed = TestCase(suite: "Suite", name: "test", status: .failed, duration: 0.1, message: "no")
        try await store.complete(claim, outcome: IntegrationOutcome(result: .testFailures, tests: [failed]), now: Date())

        let member = try await harness.token("alice", .member)
        let signed = try await harness.send("POST", "/login", body: "token=\(member)", contentType: "application/x-www-form-urlencoded")
        let session = String(try #require(signed.headers["set-cookie"]).prefix { $0 != ";" })
        let failedPage = try await harness.send("GET", "/bots/classified/integrations/2", cookie: session).text
        #expect(failedPage.contains("<button>Run again</button>") && failedPage.contains("<button>Run failed tests again</button>"), "\(failedPage)")
        let passedPage = try await harness.send("GET", "/bots/classified/integrations/1", cookie: session).text
        #expect(passedPage.contains("<button>Run again</button>") && !passedPage.contains("Run failed tests again"))
        #expect(!(try await harness.send("GET", "/bots/classified/integrations/2", token: member).text.contains("Run again")), "forms need a session")
        let csrf = try #require(failedPage.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.output.1)
        let form = "application/x-www-form-urlencoded"
        func press(_ fields: String) async throws -> WebFixture.Reply {
            try await harness.send("POST", "/api/bots/classified/integrations", cookie: session, body: "csrf=\(csrf)&\(fields)", contentType: form)
        }

        let again = try await press("rerun=2&only=failed")
        #expect(again.status == 303 && again.headers["location"] == "/bots/classified/integrations/3", "\(again.status) \(again.text)")
        let three = try #require(try await store.integration(bot: "classified", number: 3)?.integration)
        #expect(three.cause == .rerun && three.rerunOf == Rerun(number: 2, only: .failed) && three.commit == commit)
        #expect(
            try await press("rerun=2&only=failed").headers["location"] == "/bots/classified/integrations/3", "a second press joins the queued one")
        // A push does not join a queued re-run, nor take its commit.
        let pushed = try await store.enqueue(QueueRequest(bot: "classified", cause: .webhook, commit: "f00d", branch: "main"), now: Date())
        #expect(pushed.integration.number == 4 && !pushed.coalesced)
        #expect(try await store.integration(bot: "classified", number: 3)?.integration.commit == commit)

        let refused = try await press("rerun=1&only=failed")
        #expect(refused.status == 303 && refused.headers["location"] == "/bots/classified/integrations/1?rerun=failed", "\(refused.status)")
        let told = try await harness.send("GET", "/bots/classified/integrations/1?rerun=failed", cookie: session).text
        #expect(told.contains("Not run again: integration #1 ended as succeeded, with no failed test or cell"), "\(told)")
        let audit = try await store.auditEvents(since: nil, limit: 50).filter { $0.action == .queued }.compactMap(\.detail)
        #expect(audit == ["re-run of #2's failed tests", "re-run of #2's failed tests, joined the one queued"], "\(audit)")
    }

    @Test(
        "Every page's header: Sign in once tokens exist, then Signed in as NAME with Sign out; errors are pages with a way back for browsers, text or JSON for scripts"
    )
    func headerAndErrors() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let pages = ["/", "/bots/open", "/bots/open/integrations/1", "/bots/open/integrations/1/steps", "/bots/open/tests/Suite/test"]
        for page in pages {
            let text = try await harness.send("GET", page).text
            #expect(text.contains(##"<a class="skip" href="#main">"##) && text.contains(#"<main id="main">"#), "\(page)")
            #expect(!text.contains("Sign in"), "no tokens, nothing to sign in with: \(page)")
        }
        let member = try await harness.token("alice <admin>", .member)
        for page in pages {
            let text = try await harness.send("GET", page).text
            #expect(text.contains(#"<a class="account" href="/login">Sign in</a>"#), "\(page): \(text.prefix(1200))")
        }
        let signed = try await harness.send(
            "POST", "/login", body: "token=" + (member.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? member),
            contentType: "application/x-www-form-urlencoded")
        let session = String(try #require(signed.headers["set-cookie"]).prefix { $0 != ";" })
        for page in pages {
            let text = try await harness.send("GET", page, cookie: session).text
            #expect(text.contains("<span>Signed in as alice &lt;admin&gt;</span> <button>Sign out</button>"), "\(page)")
            #expect(text.contains(#"action="/logout""#) && !text.contains(">Sign in</a>"), "\(page)")
        }
        #expect(!(try await harness.send("GET", "/", token: member).text.contains("Signed in as")), "a script's bearer token is no session")
        // The front page comes from a cache shared by every reader who may see the same: each still sees their own header.
        #expect(try await harness.send("GET", "/").text.contains(">Sign in</a>"))

        let html = ["Accept": "text/html,application/xhtml+xml"]
        let unknown = try await harness.web.send("GET", "/no/such/page", body: Data(), headers: html)
        #expect(unknown.status == 404 && unknown.headers["content-type"]?.hasPrefix("text/html") == true, "\(unknown.headers)")
        #expect(unknown.text.contains("<h1>Not found</h1>") && unknown.text.contains("There is no page at /no/such/page."), "\(unknown.text)")
        #expect(unknown.text.contains(#"<a href="/">All bots</a>"#) && unknown.text.contains(#"href="/style.css""#))
        let hidden = try await harness.web.send("GET", "/bots/classified/integrations/1", body: Data(), headers: html)
        #expect(hidden.status == 404 && hidden.text.contains("<h1>Not found</h1>"), "\(hidden.text)")
        #expect(hidden.text.contains(#"<a href="/login">Sign in</a>"#), "a private bot may be there for a token")
        let script = try await harness.web.send("GET", "/no/such/page", body: Data(), headers: [:])
        #expect(script.status == 404 && script.headers["content-type"]?.hasPrefix("text/html") != true, "\(script.headers)")
        let api = try await harness.web.send("GET", "/api/bots/nobody", body: Data(), headers: html)
        #expect(api.status == 404 && api.text.contains("<h1>Not found</h1>"), "a browser that asks the API for HTML gets a page too")
        let json = try await harness.web.send("GET", "/api/bots/nobody", body: Data(), headers: ["Accept": "application/json"])
        #expect(json.status == 404 && json.text.hasPrefix("{"), "\(json.text)")
    }

    @Test("Behind an https public-url the session cookie is Secure too")
    func secureCookie() async throws {
        let harness = try await AccessHarness.start(publicURL: "https://ci.example.com")
        defer { Task { await harness.web.stop() } }
        let member = try await harness.token("alice", .member)
        let signed = try await harness.send("POST", "/login", body: "token=\(member)", contentType: "application/x-www-form-urlencoded")
        let cookie = try #require(signed.headers["set-cookie"])
        #expect(cookie.contains("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
    }

    @Test("access.anonymous: none: pages send to sign-in, the API answers 401; /health and a signed webhook still work")
    func closed() async throws {
        let harness = try await AccessHarness.start(anonymous: .none)
        defer { Task { await harness.web.stop() } }
        let page = try await harness.send("GET", "/")
        #expect(page.status == 303 && page.headers["location"] == "/login")
        #expect(try await harness.send("GET", "/api/bots").status == 401)
        #expect(try await harness.send("GET", "/bots/open/badge.svg").status == 303)
        #expect(try await harness.send("GET", "/metrics").status == 401)
        #expect(try await harness.send("GET", "/health").status == 200)
        #expect(try await harness.send("GET", "/login").status == 200)
        let body = WebhookTests.github("example/open")
        let hook = try await harness.web.post(
            "/hooks/github", body: body, headers: ["X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=" + WebhookTests.hmac(body)])
        #expect(hook.status == 202, "\(hook.text)")
        let viewer = try await harness.token("board", .viewer)
        let seen = try await harness.send("GET", "/api/bots", token: viewer)
        #expect(seen.status == 200 && seen.text.contains("\"open\"") && seen.text.contains("\"classified\""), "a token for every bot sees them all")
    }
}
