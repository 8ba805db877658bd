import Hummingbird

/// `GET /health`: 200 `ok` while the server runs, for load balancers and monitors.
struct HealthController {
    func addRoutes(to router: Router<some RequestContext>) {
        router.get("health") { _, _ in "ok" }
    }
}
