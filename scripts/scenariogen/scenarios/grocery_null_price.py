"""Grocery delivery basket pricing (Spring): a handful of SKUs got a NULL unit price from a manual backfill -> NPE for baskets containing them."""
import datetime as dt

from sg import *

NAME = "basket-pricing-null-unit-price-skus"


def build():
    sc = Scenario(NAME, "2026-12-14T12:35:00Z", """
        A manual price backfill run by the category team at 10:48 (UPDATE ... FROM a spreadsheet import) set
        unit_price to NULL for three SKUs whose spreadsheet cells were empty (4004217 oat milk 1l, 4004218, 4011950).
        basket-pricing multiplies unit_price by quantity and throws NullPointerException in BasketPricer for every
        basket containing one of them: checkout fails for ~6% of baskets, always with those SKU ids in the logs.
        The code has assumed non-null prices for years (the column lacks a NOT NULL constraint); the remediation is
        a data fix for the three rows plus a constraint/validation. The pricing-rules commit this morning and
        the promotions cache warnings are unrelated.""", repo="freshcart/commerce")
    ns = "commerce"
    co = sc.svc("checkout-service", ns, "go", version="14.2.1", npods=2)
    bp = sc.svc("basket-pricing", ns, "java", version="7.8.0", runtime="17.0.12+7", npods=3)
    backfill = sc.at("10:48:31")
    bad_skus = {"4004217": "Oat drink barista 1l", "4004218": "Oat drink 1l", "4011950": "Organic spelt flour 1kg"}

    pr = "basket-pricing/src/main/java/co/freshcart/pricing/BasketPricer.java"
    sc.file(pr, """
        package co.freshcart.pricing;

        import co.freshcart.pricing.catalog.PriceRepository;
        import co.freshcart.pricing.catalog.SkuPrice;
        import co.freshcart.pricing.rules.PromotionEngine;
        import java.math.BigDecimal;
        import java.math.RoundingMode;
        import java.util.List;
        import java.util.Map;
        import org.springframework.stereotype.Component;

        @Component
        public class BasketPricer {

          private final PriceRepository prices;
          private final PromotionEngine promotions;

          public BasketPricer(PriceRepository prices, PromotionEngine promotions) {
            this.prices = prices;
            this.promotions = promotions;
          }

          public PricedBasket price(Basket basket) {
            Map<String, SkuPrice> bySku = prices.findAllBySku(basket.skus());
            BigDecimal subtotal = BigDecimal.ZERO;
            List<PricedLine> lines = new java.util.ArrayList<>();
            for (BasketLine line : basket.lines()) {
              SkuPrice p = bySku.get(line.sku());
              BigDecimal amount = p.unitPrice().multiply(BigDecimal.valueOf(line.quantity()));
              lines.add(new PricedLine(line.sku(), line.quantity(), p.unitPrice(), amount));
              subtotal = subtotal.add(amount);
            }
            BigDecimal discount = promotions.discountFor(basket, lines);
            return new PricedBasket(lines, subtotal, discount, subtotal.subtract(discount).setScale(2, RoundingMode.HALF_UP));
          }
        }
        """)
    sc.file("basket-pricing/src/main/resources/db/migration/V31__sku_prices.sql", """
        CREATE TABLE sku_prices (
            sku         VARCHAR(16) PRIMARY KEY,
            unit_price  NUMERIC(10, 2),
            currency    CHAR(3) NOT NULL DEFAULT 'EUR',
            updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        """)
    rules = "basket-pricing/src/main/resources/rules/promotions.yaml"
    sc.file(rules, """
        promotions:
          - id: dairy-free-week
            skus: ["4004217", "4004218"]
            percent: 10
          - id: bakery-3for2
            category: bakery
            buy: 3
            pay: 2
        """)
    L = sc.line(pr, "BigDecimal amount = p.unitPrice().multiply(BigDecimal.valueOf(line.quantity()));")
    L_ctl = 44
    sc.commit("2026-12-14T08:15:02Z", ("Lotte de Vries", "lotte@freshcart.co", "ldevries"), "pricing: dairy-free week promotion",
              [(rules, """promotions:
  - id: bakery-3for2""", """promotions:
  - id: dairy-free-week
    skus: ["4004217", "4004218"]
    percent: 10
  - id: bakery-3for2""")])

    npe = ('java.lang.NullPointerException: Cannot invoke "java.math.BigDecimal.multiply(java.math.BigDecimal)" because the return value of '
           '"co.freshcart.pricing.catalog.SkuPrice.unitPrice()" is null')
    stack = (f"{npe}\n"
             f"\tat co.freshcart.pricing.BasketPricer.price(BasketPricer.java:{L})\n"
             f"\tat co.freshcart.pricing.api.PricingController.price(PricingController.java:{L_ctl})\n"
             "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:104)\n"
             "\tat java.base/java.lang.reflect.Method.invoke(Method.java:578)\n"
             "\tat org.springframework.web.method.support.InvocableHandlerMethod.doInvoke(InvocableHandlerMethod.java:259)\n"
             "\tat org.springframework.web.servlet.DispatcherServlet.doDispatch(DispatcherServlet.java:1089)\n"
             "\tat org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)\n"
             "\tat java.base/java.lang.Thread.run(Thread.java:833)")
    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("10:20"), sc.at("12:33")
    normal = ["4001001", "4002230", "4003117", "4005521", "4006002", "4007788", "4010011", "4012304", "4013390", "4020001"]

    def basket():
        n = sc.rng.randint(3, 18)
        skus = sc.rng.sample(normal, min(n, len(normal)))
        if sc.rng.random() < 0.14:
            skus.append(sc.rng.choice(list(bad_skus)))
        return skus

    def checkout(t, skus):
        bad = t >= backfill and any(s in bad_skus for s in skus)
        bid = "bsk_" + sc.hex(12)
        hops = [{"svc": co, "route": "/v1/checkout", "method": "POST", "port": 8080, "scope": "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"},
                {"svc": bp, "route": "/v2/baskets/price", "method": "POST", "port": 8080, "scope": "io.opentelemetry.tomcat-10.0",
                 "db": [("postgresql", "select s1_0.sku,s1_0.currency,s1_0.unit_price from sku_prices s1_0 where s1_0.sku in (?,?,?,?,?,?,?,?,?,?)",
                         "pricing-pg.commerce.svc", 5432, "SELECT")],
                 "extra": {"app.basket.id": bid, "app.basket.lines": len(skus)}}]
        f = {"at": 1, "msg": npe.split(": ", 1)[1], "codes": [502, 500], "etype": "java.lang.NullPointerException", "stack": stack,
             "exc_msg": npe.split(": ", 1)[1]} if bad else None
        tr, spans = http_chain(sc, t, hops, fail=f)
        p = spans[1]["_pod"]
        tt = from_us(spans[1]["startTime"] + spans[1]["duration"] - 300)
        if bad:
            sku = next(s for s in skus if s in bad_skus)
            sc.log(lab("basket-pricing", p, "error"), tt, java_log_spring(
                tt, "ERROR", "basket-pricing", f"http-nio-8080-exec-{sc.rng.randint(1, 80)}", "c.f.pricing.api.PricingExceptionHandler",
                f"pricing failed basket={bid} skus={','.join(skus)} suspect_sku={sku}\n{stack}", tr.id, spans[1]["spanID"]))
            sc.log(lab("checkout-service", spans[0]["_pod"], "error"), tt + dt.timedelta(milliseconds=3), json.dumps({
                "time": iso(tt, 6), "level": "ERROR", "msg": "checkout failed", "basket_id": bid, "err": "basket-pricing: 500 Internal Server Error", "trace_id": tr.id}))
        else:
            sc.log(lab("basket-pricing", p, "info"), tt, java_log_spring(tt, "INFO", "basket-pricing", f"http-nio-8080-exec-{sc.rng.randint(1, 80)}",
                                                                         "c.f.pricing.api.PricingController", f"priced basket={bid} lines={len(skus)}", tr.id, spans[1]["spanID"]))

    for t in sc.times(t0, t1, 22):
        checkout(t, basket())
    checkout(sc.at("11:02:10"), ["4001001", "4004217", "4013390"])
    checkout(sc.at("12:14:55"), ["4011950", "4005521"])
    for t in sc.times(t0, t1, 150):
        skus = basket()
        p = bp.pod()
        if t >= backfill and any(s in bad_skus for s in skus):
            sku = next(s for s in skus if s in bad_skus)
            sc.log(lab("basket-pricing", p, "error"), t, java_log_spring(
                t, "ERROR", "basket-pricing", f"http-nio-8080-exec-{sc.rng.randint(1, 80)}", "c.f.pricing.api.PricingExceptionHandler",
                f"pricing failed basket=bsk_{sc.hex(12)} skus={','.join(skus)} suspect_sku={sku}\n{stack}"))
        else:
            sc.log(lab("basket-pricing", p, "info"), t, java_log_spring(t, "INFO", "basket-pricing", f"http-nio-8080-exec-{sc.rng.randint(1, 80)}",
                                                                        "c.f.pricing.api.PricingController", f"priced basket=bsk_{sc.hex(12)} lines={len(skus)}"))
    for t in sc.times(t0, t1, 30):
        sc.log(lab("basket-pricing", bp.pod(), "warn"), t, java_log_spring(t, "WARN", "basket-pricing", "promo-cache-refresh", "c.f.pricing.rules.PromotionCache",
                                                                           "promotion cache refresh took 2.4s (> 1s), serving previous rules meanwhile"))
    m0, m1 = sc.at("10:10"), sc.at("12:34")
    sc.counter({"__name__": "http_server_requests_seconds_count", "application": "basket-pricing", "uri": "/v2/baskets/price", "status": "500",
                "exception": "NullPointerException", "job": "basket-pricing"}, m0, m1, lambda t: 0.55 if t >= backfill else 0, initial=3)
    sc.counter({"__name__": "http_server_requests_seconds_count", "application": "basket-pricing", "uri": "/v2/baskets/price", "status": "200",
                "exception": "none", "job": "basket-pricing"}, m0, m1, lambda t: 8.6, initial=71_442_901)
    sc.gauge({"__name__": "pricing_sku_prices_null", "job": "data-quality-exporter", "table": "sku_prices"}, m0, m1, lambda t: 3 if t >= backfill else 0, step=300)

    sc.trigger = {"mention": "some checkouts failing w/ 'price unavailable' since late morning, maybe 5%? basket-pricing NPEs in logs. only some baskets"}
    sc.config = {"repo": "freshcart/commerce", "namespace": ns}
    sc.truth = {"bucket": "bad_data", "service": "basket-pricing", "error_type": "null_pointer", "file": pr, "line": L, "line_tolerance": 3,
                "fix_keywords": ["4004217", "unit_price", "NULL", "NOT NULL", "data fix"]}
    return sc
