"""Webhook delivery worker (Python): a dependency bump to urllib3 2.x on an old OpenSSL base image -> ImportError at startup, CrashLoopBackOff."""
import datetime as dt

from sg import *

NAME = "webhook-sender-urllib3-openssl-crashloop"


def build():
    sc = Scenario(NAME, "2026-10-29T11:20:00Z", """
        The dependency-bot PR merged at 10:31 bumped urllib3 from 1.26.20 to 2.2.3 in webhook-sender's
        requirements.txt. The service still builds on the amazonlinux2-based python:3.9 image whose ssl module is
        compiled against OpenSSL 1.0.2k, and urllib3 2.x refuses to import (\"urllib3 v2 only supports OpenSSL
        1.1.1+\"). Every new pod exits with status 1 at import time and goes into CrashLoopBackOff; the old ReplicaSet
        was already scaled down, so partner webhooks queue up. Kubernetes shows the crash but the defect is the
        pinned dependency in requirements.txt (pin urllib3<2 or move to a newer base image). The api-keys
        commit and the label-printing queue backlog are unrelated.""", repo="parcelhub/integrations")
    ns = "integrations"
    ws = sc.svc("webhook-sender", ns, "python", npods=2)
    rollout = sc.at("10:44:50")

    req = "webhook-sender/requirements.txt"
    sc.file(req, """
        celery==5.3.6
        redis==4.6.0
        requests==2.32.3
        urllib3==2.2.3
        tenacity==8.2.3
        structlog==24.1.0
        """)
    sc.file("webhook-sender/Dockerfile", """
        FROM public.ecr.aws/docker/library/python:3.9-amazonlinux2-2023.10
        WORKDIR /srv
        COPY requirements.txt .
        RUN pip install --no-cache-dir -r requirements.txt
        COPY sender/ sender/
        CMD ["celery", "-A", "sender", "worker", "-Q", "webhooks", "--concurrency=8"]
        """)
    sc.file("webhook-sender/sender/http.py", """
        import requests
        from requests.adapters import HTTPAdapter
        from urllib3.util.retry import Retry

        session = requests.Session()
        session.mount("https://", HTTPAdapter(max_retries=Retry(total=3, backoff_factor=0.5, status_forcelist=[502, 503, 504])))
        """)
    sc.file("api-keys/keys/rotation.py", """
        ROTATION_DAYS = 90
        """)
    L = sc.line(req, "urllib3==2.2.3")
    sc.commit("2026-10-29T10:52:17Z", ("Hugo Laurent", "hugo@parcelhub.eu", "hlaurent"), "api-keys: rotate every 90 days",
              [("api-keys/keys/rotation.py", "ROTATION_DAYS = 180", "ROTATION_DAYS = 90")])
    sc.commit("2026-10-29T10:31:05Z", ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", "dependabot[bot]"),
              """Bump urllib3 from 1.26.20 to 2.2.3 in /webhook-sender

              Bumps [urllib3](https://github.com/urllib3/urllib3) from 1.26.20 to 2.2.3.
              - [Release notes](https://github.com/urllib3/urllib3/releases)
              - [Changelog](https://github.com/urllib3/urllib3/blob/main/CHANGES.rst)

              ---
              updated-dependencies:
              - dependency-name: urllib3
                dependency-type: direct:production
              ...

              Signed-off-by: dependabot[bot] <support@github.com>""",
              [(req, "urllib3==1.26.20", "urllib3==2.2.3")], merged_by_github=True)

    tb = ("Traceback (most recent call last):\n"
          '  File "/usr/local/bin/celery", line 8, in <module>\n'
          "    sys.exit(main())\n"
          '  File "/usr/local/lib/python3.9/site-packages/celery/__main__.py", line 15, in main\n'
          "    sys.exit(_main())\n"
          '  File "/usr/local/lib/python3.9/site-packages/celery/bin/celery.py", line 236, in main\n'
          "    return celery(auto_envvar_prefix=\"CELERY\")\n"
          '  File "/srv/sender/__init__.py", line 3, in <module>\n'
          "    from sender.http import session\n"
          '  File "/srv/sender/http.py", line 1, in <module>\n'
          "    import requests\n"
          '  File "/usr/local/lib/python3.9/site-packages/requests/__init__.py", line 43, in <module>\n'
          "    import urllib3\n"
          '  File "/usr/local/lib/python3.9/site-packages/urllib3/__init__.py", line 42, in <module>\n'
          "    raise ImportError(\n"
          "ImportError: urllib3 v2 only supports OpenSSL 1.1.1+, currently the 'ssl' module is compiled with 'OpenSSL 1.0.2k-fips  26 Jan 2017'. "
          "See: https://github.com/urllib3/urllib3/issues/2168")
    lab = lambda s, pod: {"app": s, "namespace": ns, "pod": pod}
    t0, t1 = sc.at("10:15"), sc.at("11:18")
    old = [f"webhook-sender-{sc.pod_hash()}-{sc.suffix()}" for _ in range(2)]
    for t in sc.times(t0, rollout, 70):
        p = sc.rng.choice(old)
        sc.log(lab("webhook-sender", p), t, json.dumps({"event": "webhook delivered", "level": "info", "timestamp": iso(t, 6),
                                                        "partner": sc.rng.choice(["shopwave", "cartly", "merchantos"]), "status": 200,
                                                        "ms": sc.rng.randint(40, 900), "delivery_id": "dlv_" + sc.hex(12)}))
    restarts = {}
    for i, p in enumerate(ws.pods):
        t = rollout + dt.timedelta(seconds=5 + 4 * i)
        n, back = 0, 10
        while t < sc.now - dt.timedelta(seconds=3):
            sc.log(lab("webhook-sender", p), t, tb)
            n += 1
            last = t
            t += dt.timedelta(seconds=back + sc.rng.uniform(1, 3))
            back = min(back * 2, 300)
        restarts[p] = (n, last)
    for t in sc.times(t0, t1, 40):
        sc.log(lab("api-keys", "api-keys-6d5b8c7f9-w2p4k"), t, json.dumps({"event": "key validated", "level": "info", "timestamp": iso(t, 6)}))

    m0, m1 = sc.at("10:05"), sc.at("11:19")
    sc.gauge({"__name__": "celery_queue_length", "job": "celery-exporter", "queue_name": "webhooks"}, m0, m1,
             lambda t: sc.rng.randint(0, 20) if t < rollout else 20 + (t - rollout).total_seconds() * 1.8)
    sc.gauge({"__name__": "celery_queue_length", "job": "celery-exporter", "queue_name": "label-printing"}, m0, m1,
             lambda t: sc.rng.randint(150, 400))
    sc.gauge({"__name__": "kube_pod_container_status_waiting_reason", "namespace": ns, "container": "webhook-sender", "pod": ws.pods[0],
              "reason": "CrashLoopBackOff", "job": "kube-state-metrics"}, rollout + dt.timedelta(minutes=1), m1, lambda t: 1)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-20-3-55.eu-west-1.compute.internal", "ip-10-20-1-201.eu-west-1.compute.internal"]
    ctr = container_spec("webhook-sender", "8834120001.dkr.ecr.eu-west-1.amazonaws.com/webhook-sender:2026.10.29-1", None,
                         command=["celery", "-A", "sender", "worker", "-Q", "webhooks", "--concurrency=8"],
                         env={"CELERY_BROKER_URL": "redis://redis-broker.integrations.svc:6379/2"},
                         requests={"cpu": "250m", "memory": "256Mi"}, limits={"memory": "512Mi"})
    states = {}
    for i, p in enumerate(ws.pods):
        n, last = restarts[p]
        states[i] = {"state": waiting("CrashLoopBackOff", f"back-off 5m0s restarting failed container=webhook-sender pod={p}_{ns}({sc.uuid()})"),
                     "ready": False, "restarts": n - 1, "last": terminated("Error", 1, last - dt.timedelta(seconds=2), last, sc)}
    workload(k, ws, ctr, nodes, ts("2024-04-04T10:00:00Z"), rollout, 61, labels={"app": "webhook-sender"}, pod_states=states)
    k.items[-len(ws.pods) - 2]["spec"]["strategy"] = {"type": "Recreate"}
    for i, p in enumerate(ws.pods):
        k.event(ns, "Pod", p, "BackOff", f"Back-off restarting failed container webhook-sender in pod {p}_{ns}({sc.uuid()})",
                rollout + dt.timedelta(seconds=20), sc.now - dt.timedelta(seconds=40), restarts[p][0] * 4, "Warning", host=nodes[i],
                field_path="spec.containers{webhook-sender}")
    a1 = alert(sc, {"alertname": "KubePodCrashLooping", "container": "webhook-sender", "namespace": ns, "pod": ws.pods[0], "job": "kube-state-metrics",
                    "reason": "CrashLoopBackOff", "severity": "warning"},
               {"summary": "Pod is crash looping.", "description": f'Pod {ns}/{ws.pods[0]} (webhook-sender) is in waiting state (reason: "CrashLoopBackOff").'},
               rollout + dt.timedelta(minutes=15), 'max_over_time(kube_pod_container_status_waiting_reason{reason="CrashLoopBackOff"}[5m]) >= 1')
    a2 = alert(sc, {"alertname": "CeleryQueueBacklog", "queue_name": "webhooks", "job": "celery-exporter", "namespace": ns, "severity": "warning"},
               {"summary": "webhooks queue backing up", "description": "webhooks queue length 4,210 and growing."},
               rollout + dt.timedelta(minutes=20), "celery_queue_length > 1000")
    sc.trigger = {"alert": webhook([a1, a2], ["namespace"], "autoheal", "https://alertmanager.parcelhub.eu", route_key='{}/{namespace="integrations"}')}
    sc.config = {"repo": "parcelhub/integrations", "log_service_label": "app"}
    sc.truth = {"bucket": "code_bug", "service": "webhook-sender", "error_type": "dependency", "file": req, "line": L, "line_tolerance": 1,
                "fix_keywords": ["urllib3", "1.26", "<2", "OpenSSL", "base image"]}
    return sc
