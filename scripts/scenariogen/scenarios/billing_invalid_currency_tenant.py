"""SaaS invoicing (Go, svc_billing): a tenant's settings row holds currency "EURO"; invoice runs for that tenant fail."""
import datetime as dt

from sg import *

NAME = "svc-billing-invalid-currency-tenant"


def build():
    sc = Scenario(NAME, "2026-09-01T06:45:00Z", """
        On 31 August a support agent edited tenant 4471's (Hallberg Logistik GmbH) billing settings through the
        admin tool, which wrote currency \"EURO\" into tenant_settings (the admin form is a free-text field). The
        1 September monthly invoice run in svc_billing fails for that tenant's 212 subscriptions with
        currency: unknown ISO 4217 code \"EURO\" and retries them every 5 minutes; every other tenant invoices
        fine. Remediation: correct the row to EUR, re-run the tenant's invoices, and validate the field in the
        admin tool. The code is correct to refuse an unknown currency. The payment-reminder mailer's SMTP warnings
        and the svc_billing restart at 02:00 (node upgrade) are unrelated.""", repo="orbitdesk/billing")
    ns = "billing"
    b = sc.svc("svc_billing", ns, "go", version="3.17.2", runtime="go1.23.0", npods=2, deploy="svc-billing")
    run = sc.at("05:00:00")

    money = "internal/money/currency.go"
    sc.file(money, """
        package money

        import (
        	"fmt"
        	"strings"

        	"golang.org/x/text/currency"
        )

        // ParseCurrency validates an ISO 4217 code from tenant settings.
        func ParseCurrency(code string) (currency.Unit, error) {
        	u, err := currency.ParseISO(strings.TrimSpace(code))
        	if err != nil {
        		return currency.Unit{}, fmt.Errorf("currency: unknown ISO 4217 code %q", code)
        	}
        	return u, nil
        }
        """)
    inv = "internal/invoice/run.go"
    sc.file(inv, """
        package invoice

        import (
        	"context"
        	"fmt"
        	"log/slog"

        	"github.com/orbitdesk/billing/internal/money"
        	"github.com/orbitdesk/billing/internal/tenants"
        )

        type Runner struct {
        	Tenants tenants.Store
        	Subs    SubscriptionStore
        	Out     Issuer
        	Log     *slog.Logger
        }

        // RunTenant issues the period's invoices for one tenant.
        func (r *Runner) RunTenant(ctx context.Context, tenantID int64, period Period) error {
        	settings, err := r.Tenants.Settings(ctx, tenantID)
        	if err != nil {
        		return fmt.Errorf("tenant %d settings: %w", tenantID, err)
        	}
        	cur, err := money.ParseCurrency(settings.Currency)
        	if err != nil {
        		return fmt.Errorf("tenant %d: %w", tenantID, err)
        	}
        	subs, err := r.Subs.Active(ctx, tenantID, period)
        	if err != nil {
        		return err
        	}
        	for _, s := range subs {
        		if err := r.Out.Issue(ctx, s, cur, period); err != nil {
        			return fmt.Errorf("subscription %s: %w", s.ID, err)
        		}
        	}
        	r.Log.Info("tenant invoiced", "tenant_id", tenantID, "subscriptions", len(subs), "currency", cur.String())
        	return nil
        }
        """)
    mailer = "cmd/reminder-mailer/main.go"
    sc.file(mailer, """
        package main

        const smtpTimeoutSeconds = 20
        """)
    L = sc.line(inv, "cur, err := money.ParseCurrency(settings.Currency)")
    sc.commit("2026-08-28T14:02:19Z", ("Yusuf Demir", "yusuf@orbitdesk.com", "ydemir"), "reminder-mailer: SMTP timeout 20s",
              [(mailer, "const smtpTimeoutSeconds = 10", "const smtpTimeoutSeconds = 20")])

    lab = lambda pod, lvl: {"service_name": "svc_billing", "namespace": ns, "pod": pod, "level": lvl}
    tenants_ok = [sc.rng.randint(1000, 9999) for _ in range(40)]
    t1 = sc.at("06:43")
    for i, tid in enumerate(tenants_ok):
        t = run + dt.timedelta(seconds=20 + i * sc.rng.uniform(20, 60))
        if t > t1:
            break
        tr = sc.trace()
        p = b.pod()
        st = us(t)
        nsub = sc.rng.randint(3, 400)
        d = nsub * sc.rng.randint(9_000, 20_000)
        s = tr.span(b, "invoice.RunTenant", st, d, pod=p, kind="internal", tags={"app.tenant.id": tid, "app.invoice.period": "2026-08"})
        tr.span(b, "SELECT billing.tenant_settings", st + 500, 1_800, parent=s, kind="client",
                tags=db("postgresql", "SELECT currency, tax_region, invoice_day FROM tenant_settings WHERE tenant_id = $1", "billing", "billing-pg.billing.svc", 5432, "SELECT"))
        tr.span(b, "INSERT billing.invoices", st + 3_000, d - 6_000, parent=s, kind="client",
                tags=db("postgresql", "INSERT INTO invoices (subscription_id, tenant_id, period, currency, amount_minor) VALUES ($1, $2, $3, $4, $5)",
                        "billing", "billing-pg.billing.svc", 5432, "INSERT"))
        sc.log(lab(p, "info"), from_us(st + d), f'time={iso(from_us(st + d), 3)} level=INFO msg="tenant invoiced" tenant_id={tid} subscriptions={nsub} currency=EUR trace_id={tr.id}')
    attempt = run + dt.timedelta(seconds=9)
    n = 0
    while attempt < t1:
        tr = sc.trace()
        p = b.pod()
        st = us(attempt)
        msg = 'tenant 4471: currency: unknown ISO 4217 code "EURO"'
        s = tr.span(b, "invoice.RunTenant", st, 4_200, pod=p, kind="internal", error=msg, err_mode="both",
                    tags={"app.tenant.id": 4471, "app.invoice.period": "2026-08", **code_loc("github.com/orbitdesk/billing/internal/invoice/run.go", L, "invoice.(*Runner).RunTenant")},
                    events=[exc_event(st + 3_900, "*fmt.wrapError", msg, None, style="msgonly")])
        tr.span(b, "SELECT billing.tenant_settings", st + 500, 1_700, parent=s, kind="client",
                tags=db("postgresql", "SELECT currency, tax_region, invoice_day FROM tenant_settings WHERE tenant_id = $1", "billing", "billing-pg.billing.svc", 5432, "SELECT"))
        sc.log(lab(p, "error"), from_us(st + 4_000),
               f'time={iso(from_us(st + 4_000), 3)} level=ERROR msg="invoice run failed for tenant" tenant_id=4471 tenant="Hallberg Logistik GmbH" pending_subscriptions=212 err="{msg.replace(chr(34), chr(92) + chr(34))}" attempt={n + 1} next_retry=5m trace_id={tr.id}')
        n += 1
        attempt += dt.timedelta(minutes=5, seconds=sc.rng.uniform(0, 3))
    for t in sc.times(sc.at("04:30"), t1, 25):
        sc.log({"service_name": "reminder-mailer", "namespace": ns, "pod": "reminder-mailer-7c5d9f8b6-q2w8x", "level": "warn"}, t,
               f'time={iso(t, 3)} level=WARN msg="smtp send slow" relay=smtp.eu.mailer.example elapsed={sc.rng.uniform(6, 18):.1f}s')
    for p in b.pods:
        t = sc.at("02:00:40") + dt.timedelta(seconds=sc.rng.randint(0, 60))
        sc.log(lab(p, "info"), t, f'time={iso(t, 3)} level=INFO msg="svc_billing starting" version=3.17.2 scheduler=enabled')

    m0, m1 = sc.at("04:30"), sc.at("06:44")
    sc.counter({"__name__": "billing_invoice_runs_total", "job": "svc_billing", "result": "failed"}, m0, m1, lambda t: 1 / 300 if t >= run else 0, initial=0, integer=False)
    sc.counter({"__name__": "billing_invoices_issued_total", "job": "svc_billing", "currency": "EUR"}, m0, m1, lambda t: 9 if run <= t < run + dt.timedelta(minutes=40) else 0,
               initial=2_902_118)
    sc.gauge({"__name__": "billing_tenants_pending_invoice", "job": "svc_billing", "period": "2026-08"}, m0, m1,
             lambda t: 0 if t < run else max(1, 41 - int((t - run).total_seconds() / 55)))

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-90-1-14.eu-central-1.compute.internal", "ip-10-90-2-77.eu-central-1.compute.internal"]
    ctr = container_spec("svc-billing", "orbitdesk/svc-billing:3.17.2", 8080, requests={"cpu": "200m", "memory": "256Mi"}, limits={"memory": "512Mi"},
                         readiness=http_probe("/readyz", 8080, 10))
    workload(k, b, ctr, nodes, ts("2023-05-05T10:00:00Z"), sc.at("02:00:30"), 96, labels={"app": "svc-billing"})
    k.event(ns, "Pod", b.pods[0], "Scheduled", f"Successfully assigned {ns}/{b.pods[0]} to {nodes[0]}", sc.at("02:00:30"), component="default-scheduler")
    k.event("default", "Node", "ip-10-90-1-3.eu-central-1.compute.internal", "NodeNotSchedulable", "Node ip-10-90-1-3.eu-central-1.compute.internal status is now: NodeNotSchedulable",
            sc.at("01:58:12"), host="ip-10-90-1-3.eu-central-1.compute.internal")

    a = alert(sc, {"alertname": "InvoiceRunFailures", "job": "svc_billing", "namespace": ns, "severity": "warning", "team": "billing"},
              {"summary": "Monthly invoice run has failing tenants", "description": "svc_billing invoice run for period 2026-08 has 1 tenant failing repeatedly (8 attempts)."},
              sc.at("05:40:00"), "increase(billing_invoice_runs_total{result=\"failed\"}[30m]) > 3")
    sc.trigger = {"alert": webhook([a], ["alertname"], "autoheal-billing", "https://alertmanager.orbitdesk.com", route_key='{}/{team="billing"}')}
    sc.config = {"repo": "orbitdesk/billing"}
    sc.truth = {"bucket": "bad_data", "service": "svc_billing", "error_type": "data_validation", "file": inv, "line": L, "line_tolerance": 3,
                "fix_keywords": ["4471", "EUR", "tenant_settings", "currency"]}
    return sc
