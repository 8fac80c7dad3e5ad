"""Retail loyalty (.NET / EF Core): two queries run concurrently on one scoped DbContext via Task.WhenAll -> intermittent InvalidOperationException."""
import datetime as dt

from sg import *

NAME = "loyalty-api-efcore-second-operation-flake"


def build():
    sc = Scenario(NAME, "2026-08-12T14:10:00Z", """
        LoyaltyApi's wallet endpoint loads the member's points and vouchers with Task.WhenAll over two EF Core
        queries that share the request-scoped DbContext. DbContext is not thread-safe: when both queries overlap
        (mostly when the database answers slowly) EF Core throws \"A second operation was started on this context
        instance before a previous operation completed\". About 1% of wallet requests fail, in bursts when
        Postgres latency rises, and the code is five weeks old (no deploy correlation; today's deploy only touched
        the receipts endpoint). Fix: await the queries sequentially or use an IDbContextFactory per query. The
        pos-sync warnings and the receipts deploy are unrelated.""", repo="kestrel-retail/loyalty")
    ns = "loyalty"
    app = sc.svc("mobile-bff", ns, "nodejs", npods=2)
    lo = sc.svc("LoyaltyApi", ns, "dotnet", version="4.12.0", runtime=".NET 8.0.7", npods=3, deploy="loyalty-api")
    pos = sc.svc("pos-sync", ns, "go", npods=1)

    w = "src/Loyalty.Api/Wallet/WalletService.cs"
    sc.file(w, """
        using System;
        using System.Linq;
        using System.Threading;
        using System.Threading.Tasks;
        using Loyalty.Api.Data;
        using Microsoft.EntityFrameworkCore;

        namespace Loyalty.Api.Wallet;

        public sealed class WalletService
        {
            private readonly LoyaltyDbContext _db;

            public WalletService(LoyaltyDbContext db) => _db = db;

            public async Task<WalletDto> GetWalletAsync(Guid memberId, CancellationToken ct)
            {
                var pointsTask = _db.PointEntries.Where(p => p.MemberId == memberId).SumAsync(p => p.Points, ct);
                var vouchersTask = _db.Vouchers.Where(v => v.MemberId == memberId && v.RedeemedAt == null).ToListAsync(ct);
                await Task.WhenAll(pointsTask, vouchersTask);
                return new WalletDto(memberId, pointsTask.Result, vouchersTask.Result.Select(VoucherDto.From).ToList());
            }
        }
        """)
    rc = "src/Loyalty.Api/Receipts/ReceiptsController.cs"
    sc.file(rc, """
        using Microsoft.AspNetCore.Mvc;

        namespace Loyalty.Api.Receipts;

        [ApiController]
        [Route("api/receipts")]
        public sealed class ReceiptsController : ControllerBase
        {
            [HttpGet("{id:guid}/pdf")]
            public IActionResult Pdf(System.Guid id) => File(ReceiptPdf.Render(id), "application/pdf", $"receipt-{id}.pdf");
        }
        """)
    L = sc.line(w, "await Task.WhenAll(pointsTask, vouchersTask);")
    sc.commit("2026-08-12T09:20:31Z", ("Ingrid Solberg", "ingrid@kestrel-retail.com", "isolberg"), "receipts: download as PDF with a file name",
              [(rc, '=> File(ReceiptPdf.Render(id), "application/pdf");', '=> File(ReceiptPdf.Render(id), "application/pdf", $"receipt-{id}.pdf");')])
    sc.commit("2026-07-07T15:44:02Z", ("Dev Patel", "dev@kestrel-retail.com", "devpatel"), "wallet: load points and vouchers in parallel (p95 -40ms)",
              [(w, """        var points = await _db.PointEntries.Where(p => p.MemberId == memberId).SumAsync(p => p.Points, ct);
        var vouchers = await _db.Vouchers.Where(v => v.MemberId == memberId && v.RedeemedAt == null).ToListAsync(ct);
        return new WalletDto(memberId, points, vouchers.Select(VoucherDto.From).ToList());""",
                """        var pointsTask = _db.PointEntries.Where(p => p.MemberId == memberId).SumAsync(p => p.Points, ct);
        var vouchersTask = _db.Vouchers.Where(v => v.MemberId == memberId && v.RedeemedAt == null).ToListAsync(ct);
        await Task.WhenAll(pointsTask, vouchersTask);
        return new WalletDto(memberId, pointsTask.Result, vouchersTask.Result.Select(VoucherDto.From).ToList());""")], merged_by_github=True)

    msg = ("A second operation was started on this context instance before a previous operation completed. This is usually caused by "
           "different threads concurrently using the same instance of DbContext. For more information on how to avoid threading issues "
           "with DbContext, see https://go.microsoft.com/fwlink/?linkid=2097913.")
    stack = (f"System.InvalidOperationException: {msg}\n"
             "   at Microsoft.EntityFrameworkCore.Infrastructure.Internal.ConcurrencyDetector.EnterCriticalSection()\n"
             "   at Microsoft.EntityFrameworkCore.Query.Internal.SingleQueryingEnumerable`1.AsyncEnumerator.MoveNextAsync()\n"
             "   at Microsoft.EntityFrameworkCore.EntityFrameworkQueryableExtensions.ToListAsync[TSource](IQueryable`1 source, CancellationToken cancellationToken)\n"
             f"   at Loyalty.Api.Wallet.WalletService.GetWalletAsync(Guid memberId, CancellationToken ct) in /src/src/Loyalty.Api/Wallet/WalletService.cs:line {L}\n"
             "   at Loyalty.Api.Wallet.WalletEndpoints.<>c.<<Map>b__0_0>d.MoveNext() in /src/src/Loyalty.Api/Wallet/WalletEndpoints.cs:line 18\n"
             "--- End of stack trace from previous location ---\n"
             "   at Microsoft.AspNetCore.Http.RequestDelegateFactory.<ExecuteTaskResult>g__ExecuteAwaited|180_0[T](Task`1 task, HttpContext httpContext, JsonTypeInfo`1 jsonTypeInfo)\n"
             "   at Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddlewareImpl.<Invoke>g__Awaited|10_0(ExceptionHandlerMiddlewareImpl middleware, HttpContext context, Task task)")
    t0, t1 = sc.at("08:00"), sc.at("14:08")
    slow = [sc.at("09:41"), sc.at("11:17"), sc.at("13:02"), sc.at("13:49")]
    in_slow = lambda t: any(dt.timedelta(0) <= t - s < dt.timedelta(minutes=4) for s in slow)
    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}

    def wallet(t, fail):
        mid = sc.uuid()
        hops = [{"svc": app, "route": "/bff/wallet", "port": 3000, "scope": "@opentelemetry/instrumentation-http"},
                {"svc": lo, "route": "/api/members/{memberId:guid}/wallet", "target": f"/api/members/{mid}/wallet", "port": 8080,
                 "scope": "Microsoft.AspNetCore", "op": "GET /api/members/{memberId:guid}/wallet"}]
        f = {"at": 1, "msg": msg, "codes": [502, 500], "etype": "System.InvalidOperationException", "stack": stack,
             "style": "Error" if sc.rng.random() < 0.5 else "otel"} if fail else None
        tr, spans = http_chain(sc, t, hops, fail=f)
        s = spans[1]
        for i, q in enumerate(['SELECT COALESCE(SUM(p."Points"), 0) FROM "PointEntries" AS p WHERE p."MemberId" = @__memberId_0',
                               'SELECT v."Id", v."Code", v."ExpiresAt", v."ValueCents" FROM "Vouchers" AS v WHERE v."MemberId" = @__memberId_0 AND v."RedeemedAt" IS NULL']):
            if fail and i == 1:
                break
            tr.span(lo, "loyalty", s["startTime"] + 400 + i * 80, max(800, s["duration"] - 2_000), parent=s, kind="client",
                    tags=db("postgresql", q, "loyalty", "loyalty-pg.postgres.database.azure.com", 5432, "SELECT",
                            **{"otel.scope.name": "OpenTelemetry.Instrumentation.EntityFrameworkCore"}))
        tt = from_us(s["startTime"] + s["duration"])
        if fail:
            sc.log(lab("LoyaltyApi", s["_pod"], "error"), tt, json.dumps({
                "Timestamp": iso(tt, 6), "EventId": 1, "LogLevel": "Error", "Category": "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware",
                "Message": "An unhandled exception has occurred while executing the request.", "Exception": stack, "TraceId": tr.id, "SpanId": s["spanID"]}))
        else:
            sc.log(lab("LoyaltyApi", s["_pod"], "info"), tt, json.dumps({
                "Timestamp": iso(tt, 6), "EventId": 0, "LogLevel": "Information", "Category": "Loyalty.Api.Wallet.WalletEndpoints",
                "Message": f"wallet served for {mid}", "TraceId": tr.id, "SpanId": s["spanID"]}))

    for t in sc.times(t0, t1, 24):
        wallet(t, False)
    for s_ in slow:
        for _ in range(sc.rng.randint(1, 3)):
            wallet(s_ + dt.timedelta(seconds=sc.rng.uniform(0, 200)), True)
    for t in sc.times(t0, t1, 170):
        p = lo.pod()
        fail = in_slow(t) and sc.rng.random() < 0.2
        if fail:
            sc.log(lab("LoyaltyApi", p, "error"), t, json.dumps({
                "Timestamp": iso(t, 6), "EventId": 1, "LogLevel": "Error", "Category": "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware",
                "Message": "An unhandled exception has occurred while executing the request.", "Exception": stack}))
        else:
            sc.log(lab("LoyaltyApi", p, "info"), t, json.dumps({"Timestamp": iso(t, 6), "EventId": 0, "LogLevel": "Information",
                                                                "Category": "Loyalty.Api.Wallet.WalletEndpoints", "Message": f"wallet served for {sc.uuid()}"}))
    for t in sc.times(t0, t1, 30):
        sc.log(lab("pos-sync", pos.pods[0], "warn"), t, f'time={iso(t, 3)} level=WARN msg="store feed late" store=ST{sc.rng.randint(100, 999)} lag={sc.rng.randint(2, 14)}m')

    m0, m1 = sc.at("07:50"), sc.at("14:09")
    sc.counter({"__name__": "http_server_request_duration_seconds_count", "job": "loyalty-api", "http_route": "/api/members/{memberId:guid}/wallet",
                "http_response_status_code": "500", "error_type": "System.InvalidOperationException"}, m0, m1,
               lambda t: 0.35 if in_slow(t) else 0.004, initial=2_731, integer=False)
    sc.counter({"__name__": "http_server_request_duration_seconds_count", "job": "loyalty-api", "http_route": "/api/members/{memberId:guid}/wallet",
                "http_response_status_code": "200"}, m0, m1, lambda t: 24, initial=188_220_931)
    sc.gauge({"__name__": "azure_postgresql_flexible_server_read_latency_ms", "job": "azure-exporter", "server": "loyalty-pg"}, m0, m1,
             lambda t: sc.rng.uniform(18, 40) if in_slow(t) else sc.rng.uniform(1.5, 4))

    sc.trigger = {"mention": "LoyaltyApi wallet endpoint throws 'A second operation was started on this context' every now and then, mostly when the db is slow. is this the db or us?"}
    sc.config = {"repo": "kestrel-retail/loyalty", "service_name": "LoyaltyApi"}
    sc.truth = {"bucket": "flake", "service": "LoyaltyApi", "error_type": "race_condition", "file": w, "line": L, "line_tolerance": 3,
                "fix_keywords": ["Task.WhenAll", "sequential", "await", "IDbContextFactory", "DbContext"]}
    return sc
