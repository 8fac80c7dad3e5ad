"""Data: a CronJob's activeDeadlineSeconds is shorter than its job now takes; every run is killed at the deadline."""
import datetime as dt

from sg import *

NAME = "warehouse-export-cronjob-active-deadline"


def build():
    sc = Scenario(NAME, "2027-02-03T03:20:00Z", """
        warehouse-export (a CronJob at 02:00) got activeDeadlineSeconds: 900 in k8s/data/warehouse-export.yaml when it
        was added, when an export took 8 minutes. The tables have grown and the export now needs about 20 minutes, so
        tonight's run was stopped at the 15-minute deadline (DeadlineExceeded) and the morning dashboards are empty.
        The export logged no error: it was killed mid-way. The api's 404 warnings and the lint commit are unrelated.
        The fix is the deadline in the CronJob's job template.""", repo="quanta-data/k8s")
    ns = "data"
    job_name = "warehouse-export-29513640"
    pod_name = f"{job_name}-{sc.suffix()}"
    ex = sc.svc("warehouse-export", ns, "python", pods=[pod_name])
    api = sc.svc("insights-api", ns, "go", npods=2)
    start = sc.at("02:00:03")
    killed = start + dt.timedelta(seconds=900)

    cj = "k8s/data/warehouse-export.yaml"
    sc.file(cj, """
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: warehouse-export
          namespace: data
        spec:
          schedule: "0 2 * * *"
          concurrencyPolicy: Forbid
          jobTemplate:
            spec:
              activeDeadlineSeconds: 900
              backoffLimit: 0
              template:
                spec:
                  restartPolicy: Never
                  containers:
                    - name: export
                      image: ghcr.io/quanta-data/warehouse-export:1.8.0
                      args: ["--tables", "orders,events,sessions"]
        """)
    sc.file(".yamllint", "rules:\n  line-length: {max: 140}\n")
    L = sc.line(cj, "activeDeadlineSeconds: 900")
    sc.commit("2027-02-02T17:10:00Z", ("Raj Patel", "raj@quanta.io", "rpatel"), "yamllint: longer lines", [(".yamllint", "rules:\n  line-length: {max: 120}\n", "rules:\n  line-length: {max: 140}\n")])

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    for i, tbl in enumerate(["orders", "events"]):
        t = start + dt.timedelta(seconds=20 + i * 400)
        sc.log(lab("warehouse-export", pod_name, "info"), t, json.dumps({"level": "info", "ts": iso(t, 3), "msg": "exporting table", "table": tbl}))
        sc.log(lab("warehouse-export", pod_name, "info"), t + dt.timedelta(seconds=380), json.dumps({"level": "info", "ts": iso(t + dt.timedelta(seconds=380), 3), "msg": "table exported", "table": tbl, "rows": sc.rng.randint(10**6, 10**8)}))
    sc.log(lab("warehouse-export", pod_name, "info"), start + dt.timedelta(seconds=820), json.dumps({"level": "info", "ts": iso(start + dt.timedelta(seconds=820), 3), "msg": "exporting table", "table": "sessions"}))
    t0, t1 = sc.at("01:40"), sc.at("03:19")
    decoy_errors(sc, api, t0, t1, 200, ['time={t} level=WARN msg="dashboard not found" status=404 id=' + "d_%d" % 88], labels=lab, level="warning")

    k = sc.k8s = K8s(sc)
    created = ts("2025-06-01T09:00:00Z")
    ctr = container_spec("export", "ghcr.io/quanta-data/warehouse-export:1.8.0", None, args=["--tables", "orders,events,sessions"])
    k.obj("batch/v1", "CronJob", "warehouse-export", ns, created,
          spec={"schedule": "0 2 * * *", "concurrencyPolicy": "Forbid", "suspend": False,
                "jobTemplate": {"spec": {"activeDeadlineSeconds": 900, "backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [ctr]}}}}},
          status={"lastScheduleTime": iso(start)})
    job = k.obj("batch/v1", "Job", job_name, ns, start, {"job-name": job_name},
                spec={"activeDeadlineSeconds": 900, "backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [ctr]}}},
                status={"failed": 1, "startTime": iso(start), "conditions": [{"type": "Failed", "status": "True", "reason": "DeadlineExceeded",
                        "message": "Job was active longer than specified deadline", "lastProbeTime": iso(killed), "lastTransitionTime": iso(killed)}]})
    job["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "warehouse-export", "uid": sc.uuid(), "controller": True, "blockOwnerDeletion": True}]
    k.event(ns, "Job", job_name, "DeadlineExceeded", "Job was active longer than specified deadline", killed, killed, 1, "Warning", component="job-controller", api_version="batch/v1")
    k.event(ns, "Pod", pod_name, "Killing", "Stopping container export", killed, killed, 1, host="ip-10-9-1-4.ec2.internal")
    k.event(ns, "CronJob", "warehouse-export", "SawCompletedJob", f"Saw completed job: {job_name}, status: Failed", killed + dt.timedelta(seconds=2), component="cronjob-controller", api_version="batch/v1")
    actr = container_spec("insights-api", "ghcr.io/quanta-data/insights-api:3.2.0", 8080)
    workload(k, api, actr, ["ip-10-9-1-4.ec2.internal", "ip-10-9-2-6.ec2.internal"], created, ts("2027-01-30T09:00:00Z"), 40, labels={"app": "insights-api"})

    sc.trigger = {"mention": "morning dashboards are empty, looks like last night's warehouse export didn't finish. no errors anywhere?"}
    sc.config = {"repo": "quanta-data/k8s", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "warehouse-export", "error_type": "timeout", "file": cj, "line": L,
                "line_tolerance": 1, "fix_keywords": ["activeDeadlineSeconds", "deadline"]}
    return sc
