"""Merchant statements (.NET): one runaway test merchant with 2.3M transactions makes its statement endpoint time out; everyone else is fine."""
import datetime as dt

from sg import *

NAME = "statements-api-runaway-merchant-timeouts"


def build():
    sc = Scenario(NAME, "2026-11-26T15:15:00Z", """
        Merchant MCH-0099121 is an internal load-test merchant that someone left enabled in production: a synthetic
        traffic job has been creating ~40 transactions per second on it since Monday, 2.3M rows by today. Its
        finance dashboard polls GET /api/merchants/MCH-0099121/statement every 30 s, and StatementsApi loads the
        month's transactions into memory (no paging), so each call runs into the 30 s Npgsql command timeout and
        holds a connection meanwhile. Only that merchant fails (all errors carry its id); other merchants are
        served in ~80 ms. Remediation is a data/operational fix: disable the load-test merchant and purge or
        archive its synthetic transactions (and cap statement size). The PDF-footer commit and the Redis
        keyspace warnings are unrelated.""", repo="tillpoint/merchant-finance")
    ns = "finance"
    st_ = sc.svc("StatementsApi", ns, "dotnet", version="7.3.0", runtime=".NET 8.0.10", npods=2, deploy="statements-api")
    dash = sc.svc("merchant-dashboard", ns, "nodejs", npods=2)
    bad = "MCH-0099121"

    svc = "src/Tillpoint.Statements/StatementService.cs"
    sc.file(svc, """
        using System;
        using System.Linq;
        using System.Threading;
        using System.Threading.Tasks;
        using Microsoft.EntityFrameworkCore;
        using Tillpoint.Statements.Data;

        namespace Tillpoint.Statements;

        public sealed class StatementService(FinanceDbContext db)
        {
            public async Task<Statement> MonthAsync(string merchantId, DateOnly month, CancellationToken ct)
            {
                var from = month.ToDateTime(TimeOnly.MinValue, DateTimeKind.Utc);
                var to = from.AddMonths(1);
                var txs = await db.Transactions
                    .Where(t => t.MerchantId == merchantId && t.CreatedAt >= from && t.CreatedAt < to)
                    .OrderBy(t => t.CreatedAt)
                    .ToListAsync(ct);
                return Statement.From(merchantId, month, txs);
            }
        }
        """)
    pdf = "src/Tillpoint.Statements/Pdf/Footer.cs"
    sc.file(pdf, """
        namespace Tillpoint.Statements.Pdf;

        public static class Footer
        {
            public const string Text = "Tillpoint Ltd · Registered in England and Wales · VAT GB 123 4567 89";
        }
        """)
    L = sc.line(svc, ".ToListAsync(ct);")
    sc.commit("2026-11-26T10:12:00Z", ("Owen Hughes", "owen@tillpoint.co.uk", "ohughes"), "statements: registered office in PDF footer",
              [(pdf, '"Tillpoint Ltd"', '"Tillpoint Ltd · Registered in England and Wales · VAT GB 123 4567 89"')])

    err = ("Npgsql.NpgsqlException (0x80004005): Exception while reading from stream\n"
           " ---> System.TimeoutException: Timeout during reading attempt\n"
           "   at Npgsql.Internal.NpgsqlReadBuffer.<Ensure>g__EnsureLong|55_0(NpgsqlReadBuffer buffer, Int32 count, Boolean async, Boolean readingNotifications)\n"
           "   at Npgsql.Internal.NpgsqlConnector.ReadMessageLong(Boolean async, DataRowLoadingMode dataRowLoadingMode, Boolean readingNotifications, Boolean isReadingPrependedMessage)\n"
           "   --- End of inner exception stack trace ---\n"
           "   at Npgsql.NpgsqlDataReader.NextResult(Boolean async, Boolean isConsuming, CancellationToken cancellationToken)\n"
           "   at Microsoft.EntityFrameworkCore.Query.Internal.SingleQueryingEnumerable`1.AsyncEnumerator.MoveNextAsync()\n"
           "   at Microsoft.EntityFrameworkCore.EntityFrameworkQueryableExtensions.ToListAsync[TSource](IQueryable`1 source, CancellationToken cancellationToken)\n"
           f"   at Tillpoint.Statements.StatementService.MonthAsync(String merchantId, DateOnly month, CancellationToken ct) in /src/src/Tillpoint.Statements/StatementService.cs:line {L}\n"
           "   at Tillpoint.Statements.Api.StatementEndpoints.<>c.<<Map>b__0_0>d.MoveNext() in /src/src/Tillpoint.Statements.Api/StatementEndpoints.cs:line 21")
    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("13:00"), sc.at("15:13")

    def statement(t, mid):
        is_bad = mid == bad
        hops = [{"svc": dash, "route": "/dashboard/statement", "port": 3000, "scope": "@opentelemetry/instrumentation-http"},
                {"svc": st_, "route": "/api/merchants/{merchantId}/statement", "target": f"/api/merchants/{mid}/statement?month=2026-11", "port": 8080,
                 "scope": "Microsoft.AspNetCore", "op": "GET /api/merchants/{merchantId}/statement", "extra": {"app.merchant.id": mid}}]
        f = {"at": 1, "msg": "Exception while reading from stream", "codes": [504, 500], "etype": "Npgsql.NpgsqlException", "stack": err,
             "dur": 30_000_000 + sc.rng.randint(10_000, 90_000)} if is_bad else None
        tr, spans = http_chain(sc, t, hops, fail=f)
        s = spans[1]
        tr.span(st_, "finance", s["startTime"] + 900, s["duration"] - 1_500 if is_bad else sc.rng.randint(20_000, 60_000), parent=s, kind="client",
                error="Timeout during reading attempt" if is_bad else None,
                tags=db("postgresql", 'SELECT t."Id", t."Amount", t."CreatedAt", t."Currency", t."MerchantId", t."Reference" FROM "Transactions" AS t WHERE t."MerchantId" = @__merchantId_0 AND t."CreatedAt" >= @__from_1 AND t."CreatedAt" < @__to_2 ORDER BY t."CreatedAt"',
                        "finance", "finance-pg.finance.svc", 5432, "SELECT", **{"otel.scope.name": "OpenTelemetry.Instrumentation.EntityFrameworkCore"}))
        tt = from_us(s["startTime"] + s["duration"])
        if is_bad:
            sc.log(lab("StatementsApi", s["_pod"], "error"), tt, json.dumps({
                "Timestamp": iso(tt, 6), "EventId": 1, "LogLevel": "Error", "Category": "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware",
                "Message": "An unhandled exception has occurred while executing the request.", "Exception": err, "TraceId": tr.id, "SpanId": s["spanID"],
                "Scopes": [{"RequestPath": f"/api/merchants/{mid}/statement", "MerchantId": mid}]}))
        else:
            sc.log(lab("StatementsApi", s["_pod"], "info"), tt, json.dumps({
                "Timestamp": iso(tt, 6), "EventId": 0, "LogLevel": "Information", "Category": "Tillpoint.Statements.Api.StatementEndpoints",
                "Message": f"statement for {mid} 2026-11: {sc.rng.randint(10, 4000)} transactions", "TraceId": tr.id, "SpanId": s["spanID"]}))

    merchants = [f"MCH-00{sc.rng.randint(10000, 99999)}" for _ in range(30)]
    for t in sc.times(t0, t1, 20):
        statement(t, sc.rng.choice(merchants))
    for t in sc.times(t0, t1, 8):
        statement(t, bad)
    t = t0
    while t < t1:
        p = st_.pod()
        sc.log(lab("StatementsApi", p, "error"), t + dt.timedelta(seconds=30), json.dumps({
            "Timestamp": iso(t + dt.timedelta(seconds=30), 6), "EventId": 1, "LogLevel": "Error", "Category": "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware",
            "Message": "An unhandled exception has occurred while executing the request.", "Exception": err,
            "Scopes": [{"RequestPath": f"/api/merchants/{bad}/statement", "MerchantId": bad}]}))
        t += dt.timedelta(seconds=sc.rng.uniform(45, 75))
    for t in sc.times(t0, t1, 120):
        mid = sc.rng.choice(merchants)
        sc.log(lab("StatementsApi", st_.pod(), "info"), t, json.dumps({"Timestamp": iso(t, 6), "EventId": 0, "LogLevel": "Information",
                                                                      "Category": "Tillpoint.Statements.Api.StatementEndpoints",
                                                                      "Message": f"statement for {mid} 2026-11: {sc.rng.randint(10, 4000)} transactions"}))
    for t in sc.times(t0, t1, 20):
        sc.log(lab("merchant-dashboard", dash.pod(), "warn"), t, json.dumps({"level": "warn", "time": iso(t, 3), "msg": "redis keyspace notification backlog", "pending": sc.rng.randint(100, 900)}))

    m0, m1 = sc.at("12:50"), sc.at("15:14")
    sc.gauge({"__name__": "finance_transactions_created_per_merchant_rate1h", "job": "finance-metrics", "merchant_id": bad}, m0, m1, lambda t: sc.rng.uniform(38, 42))
    sc.gauge({"__name__": "finance_transactions_created_per_merchant_rate1h", "job": "finance-metrics", "merchant_id": "other_p99"}, m0, m1, lambda t: sc.rng.uniform(0.02, 0.09))
    sc.counter({"__name__": "http_server_request_duration_seconds_count", "job": "statements-api", "http_route": "/api/merchants/{merchantId}/statement",
                "http_response_status_code": "500"}, m0, m1, lambda t: 1 / 60, initial=1_200, integer=False)
    sc.counter({"__name__": "http_server_request_duration_seconds_count", "job": "statements-api", "http_route": "/api/merchants/{merchantId}/statement",
                "http_response_status_code": "200"}, m0, m1, lambda t: 4.5, initial=23_300_112)
    sc.gauge({"__name__": "pg_stat_activity_max_tx_duration", "job": "postgres-exporter", "datname": "finance"}, m0, m1, lambda t: sc.rng.uniform(25, 31))

    a = alert(sc, {"alertname": "SlowEndpointP99", "service": "StatementsApi", "http_route": "/api/merchants/{merchantId}/statement", "namespace": ns,
                   "severity": "warning"},
              {"summary": "StatementsApi p99 above 10s", "description": "p99 latency of GET /api/merchants/{merchantId}/statement is 30.1s; 0.4% of requests fail."},
              sc.at("14:31:00"), 'histogram_quantile(0.99, sum by (le, http_route) (rate(http_server_request_duration_seconds_bucket{job="statements-api"}[15m]))) > 10')
    sc.trigger = {"alert": webhook([a], ["alertname", "service"], "autoheal-finance", "https://alertmanager.tillpoint.co.uk", route_key='{}/{namespace="finance"}')}
    sc.config = {"repo": "tillpoint/merchant-finance"}
    sc.truth = {"bucket": "bad_data", "service": "StatementsApi", "error_type": "timeout",
                "fix_keywords": ["MCH-0099121", "load-test", "purge", "archive", "paging"]}
    return sc
