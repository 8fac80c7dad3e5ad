"""Marketplace payouts worker: kustomize patch renamed an env var the Go binary requires -> CrashLoopBackOff."""
import datetime as dt

from sg import *

NAME = "payouts-worker-crashloop-renamed-env"


def build():
    sc = Scenario(NAME, "2026-03-12T09:35:00Z", """
        The 08:40 \"config cleanup\" commit renamed PAYOUTS_BANK_API_URL to BANK_API_URL in the prod kustomize
        patch for payouts-worker, but the binary still requires PAYOUTS_BANK_API_URL: every new container exits
        with status 1 (\"config: required env PAYOUTS_BANK_API_URL is empty\") and, with the Recreate strategy, no
        payouts are processed and the queue backs up. Fix the env name in k8s/overlays/prod/payouts-worker-env.yaml.
        The payouts-api pod restart and the ledger-sync warnings are unrelated.""", repo="tidepool-market/payments")
    ns = "payments"
    w = sc.svc("payouts-worker", ns, "go", version="1.42.0", npods=2)
    api = sc.svc("payouts-api", ns, "go", npods=2)
    sync = sc.svc("ledger-sync", ns, "python", npods=1)
    rollout = sc.at("08:52:30")

    patch = "k8s/overlays/prod/payouts-worker-env.yaml"
    sc.file(patch, """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: payouts-worker
        spec:
          template:
            spec:
              containers:
                - name: payouts-worker
                  env:
                    - name: BANK_API_URL
                      value: https://api.partnerbank.example/v3
                    - name: PAYOUTS_BATCH_SIZE
                      value: "250"
                    - name: PAYOUTS_QUEUE
                      value: payouts.requested
                    - name: LOG_LEVEL
                      value: info
        """)
    sc.file("k8s/overlays/prod/kustomization.yaml", """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: payments
        resources:
          - ../../base
        patches:
          - path: payouts-worker-env.yaml
          - path: payouts-api-replicas.yaml
        images:
          - name: payouts-worker
            newName: 481516234200.dkr.ecr.us-east-1.amazonaws.com/payouts-worker
            newTag: 1.42.0
        """)
    cfg = "payouts-worker/internal/config/config.go"
    sc.file(cfg, """
        package config

        import (
        	"fmt"
        	"os"
        	"strconv"
        )

        type Config struct {
        	BankAPIURL string
        	BatchSize  int
        	Queue      string
        }

        func required(name string) (string, error) {
        	v := os.Getenv(name)
        	if v == "" {
        		return "", fmt.Errorf("config: required env %s is empty", name)
        	}
        	return v, nil
        }

        func Load() (*Config, error) {
        	url, err := required("PAYOUTS_BANK_API_URL")
        	if err != nil {
        		return nil, err
        	}
        	bs, _ := strconv.Atoi(os.Getenv("PAYOUTS_BATCH_SIZE"))
        	if bs <= 0 {
        		bs = 100
        	}
        	return &Config{BankAPIURL: url, BatchSize: bs, Queue: os.Getenv("PAYOUTS_QUEUE")}, nil
        }
        """)
    sc.file("payouts-worker/cmd/worker/main.go", """
        package main

        import (
        	"log/slog"
        	"os"

        	"github.com/tidepool-market/payments/payouts-worker/internal/config"
        	"github.com/tidepool-market/payments/payouts-worker/internal/worker"
        )

        func main() {
        	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
        	cfg, err := config.Load()
        	if err != nil {
        		log.Error("startup failed", "err", err)
        		os.Exit(1)
        	}
        	log.Info("payouts-worker starting", "queue", cfg.Queue, "batch_size", cfg.BatchSize)
        	worker.Run(cfg, log)
        }
        """)
    L = sc.line(patch, "- name: BANK_API_URL")
    sc.commit("2026-03-12T08:40:19Z", ("Noah Fischer", "noah@tidepool.market", "nfischer"),
              """k8s: config cleanup for payments overlays (#918)

              Drop service prefixes from env names that are only used by one
              deployment; the prefix is redundant inside the pod.""",
              [(patch, "            - name: PAYOUTS_BANK_API_URL", "            - name: BANK_API_URL"),
               ("k8s/overlays/prod/kustomization.yaml", "    newTag: 1.41.3", "    newTag: 1.42.0")], merged_by_github=True)
    sc.commit("2026-03-11T17:02:55Z", ("Ama Owusu", "ama@tidepool.market", "aowusu"),
              "payouts-worker: default batch size 100",
              [(cfg, "		bs = 50", "		bs = 100")])

    lab = lambda a, pod, lvl: {"app": a, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("08:20"), sc.at("09:33")
    old_pods = [f"payouts-worker-{sc.pod_hash()}-{sc.suffix()}" for _ in range(2)]
    for t in sc.times(t0, rollout, 60):
        p = sc.rng.choice(old_pods)
        sc.log(lab("payouts-worker", p, "info"), t, f'time={iso(t, 3)} level=INFO msg="payout sent" payout_id=po_{sc.hex(12)} amount_cents={sc.rng.randint(500, 900000)} currency=USD bank_ref=PB{sc.rng.randint(10**9, 10**10)}')
    for p in old_pods:
        t = rollout - dt.timedelta(seconds=sc.rng.uniform(1, 3))
        sc.log(lab("payouts-worker", p, "info"), t, f'time={iso(t, 3)} level=INFO msg="shutting down, draining in-flight batch" in_flight={sc.rng.randint(0, 4)}')
    # crash loop: backoff 10s, 20s, 40s, ... capped at 5m
    restarts = {}
    for i, p in enumerate(w.pods):
        t = rollout + dt.timedelta(seconds=6 + 3 * i)
        n, back = 0, 10
        while t < sc.now - dt.timedelta(seconds=2):
            sc.log(lab("payouts-worker", p, "error"), t,
                   f'time={iso(t, 3)} level=ERROR msg="startup failed" err="config: required env PAYOUTS_BANK_API_URL is empty"')
            n += 1
            last = t
            t += dt.timedelta(seconds=back + sc.rng.uniform(0.5, 2))
            back = min(back * 2, 300)
        restarts[p] = (n, last)
    for t in sc.times(t0, t1, 70):
        sc.log(lab("payouts-api", api.pod(), "info"), t, f'time={iso(t, 3)} level=INFO msg="payout requested" payout_id=po_{sc.hex(12)} seller_id=sl_{sc.hex(8)} status=queued')
    for t in sc.times(t0, t1, 25):
        sc.log(lab("ledger-sync", sync.pods[0], "warn"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} WARNING ledger_sync.reconcile: {sc.rng.randint(1, 6)} payouts pending bank confirmation for more than 15m")

    m0, m1 = sc.at("08:10"), sc.at("09:34")
    down = lambda t: t >= rollout
    sc.gauge({"__name__": "rabbitmq_queue_messages_ready", "job": "rabbitmq", "queue": "payouts.requested", "vhost": "/payments"}, m0, m1,
             lambda t: (sc.rng.randint(0, 30) if not down(t) else 30 + (t - rollout).total_seconds() * 0.45))
    sc.counter({"__name__": "payouts_sent_total", "job": "payments/payouts-worker", "namespace": ns}, m0, m1,
               lambda t: 0 if down(t) else 0.5, initial=2_201_554)
    sc.gauge({"__name__": "kube_deployment_status_replicas_available", "namespace": ns, "deployment": "payouts-worker", "job": "kube-state-metrics"},
             m0, m1, lambda t: 0 if down(t) else 2)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-60-1-33.ec2.internal", "ip-10-60-2-91.ec2.internal"]
    ctr = container_spec("payouts-worker", "481516234200.dkr.ecr.us-east-1.amazonaws.com/payouts-worker:1.42.0", None,
                         env={"BANK_API_URL": "https://api.partnerbank.example/v3", "PAYOUTS_BATCH_SIZE": "250", "PAYOUTS_QUEUE": "payouts.requested", "LOG_LEVEL": "info"},
                         env_from=[{"secretRef": {"name": "payouts-bank-credentials"}}],
                         requests={"cpu": "100m", "memory": "128Mi"}, limits={"memory": "256Mi"})
    states = {}
    for i, p in enumerate(w.pods):
        n, last = restarts[p]
        states[i] = {"state": waiting("CrashLoopBackOff", f"back-off 5m0s restarting failed container=payouts-worker pod={p}_{ns}({sc.uuid()})"),
                     "ready": False, "restarts": n - 1,
                     "last": terminated("Error", 1, last - dt.timedelta(milliseconds=300), last + dt.timedelta(milliseconds=40), sc)}
    workload(k, w, ctr, nodes, ts("2025-06-01T12:00:00Z"), rollout, 39, labels={"app": "payouts-worker"}, pod_states=states)
    k.items[-len(w.pods) - 2]["spec"]["strategy"] = {"type": "Recreate"}
    for i, p in enumerate(w.pods):
        k.event(ns, "Pod", p, "BackOff", f"Back-off restarting failed container payouts-worker in pod {p}_{ns}({sc.uuid()})",
                rollout + dt.timedelta(seconds=20), sc.now - dt.timedelta(seconds=50), restarts[p][0] * 4, "Warning", host=nodes[i],
                field_path="spec.containers{payouts-worker}")
    k.event(ns, "Deployment", "payouts-worker", "ScalingReplicaSet", f"Scaled down replica set payouts-worker-{sc.pod_hash()} from 2 to 0",
            rollout - dt.timedelta(seconds=4), component="deployment-controller", api_version="apps/v1")
    k.event(ns, "Deployment", "payouts-worker", "ScalingReplicaSet", f"Scaled up replica set payouts-worker-{w.rs_hash} from 0 to 2",
            rollout, component="deployment-controller", api_version="apps/v1")
    actr = container_spec("payouts-api", "481516234200.dkr.ecr.us-east-1.amazonaws.com/payouts-api:2.7.0", 8080,
                          requests={"cpu": "100m", "memory": "128Mi"}, limits={"memory": "256Mi"}, readiness=http_probe("/readyz", 8080))
    workload(k, api, actr, nodes, ts("2025-06-01T12:00:00Z"), ts("2026-03-10T14:00:00Z"), 57, labels={"app": "payouts-api"},
             pod_states={1: {"restarts": 1, "state": running(sc.at("04:11:08")),
                             "last": terminated("Error", 2, ts("2026-03-10T14:00:30Z"), sc.at("04:11:02"), sc)}})
    k.secret("payouts-bank-credentials", ns, ts("2025-06-01T11:58:00Z"), ["PAYOUTS_BANK_CLIENT_ID", "PAYOUTS_BANK_CLIENT_SECRET"])
    sc.trigger = {"mention": "payouts-worker is crashlooping since the 8:50 deploy, payouts queue piling up (~1.5k). was it the config cleanup PR??"}
    sc.config = {"repo": "tidepool-market/payments", "log_service_label": "app", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "payouts-worker", "error_type": "config", "file": patch, "line": L,
                "line_tolerance": 2, "fix_keywords": ["PAYOUTS_BANK_API_URL", "env"]}
    return sc
