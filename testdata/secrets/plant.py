#!/usr/bin/env python3
"""Builds testdata/secrets/checkout-planted-secrets from the example
checkout-fails-payment-typeerror: the same incident, with credentials of many
formats planted in its logs, span attributes, exception messages, Kubernetes
objects (what the Kubernetes MCP server answers), commit messages and patches,
source files and alert annotations. planted.json lists every planted value and
where it is; cmd/bot's TestPlantedSecretsNeverLeave asserts that none of them
(nor an 8-character prefix of one) reaches Slack, the model, GitHub writes,
log lines, --json output or transcripts.

The values are fake: random characters in each vendor's format. Lines are
replaced in place (never added) so that stack traces, patches and the truth
keep pointing at the same lines.

Run from the repository root: python3 testdata/secrets/plant.py
"""
import copy
import json
import os
import shutil

import yaml

SRC = "testdata/examples/checkout-fails-payment-typeerror"
DST = "testdata/secrets/checkout-planted-secrets"
MANIFEST = "testdata/secrets/planted.json"

# id -> value that must never leave. Formats follow gitleaks' rule set.
S = {
    "stripe-live": "sk_live_51PlAnTeDStripeLive0123456789AbCdEfGh",
    "stripe-restricted": "rk_live_51PlAnTeDRestricted987654321XyZw",
    "stripe-test": "sk_test_51PlAnTeDStripeTest5555666677778888",
    "google-api-key": "AIzaSyPlAnTeD0123456789abcdefGHIJKLmnop",
    "gitlab-pat": "glpat-PlAnTeD0123456789abcd",
    "npm-token": "npm_PlAnTeD0123456789abcdefghijklmnopqr",
    "huggingface": "hf_PlAnTeDhUgGiNgFaCeToKeNabcdefghijkl",
    "github-fine-grained": "github_pat_11PLANTED0123456789abcd_PlAnTeDfInEgRaInEd0123456789abcdefghijklmnopqrstuvwxyzABCDEFG",
    "github-classic": "ghp_PlAnTeDgItHuBcLaSsIc0123456789abcdef",
    "github-oauth": "gho_PlAnTeDgItHuBoAuTh0123456789abcdefgh",
    "github-app": "ghs_PlAnTeDgItHuBaPp0123456789abcdefghij",
    "slack-bot": "xoxb-123456789012-1234567890123-PlAnTeDsLaCkBoT01",
    "slack-app": "xapp-1-A0PLANTED1-1234567890123-abcdef0123456789abcdef0123",
    "openai-project": "sk-proj-PlAnTeDoPeNaIpRoJeCt0123456789abcdefGHIJ",
    "anthropic": "sk-ant-api03-PlAnTeDaNtHrOpIc0123456789abcdefghijklmnopqrstuvwxyzABCDEF-AA",
    "aws-access-key-id": "AKIAPLANTED23456WXYZ",
    "aws-sts-key-id": "ASIAPLANTED765432QRS",
    "aws-secret-access-key": "PlAnTeDaWsSeCrEt/0123456789+abcdefghijkl",
    "azure-storage-key": "PlAnTeDaZuReStOrAgEkEy0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012==",
    "azure-sas-signature": "PlAnTeDsAsSiG%2B0123456789abcdef%3D",
    "sendgrid": "SG.PlAnTeDsEnDgRiD012345.PlAnTeDsEnDgRiDsEcReT0123456789abcdefghijk",
    "twilio": "SK0123456789abcdef0123456789abcdef",
    "datadog-api-key": "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwbGFudGVkLXVzZXIiLCJpYXQiOjE3OTYxNDAwMDB9.PlAnTeDjWtSiGnAtUrE0123456789abcdefghijklm",
    "pem-private-key": "MIIEpAIBAAKCAQEAPlAnTeDrSaPrIvAtEkEy0123456789abcdefghijklmnopq",
    "url-password": "PlantedDbPassw0rd42",
    "bearer-header": "PlAnTeDbEaReRtOkEn0123456789abcdef",
    "basic-header": "dXNlcjpQbGFudGVkQmFzaWNQYXNz",
    "password-kv": "correcthorsebatteryplanted",
    "client-secret-kv": "SUPERSECRETVALUE99PLANTED",
    "api-key-kv": "ABCDEF1234567890XYZPLANTED",
    "token-kv": "deadbeefcafebabe0planted",
    "cookie-session": "PlantedSessionCookie77abc",
    "span-x-api-key": "PlantedSpanApiKey5550",
    "exception-api-key": "ExcApiKeyPlanted4242",
    "exception-client-secret": "ExcClientSecretPlanted77",
    "k8s-env-password": "PlantedEnvPassw0rd!x",
    "k8s-env-stripe": "sk_live_51PlAnTeDk8sEnVsTrIpE0123456789AbCd",
    "k8s-secret-data": "cGxhbnRlZC1rOHMtc2VjcmV0LWRhdGEtdmFsdWU=",
    "k8s-last-applied": "PlantedLastAppliedValue9",
    "k8s-event-vault-token": "hvs.PlAnTeDvAuLtToKeN0123456789abcdef",
    "k8s-configmap-dsn": "PlantedDsnPassw0rd",
    "commit-message-key": "CommitMsgApiKeyPlanted123",
    "commit-patch-token": "xoxp-123456789012-1234567890123-PlAnTeDpAtCh01",
    "source-fallback-key": "rk_test_51PlAnTeDsOuRcEfAlLbAcK0123456789",
    "source-password": "SourceFilePassw0rdPlanted",
    "alert-probe-token": "ProbeTokenPlanted123abc",
    "alert-runbook-token": "RunbookAccessTokenPlanted9",
    "slack-webhook": "T0PLANTED/B0PLANTED/PlAnTeDwEbHoOk0123456789",
}

PEM = ("-----BEGIN RSA PRIVATE KEY-----\\n" + S["pem-private-key"] +
       "\\nPlAnTeDsEcOnDlInE0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH\\n-----END RSA PRIVATE KEY-----")

where = {}


def plant(sid, location):
    where.setdefault(sid, []).append(location)
    return S[sid]


def main():
    if os.path.exists(DST):
        shutil.rmtree(DST)
    shutil.copytree(SRC, DST)

    # scenario.yaml: name, summary, alert annotations.
    with open(os.path.join(DST, "scenario.yaml")) as f:
        sc = yaml.safe_load(f)
    sc["name"] = "checkout-planted-secrets"
    sc["summary"] = ("The checkout-fails-payment-typeerror incident with credentials planted in every kind of "
                     "evidence (see testdata/secrets/planted.json); the diagnosis is the same.")
    for group in [sc["trigger"]["alert"]["alerts"][0]["annotations"], sc["trigger"]["alert"]["commonAnnotations"]]:
        group["description"] += " Synthetic probe: token=" + plant("alert-probe-token", "alert annotation description")
        group["runbook_url"] += "?access_token=" + plant("alert-runbook-token", "alert annotation runbook_url")
    with open(os.path.join(DST, "scenario.yaml"), "w") as f:
        yaml.safe_dump(sc, f, sort_keys=False, width=120)

    plant_logs()
    plant_traces()
    plant_k8s()
    plant_changes()
    plant_source()

    missing = [k for k in S if k not in where]
    assert not missing, missing
    with open(MANIFEST, "w") as f:
        json.dump({"scenario": DST, "planted": [{"id": k, "value": S[k], "where": where[k]} for k in S]}, f, indent=1)
        f.write("\n")


def plant_logs():
    path = os.path.join(DST, "logs.json")
    with open(path) as f:
        logs = json.load(f)
    # Each warn/error line of payment and frontend gets one credential near
    # its start (log samples are quoted from the start of the line).
    per_line = [
        ("password-kv", lambda v: ("acquirer_login", "user=payments password=" + v)),
        ("stripe-live", lambda v: ("acquirer_key", v)),
        ("url-password", lambda v: ("db", "postgres://payments:" + v + "@payments-db:5432/payments")),
        ("bearer-header", lambda v: ("upstream_auth", "Authorization: Bearer " + v)),
        ("jwt", lambda v: ("session_jwt", v)),
        ("google-api-key", lambda v: ("geo", "maps key " + v + " in use")),
        ("aws-access-key-id", lambda v: ("s3", "uploading receipt with " + v)),
        ("aws-secret-access-key", lambda v: ("s3_cfg", "aws_secret_access_key " + v)),
        ("client-secret-kv", lambda v: ("oauth", "client_secret=" + v + "&grant_type=client_credentials")),
        ("api-key-kv", lambda v: ("fraud", "api_key=" + v)),
        ("token-kv", lambda v: ("export", "GET /export?token=" + v + "&format=csv")),
        ("azure-storage-key", lambda v: ("blob", "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=" + v + ";EndpointSuffix=core.windows.net")),
        ("azure-sas-signature", lambda v: ("blob_url", "https://acmeprod.blob.core.windows.net/receipts/r.pdf?sv=2021-08-06&ss=b&sig=" + v + "&se=2026-12-02")),
        ("sendgrid", lambda v: ("mail", "sendgrid " + v)),
        ("twilio", lambda v: ("sms", "twilio key " + v)),
        ("datadog-api-key", lambda v: ("dd", "DD_API_KEY=" + v)),
        ("basic-header", lambda v: ("proxy_auth", "Authorization: Basic " + v)),
        ("cookie-session", lambda v: ("cookie", "Cookie: session=" + v + "; theme=dark")),
        ("npm-token", lambda v: ("npmrc", "//registry.npmjs.org/:_authToken=" + v)),
        ("huggingface", lambda v: ("hf", "model pull with " + v)),
        ("openai-project", lambda v: ("llm", "openai " + v)),
        ("anthropic", lambda v: ("llm2", "anthropic " + v)),
        ("slack-bot", lambda v: ("notify", "slack " + v)),
        ("github-classic", lambda v: ("gh", "git clone https://" + v + "@github.com/acme/shop")),
        ("github-fine-grained", lambda v: ("gh2", "GH_TOKEN=" + v)),
        ("pem-private-key", lambda v: ("tls_key", PEM)),
    ]
    # payment's lines first: the Kubernetes MCP server serves them as the
    # payment pods' logs too.
    streams = [st for st in logs["streams"] if st["stream"].get("service_name") == "payment"] + \
        [st for st in logs["streams"] if st["stream"].get("service_name") == "frontend"]
    i = 0
    for st in streams:
        labels = st["stream"]
        if labels.get("level") not in ("warn", "error"):
            continue
        for v in st["values"]:
            if i >= len(per_line):
                break
            sid, make = per_line[i]
            key, text = make(S[sid])
            line = json.loads(v[1])
            planted = {}
            for k, x in line.items():
                planted[k] = x
                if k == "hostname":
                    planted[key] = text
            v[1] = json.dumps(planted, separators=(",", ":"))
            plant(sid, "log line of %s (%s, field %s)" % (labels["service_name"], labels["pod"], key))
            i += 1
    assert i == len(per_line), i
    # An exception message logged by the frontend.
    for st in logs["streams"]:
        if st["stream"].get("service_name") == "frontend" and st["stream"].get("level") == "error":
            line = json.loads(st["values"][-1][1])
            line["err"]["message"] += " (acquirer rejected client_secret=" + plant("exception-client-secret", "exception message in a frontend log line") + ")"
            st["values"][-1][1] = json.dumps(line, separators=(",", ":"))
            break
    with open(path, "w") as f:
        json.dump(logs, f, indent=1)


def plant_traces():
    path = os.path.join(DST, "traces.json")
    with open(path) as f:
        traces = json.load(f)
    attrs = [
        ("span-x-api-key", "http.request.header.x_api_key", lambda v: v),
        ("stripe-restricted", "app.acquirer.restricted_key", lambda v: v),
        ("gitlab-pat", "vcs.token.hint", lambda v: "using " + v),
        ("aws-sts-key-id", "aws.credentials", lambda v: "session " + v),
        ("github-app", "app.installation", lambda v: "token " + v),
    ]
    n = 0
    exc_done = False
    for t in traces["data"]:
        for s in t["spans"]:
            svc = t["processes"][s["processID"]]["serviceName"]
            tags = {x["key"]: x["value"] for x in s["tags"]}
            if svc == "payment" and tags.get("otel.status_code") == "ERROR" and n < len(attrs):
                sid, key, make = attrs[n]
                s["tags"].append({"key": key, "type": "string", "value": make(S[sid])})
                plant(sid, "span attribute %s of payment span %s (trace %s)" % (key, s["operationName"], t["traceID"]))
                n += 1
            if not exc_done and svc == "checkout" and s["operationName"] == "shop.PaymentService/Charge" and tags.get("otel.status_code") == "ERROR":
                s.setdefault("logs", []).append({"timestamp": s["startTime"] + s["duration"] - 1, "fields": [
                    {"key": "event", "type": "string", "value": "exception"},
                    {"key": "exception.type", "type": "string", "value": "*status.Error"},
                    {"key": "exception.message", "type": "string", "value":
                     "rpc error: code = Unknown desc = Cannot read properties of undefined (reading 'units') "
                     "(acquirer session opened with api_key=" + plant("exception-api-key", "exception message of a checkout span") + ")"},
                ]})
                exc_done = True
    assert n == len(attrs) and exc_done, (n, exc_done)
    with open(path, "w") as f:
        json.dump(traces, f, indent=1)


def plant_k8s():
    path = os.path.join(DST, "k8s.json")
    with open(path) as f:
        k8s = json.load(f)
    for item in k8s["items"]:
        if item["kind"] == "Pod" and item["metadata"]["name"].startswith("payment-"):
            env = item["spec"]["containers"][0].setdefault("env", [])
            env.append({"name": "ACQUIRER_DB_PASSWORD", "value": plant("k8s-env-password", "env of pod " + item["metadata"]["name"])})
            env.append({"name": "STRIPE_FALLBACK", "value": plant("k8s-env-stripe", "env of pod " + item["metadata"]["name"])})
        if item["kind"] == "Deployment" and item["metadata"]["name"] == "payment":
            item["metadata"]["annotations"]["acme.dev/deploy-webhook"] = "https://hooks.slack.com/services/" + plant("slack-webhook", "annotation of Deployment payment")
    k8s["items"].append({
        "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": "payment-acquirer", "namespace": "astronomy-shop", "creationTimestamp": "2026-11-20T10:00:00Z",
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                                     json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "payment-acquirer"},
                                                 "stringData": {"merchant-id": plant("k8s-last-applied", "last-applied annotation of a Secret")}})}},
        "data": {"acquirer-key": plant("k8s-secret-data", "data of Secret payment-acquirer")},
    })
    k8s["items"].append({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "payment-config", "namespace": "astronomy-shop", "creationTimestamp": "2026-11-20T10:00:00Z"},
        "data": {"LOG_LEVEL": "info", "LEDGER_DSN": "payments:" + plant("k8s-configmap-dsn", "data of ConfigMap payment-config") + "@tcp(ledger-mysql:3306)/ledger"},
    })
    for item in k8s["items"]:
        if item["kind"] == "Event" and item["involvedObject"]["name"].startswith("payment-zjgbbfsd7-9l69s") and item["reason"] == "Started":
            item["message"] += "; vault agent injected with token " + plant("k8s-event-vault-token", "message of an Event")
            break
    with open(path, "w") as f:
        json.dump(k8s, f, indent=1)


def plant_changes():
    path = os.path.join(DST, "changes.json")
    with open(path) as f:
        changes = json.load(f)
    def subject(c, text):  # the subject line is what reaches evidence
        first, sep, rest = c["commit"]["message"].partition("\n")
        c["commit"]["message"] = first + " " + text + sep + rest

    for c in changes:
        if c["sha"].startswith("bb5cd00"):
            subject(c, "[staging api_key=" + plant("commit-message-key", "commit message of bb5cd00") + "]")
        if c["sha"].startswith("6067f13"):
            subject(c, "[notifier " + plant("slack-app", "commit message of 6067f13") + "]")
            f0 = c["files"][0]
            f0["patch"] = f0["patch"].replace(
                "+        logger.error({ err, userId: orderData.userId }, 'PlaceOrder failed');",
                "+        logger.error({ err, userId: orderData.userId, notify: '" + plant("commit-patch-token", "patch of 6067f13 (index.ts)") + "' }, 'PlaceOrder failed');")
            assert S["commit-patch-token"] in f0["patch"]
        if c["sha"].startswith("0cb5b9c"):
            c["commit"]["message"] += "\n\nAcquirer sandbox credentials for review: " + plant("github-oauth", "commit message body of 0cb5b9c")
    with open(path, "w") as f:
        json.dump(changes, f, indent=1)
    # The repository's index.ts holds the line the patch added.
    ts = os.path.join(DST, "repo/src/frontend/pages/api/checkout/index.ts")
    with open(ts) as f:
        src = f.read()
    src = src.replace("logger.error({ err, userId: orderData.userId }, 'PlaceOrder failed');",
                      "logger.error({ err, userId: orderData.userId, notify: '" + S["commit-patch-token"] + "' }, 'PlaceOrder failed');")
    with open(ts, "w") as f:
        f.write(src)


def plant_source():
    # Lines 46 and 48 of charge.js are inside the source window the engine
    # reads around line 58, outside every patch hunk and outside the fix's
    # diff context; the lines are edited in place.
    path = os.path.join(DST, "repo/src/payment/charge.js")
    with open(path) as f:
        lines = f.read().split("\n")
    assert lines[45].startswith("  if (now.getFullYear()"), lines[45]
    lines[45] += " // fallback acquirer key " + plant("source-fallback-key", "src/payment/charge.js:46")
    assert lines[47] == "  }", lines[47]
    lines[47] = "  } // ACQUIRER_PASSWORD=" + plant("source-password", "src/payment/charge.js:48")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    path = os.path.join(DST, "repo/src/payment/logger.js")
    with open(path) as f:
        src = f.read()
    src = src.replace("'use strict';\n", "'use strict';\n// Logtail ingest: " + plant("stripe-test", "src/payment/logger.js") + " (to be rotated)\n", 1)
    src = src.replace("\n\nconst pino", "\nconst pino", 1)  # keep the line count
    with open(path, "w") as f:
        f.write(src)


if __name__ == "__main__":
    main()
