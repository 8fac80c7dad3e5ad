"""E-commerce order history (Spring Boot): JDBC connection leaked by a new CSV export path exhausts HikariCP."""
import datetime as dt

from sg import *

NAME = "order-history-hikari-connection-leak"


def build():
    sc = Scenario(NAME, "2026-12-09T10:52:00Z", """
        The 09:18 order-history commit added a streaming CSV export that takes a raw connection with
        dataSource.getConnection() in OrderExportRepository.streamOrders and never closes it (no
        try-with-resources). Each export leaks one of the 10 HikariCP connections; by 10:02 the pool is empty and
        every endpoint waits 30 s for a connection and fails (SQLTransientConnectionException), so account-web and
        the gateway show 503/504 for order pages. Hikari's leak detector logs the exact acquiring line. The pool size
        is not the problem (raising it only delays exhaustion); the loyalty-service deploy and the gateway's
        rate-limit warnings are unrelated. No Kubernetes access was configured for this incident.""",
                  repo="zaffre-commerce/order-history")
    ns = "accounts"
    gw = sc.svc("account-gateway", ns, "java", version="3.2.1", npods=2)
    oh = sc.svc("order-history", ns, "java", version="2.9.0", runtime="21.0.5+11-LTS", npods=2)
    loyal = sc.svc("loyalty-service", ns, "nodejs", npods=1)
    rollout = sc.at("09:33:40")
    exhausted = {oh.pods[0]: sc.at("10:01:50"), oh.pods[1]: sc.at("10:06:20")}

    repo_f = "src/main/java/com/zaffre/orders/export/OrderExportRepository.java"
    sc.file(repo_f, """
        package com.zaffre.orders.export;

        import java.io.IOException;
        import java.io.Writer;
        import java.sql.Connection;
        import java.sql.PreparedStatement;
        import java.sql.ResultSet;
        import java.sql.SQLException;
        import java.time.LocalDate;
        import javax.sql.DataSource;
        import org.springframework.stereotype.Repository;

        @Repository
        public class OrderExportRepository {

          private static final String SQL =
              "SELECT o.id, o.placed_at, o.status, o.total_cents, o.currency FROM orders o "
                  + "WHERE o.customer_id = ? AND o.placed_at >= ? ORDER BY o.placed_at";

          private final DataSource dataSource;

          public OrderExportRepository(DataSource dataSource) {
            this.dataSource = dataSource;
          }

          /** Streams a customer's orders as CSV without loading them into memory. */
          public int streamOrders(long customerId, LocalDate since, Writer out) throws SQLException, IOException {
            Connection conn = dataSource.getConnection();
            conn.setAutoCommit(false);
            PreparedStatement ps = conn.prepareStatement(SQL);
            ps.setFetchSize(500);
            ps.setLong(1, customerId);
            ps.setObject(2, since);
            int rows = 0;
            try (ResultSet rs = ps.executeQuery()) {
              out.write("order_id,placed_at,status,total,currency\\n");
              while (rs.next()) {
                out.write(CsvRow.of(rs));
                rows++;
              }
            }
            return rows;
          }
        }
        """)
    ctl = "src/main/java/com/zaffre/orders/export/ExportController.java"
    sc.file(ctl, """
        package com.zaffre.orders.export;

        import jakarta.servlet.http.HttpServletResponse;
        import java.time.LocalDate;
        import org.springframework.web.bind.annotation.GetMapping;
        import org.springframework.web.bind.annotation.PathVariable;
        import org.springframework.web.bind.annotation.RequestParam;
        import org.springframework.web.bind.annotation.RestController;

        @RestController
        public class ExportController {

          private final OrderExportRepository exports;

          public ExportController(OrderExportRepository exports) {
            this.exports = exports;
          }

          @GetMapping("/api/customers/{customerId}/orders/export.csv")
          public void export(@PathVariable long customerId, @RequestParam LocalDate since, HttpServletResponse resp)
              throws Exception {
            resp.setContentType("text/csv");
            exports.streamOrders(customerId, since, resp.getWriter());
          }
        }
        """)
    sc.file("src/main/resources/application.yaml", """
        spring:
          datasource:
            url: jdbc:postgresql://orders-pg.accounts.svc:5432/orders
            hikari:
              maximum-pool-size: 10
              connection-timeout: 30000
              leak-detection-threshold: 60000
        server:
          tomcat:
            threads:
              max: 200
        """)
    L = sc.line(repo_f, "Connection conn = dataSource.getConnection();")
    L_ctl = sc.line(ctl, "exports.streamOrders(customerId, since, resp.getWriter());")
    sc.commit("2026-12-09T09:18:27Z", ("Lucía Fernández", "lucia@zaffre.shop", "lfernandez"),
              """order-history: CSV export of a customer's orders (ACC-311)

              Streams rows with a server-side cursor so large accounts do not
              blow up the heap.""", [(repo_f, None, None), (ctl, None, None)], merged_by_github=True)
    sc.commit("2026-12-08T16:44:02Z", ("Tariq Aziz", "tariq@zaffre.shop", "taziz"), "order-history: enable Hikari leak detection (60s)",
              [("src/main/resources/application.yaml", "      connection-timeout: 30000\n", "      connection-timeout: 30000\n      leak-detection-threshold: 60000\n")])

    timeout_ex = ("org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection\n"
                  "\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)\n"
                  "\tat org.springframework.jdbc.core.JdbcTemplate.execute(JdbcTemplate.java:653)\n"
                  "\tat org.springframework.jdbc.core.JdbcTemplate.query(JdbcTemplate.java:723)\n"
                  "\tat com.zaffre.orders.history.OrderHistoryRepository.recent(OrderHistoryRepository.java:48)\n"
                  "\tat com.zaffre.orders.history.OrderHistoryController.list(OrderHistoryController.java:31)\n"
                  "\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)\n"
                  "Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms (total=10, active=10, idle=0, waiting={w})\n"
                  "\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:686)\n"
                  "\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:179)\n"
                  "\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:144)\n"
                  "\tat com.zaxxer.hikari.HikariDataSource.getConnection(HikariDataSource.java:99)\n"
                  "\tat org.springframework.jdbc.datasource.DataSourceUtils.fetchConnection(DataSourceUtils.java:160)\n"
                  "\tat org.springframework.jdbc.datasource.DataSourceUtils.doGetConnection(DataSourceUtils.java:118)\n"
                  "\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:81)\n"
                  "\t... 58 common frames omitted")
    leak = ("java.lang.Exception: Apparent connection leak detected\n"
            "\tat com.zaxxer.hikari.HikariDataSource.getConnection(HikariDataSource.java:127)\n"
            f"\tat com.zaffre.orders.export.OrderExportRepository.streamOrders(OrderExportRepository.java:{L})\n"
            f"\tat com.zaffre.orders.export.ExportController.export(ExportController.java:{L_ctl})\n"
            "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)\n"
            "\tat java.base/java.lang.reflect.Method.invoke(Method.java:580)\n"
            "\tat org.springframework.web.method.support.InvocableHandlerMethod.doInvoke(InvocableHandlerMethod.java:255)\n"
            "\tat org.springframework.web.servlet.DispatcherServlet.doDispatch(DispatcherServlet.java:1089)\n"
            "\tat org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)\n"
            "\tat java.base/java.lang.Thread.run(Thread.java:1583)")
    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("09:10"), sc.at("10:50")
    # exports that leak: 10 per pod before exhaustion
    for p, ex in exhausted.items():
        for t in sorted(sc.times(rollout + dt.timedelta(minutes=2), ex - dt.timedelta(seconds=20), 10)):
            th = f"http-nio-8080-exec-{sc.rng.randint(1, 60)}"
            sc.log(lab("order-history", p, "info"), t, java_log_spring(t, "INFO", "order-history", th, "c.z.orders.export.ExportController",
                                                                       f"export started customer={sc.rng.randint(10**6, 10**7)} since=2025-01-01"))
            lt = t + dt.timedelta(seconds=60)
            if lt < sc.now:
                sc.log(lab("order-history", p, "warn"), lt, java_log_spring(
                    lt, "WARN", "order-history", "HikariPool-1 housekeeper", "com.zaxxer.hikari.pool.ProxyLeakTask",
                    f"Connection leak detection triggered for org.postgresql.jdbc.PgConnection@{sc.hex(8)} on thread {th}, stack trace follows\n{leak}"))
    hops = lambda: [{"svc": gw, "route": "/orders/**", "op": "GET /orders/**", "scope": "io.opentelemetry.spring-webflux-6.0"},
                    {"svc": oh, "route": "/api/customers/{customerId}/orders", "target": f"/api/customers/{sc.rng.randint(10**6, 10**7)}/orders",
                     "scope": "io.opentelemetry.tomcat-10.0"}]

    def req(t):
        h = hops()
        p = oh.pod()
        h[1]["pod"] = p
        fail = t >= exhausted[p]
        w = sc.rng.randint(20, 90)
        if fail:
            msg = f"HikariPool-1 - Connection is not available, request timed out after 30000ms (total=10, active=10, idle=0, waiting={w})"
            tr, spans = http_chain(sc, t, h, fail={"at": 1, "msg": "Failed to obtain JDBC Connection", "codes": [503, 500],
                                                   "etype": "org.springframework.jdbc.CannotGetJdbcConnectionException",
                                                   "exc_msg": "Failed to obtain JDBC Connection", "stack": timeout_ex.format(w=w),
                                                   "dur": 30_000_000 + sc.rng.randint(1_000, 9_000)})
            tt = from_us(spans[1]["startTime"] + spans[1]["duration"] - 200)
            sc.log(lab("order-history", p, "error"), tt, java_log_spring(
                tt, "ERROR", "order-history", f"http-nio-8080-exec-{sc.rng.randint(1, 200)}", "o.a.c.c.C.[.[.[/].[dispatcherServlet]",
                "Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: "
                "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection] with root cause\n\n" + timeout_ex.format(w=w).split("Caused by: ")[1],
                tr.id, spans[1]["spanID"]))
        else:
            tr, spans = http_chain(sc, t, h)
            tr.span(oh, "SELECT orders.orders", spans[1]["startTime"] + 800, 2_500, parent=spans[1], kind="client",
                    tags=db("postgresql", "SELECT o.id, o.placed_at, o.status, o.total_cents FROM orders o WHERE o.customer_id = ? ORDER BY o.placed_at DESC LIMIT ?",
                            "orders", "orders-pg.accounts.svc", 5432, "SELECT"))
    for t in sc.times(t0, t1, 22):
        req(t)
    req(sc.at("10:03:01"))
    for t in sc.times(t0, t1, 90):
        p = oh.pod()
        if t >= exhausted[p]:
            w = sc.rng.randint(20, 90)
            sc.log(lab("order-history", p, "error"), t, java_log_spring(
                t, "ERROR", "order-history", f"http-nio-8080-exec-{sc.rng.randint(1, 200)}", "o.a.c.c.C.[.[.[/].[dispatcherServlet]",
                "Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: "
                "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection] with root cause\n\n" + timeout_ex.format(w=w).split("Caused by: ")[1]))
        else:
            sc.log(lab("order-history", p, "info"), t, java_log_spring(t, "INFO", "order-history", f"http-nio-8080-exec-{sc.rng.randint(1, 60)}",
                                                                       "c.z.orders.history.OrderHistoryController", f"listed {sc.rng.randint(0, 40)} orders"))
    for t in sc.times(t0, t1, 40):
        gp = gw.pod()
        code = 504 if t >= exhausted[oh.pods[0]] and sc.rng.random() < 0.7 else 200
        lvl = "warn" if code != 200 else "info"
        sc.log(lab("account-gateway", gp, lvl), t, java_log_spring(t, lvl.upper(), "account-gateway", f"reactor-http-epoll-{sc.rng.randint(1, 4)}",
                                                                    "o.s.c.g.filter.NettyRoutingFilter" if code != 200 else "c.z.gateway.AccessLog",
                                                                    f"GET /orders -> order-history {code}" + (" (Response took longer than timeout: PT30S)" if code != 200 else "")))
    for t in sc.times(t0, t1, 20):
        sc.log(lab("account-gateway", gw.pod(), "warn"), t, java_log_spring(t, "WARN", "account-gateway", "parallel-3", "o.s.c.g.f.ratelimit.RedisRateLimiter",
                                                                             "rate limit exceeded for key=partner-api-7 replenishRate=50"))

    m0, m1 = sc.at("09:00"), sc.at("10:51")
    for p in oh.pods:
        leaked = lambda t, p=p: 0 if t < rollout + dt.timedelta(minutes=2) else min(10, int((t - rollout - dt.timedelta(minutes=2)).total_seconds() /
                                                                                            (exhausted[p] - rollout - dt.timedelta(minutes=2)).total_seconds() * 10))
        sc.gauge({"__name__": "hikaricp_connections_active", "pool": "HikariPool-1", "application": "order-history", "pod": p, "namespace": ns},
                 m0, m1, lambda t, leaked=leaked: max(leaked(t), min(10, leaked(t) + sc.rng.randint(0, 2))))
        sc.gauge({"__name__": "hikaricp_connections_pending", "pool": "HikariPool-1", "application": "order-history", "pod": p, "namespace": ns},
                 m0, m1, lambda t, p=p: sc.rng.randint(15, 90) if t >= exhausted[p] else 0)
        sc.gauge({"__name__": "hikaricp_connections_max", "pool": "HikariPool-1", "application": "order-history", "pod": p, "namespace": ns},
                 m0, m1, lambda t: 10)
    sc.gauge({"__name__": "pg_stat_activity_count", "datname": "orders", "state": "idle in transaction", "job": "postgres-exporter"},
             m0, m1, lambda t: 0 if t < rollout else min(20, int((t - rollout).total_seconds() / 170)))
    sc.trigger = {"mention": "order history page timing out for everyone since ~10:05, account-gateway full of 504s. hikari timeouts in order-history logs"}
    sc.config = {"repo": "zaffre-commerce/order-history", "namespace": ns}
    sc.truth = {"bucket": "code_bug", "service": "order-history", "error_type": "resource_exhaustion", "file": repo_f, "line": L,
                "line_tolerance": 3, "fix_keywords": ["try-with-resources", "close", "leak", "Connection"]}
    return sc
