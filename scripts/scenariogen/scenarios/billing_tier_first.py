"""SaaS billing (.NET / ASP.NET Core): Enumerable.First with no matching tier for small seat counts."""
import datetime as dt

from sg import *

NAME = "billing-api-tier-no-matching-element"


def build():
    sc = Scenario(NAME, "2026-06-02T11:25:00Z", """
        The 09:47 commit to billing-api introduced seat-tier discounts: DiscountCalculator.TierFor picks
        plan.Tiers.First(t => t.MinSeats <= seats && seats <= t.MaxSeats), but the tier tables start at 5 seats,
        so every invoice preview or renewal for a workspace with 1-4 seats throws InvalidOperationException
        (Sequence contains no matching element) and the admin console shows 500s. Larger workspaces are fine.
        usage-collector's Kafka warnings and the BillingWorker pod that was OOM-killed last night are unrelated.""",
                  repo="ledgerly/billing")
    ns = "billing"
    console = sc.svc("admin-console-bff", ns, "nodejs", version="1.88.0", npods=2)
    bill = sc.svc("billing-api", ns, "dotnet", version="2026.6.2.1", runtime=".NET 8.0.5", npods=3,
                  extra={"deployment.environment": "production"})
    usage = sc.svc("usage-collector", ns, "go", version="0.19.3", npods=1)
    rollout = sc.at("10:02:45")

    calc = "src/Ledgerly.Billing/Pricing/DiscountCalculator.cs"
    sc.file(calc, """
        using System;
        using System.Linq;
        using Ledgerly.Billing.Domain;

        namespace Ledgerly.Billing.Pricing;

        /// <summary>
        /// Seat-tier discounts. Tier tables come from the plan catalogue; a seat
        /// count maps onto the tier whose [MinSeats, MaxSeats] range contains it.
        /// </summary>
        public sealed class DiscountCalculator
        {
            public decimal DiscountFor(Plan plan, int seats)
            {
                if (plan.Tiers.Count == 0)
                {
                    return 0m;
                }
                var tier = TierFor(plan, seats);
                return tier.DiscountPercent / 100m;
            }

            internal static PriceTier TierFor(Plan plan, int seats)
            {
                return plan.Tiers
                    .OrderBy(t => t.MinSeats)
                    .First(t => t.MinSeats <= seats && seats <= t.MaxSeats);
            }
        }
        """)
    svc_file = "src/Ledgerly.Billing/Invoices/InvoiceService.cs"
    sc.file(svc_file, """
        using System;
        using System.Threading;
        using System.Threading.Tasks;
        using Ledgerly.Billing.Domain;
        using Ledgerly.Billing.Pricing;
        using Microsoft.Extensions.Logging;

        namespace Ledgerly.Billing.Invoices;

        public sealed class InvoiceService
        {
            private readonly IWorkspaceRepository _workspaces;
            private readonly IPlanCatalogue _plans;
            private readonly DiscountCalculator _discounts;
            private readonly ILogger<InvoiceService> _log;

            public InvoiceService(IWorkspaceRepository workspaces, IPlanCatalogue plans, DiscountCalculator discounts,
                ILogger<InvoiceService> log)
            {
                _workspaces = workspaces;
                _plans = plans;
                _discounts = discounts;
                _log = log;
            }

            public async Task<InvoicePreview> PreviewAsync(Guid workspaceId, CancellationToken ct)
            {
                var ws = await _workspaces.GetAsync(workspaceId, ct) ?? throw new WorkspaceNotFoundException(workspaceId);
                var plan = await _plans.GetAsync(ws.PlanId, ct);
                var gross = plan.PricePerSeat * ws.Seats;
                var discount = _discounts.DiscountFor(plan, ws.Seats);
                var net = Math.Round(gross * (1 - discount), 2, MidpointRounding.ToEven);
                _log.LogInformation("Invoice preview for {WorkspaceId}: {Seats} seats, net {Net} {Currency}",
                    workspaceId, ws.Seats, net, plan.Currency);
                return new InvoicePreview(workspaceId, ws.Seats, gross, discount, net, plan.Currency);
            }
        }
        """)
    ctl = "src/Ledgerly.Billing.Api/Controllers/InvoicesController.cs"
    sc.file(ctl, """
        using System;
        using System.Threading;
        using System.Threading.Tasks;
        using Ledgerly.Billing.Invoices;
        using Microsoft.AspNetCore.Mvc;

        namespace Ledgerly.Billing.Api.Controllers;

        [ApiController]
        [Route("api/workspaces/{workspaceId:guid}/invoices")]
        public sealed class InvoicesController : ControllerBase
        {
            private readonly InvoiceService _invoices;

            public InvoicesController(InvoiceService invoices) => _invoices = invoices;

            [HttpGet("preview")]
            public async Task<ActionResult<InvoicePreview>> Preview(Guid workspaceId, CancellationToken ct)
                => Ok(await _invoices.PreviewAsync(workspaceId, ct));
        }
        """)
    sc.file("deploy/billing-worker.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: billing-worker
          namespace: billing
        spec:
          replicas: 1
          template:
            spec:
              containers:
                - name: billing-worker
                  image: ghcr.io/ledgerly/billing-worker:2026.5.28.2
                  resources:
                    limits:
                      memory: 768Mi
        """)
    L = sc.line(calc, ".First(t => t.MinSeats <= seats && seats <= t.MaxSeats);")
    L_disc = sc.line(calc, "var tier = TierFor(plan, seats);")
    L_svc = sc.line(svc_file, "var discount = _discounts.DiscountFor(plan, ws.Seats);")
    L_ctl = sc.line(ctl, "=> Ok(await _invoices.PreviewAsync(workspaceId, ct));")

    sc.commit("2026-06-02T09:47:18Z", ("Hannah Schultz", "hannah@ledgerly.io", "hschultz"),
              "Seat-tier discounts for annual plans (BILL-1432)",
              [(calc, None, None),
               (svc_file, """            var net = Math.Round(gross, 2, MidpointRounding.ToEven);""",
                """            var discount = _discounts.DiscountFor(plan, ws.Seats);
            var net = Math.Round(gross * (1 - discount), 2, MidpointRounding.ToEven);"""),
               (svc_file, "        return new InvoicePreview(workspaceId, ws.Seats, gross, 0m, net, plan.Currency);",
                "        return new InvoicePreview(workspaceId, ws.Seats, gross, discount, net, plan.Currency);")],
              merged_by_github=True)
    sc.commit("2026-06-01T16:02:40Z", ("Rui Tanaka", "rui@ledgerly.io", "ruitanaka"),
              "billing-worker: lower memory limit to 768Mi after profiling",
              [("deploy/billing-worker.yaml", "              memory: 1Gi", "              memory: 768Mi")])

    stack = ("System.InvalidOperationException: Sequence contains no matching element\n"
             "   at System.Linq.ThrowHelper.ThrowNoMatchException()\n"
             "   at System.Linq.Enumerable.First[TSource](IEnumerable`1 source, Func`2 predicate)\n"
             f"   at Ledgerly.Billing.Pricing.DiscountCalculator.TierFor(Plan plan, Int32 seats) in /src/Ledgerly.Billing/Pricing/DiscountCalculator.cs:line {L}\n"
             f"   at Ledgerly.Billing.Pricing.DiscountCalculator.DiscountFor(Plan plan, Int32 seats) in /src/Ledgerly.Billing/Pricing/DiscountCalculator.cs:line {L_disc}\n"
             f"   at Ledgerly.Billing.Invoices.InvoiceService.PreviewAsync(Guid workspaceId, CancellationToken ct) in /src/Ledgerly.Billing/Invoices/InvoiceService.cs:line {L_svc}\n"
             f"   at Ledgerly.Billing.Api.Controllers.InvoicesController.Preview(Guid workspaceId, CancellationToken ct) in /src/Ledgerly.Billing.Api/Controllers/InvoicesController.cs:line {L_ctl}\n"
             "   at Microsoft.AspNetCore.Mvc.Infrastructure.ActionMethodExecutor.TaskOfActionResultExecutor.Execute(ActionContext actionContext, IActionResultTypeMapper mapper, ObjectMethodExecutor executor, Object controller, Object[] arguments)\n"
             "   at Microsoft.AspNetCore.Mvc.Infrastructure.ControllerActionInvoker.<InvokeActionMethodAsync>g__Awaited|12_0(ControllerActionInvoker invoker, ValueTask`1 actionResultValueTask)\n"
             "   at Microsoft.AspNetCore.Mvc.Infrastructure.ControllerActionInvoker.<InvokeNextActionFilterAsync>g__Awaited|10_0(ControllerActionInvoker invoker, Task lastTask, State next, Scope scope, Object state, Boolean isCompleted)\n"
             "   at Microsoft.AspNetCore.Routing.EndpointMiddleware.<Invoke>g__AwaitRequestTask|7_0(Endpoint endpoint, Task requestTask, ILogger logger)\n"
             "   at Microsoft.AspNetCore.Authorization.AuthorizationMiddleware.Invoke(HttpContext context)\n"
             "   at Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddlewareImpl.<Invoke>g__Awaited|10_0(ExceptionHandlerMiddlewareImpl middleware, HttpContext context, Task task)")
    lab = lambda c, pod, lvl: {"k8s_container_name": c, "k8s_namespace_name": ns, "k8s_pod_name": pod, "severity": lvl}
    t0, t1 = sc.at("09:30"), sc.at("11:22")

    def preview(t, seats):
        fail = t >= rollout and seats < 5
        tr = sc.trace()
        st = us(t)
        ws = sc.uuid()
        cp, bp = console.pod(), bill.pod()
        d = sc.rng.randint(6_000, 11_000) if fail else sc.rng.randint(12_000, 30_000)
        root = tr.span(console, "GET /api/billing/preview", st, d + 5_000, pod=cp, error="" if fail else None,
                       tags=http_server("GET", "/api/billing/preview", 500 if fail else 200, host="admin.ledgerly.io", port=443,
                                        scope="@opentelemetry/instrumentation-http"))
        c = tr.span(console, "GET", st + 1_500, d + 2_000, parent=root, kind="client", error="" if fail else None,
                    tags=http_client("GET", f"http://billing-api.billing.svc/api/workspaces/{ws}/invoices/preview", 500 if fail else 200,
                                     peer="billing-api"))
        s = tr.span(bill, "GET api/workspaces/{workspaceId:guid}/invoices/preview", st + 2_200, d, parent=c, pod=bp,
                    error="Sequence contains no matching element" if fail else None,
                    tags=http_server("GET", "api/workspaces/{workspaceId:guid}/invoices/preview", 500 if fail else 200,
                                     target=f"/api/workspaces/{ws}/invoices/preview", host="billing-api.billing.svc", port=80,
                                     scope="Microsoft.AspNetCore", **({"error.type": "System.InvalidOperationException"} if fail else {})),
                    events=[exc_event(st + 2_200 + d - 700, "System.InvalidOperationException", "Sequence contains no matching element", stack)] if fail else None)
        tr.span(bill, "billing", st + 3_000, sc.rng.randint(1_500, 3_000), parent=s, kind="client",
                tags=db("postgresql", "SELECT w.id, w.plan_id, w.seats FROM workspaces AS w WHERE w.id = @__workspaceId_0 LIMIT 1",
                        "billing", "billing-db.postgres.database.azure.com", 5432, "SELECT",
                        **{"otel.scope.name": "OpenTelemetry.Instrumentation.EntityFrameworkCore"}))
        tr.span(bill, "GET", st + 5_200, sc.rng.randint(400, 900), parent=s, kind="client",
                tags=db("redis", "GET plan:*", None, "billing-cache.redis.cache.windows.net", 6380, "GET"))
        if fail:
            sc.log(lab("billing-api", bp, "Error"), from_us(st + 2_200 + d - 500), json.dumps({
                "Timestamp": iso(from_us(st + 2_200 + d - 500), 6), "EventId": 1, "LogLevel": "Error",
                "Category": "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware",
                "Message": "An unhandled exception has occurred while executing the request.", "Exception": stack,
                "TraceId": tr.id, "SpanId": s["spanID"],
                "State": {"Message": "An unhandled exception has occurred while executing the request.",
                          "{OriginalFormat}": "An unhandled exception has occurred while executing the request."}}))
            sc.log(lab("admin-console-bff", cp, "error"), from_us(st + d + 4_000), json.dumps({
                "level": "error", "time": iso(from_us(st + d + 4_000), 3), "msg": "billing-api request failed",
                "status": 500, "path": f"/api/workspaces/{ws}/invoices/preview", "trace_id": tr.id}))
        else:
            sc.log(lab("billing-api", bp, "Information"), from_us(st + 2_200 + d - 800), json.dumps({
                "Timestamp": iso(from_us(st + 2_200 + d - 800), 6), "EventId": 0, "LogLevel": "Information",
                "Category": "Ledgerly.Billing.Invoices.InvoiceService",
                "Message": f"Invoice preview for {ws}: {seats} seats, net {seats * 12.5:.2f} EUR", "TraceId": tr.id, "SpanId": s["spanID"],
                "State": {"WorkspaceId": ws, "Seats": seats, "{OriginalFormat}": "Invoice preview for {WorkspaceId}: {Seats} seats, net {Net} {Currency}"}}))

    for t in sc.times(t0, t1, 24):
        preview(t, sc.rng.choice([1, 2, 3, 3, 4, 6, 8, 12, 25, 40, 120]))
    preview(sc.at("10:04:51.7"), 2)
    preview(sc.at("11:10:09"), 3)
    for t in sc.times(t0, t1, 90):
        bp = bill.pod()
        seats = sc.rng.choice([1, 2, 3, 4, 6, 8, 12, 25, 40])
        if t >= rollout and seats < 5:
            sc.log(lab("billing-api", bp, "Error"), t, json.dumps({
                "Timestamp": iso(t, 6), "EventId": 1, "LogLevel": "Error", "Category": "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware",
                "Message": "An unhandled exception has occurred while executing the request.", "Exception": stack,
                "State": {"{OriginalFormat}": "An unhandled exception has occurred while executing the request."}}))
        else:
            ws = sc.uuid()
            sc.log(lab("billing-api", bp, "Information"), t, json.dumps({
                "Timestamp": iso(t, 6), "EventId": 0, "LogLevel": "Information", "Category": "Ledgerly.Billing.Invoices.InvoiceService",
                "Message": f"Invoice preview for {ws}: {seats} seats, net {seats * 12.5:.2f} EUR",
                "State": {"WorkspaceId": ws, "Seats": seats, "{OriginalFormat}": "Invoice preview for {WorkspaceId}: {Seats} seats, net {Net} {Currency}"}}))
    for t in sc.times(t0, t1, 25):
        sc.log(lab("usage-collector", usage.pods[0], "warn"), t,
               f'level=warn ts={iso(t, 3)} caller=consumer.go:142 msg="commit offsets failed, will retry" group=usage-collector err="kafka server: The coordinator is loading and hence can\'t process requests"')

    m0, m1 = sc.at("09:20"), sc.at("11:24")
    on = lambda t: t >= rollout + dt.timedelta(seconds=30)
    base = {"__name__": "http_server_request_duration_seconds_count", "job": "billing-api", "k8s_namespace_name": ns,
            "http_route": "api/workspaces/{workspaceId:guid}/invoices/preview", "http_request_method": "GET"}
    sc.counter({**base, "http_response_status_code": "200"}, m0, m1, lambda t: 6 * (0.55 if on(t) else 1), initial=802_113)
    sc.counter({**base, "http_response_status_code": "500", "error_type": "System.InvalidOperationException"}, m0, m1,
               lambda t: 2.7 if on(t) else 0, initial=0)
    sc.gauge({"__name__": "dotnet_gc_heap_size_bytes", "job": "billing-api", "k8s_namespace_name": ns, "gc_heap_generation": "gen2"},
             m0, m1, lambda t: 9e7 + sc.rng.uniform(0, 3e7))

    k = sc.k8s = K8s(sc)
    nodes = ["aks-system-31415926-vmss000002", "aks-apps-27182818-vmss00000a", "aks-apps-27182818-vmss00000c"]
    bctr = container_spec("billing-api", "ledgerly.azurecr.io/billing-api:2026.6.2.1", 8080,
                          env={"ASPNETCORE_ENVIRONMENT": "Production", "ASPNETCORE_HTTP_PORTS": "8080",
                               "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector.observability:4317"},
                          env_from=[{"secretRef": {"name": "billing-api-secrets"}}],
                          requests={"cpu": "250m", "memory": "384Mi"}, limits={"memory": "768Mi"},
                          readiness=http_probe("/healthz/ready", 8080, 10), liveness=http_probe("/healthz/live", 8080, 15, 15))
    workload(k, bill, bctr, nodes[1:], ts("2023-09-14T08:00:00Z"), rollout, 141, labels={"app": "billing-api", "app.kubernetes.io/part-of": "billing"})
    wsvc = sc.svc("billing-worker", ns, "dotnet", npods=1)
    wctr = container_spec("billing-worker", "ghcr.io/ledgerly/billing-worker:2026.5.28.2", None, requests={"cpu": "100m", "memory": "512Mi"},
                          limits={"memory": "768Mi"})
    workload(k, wsvc, wctr, nodes[2:], ts("2023-09-14T08:00:00Z"), ts("2026-06-01T16:20:00Z"), 77, labels={"app": "billing-worker"},
             pod_states={0: {"restarts": 1, "state": running(sc.at("02:00:31")),
                             "last": terminated("OOMKilled", 137, ts("2026-06-01T16:20:12Z"), sc.at("02:00:18"), sc)}})
    k.event(ns, "Pod", wsvc.pods[0], "BackOff", "Back-off restarting failed container billing-worker in pod " + wsvc.pods[0],
            sc.at("02:00:19"), etype="Warning", host=nodes[2], field_path="spec.containers{billing-worker}")

    a1 = alert(sc, {"alertname": "AspNetCoreHigh5xx", "k8s_deployment_name": "billing-api", "k8s_namespace_name": ns, "severity": "warning",
                    "team": "monetization"},
               {"summary": "billing-api is returning 5xx", "description": "billing-api 5xx rate is 2.6 req/s (31% of requests) for 10 minutes."},
               sc.at("10:14:00"), 'sum by (k8s_deployment_name) (rate(http_server_request_duration_seconds_count{k8s_namespace_name="billing",http_response_status_code=~"5.."}[5m])) > 0.5',
               prom="https://prometheus.ledgerly.io")
    a2 = alert(sc, {"alertname": "AspNetCoreHigh5xx", "k8s_deployment_name": "admin-console-bff", "k8s_namespace_name": ns, "severity": "warning",
                    "team": "monetization"},
               {"summary": "admin-console-bff is returning 5xx", "description": "admin-console-bff 5xx rate is 2.9 req/s for 10 minutes."},
               sc.at("10:15:00"), 'sum by (k8s_deployment_name) (rate(http_server_request_duration_seconds_count{k8s_namespace_name="billing",http_response_status_code=~"5.."}[5m])) > 0.5',
               prom="https://prometheus.ledgerly.io")
    sc.trigger = {"alert": webhook([a1, a2], ["alertname"], "autoheal-monetization", "https://alertmanager.ledgerly.io",
                                   route_key='{}/{team="monetization"}')}
    sc.config = {"repo": "ledgerly/billing", "log_service_label": "k8s_container_name", "namespace": ns}
    sc.truth = {"bucket": "code_bug", "service": "billing-api", "error_type": "runtime_error", "file": calc, "line": L,
                "line_tolerance": 3, "fix_keywords": ["FirstOrDefault", "tier", "MinSeats"]}
    return sc
