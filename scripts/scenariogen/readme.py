#!/usr/bin/env python3
"""Writes testdata/scenarios/README.md: one row per scenario and a coverage summary.

Facts that only a human knows (domain, runtime, cascade, decoys) live in META
below; everything else (trigger kind, truth, files present, Loki label) is
read from the generated scenario directories.
Usage: python3 scripts/scenariogen/readme.py [testdata/scenarios]
"""
import collections
import json
import os
import sys

import yaml

# name: (domain, runtime/framework, cascade (root is not the loudest service), decoys)
META = {
    "search-api-suggest-timeout-too-short-no-change": ("site search", "Python", "no", "a later logging commit; max_connections holds the same number as the timeout"),
    "uploads-max-body-size-toml-limit": ("photo uploads", "Go", "no", "thumbnail commit; the limit was set months ago (no change names it)"),
    "pricing-keyerror-imported-products-missing-attribute": ("online shop pricing", "Python", "no", "banker's rounding commit in pricing; records only in the request path"),
    "tile-cache-disk-full-quiet-origin": ("maps", "mixed", "web 502s <- geo-api 507s <- tile-cache (a few WARNs)", "web legend commit; the loudest service is the last victim"),
    "partner-api-throttle-terraform-usage-plan": ("logistics partner API", "Terraform (API Gateway), Go", "no", "shipment ETA commit in partner-api, later than the Terraform change"),
    "basket-pricing-null-unit-price-skus": ("grocery delivery", "Java / Spring Boot", "checkout-service -> basket-pricing",
                                           "promotion commit on the same SKUs, promo cache WARNs"),
    "billing-api-tier-no-matching-element": ("SaaS billing", ".NET 8 / ASP.NET Core", "admin-console-bff alerts too",
                                             "usage-collector Kafka WARNs, billing-worker OOMKilled last night, manifest commit"),
    "bookings-pgbouncer-max-client-conn": ("fitness bookings", "Node.js / Express + pgbouncer", "kong 5xx <- booking-api <- pgbouncer",
                                           "HPA commit, class-search commit, kong DNS WARNs"),
    "box-scheduled-producer-json-tag-rename": ("meal-kit subscriptions", "Go producer, Java / Spring Kafka consumer",
                                               "consumer dead-letters loudly, producer is the root", "warehouse-sync commit, rebalance WARNs"),
    "carrier-feed-decimal-comma-records": ("freight tracking", "Python worker", "no", "old retry commit, S3 SlowDown WARNs"),
    "catalog-web-n-plus-one-timeouts": ("handmade marketplace", "Python / Django", "RDS CPU + ingress 504 alerts, Django view is the root",
                                        "search-indexer commit and WARNs, pgbouncer restart"),
    "courier-locator-concurrent-map-writes": ("courier delivery", "Go / net/http + MQTT", "assignment-api sees ECONNREFUSED",
                                              "restarts look like infra, DNS WARNs"),
    "dispatch-nil-vehicle-panic": ("ride-hailing", "Go / net/http", "rider-api 502s, dispatch spans look clean",
                                   "i18n commit, slow GEOSEARCH WARNs"),
    "eta-service-dns-lookup-timeout-bursts": ("ride-hailing", "Go", "rider-api 503s", "CoreDNS restart, traffic-model deploy"),
    "export-service-networkpolicy-blocks-redis": ("docs SaaS", "Node.js / BullMQ", "no", "fonts commit, liveness restarts, Redis healthy"),
    "fraud-scoring-cert-expired-issuer-renamed": ("payments", ".NET 8 client, Python / FastAPI server", "PaymentGateway alerts, fraud-scoring cert is the root",
                                                  "retry-policy commit, settlement WARNs"),
    "geofence-unbounded-cache-oomkilled": ("ride-hailing", "Go / gRPC", "pricing UNAVAILABLE", "OOMKilled looks like infra, surge config commit, autoscaler events"),
    "identity-signup-phone-regex-400": ("fintech onboarding", "Node.js / NestJS", "no 5xx at all, only 400s and a business metric",
                                        "kyc-adapter timeouts, email template commit"),
    "invoicing-ci-test-order-dependency": ("invoicing (CI)", "Python / pytest", "no", "xdist commit, skipped flaky test, runner disk WARNs"),
    "ledger-interest-nonterminating-divide": ("bank ledger", "Java / Spring Boot", "payments-orchestrator retries loudly",
                                              "statement-api commit, Kafka rebalance WARNs, orchestrator restart, HPA warning"),
    "node-memory-pressure-report-job-evictions": ("grocery storefront", "Kubernetes (Python CronJob)", "storefront-web evicted, report job is the root",
                                                  "storefront deploy, cert-manager renewal, cart-api restart"),
    "notification-dispatcher-poison-message": ("consumer app notifications", "Node.js / kafkajs", "no", "template commit, APNs WARN"),
    "order-history-hikari-connection-leak": ("e-commerce accounts", "Java / Spring Boot", "account-gateway 504s",
                                             "leak-detection commit, rate-limit WARNs"),
    "orders-db-secret-key-renamed": ("restaurant orders", "Python / Django", "no", "menu-api commit, websocket WARNs"),
    "otp-sms-provider-outage": ("neo-bank identity", "Java auth + Go sms-gateway", "auth-service alerts, third party is down",
                                "JWKS WARNs; no repo, no changes"),
    "payouts-worker-crashloop-renamed-env": ("marketplace payouts", "Go", "no", "batch-size commit, payouts-api restart, ledger-sync WARNs"),
    "podcast-ingest-imagepullbackoff-tag": ("podcast platform", "Node.js", "no", "chapters feature commit, feed-poller 429s"),
    "quote-api-concurrentmodification-flake": ("travel insurance", "Java / Spring Boot", "partner-api 500s", "copy-change deploy today, partner 429s"),
    "quote-engine-oomkilled-helm-limit": ("insurance quoting", "Java / Spring Boot (Helm)", "broker-portal 503s",
                                          "rating-tables commit, broker-portal restart, DVLA WARNs"),
    "quote-svc-surge-keyerror": ("food delivery", "Python / FastAPI", "checkout-bff errors loudest", "menu-sync commit, Redis eviction WARNs"),
    "reporting-api-ingress-read-timeout-504": ("B2B analytics", "Python / Flask + ingress-nginx", "app logs 200 while users get 504",
                                               "gunicorn threads commit, replica-lag WARNs"),
    "route-planner-slice-bounds-gin": ("fleet logistics", "Go / gin", "fleet-gateway alerts too", "gateway timeout commit, geocoder 429s"),
    "search-api-readiness-probe-wrong-port": ("marketplace search", "Python / FastAPI (gunicorn)", "edge envoy 503s",
                                              "recommendations commit and WARNs, catalog-indexer restart"),
    "session-service-redis-timeouts-bgsave": ("video streaming edge", "Node.js / gRPC + ioredis", "edge-gateway 503s", "normal 401s"),
    "shipment-eta-invalid-time-value": ("parcel tracking", "Node.js / Express", "tracking-web 500s", "customer-notify commit, carrier-gateway restart"),
    "svc-billing-invalid-currency-tenant": ("SaaS invoicing", "Go", "no", "mailer commit and SMTP WARNs, node-upgrade reschedule"),
    "transcode-worker-nonetype-rotate": ("video transcoding", "Python / Celery", "upload-api gives up", "OOMKilled worker at 09:40, S3 SlowDown WARNs, HPA"),
    "loyalty-api-efcore-second-operation-flake": ("retail loyalty", ".NET 8 / ASP.NET Core minimal API + EF Core", "mobile-bff 502s",
                                                  "receipts deploy today, pos-sync WARNs, slow DB looks like the cause"),
    "webhook-sender-urllib3-openssl-crashloop": ("parcel integrations", "Python / Celery", "CrashLoopBackOff looks like infra, root is a dependency pin",
                                                 "api-keys commit, label-printing backlog"),
    "jobs-search-es-flood-stage-read-only": ("job board search", "Java indexer + Elasticsearch (ECK)", "job-indexer alerts, the datastore is the root",
                                             "indexer deploy at 07:30, search-api GC WARNs; no repo, no changes"),
    "remittance-partner-ca-rotation-pkix": ("cross-border remittances", "Java / Spring Kafka (Helm)", "no", "fx-quotes commit, Kafka producer WARNs"),
    "statements-api-runaway-merchant-timeouts": ("merchant payments", ".NET 8 / minimal API + EF Core", "merchant-dashboard 504s",
                                                 "PDF footer commit, Redis keyspace WARNs"),
}

FILES = ["traces", "logs", "metrics", "k8s", "changes"]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "scenarios")
    rows, cov = [], collections.defaultdict(collections.Counter)
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        if not os.path.isfile(os.path.join(d, "scenario.yaml")):
            continue
        sc = yaml.safe_load(open(os.path.join(d, "scenario.yaml")))
        t = sc["truth"]
        present = [f for f in FILES if os.path.exists(os.path.join(d, f + ".json"))]
        if os.path.isdir(os.path.join(d, "repo")):
            present.append("repo")
        trig = "alert" if "alert" in sc["trigger"] else "mention"
        if trig == "alert":
            n = len(sc["trigger"]["alert"]["alerts"])
            trig = f"alert ({n})" if n > 1 else "alert"
        label = sc.get("config", {}).get("log_service_label", "service_name") if "logs" in present else "-"
        domain, lang, cascade, decoys = META.get(name, ("?", "?", "?", "?"))
        loc = f"`{t['file']}:{t['line']}`" if t.get("file") else "-"
        rows.append(f"| {name} | {domain} | {trig} | {t['bucket']} | {t['error_type']} | {lang} | {t['service']} | {loc} | {cascade} | "
                    f"{', '.join(present)} | {label} | {decoys} |")
        cov["bucket"][t["bucket"]] += 1
        cov["error_type"][t["error_type"]] += 1
        cov["trigger"][trig.split()[0]] += 1
        cov["log label"][label] += 1
        for f in FILES + ["repo"]:
            cov["has"][f] += f in present
        if "traces" in present and "logs" not in present:
            cov["shape"]["traces without logs"] += 1
        if "logs" in present and "traces" not in present:
            cov["shape"]["logs without traces"] += 1
        if "repo" not in present and "changes" not in present:
            cov["shape"]["neither repo nor changes"] += 1
        if cascade not in ("no", "?"):
            cov["shape"]["cascade / loudest service is a victim"] += 1
        for rt in ("Java", "Go", "Python", "Node.js", ".NET"):
            if rt in lang:
                cov["runtime"][rt] += 1
    out = ["# Incident scenario corpus", "",
           "Incidents in the format of the shared scenario FORMAT.md, used to tune and regression-test the",
           "investigation engine (`bot eval testdata/scenarios`). Every directory is generated by",
           "`python3 scripts/scenariogen/generate.py` (deterministic, seeded by scenario name) and checked by",
           "`python3 scripts/scenariogen/check.py testdata/scenarios` (truth file and line, span parents, time",
           "windows, trace ids quoted in logs, patches consistent with repo/). Edit the generator modules in",
           "`scripts/scenariogen/scenarios/`, never the generated files; this README is written by",
           "`python3 scripts/scenariogen/readme.py`.", "",
           "Each `summary` in scenario.yaml is the post-mortem an expert wrote (never shown to the engine): what",
           "broke, why, and which signals are decoys.", "",
           "| scenario | domain | trigger | bucket | error_type | runtime / framework | root service | truth location | cascade | files | Loki service label | decoys |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows + ["", "## Coverage", ""]
    total = len(rows)
    out.append(f"- scenarios: {total}")
    for key in ("bucket", "error_type", "trigger", "runtime", "log label"):
        out.append(f"- {key}: " + ", ".join(f"{k} {v}" for k, v in sorted(cov[key].items(), key=lambda x: (-x[1], x[0]))))
    out.append("- files present: " + ", ".join(f"{f} {cov['has'][f]}/{total}" for f in FILES + ["repo"]))
    out.append("- shapes: " + ", ".join(f"{k} {v}" for k, v in sorted(cov["shape"].items())))
    out += ["",
            "Conventions deliberately varied across scenarios: Loki labels (`service_name`, `app`, `container`,",
            "`k8s_container_name`, `job` as `namespace/name`), log formats (Spring Boot console with multi-line",
            "stack traces, logfmt, zap/slog JSON, pino, Serilog compact JSON, .NET console JSON, python-json-logger,",
            "Celery, gunicorn/uvicorn access logs, nginx/envoy/kong access logs, Go panics with goroutine dumps,",
            "pytest output), trace error flags (`otel.status_code=ERROR`, `error=true`, both), exception events",
            "(`exception`, `Error`, OpenTracing-style, only `exception.message`), code locations (`code.filepath`",
            "and `code.file.path`), HTTP semantic conventions (old `http.status_code`, new",
            "`http.response.status_code`), gRPC, messaging and database spans, and Alertmanager bodies whose labels",
            "name the service as `service`, `app`, `job`, `container`, `deployment`, `k8s_deployment_name`,",
            "`envoy_cluster_name`, `consumergroup`, `ingress` or `dbinstance_identifier`.", ""]
    with open(os.path.join(root, "README.md"), "w") as f:
        f.write("\n".join(out))
    print("\n".join(out[-12:]))


if __name__ == "__main__":
    main()
