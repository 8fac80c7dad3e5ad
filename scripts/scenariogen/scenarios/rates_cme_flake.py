"""Travel insurance quotes (Spring): rare ConcurrentModificationException when the FX refresher mutates a shared ArrayList during iteration."""
import datetime as dt

from sg import *

NAME = "quote-api-concurrentmodification-flake"


def build():
    sc = Scenario(NAME, "2026-06-10T16:20:00Z", """
        quote-api fails about 0.3% of requests with java.util.ConcurrentModificationException in
        FxRateCache.rateFor: the cache keeps its rates in a plain ArrayList that the scheduled refresher
        (every 60 s) clears and refills while request threads iterate it. Failures cluster in the second after each
        refresh, hit random currencies and endpoints and have existed since the cache was written in March (no
        deploy correlation; today's 14:05 deploy only changed copy). It is a race: use an immutable snapshot
        (volatile List.copyOf / CopyOnWriteArrayList / ConcurrentHashMap). The partner-api 429s and the
        pricing-rules reload warnings are unrelated.""", repo="wanderwise/quoting")
    ns = "quotes"
    gw = sc.svc("partner-api", ns, "nodejs", npods=2)
    q = sc.svc("quote-api", ns, "java", version="11.2.0", runtime="21.0.3+9", npods=3)

    fx = "quote-api/src/main/java/travel/wanderwise/quote/fx/FxRateCache.java"
    sc.file(fx, """
        package travel.wanderwise.quote.fx;

        import java.math.BigDecimal;
        import java.util.ArrayList;
        import java.util.List;
        import org.slf4j.Logger;
        import org.slf4j.LoggerFactory;
        import org.springframework.scheduling.annotation.Scheduled;
        import org.springframework.stereotype.Component;

        @Component
        public class FxRateCache {

          private static final Logger log = LoggerFactory.getLogger(FxRateCache.class);

          private final FxFeedClient feed;
          private final List<FxRate> rates = new ArrayList<>();

          public FxRateCache(FxFeedClient feed) {
            this.feed = feed;
          }

          @Scheduled(fixedRate = 60_000)
          public void refresh() {
            List<FxRate> fresh = feed.latest();
            rates.clear();
            rates.addAll(fresh);
            log.debug("fx rates refreshed: {}", fresh.size());
          }

          public BigDecimal rateFor(String from, String to) {
            for (FxRate r : rates) {
              if (r.from().equals(from) && r.to().equals(to)) {
                return r.rate();
              }
            }
            throw new UnknownCurrencyPairException(from, to);
          }
        }
        """)
    sc.file("quote-api/src/main/resources/messages_en.properties", """
        quote.summary=Your trip is covered from {0} to {1}.
        quote.excess=Excess per claim: {0}
        """)
    L = sc.line(fx, "for (FxRate r : rates) {")
    L_ref = sc.line(fx, "rates.addAll(fresh);")
    sc.commit("2026-06-10T13:51:30Z", ("Clara Jensen", "clara@wanderwise.travel", "cjensen"), "quote-api: clearer summary copy",
              [("quote-api/src/main/resources/messages_en.properties", "quote.summary=Covered {0}-{1}.", "quote.summary=Your trip is covered from {0} to {1}.")])
    sc.commit("2026-03-18T10:02:00Z", ("Vikram Rao", "vikram@wanderwise.travel", "vrao"), "quote-api: cache FX rates in memory, refresh every minute",
              [(fx, None, None)], merged_by_github=True)

    stack = ("java.util.ConcurrentModificationException: null\n"
             "\tat java.base/java.util.ArrayList$Itr.checkForComodification(ArrayList.java:1095)\n"
             "\tat java.base/java.util.ArrayList$Itr.next(ArrayList.java:1049)\n"
             f"\tat travel.wanderwise.quote.fx.FxRateCache.rateFor(FxRateCache.java:{L})\n"
             "\tat travel.wanderwise.quote.pricing.PremiumCalculator.convert(PremiumCalculator.java:88)\n"
             "\tat travel.wanderwise.quote.pricing.PremiumCalculator.premium(PremiumCalculator.java:52)\n"
             "\tat travel.wanderwise.quote.api.QuoteController.quote(QuoteController.java:41)\n"
             "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)\n"
             "\tat org.springframework.web.servlet.DispatcherServlet.doDispatch(DispatcherServlet.java:1089)\n"
             "\tat org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)\n"
             "\tat java.base/java.lang.Thread.run(Thread.java:1583)")
    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("10:00"), sc.at("16:18")
    # failures: rare, right after a refresh tick on a random pod
    fails = sorted(sc.times(t0, t1, 26))
    fails = [f.replace(second=sc.rng.randint(0, 0), microsecond=sc.rng.randint(0, 900_000)) for f in fails]
    for f in fails:
        p = q.pod()
        cur = sc.rng.choice(["GBP", "USD", "CHF", "SEK", "NOK", "PLN", "DKK"])
        hops = [{"svc": gw, "route": "/partners/v1/quotes", "method": "POST", "port": 3000, "scope": "@opentelemetry/instrumentation-http"},
                {"svc": q, "route": "/api/quotes", "method": "POST", "port": 8080, "scope": "io.opentelemetry.tomcat-10.0", "pod": p,
                 "extra": {"app.quote.currency": cur}}]
        tr, spans = http_chain(sc, f, hops, fail={"at": 1, "msg": "java.util.ConcurrentModificationException", "codes": [500, 500],
                                                  "etype": "java.util.ConcurrentModificationException", "exc_msg": "null", "stack": stack})
        tt = from_us(spans[1]["startTime"] + spans[1]["duration"] - 200)
        sc.log(lab("quote-api", p, "error"), tt, java_log_spring(
            tt, "ERROR", "quote-api", f"http-nio-8080-exec-{sc.rng.randint(1, 120)}", "o.a.c.c.C.[.[.[/].[dispatcherServlet]",
            "Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: "
            "java.util.ConcurrentModificationException] with root cause\n\n" + stack, tr.id, spans[1]["spanID"]))
    for t in sc.times(t0, t1, 24):
        http_chain(sc, t, [{"svc": gw, "route": "/partners/v1/quotes", "method": "POST", "port": 3000, "scope": "@opentelemetry/instrumentation-http"},
                           {"svc": q, "route": "/api/quotes", "method": "POST", "port": 8080, "scope": "io.opentelemetry.tomcat-10.0"}])
    for t in sc.times(t0, t1, 200):
        p = q.pod()
        sc.log(lab("quote-api", p, "info"), t, java_log_spring(t, "INFO", "quote-api", f"http-nio-8080-exec-{sc.rng.randint(1, 120)}",
                                                               "t.w.quote.api.QuoteController", f"quote issued ref=WQ-{sc.rng.randint(10**6, 10**7)} currency={sc.rng.choice(['EUR', 'GBP', 'USD', 'CHF'])}"))
    for t in sc.times(t0, t1, 30):
        sc.log(lab("partner-api", gw.pod(), "warn"), t, json.dumps({"level": "warn", "time": iso(t, 3), "msg": "partner rate limited", "partner": "skybook", "status": 429}))
    for t in sc.times(t0, t1, 15):
        sc.log(lab("quote-api", q.pod(), "warn"), t, java_log_spring(t, "WARN", "quote-api", "scheduling-1", "t.w.quote.rules.RulesReloader",
                                                                     "pricing rules unchanged (etag match), skipping reload"))
    sc.log(lab("quote-api", q.pods[0], "info"), sc.at("14:05:30"), java_log_spring(sc.at("14:05:30"), "INFO", "quote-api", "main",
                                                                                    "t.w.quote.QuoteApiApplication", "Started QuoteApiApplication in 9.81 seconds (process running for 10.4)"))

    m0, m1 = sc.at("09:50"), sc.at("16:19")
    sc.counter({"__name__": "http_server_requests_seconds_count", "application": "quote-api", "uri": "/api/quotes", "status": "500",
                "exception": "ConcurrentModificationException", "job": "quote-api"}, m0, m1, lambda t: 0.0012, initial=412, integer=False)
    sc.counter({"__name__": "http_server_requests_seconds_count", "application": "quote-api", "uri": "/api/quotes", "status": "200",
                "exception": "none", "job": "quote-api"}, m0, m1, lambda t: 0.42, initial=12_884_331)

    sc.trigger = {"mention": "quote-api throwing random ConcurrentModificationException, like a handful per hour, no pattern by partner. been like this for a while? not urgent but annoying"}
    sc.config = {"repo": "wanderwise/quoting", "service_name": "quote-api"}
    sc.truth = {"bucket": "flake", "service": "quote-api", "error_type": "race_condition", "file": fx, "line": L, "line_tolerance": 8,
                "fix_keywords": ["CopyOnWriteArrayList", "immutable", "volatile", "List.copyOf", "ConcurrentHashMap"]}
    return sc
